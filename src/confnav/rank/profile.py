"""Rank for a reading profile: the must-read score blended with relevance to papers the user liked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from confnav.rank.ranker import RankedPaper
from confnav.search.engine import Searcher
from confnav.store import PaperFilter
from confnav.store.protocols import AnalysisStore

PROFILE_WEIGHT = 0.5


def blend_with_profile(store: AnalysisStore, ranked: list[RankedPaper], like: Sequence[str]) -> list[RankedPaper]:
    """0.5 × must-read score + 0.5 × relevance (scaled to the best), liked papers left out."""
    venue = ranked[0].paper.venue if ranked else None
    where = PaperFilter(venue=venue)  # relevance among this venue's papers only, so none is cut off by another's
    hits = Searcher(store).recommend(list(like), where=where, limit=len(ranked) + len(like)).hits
    relevance = {h.paper.id: h.score for h in hits}
    best = max(relevance.values(), default=1.0) or 1.0
    blended = []
    for item in ranked:
        if item.paper.id in like:
            continue
        share = max(0.0, relevance.get(item.paper.id, 0.0)) / best
        reasons = (
            [*item.reasons, f"close to your liked papers (relevance {share:.2f})"] if share >= 0.5 else item.reasons
        )
        score = (1 - PROFILE_WEIGHT) * item.score + PROFILE_WEIGHT * share
        blended.append(replace(item, score=score, reasons=reasons))
    return sorted(blended, key=lambda r: (-r.score, r.paper.id))
