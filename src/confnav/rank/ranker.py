"""The must-read ranking: a weighted mean of normalised signals, with its reasons in plain words.

Each signal is turned into a percentile among the venue's papers that have it
(the decision keeps its tier value); a paper without a signal gets 0 for it.
The score is Σ weight × normalised value / Σ weight over the signals the venue
has. A light diversity step then keeps one theme from filling the top of the list.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from scipy.stats import rankdata

from confnav.errors import NotFoundError
from confnav.model import Paper
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

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.paper.id,
            "title": self.paper.title,
            "venue": self.paper.venue,
            "decision": self.paper.decision.name,
            "outcome": self.paper.decision.outcome.value,
            "score": round(self.score, 6),
            "reasons": self.reasons,
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


class Ranker(Protocol):
    def rank(self, store: AnalysisStore, venue: str, *, theme: str | None = None) -> Ranking: ...


def percentiles(values: list[float | None]) -> np.ndarray:
    """Each value's percentile among the present ones (ties share their mean rank); missing → 0."""
    result = np.zeros(len(values))
    present = [i for i, v in enumerate(values) if v is not None]
    if len(present) < 2:
        result[present] = 1.0
        return result
    ranks = rankdata(np.array([values[i] for i in present], dtype=float), method="average") - 1
    result[present] = ranks / (len(present) - 1)
    return result


class WeightedRanker:
    """The default ranker; `exclude` drops signals (used by the evaluation to hide the decision)."""

    def __init__(self, weights: dict[str, float] | None = None, exclude: Sequence[str] = (), diversify: bool = True):
        self.weights = dict(weights or DEFAULT_WEIGHTS)
        self.exclude = set(exclude)
        self.diversify = diversify

    def rank(self, store: AnalysisStore, venue: str, *, theme: str | None = None) -> Ranking:
        return self.rank_signals(compute_signals(store, venue), theme=theme)

    def rank_signals(self, signals: VenueSignals, theme: str | None = None) -> Ranking:
        """Rank from precomputed signals (the evaluation reuses them across bootstrap samples)."""
        items = signals.papers
        names = [n for n in signals.names() if n not in self.exclude and weight_of(self.weights, n) > 0]
        normalized = {
            n: (np.array([p.values.get(n) or 0.0 for p in items]) if n == "decision"
                else percentiles([p.values.get(n) for p in items]))
            for n in names
        }  # fmt: skip
        total = sum(weight_of(self.weights, n) for n in names) or 1.0
        ranked = []
        for i, item in enumerate(items):
            norm = {n: float(normalized[n][i]) for n in names}
            contributions = {n: weight_of(self.weights, n) * norm[n] / total for n in names}
            theme_label = item.theme.label if item.theme else None
            why = reasons(item, norm, signals)
            score = sum(contributions.values())
            ranked.append(RankedPaper(item.paper, score, dict(item.values), norm, contributions, why, theme_label))
        if theme is not None:
            ranked = [r for r, item in zip(ranked, items, strict=True) if _in_theme(item, theme)]
            if not ranked:
                raise NotFoundError(f"no theme {theme!r} in {signals.venue.id} (see 'confnav topics')")
        ranked.sort(key=lambda r: (-r.score, r.paper.id))
        if self.diversify:
            ranked = diversify(ranked)
        missing = {n: why for n, why in signals.missing.items() if n not in self.exclude}
        return Ranking(ranked, {n: weight_of(self.weights, n) for n in names}, missing)


def _in_theme(item: PaperSignals, theme: str) -> bool:
    return item.theme is not None and theme in (item.theme.id, item.subtheme)


def diversify(ranked: list[RankedPaper], head: int = 100) -> list[RankedPaper]:
    """Greedy re-order of the head: each pick loses DIVERSITY_PENALTY per paper of its theme already picked."""
    pool, picked, seen = list(ranked[: head * 3]), [], Counter[str | None]()
    while pool and len(picked) < head:
        best = max(range(len(pool)), key=lambda i: pool[i].score - DIVERSITY_PENALTY * seen[pool[i].theme])
        choice = pool.pop(best)
        seen[choice.theme] += 1
        picked.append(choice)
    return picked + sorted(pool + ranked[head * 3 :], key=lambda r: (-r.score, r.paper.id))


def reasons(item: PaperSignals, normalized: dict[str, float], signals: VenueSignals) -> list[str]:
    """Plain-word reasons, each built from the stored values it cites."""
    paper, values, said = item.paper, item.values, []
    said.append(paper.decision.name if paper.decision.accepted else f"decision: {paper.decision.name}")
    if paper.ratings:
        top = _top_share(normalized.get("rating_mean"))
        listed = ", ".join(f"{r:g}" for r in paper.ratings)
        said.append(f"ratings {listed} (mean {values['rating_mean']:.2f}{top})")
    else:
        said.append("no reviewer ratings in the data")
    earlier = [a for a in item.authors if a.accepted]
    if earlier:
        conference = signals.venue.series
        with_orals = sum(1 for a in earlier if a.orals)
        text = f"{len(earlier)} author{'s' * (len(earlier) > 1)} with earlier {conference} papers"
        said.append(text + (f" ({with_orals} with orals)" if with_orals else ""))
    if values.get("code"):
        said.append("code released")
    if item.theme is not None and normalized.get("centrality", 0) >= 0.75:
        said.append(f"central in '{item.theme.label}'")
    if item.theme is not None and values.get("momentum") is not None and abs(values["momentum"] or 0) >= 0.005:
        before, after = item.theme_share_before or 0.0, item.theme.share
        verb = "grew" if (values["momentum"] or 0) > 0 else "shrank"
        said.append(f"theme '{item.theme.label}' {verb} from {before:.1%} to {after:.1%} of papers")
    if normalized.get("novelty", 0) >= 0.9:
        said.append(f"far from earlier papers (novelty{_top_share(normalized['novelty'])})")
    for name in sorted(n for n in values if n.startswith("external:") and values[n] is not None):
        said.append(f"{name.split(':', 1)[1]} {values[name]:g}{_top_share(normalized.get(name))}")
    return said


def _top_share(percentile: float | None) -> str:
    if percentile is None or percentile < 0.5:
        return ""
    return f", top {max(1, round((1 - percentile) * 100))}%"
