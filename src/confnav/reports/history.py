"""Acceptance by mean rating in a venue's earlier editions: history shown beside papers still pending.

For a venue of a series (ICLR 2021), each earlier edition in the store (ICLR 2020, ICLR 2018) gives the share of
its decided papers accepted per mean-rating bin. An edition whose ratings are on another scale (ICLR 2020 rated
1, 3, 6, 8; ICLR 2021 1–10) keeps its own bins, marked not comparable: a pending paper's mean is only ever set
beside the bins of editions rated on the same scale. It is what happened then, never a forecast for a paper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from confnav.model import Outcome, Paper, RatingScale, Venue, real_papers
from confnav.store.protocols import PaperReader
from confnav.topics.facts import lists_rejections
from confnav.topics.trends import earlier_in_series

BIN_WIDTH = 0.5  # of a mean rating, in the scale's own units
NOT_A_FORECAST = (
    "What happened at earlier editions of this series, by the mean rating of each decided paper; "
    "not a forecast of any paper's decision."
)


@dataclass(frozen=True)
class RatingBin:
    """Decided papers whose mean rating was at least `low` and below `high` (the scale's top value included)."""

    low: float
    high: float
    papers: int
    accepted: int

    @property
    def share(self) -> float:
        return self.accepted / self.papers if self.papers else 0.0

    @property
    def label(self) -> str:
        return f"{self.low:g}–{self.high:g}"

    def to_dict(self) -> dict[str, object]:
        return {
            "low": self.low,
            "high": self.high,
            "label": self.label,
            "papers": self.papers,
            "accepted": self.accepted,
            "share": round(self.share, 4),
        }


@dataclass
class EditionHistory:
    """One earlier edition: its rating scale, whether it is comparable with the venue asked about, its bins."""

    venue: Venue
    scale: str
    comparable: bool
    papers: int
    accepted: int
    bins: list[RatingBin] = field(default_factory=list)

    def bin_of(self, mean: float) -> RatingBin | None:
        """The bin a mean rating falls in (on this edition's scale), if any paper was in it."""
        return next((b for b in self.bins if b.low <= mean < b.high or mean == b.high == self.bins[-1].high), None)

    def sentence(self, found: RatingBin) -> str:
        """`at ICLR 2020, 64% of papers with mean 5.5–6 were accepted (57 of 89)`."""
        return (
            f"at {self.venue.name}, {found.share:.0%} of papers with mean {found.label} were accepted "
            f"({found.accepted} of {found.papers})"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "venue": self.venue.id,
            "name": self.venue.name,
            "scale": self.scale,
            "comparable": self.comparable,
            "papers": self.papers,
            "accepted": self.accepted,
            "bins": [b.to_dict() for b in self.bins],
        }


@dataclass
class AcceptanceHistory:
    """A venue, how many of its papers are pending, and the acceptance by mean rating of its earlier editions."""

    venue: Venue
    pending: int
    scale: str | None
    editions: list[EditionHistory] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def for_mean(self, mean: float | None) -> list[str]:
        """Sentences of history for a paper with this mean rating: comparable editions only, latest first."""
        if mean is None:
            return []
        found = ((e, e.bin_of(mean)) for e in self.editions if e.comparable)
        return [edition.sentence(b) for edition, b in found if b is not None]

    def to_dict(self) -> dict[str, object]:
        return {
            "venue": self.venue.id,
            "name": self.venue.name,
            "pending": self.pending,
            "scale": self.scale,
            "editions": [e.to_dict() for e in self.editions],
            "notices": self.notices,
            "note": NOT_A_FORECAST,
        }


def counted(paper: Paper) -> bool:
    """Whether an earlier paper counts: decided after review with ratings, not withdrawn (no decision was made)."""
    decision = paper.decision
    return bool(paper.ratings) and decision.decided and decision.kind != "withdrawn" and not paper.placeholder


def rating_bins(papers: list[Paper], scale: RatingScale) -> list[RatingBin]:
    """Counted papers and the accepted among them per BIN_WIDTH of mean rating, from the scale's lowest value."""
    top = max(0, math.ceil((scale.high - scale.low) / BIN_WIDTH) - 1)
    counts: dict[int, list[int]] = {}
    for paper in papers:
        mean = paper.rating_mean
        assert mean is not None
        index = min(top, max(0, int((mean - scale.low) // BIN_WIDTH)))
        pair = counts.setdefault(index, [0, 0])
        pair[0] += 1
        pair[1] += paper.decision.outcome is Outcome.ACCEPTED
    return [
        RatingBin(scale.low + i * BIN_WIDTH, min(scale.high, scale.low + (i + 1) * BIN_WIDTH), n, a)
        for i, (n, a) in sorted(counts.items())
    ]


def acceptance_history(store: PaperReader, venue: str | None = None) -> AcceptanceHistory:
    """The acceptance by mean rating of the venue's earlier editions in the store (latest first)."""
    target = store.get_venue(store.pick_venue(venue))
    summaries = store.venues()
    pending = next((s.by_outcome.get(Outcome.PENDING.value, 0) for s in summaries if s.venue.id == target.id), 0)
    scales = store.rating_scales()
    own = scales.get(target.id)
    history = AcceptanceHistory(target, pending, own.describe() if own and own.values else None)
    earlier = earlier_in_series([s.venue for s in summaries], target)
    if not earlier:
        history.notices.append(f"no earlier {target.series} edition is in the store")
    for edition in earlier:
        papers = [p for p in real_papers(store.iter_papers(edition.id)) if counted(p)]
        scale = scales.get(edition.id)
        if not papers or scale is None or not scale.values:
            history.notices.append(f"{edition.name} has no decided papers with ratings")
            continue
        if not lists_rejections([p.decision for p in papers]):  # every listed paper accepted: 100% says nothing
            history.notices.append(f"{edition.name} lists accepted papers only: it gives no acceptance by rating")
            continue
        comparable = own is not None and bool(own.values) and own.same_as(scale)
        if not comparable:
            theirs = f"rated {scale.describe()}"
            ours = f"{target.name} {'is rated ' + own.describe() if own and own.values else 'has no ratings yet'}"
            history.notices.append(f"{edition.name} was {theirs} and {ours}: its bins are not set beside its papers")
        accepted = sum(p.decision.outcome is Outcome.ACCEPTED for p in papers)
        history.editions.append(
            EditionHistory(edition, scale.describe(), comparable, len(papers), accepted, rating_bins(papers, scale))
        )
    return history
