"""What was known about each paper when its venue opened: the impact predictor's inputs.

Nothing here reads a citation count of the venue being described. Track records
read the authors' and institutions' papers at venues of earlier years only (and,
for counts, the venue itself: who submits many papers is known when it opens).

| feature | value |
| --- | --- |
| decision, accepted | the decision's value by its tier in the venue (as in the ranking) and 1 for an acceptance |
| rating, confidence, spread | mean rating, mean confidence and rating spread, as percentiles in the venue |
| authors | log(1 + number of authors) |
| author_papers | log(1 + most papers by one author at this and earlier loaded venues) |
| author_citations | the most-cited author's mean citation percentile at earlier venues |
| institution_papers | log(1 + most papers by one institution at this and earlier loaded venues) |
| novelty | 1 − similarity to the closest paper of earlier venues |
| crowding | mean similarity to the 10 closest papers of the same venue |
| momentum | crowding now minus the same at earlier venues (the topic grew) |
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from confnav.decisions import venue_tier
from confnav.model import Decision, Paper, Venue, fold, named_places
from confnav.people import PeopleIndex
from confnav.store.protocols import AnalysisStore

FEATURES: dict[str, str] = {
    "decision": "the decision",
    "accepted": "accepted",
    "rating": "reviewers' mean rating",
    "confidence": "reviewers' confidence",
    "spread": "disagreement among reviewers",
    "authors": "number of authors",
    "author_papers": "authors' papers at loaded venues",
    "author_citations": "authors' earlier papers' citations",
    "institution_papers": "institutions' papers at loaded venues",
    "novelty": "distance from earlier papers",
    "crowding": "papers on the same topic at this venue",
    "momentum": "growth of the topic since earlier venues",
}
NEIGHBOURS = 10
TIER_VALUES = {0: 1.0, 1: 2 / 3, 2: 1 / 3, 3: 1 / 6}  # the decision's value by tier (oral, spotlight, ...)


def decision_values(decisions: Sequence[Decision]) -> list[float]:
    """Each decision's value by its tier among its venue's (decisions.venue_tier): oral 1, spotlight 2/3, the
    venue's papers 1/3, side tracks 1/6, not accepted 0; `decisions` are one venue's."""
    kinds = {d.kind for d in decisions if d.accepted}
    return [TIER_VALUES.get(venue_tier(d, kinds), 0.0) if d.accepted else 0.0 for d in decisions]


@dataclass
class VenueFeatures:
    """Feature rows of one venue's papers (NaN where unknown), with their vectors and citation percentiles."""

    venue: Venue
    papers: list[Paper]
    values: np.ndarray  # papers × FEATURES
    vectors: np.ndarray | None  # papers × dimension, zero rows where missing
    target: np.ndarray  # citation percentile in the venue, NaN where unknown

    def column(self, name: str) -> np.ndarray:
        return self.values[:, list(FEATURES).index(name)]


def percentile_in(values: Sequence[float | None], alone: float = 0.5) -> np.ndarray:
    """Each present value's percentile (ties share their mean rank; a single value gets `alone`), NaN where missing."""
    result = np.full(len(values), np.nan)
    present = [i for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    if len(present) == 1:
        result[present] = alone
    elif present:
        ranks = average_ranks(np.array([values[i] for i in present], dtype=float)) - 1
        result[present] = ranks / (len(present) - 1)
    return result


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties sharing their mean rank: scipy.stats.rankdata's "average" method (the same steps), whose
    import costs a ranking a CPU-second."""
    order = np.argsort(values)
    position = np.empty(order.size, dtype=np.intp)
    position[order] = np.arange(order.size, dtype=np.intp)
    ordered = values[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]]
    dense = first.cumsum()[position]
    bounds = np.r_[np.nonzero(first)[0], len(first)]
    return 0.5 * (bounds[dense] + bounds[dense - 1] + 1)


def citation_target(papers: list[Paper]) -> np.ndarray:
    """Each paper's citation percentile within its venue (NaN where the count is unknown)."""
    return percentile_in([float(p.citations.count) if p.citations else None for p in papers])


class FeatureBuilder:
    """Features of any loaded venue, computed against every venue the store holds."""

    def __init__(self, store: AnalysisStore, model: str | None) -> None:
        self.store, self.model = store, model
        self.venues = {v.id: v for v in store.venue_list()}
        # each venue read once: papers (never a placeholder) and their rows
        rows = {v: [(pk, p) for pk, p in store.paper_rows(v) if not p.placeholder] for v in self.venues}
        self.papers = {v: [paper for _, paper in found] for v, found in rows.items()}
        self._pks = {v: [pk for pk, _ in found] for v, found in rows.items()}
        self.people = PeopleIndex(p for papers in self.papers.values() for p in papers)
        self._vectors: dict[str, np.ndarray | None] = {}
        self._author_counts: dict[int, dict[str, int]] = {}

    def vectors(self, venue: str) -> np.ndarray | None:
        """The venue's text vectors in paper order (zero rows where missing), or None without an index."""
        if venue not in self._vectors:
            model, rows = self.model, self._pks[venue]
            self._vectors[venue] = None if model is None else text_vectors(self.store, model, venue, rows)
        return self._vectors[venue]

    def build(self, venue_id: str, with_target: bool = True) -> VenueFeatures:
        """Features of one venue's papers; `with_target=False` leaves its citation counts unread."""
        venue, papers = self.venues[venue_id], self.papers[venue_id]
        columns: dict[str, np.ndarray] = {}
        columns["decision"] = np.array(decision_values([p.decision for p in papers]))
        columns["accepted"] = np.array([float(p.decision.accepted) for p in papers])
        columns["rating"] = percentile_in([float(np.mean(p.ratings)) if p.ratings else None for p in papers])
        columns["confidence"] = percentile_in(
            [float(np.mean(p.confidences)) if p.confidences else None for p in papers]
        )
        columns["spread"] = percentile_in([float(np.std(p.ratings)) if len(p.ratings) > 1 else None for p in papers])
        columns["authors"] = np.array([math.log1p(len(p.authors)) for p in papers])
        columns.update(self._track_records(venue, papers))
        columns.update(self._text_features(venue, papers))
        values = np.column_stack([columns[name] for name in FEATURES])
        target = citation_target(papers) if with_target else np.full(len(papers), np.nan)
        return VenueFeatures(venue, papers, values, self.vectors(venue_id), target)

    def _earlier(self, venue: Venue, same_year: bool) -> list[str]:
        return [v.id for v in self.venues.values() if v.year < venue.year or (same_year and v.year == venue.year)]

    def _track_records(self, venue: Venue, papers: list[Paper]) -> dict[str, np.ndarray]:
        """Most papers by one author / institution up to this year; best author's earlier citation percentile."""
        counts: dict[str, int] = defaultdict(int)
        institutions: dict[str, int] = defaultdict(int)
        cited: dict[str, list[float]] = defaultdict(list)
        for other in self._earlier(venue, same_year=True):
            earlier = self.venues[other].year < venue.year
            target = citation_target(self.papers[other]) if earlier else None
            for i, paper in enumerate(self.papers[other]):
                for author in paper.authors:
                    key = self.people.key(author)
                    counts[key] += 1
                    if target is not None and not np.isnan(target[i]):
                        cited[key].append(float(target[i]))
                for name in _institutions(paper):
                    institutions[name] += 1
        keys = [[self.people.key(a) for a in p.authors] for p in papers]
        # A paper without authors or without an address has no such record: unknown (NaN), not "0 papers".
        most_papers = [max((counts[k] for k in ks), default=np.nan) for ks in keys]
        best_cited = [max((float(np.mean(cited[k])) for k in ks if cited[k]), default=np.nan) for ks in keys]
        most_institution = [max((institutions[n] for n in _institutions(p)), default=np.nan) for p in papers]
        return {
            "author_papers": np.log1p(np.array(most_papers, dtype=float)),
            "author_citations": np.array(best_cited),
            "institution_papers": np.log1p(np.array(most_institution, dtype=float)),
        }

    def _text_features(self, venue: Venue, papers: list[Paper]) -> dict[str, np.ndarray]:
        """Novelty, crowding and momentum from the text vectors (NaN without them or without earlier venues)."""
        unknown = np.full(len(papers), np.nan)
        now = self.vectors(venue.id)
        if now is None or len(papers) < 2:
            return {"novelty": unknown, "crowding": unknown, "momentum": unknown}
        present = np.abs(now).sum(axis=1) > 0
        found = now[present]
        columns = {name: unknown.copy() for name in ("novelty", "crowding", "momentum")}
        columns["crowding"][present] = crowding = _closest_mean(found, found, exclude_self=True)
        before = [m for v in self._earlier(venue, same_year=False) if (m := self.vectors(v)) is not None]
        before = [m[np.abs(m).sum(axis=1) > 0] for m in before if m.shape[1] == now.shape[1]]
        if sum(len(m) for m in before):
            earlier = np.vstack(before)
            columns["novelty"][present] = novelty(found, earlier)
            columns["momentum"][present] = crowding - _closest_mean(found, earlier, exclude_self=False)
        return columns


def text_vectors(store: AnalysisStore, model: str, venue: str, rows: Sequence[int] | None = None) -> np.ndarray | None:
    """A venue's vectors of `model`, in the order of `rows` (zero where missing; default: the stored ones), or None."""
    pks, blobs = store.embeddings(model, venue)
    by_pk = dict(zip(pks, blobs, strict=True))
    found = [by_pk.get(pk) for pk in rows] if rows is not None else blobs
    size = next((len(b) // 4 for b in found if b), 0)
    matrix = np.zeros((len(found), size), dtype=np.float32)
    for i, blob in enumerate(found):
        if blob:
            matrix[i] = np.frombuffer(blob, dtype=np.float32)
    return matrix if size else None


def novelty(vectors: np.ndarray, earlier: np.ndarray) -> np.ndarray:
    """1 − similarity of each vector to the closest earlier paper's (one definition for ranking and predictor)."""
    return 1.0 - _closest_mean(vectors, earlier, exclude_self=False, count=1)


def _closest_mean(
    queries: np.ndarray, pool: np.ndarray, exclude_self: bool, count: int = NEIGHBOURS, chunk: int = 2048
) -> np.ndarray:
    """Mean similarity of each query vector to its `count` closest pool vectors (in chunks, to bound memory)."""
    count = min(count, len(pool) - int(exclude_self))
    result = np.zeros(len(queries))
    if count <= 0:
        return result
    for start in range(0, len(queries), chunk):
        sims = queries[start : start + chunk] @ pool.T
        if exclude_self:
            rows = np.arange(sims.shape[0])
            sims[rows, rows + start] = -np.inf
        top = np.partition(sims, -count, axis=1)[:, -count:]
        result[start : start + chunk] = top.mean(axis=1)
    return result


def _institutions(paper: Paper) -> set[str]:
    """The institutions a paper names (a placeholder such as "Unknown Institution" is none: it joins no papers)."""
    return {fold(name) for name in (named_places(paper.institutions) or named_places(paper.affiliations))}
