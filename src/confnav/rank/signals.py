"""Per-paper signals for the must-read ranking, each computed from what the store holds.

| signal | value |
| --- | --- |
| citations | the paper's citation count (looking back only, never with `at_conference`) |
| impact | predicted citation percentile from what was known at the conference (see impact.py) |
| award | 1 for a paper its venue's data names an award for, 0 for the others (a venue whose data names none: absent) |
| decision | by the decision's tier in its venue: oral 1, spotlight 2/3, its papers 1/3, side tracks 1/6, else 0 |
| rating_mean, rating_min | mean and lowest reviewer rating |
| confidence_weighted | ratings averaged with the reviewers' confidences as weights |
| agreement | 1 − standard deviation of the ratings / 4.5 (1: all reviewers agree) |
| track_record | the authors' accepted papers at earlier venues of the same conference (orals twice) |
| code | 1 when a code link is known |
| centrality | similarity to the centre of the paper's theme |
| momentum | change of the theme's share of papers since the previous venue |
| novelty | 1 − similarity to the closest paper of earlier venues |
| external:NAME | a number from a user-supplied file (mentions, ...; looking back only) |
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from confnav.errors import ConfnavError
from confnav.latest import LatestPerKey
from confnav.model import CitationCount, Paper, Venue, name_key, real_papers
from confnav.people import PeopleIndex
from confnav.rank.features import decision_values, novelty, text_vectors
from confnav.rank.impact import Contribution, impact_estimates
from confnav.store.protocols import AnalysisStore
from confnav.topics.build import topic_vectors
from confnav.topics.facts import ThemeFacts, ensure_topics, theme_facts
from confnav.topics.trends import theme_changes

CORE_SIGNALS = (
    "citations",
    "impact",
    "award",
    "decision",
    "rating_mean",
    "rating_min",
    "confidence_weighted",
    "agreement",
    "track_record",
    "code",
    "centrality",
    "momentum",
    "novelty",
)


@dataclass
class AuthorRecord:
    """One author's earlier accepted and oral papers at the conference."""

    name: str
    accepted: int = 0
    orals: int = 0


@dataclass
class PaperSignals:
    """Raw signal values of one paper (None where the data has nothing) and the context for reasons."""

    paper: Paper
    values: dict[str, float | None] = field(default_factory=dict)
    authors: list[AuthorRecord] = field(default_factory=list)  # authors with earlier accepted papers
    theme: ThemeFacts | None = None
    subtheme: str | None = None
    theme_share_before: float | None = None
    citations: CitationCount | None = None
    impact: list[Contribution] = field(default_factory=list)
    pk: int = -1  # the paper's row in the store


@dataclass
class VenueSignals:
    """Signals of every paper of a venue, and what could not be computed and why."""

    venue: Venue
    papers: list[PaperSignals]
    earlier: list[Venue]
    missing: dict[str, str] = field(default_factory=dict)
    impact_source: str | None = None
    _present: dict[str, list[float]] = field(
        default_factory=dict, init=False, repr=False
    )  # each signal's values, sorted

    def place(self, name: str, value: float) -> tuple[int, int]:
        """A value's place among the papers that have the signal (1: the highest; ties share the best) and how
        many have it."""
        if name not in self._present:
            self._present[name] = sorted(v for p in self.papers if (v := p.values.get(name)) is not None)
        present = self._present[name]
        return len(present) - bisect.bisect_right(present, value) + 1, len(present)

    def names(self) -> list[str]:
        present = {name for p in self.papers for name, v in p.values.items() if v is not None}
        return [n for n in CORE_SIGNALS if n in present] + sorted(n for n in present if n.startswith("external:"))


KEPT = 4  # venues' signals kept per process
_kept: LatestPerKey[tuple[tuple[str, int], ...], VenueSignals] = LatestPerKey(KEPT)


def venue_signals(store: AnalysisStore, venue_id: str, at_conference: bool = False) -> VenueSignals:
    """`compute_signals`, kept for the store's state: the rankings of one venue in a process (each theme's, a
    report's and its verification's) compute them once. Shared: a ranking reads them and changes nothing."""
    state = store.state()  # read first: a change made meanwhile leaves them stale
    key = (getattr(store, "location", id(store)), venue_id, at_conference)
    found = _kept.get(key, state)
    if found is None:
        found = compute_signals(store, venue_id, at_conference)
        _kept.put(key, state, found)
    return found


def compute_signals(store: AnalysisStore, venue_id: str, at_conference: bool = False) -> VenueSignals:
    """Every signal for every paper of a venue; signals the store cannot support are listed in `missing`.
    `at_conference` keeps to what was known when the venue opened: no citation counts, no external signals."""
    venue = store.get_venue(venue_id)
    venue_id = venue.id
    earlier = sorted(
        (v for v in store.venue_list() if v.conference == venue.conference and v.year < venue.year),
        key=lambda v: v.year,
    )
    papers = [PaperSignals(p, pk=pk) for pk, p in store.paper_rows(venue_id) if not p.placeholder]
    result = VenueSignals(venue, papers, earlier)
    decided = decision_values([item.paper.decision for item in papers])
    awarded = any(item.paper.award for item in papers)  # known when the venue opens: read in both modes
    for item, decision in zip(papers, decided, strict=True):
        item.values["decision"] = decision
        item.values.update(_review_signals(item.paper))
        item.values["award"] = float(item.paper.award is not None) if awarded else None
        item.values["code"] = 1.0 if item.paper.links.get("code") else None
    _track_record(store, result)
    _topic_signals(store, result)
    _impact(store, result)
    if at_conference:
        return result
    external = store.external_signals(venue_id)
    for item in papers:
        fetched = external.get(item.paper.id, {})
        item.citations = item.paper.citations or (
            CitationCount(int(fetched["citations"]), "a citation service") if "citations" in fetched else None
        )
        item.values["citations"] = float(item.citations.count) if item.citations else None
        for name, value in fetched.items():
            if name != "citations":
                item.values[f"external:{name}"] = value
    if not any(item.citations for item in papers):
        result.missing["citations"] = "no citation counts for this venue (ingest them or run 'confnav fetch citations')"
    return result


def _impact(store: AnalysisStore, result: VenueSignals) -> None:
    estimates = impact_estimates(store, result.venue.id)
    if isinstance(estimates, str):
        result.missing["impact"] = estimates
        return
    result.impact_source = estimates.source()
    for item in result.papers:
        item.values["impact"] = estimates.predicted.get(item.paper.id)
        item.impact = estimates.contributions.get(item.paper.id, [])


def _review_signals(paper: Paper) -> dict[str, float | None]:
    """The signals of a paper's reviews (None each without ratings)."""
    values: dict[str, float | None] = {}
    ratings = paper.ratings
    if not ratings:
        return dict.fromkeys(("rating_mean", "rating_min", "confidence_weighted", "agreement"))
    mean = sum(ratings) / len(ratings)  # plain arithmetic: numpy costs more than it saves on a few numbers
    values["rating_mean"] = float(mean)
    values["rating_min"] = float(min(ratings))
    confidences = paper.confidences if len(paper.confidences) == len(ratings) else [1.0] * len(ratings)
    weight = sum(confidences)
    values["confidence_weighted"] = (
        sum(r * c for r, c in zip(ratings, confidences, strict=True)) / weight if weight else values["rating_mean"]
    )
    spread = math.sqrt(sum((r - mean) ** 2 for r in ratings) / len(ratings))
    values["agreement"] = max(0.0, 1.0 - spread / 4.5) if len(ratings) > 1 else None
    return values


def _track_record(store: AnalysisStore, result: VenueSignals) -> None:
    if not result.earlier:
        result.missing["track_record"] = f"no earlier {result.venue.series} venue in the store"
        return
    accepted: Counter[str] = Counter()
    orals: Counter[str] = Counter()
    earlier = [paper for venue in result.earlier for paper in real_papers(store.iter_papers(venue.id))]
    people = PeopleIndex([*earlier, *(item.paper for item in result.papers)])  # profile ids tell namesakes apart
    for paper in earlier:
        if paper.decision.accepted:
            for author in paper.authors:
                accepted[people.key(author)] += 1
                orals[people.key(author)] += paper.decision.kind == "oral"
    for item in result.papers:
        item.authors = [  # only those with an earlier record: a few objects, not one per author
            AuthorRecord(a.name, accepted[k], orals[k])
            for a in item.paper.authors
            if name_key(a.name)
            for k in [people.key(a)]
            if accepted[k]
        ]
        item.values["track_record"] = float(sum(a.accepted + a.orals for a in item.authors))


def _topic_signals(store: AnalysisStore, result: VenueSignals) -> None:
    """Centrality, momentum and novelty need the semantic index and themes; say so when absent."""
    venue = result.venue.id
    try:
        ensure_topics(store, venue)
    except ConfnavError as exc:
        for name in ("centrality", "momentum", "novelty"):
            result.missing[name] = str(exc)
        return
    rows = [(item.pk, item.paper) for item in result.papers]
    themes = {t.id: t for t in theme_facts(store, venue, level=1, papers=dict(rows))}
    assigned = store.assignments(venue)
    for item in result.papers:
        where = assigned.get(item.pk)
        if where is None:  # a paper ingested since the themes were built (a server uses them as they are)
            continue
        item.theme = themes[where.theme]
        item.subtheme = where.subtheme
        item.values["centrality"] = where.confidence
    if not result.earlier:
        for name in ("momentum", "novelty"):
            result.missing[name] = f"no earlier {result.venue.series} venue in the store"
        return
    previous = result.earlier[-1]
    try:
        before = topic_vectors(store, previous.id)
    except ConfnavError as exc:
        for name in ("momentum", "novelty"):
            result.missing[name] = f"{previous.name}: {exc}"
        return
    now = topic_vectors(store, venue, rows)
    change = {t.id: t for t in theme_changes(store, previous.id, venue, before, now, list(themes.values()))}
    far = _novelty(store, now.model, result)
    for item, distance in zip(result.papers, far, strict=True):
        if item.theme is not None:
            theme_change = change[item.theme.id]
            item.values["momentum"] = theme_change.change
            item.theme_share_before = theme_change.before
        item.values["novelty"] = None if np.isnan(distance) else float(distance)


def _novelty(store: AnalysisStore, model: str, result: VenueSignals) -> np.ndarray:
    """Each paper's distance from the closest paper of the earlier venues, by text vector (NaN without one)."""
    now = text_vectors(store, model, result.venue.id, [item.pk for item in result.papers])
    before = [m for v in result.earlier if (m := text_vectors(store, model, v.id)) is not None]
    if now is None or not before:
        return np.full(len(result.papers), np.nan)
    present = np.abs(now).sum(axis=1) > 0
    far = np.full(len(result.papers), np.nan)
    far[present] = novelty(now[present], np.vstack(before))
    return far
