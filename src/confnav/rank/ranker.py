"""The must-read ranking: a weighted mean of normalised signals, with its reasons in plain words.

Each signal is turned into a percentile among the venue's papers that have it
(the decision keeps its tier value); a paper without a signal gets 0 for it.
The score is Σ weight × normalised value / Σ weight over the signals the venue
has. A light diversity step then keeps one theme from filling the top of the list,
never lifting a paper above one of a higher decision tier; the score shown is the
one the list is sorted by (after the diversity penalty), so it never rises down the list.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from confnav.errors import NotFoundError
from confnav.gc_pause import collection_paused
from confnav.model import Paper
from confnav.rank.features import percentile_in
from confnav.rank.signals import PaperSignals, VenueSignals, compute_signals
from confnav.rank.weights import DEFAULT_WEIGHTS, weight_of
from confnav.store.protocols import AnalysisStore

DIVERSITY_PENALTY = 0.03  # score lost per paper of the same theme already above


@dataclass
class RankedPaper:
    """A paper, its score, the signal values behind it, and the reasons shown to the user."""

    paper: Paper
    score: float
    values: dict[str, float | None]
    normalized: dict[str, float]
    contributions: dict[str, float]
    reasons: list[str]
    theme: str | None = None
    base_score: float | None = None  # before the diversity penalty
    explained: list[str] = field(default_factory=list)  # the impact predictor's largest contributions

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.paper.id,
            "title": self.paper.title,
            "venue": self.paper.venue,
            "decision": self.paper.decision.name,
            "outcome": self.paper.decision.outcome.value,
            "score": round(self.score, 6),
            "base_score": round(self.score if self.base_score is None else self.base_score, 6),
            "reasons": self.reasons,
            "impact_explained": self.explained,
            "theme": self.theme,
            "signals": {k: (None if v is None else round(v, 6)) for k, v in self.values.items()},
            "normalized": {k: round(v, 6) for k, v in self.normalized.items()},
            "contributions": {k: round(v, 6) for k, v in self.contributions.items()},
        }


@dataclass
class Ranking:
    """Ranked papers plus the signals that could not be computed for this venue, with why."""

    papers: list[RankedPaper]
    weights: dict[str, float]
    missing: dict[str, str] = field(default_factory=dict)
    typical: dict[str, float] = field(default_factory=dict)  # the venue's mean normalised value of each signal


class Ranker(Protocol):
    def rank(self, store: AnalysisStore, venue: str, *, theme: str | None = None) -> Ranking: ...


def _decision(item: RankedPaper) -> float:
    return item.values.get("decision") or 0.0


def percentiles(values: list[float | None]) -> np.ndarray:
    """Each value's percentile among the present ones (ties share their mean rank; alone: 1); missing → 0."""
    return np.nan_to_num(percentile_in(values, alone=1.0), nan=0.0)


class WeightedRanker:
    """The default ranker; `exclude` drops signals (used by the evaluation to hide the decision);
    `at_conference` keeps to what was known when the venue opened (no citations, no external signals)."""

    def __init__(
        self,
        weights: dict[str, float] | None = None,
        exclude: Sequence[str] = (),
        diversify: bool = True,
        at_conference: bool = False,
    ) -> None:
        self.weights = dict(weights or DEFAULT_WEIGHTS)
        self.exclude = set(exclude)
        self.diversify = diversify
        self.at_conference = at_conference

    def rank(self, store: AnalysisStore, venue: str, *, theme: str | None = None) -> Ranking:
        with collection_paused():  # tens of thousands of objects, all kept
            return self.rank_signals(compute_signals(store, venue, self.at_conference), theme=theme)

    def rank_signals(self, signals: VenueSignals, theme: str | None = None) -> Ranking:
        """Rank from precomputed signals (the evaluation reuses them across bootstrap samples)."""
        items = signals.papers
        names = [n for n in signals.names() if n not in self.exclude and weight_of(self.weights, n) > 0]
        normalized = {
            n: (
                np.array([p.values.get(n) or 0.0 for p in items])
                if n == "decision"
                else percentiles([p.values.get(n) for p in items])
            )
            for n in names
        }
        weights = {n: weight_of(self.weights, n) for n in names}
        total = sum(weights.values()) or 1.0
        typical = {n: float(np.mean(normalized[n])) for n in names}  # a reason must beat the venue's average
        ranked = []
        for i, item in enumerate(items):
            norm = {n: float(normalized[n][i]) for n in names}
            contributions = {n: weights[n] * norm[n] / total for n in names}
            theme_label = item.theme.label if item.theme else None
            raised = {n for n in names if norm[n] > typical[n]}
            why = reasons(item, norm, raised, signals)
            score = sum(contributions.values())
            explained = [str(c) for c in item.impact]
            paper, values = item.paper, dict(item.values)
            ranked.append(RankedPaper(paper, score, values, norm, contributions, why, theme_label, score, explained))
        if theme is not None:
            ranked = [r for r, item in zip(ranked, items, strict=True) if _in_theme(item, theme)]
            if not ranked:
                raise NotFoundError(f"no theme {theme!r} in {signals.venue.id} (see 'confnav topics')")
        ranked.sort(key=lambda r: (-r.score, r.paper.id))
        if self.diversify:
            ranked = diversify(ranked)
        missing = {n: why for n, why in signals.missing.items() if n not in self.exclude}
        return Ranking(ranked, weights, missing, typical)


def _in_theme(item: PaperSignals, theme: str) -> bool:
    return item.theme is not None and theme in (item.theme.id, item.subtheme)


def diversify(ranked: list[RankedPaper], head: int = 100) -> list[RankedPaper]:
    """Greedy re-order of the head: each pick loses DIVERSITY_PENALTY per paper of its theme already picked,
    and may pass only papers of its own decision tier or lower. Scores become the penalised ones, never rising
    (the papers are updated in place: they are the ranking's own)."""
    pool, picked, seen = list(ranked[: head * 3]), list[RankedPaper](), Counter[str | None]()
    while pool and len(picked) < head:
        best, best_score, highest = 0, -np.inf, -np.inf
        for i, item in enumerate(pool):
            if _decision(item) >= highest:  # no paper of a higher tier is above it in the pool
                adjusted = item.score - DIVERSITY_PENALTY * seen[item.theme]
                if adjusted > best_score:
                    best, best_score = i, adjusted
            highest = max(highest, _decision(item))
        choice = pool.pop(best)
        seen[choice.theme] += 1
        choice.base_score, choice.score = choice.score, best_score
        picked.append(choice)
    rest = sorted(pool + ranked[head * 3 :], key=lambda r: (-r.score, r.paper.id))
    ceiling = np.inf
    for item in picked + rest:  # the list is read top-down: a score never exceeds the one above it
        ceiling = item.score = min(ceiling, item.score)
    return picked + rest


def reasons(item: PaperSignals, normalized: dict[str, float], raised: set[str], signals: VenueSignals) -> list[str]:
    """Plain-word reasons for what raises this paper above the venue's average, each with its figure and source."""
    paper, values, said = item.paper, item.values, []
    venue = signals.venue.name
    if "citations" in raised and item.citations is not None:
        when = f", as of {item.citations.as_of}" if item.citations.as_of else ""
        top = _top_share(normalized.get("citations"), venue)
        said.append(f"{item.citations.count:,} citations, {item.citations.source}{when}{top}")
    if "impact" in raised and signals.impact_source:
        said.append(
            f"predicted impact{_top_share(normalized.get('impact'), venue) or ' above the median'}"
            f" ({signals.impact_source})"
        )
    if "decision" in raised and paper.decision.accepted:
        said.append(paper.decision.name)
    if paper.ratings and "rating_mean" in raised:
        top = _top_share(normalized.get("rating_mean"), venue)
        listed = ", ".join(f"{r:g}" for r in paper.ratings)
        said.append(f"ratings {listed}, mean {values['rating_mean']:.2f}{top}")
    earlier = [a for a in item.authors if a.accepted]
    if earlier and "track_record" in raised:
        conference = signals.venue.series
        with_orals = sum(1 for a in earlier if a.orals)
        text = f"{len(earlier)} author{'s' * (len(earlier) > 1)} with earlier {conference} papers"
        said.append(text + (f" ({with_orals} with orals)" if with_orals else ""))
    if values.get("code") and "code" in raised:
        said.append("code released")
    if item.theme is not None and normalized.get("centrality", 0) >= 0.75:
        said.append(f"central in '{item.theme.label}'")
    if item.theme is not None and (values.get("momentum") or 0) >= 0.005 and "momentum" in raised:
        before, after = item.theme_share_before or 0.0, item.theme.share
        said.append(f"theme '{item.theme.label}' grew from {before:.1%} to {after:.1%} of papers")
    if normalized.get("novelty", 0) >= 0.9:
        said.append(f"far from earlier papers{_top_share(normalized['novelty'], venue)}")
    for name in sorted(n for n in values if n.startswith("external:") and values[n] is not None and n in raised):
        said.append(f"{name.split(':', 1)[1]} {values[name]:g}{_top_share(normalized.get(name), venue)}")
    return said


def _top_share(percentile: float | None, venue: str) -> str:
    if percentile is None or percentile < 0.5:
        return ""
    return f" (top {max(1, round((1 - percentile) * 100))}% of {venue})"
