"""The must-read ranking: a weighted mean of normalised signals, with its reasons in plain words.

Each signal is turned into a percentile among the venue's papers that have it
(the decision keeps its tier value; citation counts go on a log scale from the venue's least
to its most cited paper, so a 45,000-citation paper stands well above a 7,000-citation one); a paper
without a signal gets 0 for it. The weights are the mode's (see mode.py and weights.py).
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

from confnav.errors import NotFoundError, excerpt
from confnav.gc_pause import collection_paused
from confnav.model import Paper
from confnav.rank.features import percentile_in
from confnav.rank.mode import RankMode, parse_mode, resolve_mode
from confnav.rank.reasons import add_tldrs, explanation, reasons
from confnav.rank.signals import PaperSignals, VenueSignals, venue_signals
from confnav.rank.weights import award_weight, checked_weights, weight_of, weights_for
from confnav.registry import Registry
from confnav.settings import Settings
from confnav.store.protocols import AnalysisStore
from confnav.summarize.stored import stored_tldrs
from confnav.summarize.tldr import ExtractiveSummarizer

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
    mode: RankMode = RankMode.LOOKING_BACK

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.paper.id,
            "title": self.paper.title,
            "venue": self.paper.venue,
            "decision": self.paper.decision.name,
            "outcome": self.paper.decision.outcome.value,
            "mode": self.mode.value,
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
    """Ranked papers, the mode and its explanation (shown once per list), and the signals that could not be
    computed for this venue, with why."""

    papers: list[RankedPaper]
    weights: dict[str, float]
    missing: dict[str, str] = field(default_factory=dict)
    typical: dict[str, float] = field(default_factory=dict)  # the venue's mean normalised value of each signal
    mode: RankMode = RankMode.LOOKING_BACK
    explanation: str = ""

    def header(self) -> str:
        """The mode and what it means, as a list's heading line says it."""
        return f"Mode: {self.mode.label}. {self.explanation}"


class Ranker(Protocol):
    """A venue's papers (or one theme's) in reading order, each with its score and reasons."""

    def rank(self, store: AnalysisStore, venue: str, *, theme: str | None = None) -> Ranking: ...


def _decision(item: RankedPaper) -> float:
    return item.values.get("decision") or 0.0


def percentiles(values: list[float | None]) -> np.ndarray:
    """Each value's percentile among the present ones (ties share their mean rank; alone: 1); missing → 0."""
    return np.nan_to_num(percentile_in(values, alone=1.0), nan=0.0)


class WeightedRanker:
    """The default ranker. `mode` (a RankMode or its name; None: the venue's default) picks the question and
    the default weights, which `weights` overrides; `at_conference=True` is the older spelling of that mode.
    `exclude` drops signals (used by the evaluation to hide the decision)."""

    def __init__(
        self,
        weights: dict[str, float] | None = None,
        exclude: Sequence[str] = (),
        diversify: bool = True,
        at_conference: bool = False,
        mode: RankMode | str | None = None,
    ) -> None:
        self.overrides = checked_weights(weights)
        self.exclude = set(exclude)
        self.diversify = diversify
        self.mode = parse_mode(mode, at_conference)

    def rank(self, store: AnalysisStore, venue: str, *, theme: str | None = None) -> Ranking:
        venue = store.get_venue(venue).id  # any spelling of a venue ranks it; the store's methods take its id
        mode = resolve_mode(store, venue, self.mode)
        with collection_paused():  # tens of thousands of objects, all kept
            signals = venue_signals(store, venue, mode is RankMode.AT_CONFERENCE)
            ranking = self.rank_signals(signals, theme=theme, mode=mode)
        if mode is RankMode.AT_CONFERENCE:
            add_tldrs(ranking.papers, ExtractiveSummarizer(venue, stored_tldrs(store, venue)))
        return ranking

    def rank_signals(self, signals: VenueSignals, theme: str | None = None, mode: RankMode | None = None) -> Ranking:
        """Rank from precomputed signals (the evaluation reuses them across bootstrap samples)."""
        items = signals.papers
        mode = mode or self.mode or _mode_of(signals)
        chosen = weights_for(mode is RankMode.LOOKING_BACK) | self.overrides
        weights = {n: weight_of(chosen, n) for n in signals.names() if n not in self.exclude}
        if "award" in weights and "award" not in self.overrides:  # a rule over the others, not a number
            weights["award"] = award_weight(weights, mode is RankMode.LOOKING_BACK)
        weights = {n: w for n, w in weights.items() if w > 0}
        names = list(weights)
        shares = {n: percentiles([p.values.get(n) for p in items]) for n in names}  # what reasons say ("top 3%")
        normalized = {n: _normalized(n, items, shares[n]) for n in names}
        total = sum(weights.values()) or 1.0
        typical = {n: float(np.mean(normalized[n])) for n in names}  # a reason must beat the venue's average
        ranked = []
        for i, item in enumerate(items):
            norm = {n: float(normalized[n][i]) for n in names}
            contributions = {n: weights[n] * norm[n] / total for n in names}
            theme_label = item.theme.label if item.theme else None
            raised = {n for n in names if norm[n] > typical[n]}
            why = reasons(item, {n: float(shares[n][i]) for n in names}, raised, signals, mode)
            score = sum(contributions.values())
            explained = [str(c) for c in item.impact]
            paper, values = item.paper, dict(item.values)
            ranked.append(
                RankedPaper(paper, score, values, norm, contributions, why, theme_label, score, explained, mode)
            )
        if theme is not None:
            ranked = [r for r, item in zip(ranked, items, strict=True) if _in_theme(item, theme)]
            if not ranked:
                raise NotFoundError(f"no theme {excerpt(theme)} in {signals.venue.id} (see 'confnav topics')")
        ranked.sort(key=lambda r: (-r.score, r.paper.id))
        if self.diversify:
            ranked = diversify(ranked)
        missing = {n: why for n, why in signals.missing.items() if n not in self.exclude}
        missing |= unheld_external(self.overrides, signals, mode)
        return Ranking(ranked, weights, missing, typical, mode, explanation(signals, weights, mode))


def _mode_of(signals: VenueSignals) -> RankMode:
    """The default mode for signals computed beforehand: looking back when they hold citation counts."""
    return RankMode.LOOKING_BACK if any(p.citations for p in signals.papers) else RankMode.AT_CONFERENCE


def _normalized(name: str, items: list[PaperSignals], shares: np.ndarray) -> np.ndarray:
    """A signal's values on the scale the score adds: the decision's tier value, an award's 1 or 0, citation counts
    on a log scale from the venue's least to its most cited paper (so a venue of any age scales to 0-1, and 45,000
    citations stand well above 7,000; an unknown count is 0), anything else its percentile."""
    if name in ("decision", "award"):
        return np.array([p.values.get(name) or 0.0 for p in items])
    if name == "citations":
        known = [p.values.get(name) for p in items]
        logs = np.array([np.log1p(max(0.0, v)) if v is not None else np.nan for v in known])
        if np.all(np.isnan(logs)):
            return np.zeros(len(items))
        low, high = float(np.nanmin(logs)), float(np.nanmax(logs))
        scaled = (logs - low) / (high - low) if high > low else np.ones(len(items))
        return np.nan_to_num(scaled, nan=0.0)
    return shares


def _in_theme(item: PaperSignals, theme: str) -> bool:
    return item.theme is not None and theme in (item.theme.id, item.subtheme)


def diversify(ranked: list[RankedPaper], head: int = 100) -> list[RankedPaper]:
    """Greedy re-order of the head: each pick loses DIVERSITY_PENALTY per paper of its theme already picked (papers
    without a theme share none), and may pass only papers of its own decision tier or lower. Scores become the
    penalised ones, never rising (the papers are updated in place: they are the ranking's own)."""
    pool, picked, seen = list(ranked[: head * 3]), list[RankedPaper](), Counter[str | None]()
    while pool and len(picked) < head:
        best, best_score, highest = 0, -np.inf, -np.inf
        for i, item in enumerate(pool):
            if _decision(item) >= highest:  # no paper of a higher tier is above it in the pool
                adjusted = item.score - DIVERSITY_PENALTY * seen[item.theme] * (item.theme is not None)
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


RANKERS: Registry[Ranker] = Registry("ranker", ("rank",), arguments=("weights", "mode"))
RANKERS.register("weighted", WeightedRanker)
DEFAULT_RANKER = "weighted"


def make_ranker(
    settings: Settings, weights: dict[str, float] | None = None, mode: RankMode | str | None = None
) -> Ranker:
    """The ranker the settings choose (`steps.ranker`, else weighted), made with `weights` and `mode` (a plugged
    `module:Class` is called with those two keywords, as WeightedRanker is)."""
    return RANKERS.create(settings.steps.ranker or DEFAULT_RANKER, weights=weights, mode=mode)


def ranker_name(settings: Settings, ranker: Ranker | None) -> str:
    """The name of the ranker a report ranks with (`ranker`, else the one the settings choose), recorded in the
    report so that its reasons are checked against that ranker."""
    return RANKERS.name_of(ranker) if ranker is not None else settings.steps.ranker or DEFAULT_RANKER


def ranker_named(settings: Settings, name: str, mode: RankMode | str | None = None) -> Ranker:
    """The ranker a report names, made again in `mode` to check its reasons: a registered one or the settings'
    choice, else a plugged `module:Class` only when this process has imported it (as the caller that built it)."""
    return RANKERS.create(name, imports=name == (settings.steps.ranker or DEFAULT_RANKER), weights=None, mode=mode)


def unheld_external(overrides: dict[str, float], signals: VenueSignals, mode: RankMode) -> dict[str, str]:
    """Why each external signal weighted by the caller plays no part (a misspelt name, values stored for another
    venue, or a question that does not use them): said as an unused built-in signal is, never dropped silently."""
    held = set(signals.names())
    stored = sorted(n.removeprefix("external:") for n in held if n.startswith("external:"))
    known = f"stored for {signals.venue.id}: {', '.join(stored)}" if stored else f"none stored for {signals.venue.id}"
    return {
        name: f"no values of {excerpt(name.removeprefix('external:'))} ({known}; 'confnav signals' stores them)"
        if mode is RankMode.LOOKING_BACK
        else "external signals count only when looking back, not at the conference"
        for name, weight in overrides.items()
        if name.startswith("external:") and weight > 0 and name not in held
    }
