"""The personal must-read: a venue's must-read ranking (in its chosen mode) blended with relevance to a profile.

Relevance is the profile model's score scaled to the venue's best (papers below the venue's average count 0),
as `rank --like` scales it, so it sits on the ranking's 0-1 scale and only papers near the profile gain; the
blend is (1 - weight) × must-read + weight × relevance. Each paper's reasons
name the profile item it is closest to first, then the venue's own reasons.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

import numpy as np

from confnav.errors import ConfnavError
from confnav.latest import LatestPerKey
from confnav.personal.profiles import DEFAULT_PROFILE
from confnav.personal.recommend import RecommendStore, profile_taste
from confnav.personal.taste import DEFAULT_PARAMS, TasteParams
from confnav.rank import RankedPaper, Ranker, Ranking, RankMode, WeightedRanker, make_ranker
from confnav.store.protocols import AnalysisStore

PERSONAL_WEIGHT = 0.5


KEPT = 4  # venue rankings kept per process: a mark changes the profile, not the venue's ranking
_rankings: LatestPerKey[tuple[tuple[str, int], ...], Ranking] = LatestPerKey(KEPT)


class PersonalStore(RecommendStore, AnalysisStore, Protocol):
    """A store with papers, vectors, profiles and what the ranking reads."""


def personal_rank(
    store: PersonalStore,
    venue: str,
    profile: str = DEFAULT_PROFILE,
    mode: RankMode | None = None,
    *,
    weight: float = PERSONAL_WEIGHT,
    theme: str | None = None,
    ranker: Ranker | None = None,
    params: TasteParams = DEFAULT_PARAMS,
) -> Ranking:
    """The venue's ranking (`ranker`, default the settings' ranker in `mode`) re-ordered for the profile; the
    profile's own and marked papers are left out. Each paper's `values`/`contributions` gain "profile"."""
    if not 0.0 <= weight <= 1.0:
        raise ConfnavError(f"the profile's weight is between 0 and 1, not {weight}")
    ranking = _venue_ranking(store, venue, ranker or make_ranker(store.settings, mode=mode), theme)
    taste = profile_taste(store, profile, venue, include_rejected=True, params=params)
    above = np.maximum(0.0, taste.scores - float(np.mean(taste.scores))) if len(taste.scores) else taste.scores
    relevance = above / (float(above.max()) or 1.0) if len(above) else above
    index_of = {paper.id: i for i, paper in enumerate(taste.papers)}
    blended: list[RankedPaper] = []
    for item in ranking.papers:
        i = index_of.get(item.paper.id)
        if i is None:
            continue  # the profile's own or marked paper, or one without a vector
        share = float(relevance[i])
        score = (1 - weight) * item.score + weight * share
        blended.append(
            replace(
                item,
                score=score,
                values={**item.values, "profile": float(taste.scores[i])},
                normalized={**item.normalized, "profile": share},
                contributions={
                    **{k: (1 - weight) * v for k, v in item.contributions.items()},
                    "profile": weight * share,
                },
                reasons=[taste.reason(i), *item.reasons],
            )
        )
    blended.sort(key=lambda r: -r.score)  # stable: ties keep the venue's order
    weights = {**ranking.weights, "profile": weight}
    explanation = f"{ranking.explanation} Blended with closeness to profile {profile!r} (weight {weight:g})."
    return replace(ranking, papers=blended, weights=weights, explanation=explanation.strip())


def _venue_ranking(store: PersonalStore, venue: str, ranker: Ranker, theme: str | None) -> Ranking:
    """The venue's ranking, kept per store state for the default ranker (its settings are the key), so a
    refit after a mark re-blends without ranking the venue again; another ranker ranks every time."""
    if not isinstance(ranker, WeightedRanker):
        return ranker.rank(store, venue, theme=theme)
    settings = (ranker.mode, tuple(sorted(ranker.overrides.items())), tuple(sorted(ranker.exclude)), ranker.diversify)
    key, state = (getattr(store, "location", id(store)), venue, theme, settings), store.state()
    if (kept := _rankings.get(key, state)) is None:
        kept = ranker.rank(store, venue, theme=theme)
        _rankings.put(key, state, kept)
    return kept
