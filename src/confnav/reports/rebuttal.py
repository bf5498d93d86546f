"""The rebuttal, per review, per paper and per venue, from the store's review histories.

Within the review period (all of the history unless dates are given) a review's pre-rebuttal rating is its first
version and its post-rebuttal rating its last, each with the source's time. A paper's change is the mean of its
post ratings less the mean of its pre ratings; its spread is the highest rating less the lowest, before and after.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from statistics import fmean as mean  # ratings are floats: exact fractions would cost a venue seconds
from typing import Any, Protocol

from confnav.errors import NotFoundError
from confnav.model import Paper, ReviewVersion
from confnav.store.protocols import ReviewStore, VenueReader

MOVERS = 10


class RebuttalStore(VenueReader, ReviewStore, Protocol):
    """What the rebuttal reads: the venue, its review histories and its papers."""

    def papers_by_id(self, venue: str, paper_ids: list[str]) -> dict[str, Paper]: ...


def when(stamp: int | None) -> str | None:
    """A source time (ms) as ISO 8601 in UTC."""
    return datetime.fromtimestamp(stamp / 1000, UTC).isoformat(timespec="seconds") if stamp is not None else None


@dataclass(frozen=True)
class ReviewChange:
    """One review's first and last rating within the period, with when each was given."""

    review_id: str
    reviewer: str
    pre: float
    pre_at: int
    post: float
    post_at: int
    versions: int

    @property
    def change(self) -> float:
        return self.post - self.pre

    def to_dict(self) -> dict[str, Any]:
        return {
            "review": self.review_id,
            "reviewer": self.reviewer,
            "pre": self.pre,
            "pre_at": when(self.pre_at),
            "post": self.post,
            "post_at": when(self.post_at),
            "change": self.change,
            "versions": self.versions,
        }


@dataclass
class PaperChange:
    """A paper's reviews before and after the rebuttal."""

    paper_id: str
    title: str
    decision: str
    reviews: list[ReviewChange]

    @property
    def pre_mean(self) -> float:
        return mean(r.pre for r in self.reviews)

    @property
    def post_mean(self) -> float:
        return mean(r.post for r in self.reviews)

    @property
    def change(self) -> float:
        return self.post_mean - self.pre_mean

    @property
    def pre_spread(self) -> float:
        return max(r.pre for r in self.reviews) - min(r.pre for r in self.reviews)

    @property
    def post_spread(self) -> float:
        return max(r.post for r in self.reviews) - min(r.post for r in self.reviews)

    def to_dict(self) -> dict[str, Any]:
        return {
            "paper": self.paper_id,
            "title": self.title,
            "decision": self.decision,
            "pre_mean": self.pre_mean,
            "post_mean": self.post_mean,
            "change": self.change,
            "pre_spread": self.pre_spread,
            "post_spread": self.post_spread,
            "reviews": [r.to_dict() for r in self.reviews],
        }


@dataclass
class Rebuttal:
    """A venue's rebuttal: every paper's change, the movers, converged and diverged papers, shares by decision."""

    venue: str
    start: int | None
    end: int | None
    papers: list[PaperChange] = field(default_factory=list)
    limit: int = MOVERS

    @property
    def reviews(self) -> list[ReviewChange]:
        return [r for p in self.papers for r in p.reviews]

    @property
    def share_changed(self) -> float | None:
        reviews = self.reviews
        return sum(r.change != 0 for r in reviews) / len(reviews) if reviews else None

    def rises(self) -> list[PaperChange]:
        return sorted((p for p in self.papers if p.change > 0), key=lambda p: (-p.change, p.paper_id))[: self.limit]

    def falls(self) -> list[PaperChange]:
        return sorted((p for p in self.papers if p.change < 0), key=lambda p: (p.change, p.paper_id))[: self.limit]

    def converged(self) -> list[PaperChange]:
        """Papers whose reviewers' ratings came closer together, most first."""
        narrowed = [p for p in self.papers if p.post_spread < p.pre_spread]
        return sorted(narrowed, key=lambda p: (p.post_spread - p.pre_spread, p.paper_id))[: self.limit]

    def diverged(self) -> list[PaperChange]:
        """Papers whose reviewers' ratings drew further apart, most first."""
        widened = [p for p in self.papers if p.post_spread > p.pre_spread]
        return sorted(widened, key=lambda p: (p.pre_spread - p.post_spread, p.paper_id))[: self.limit]

    def by_decision(self) -> dict[str, dict[str, float | int]]:
        """Per decision: how many papers and their mean change."""
        groups: dict[str, list[float]] = defaultdict(list)
        for paper in self.papers:
            groups[paper.decision or "none yet"].append(paper.change)
        return {d: {"papers": len(c), "mean_change": mean(c)} for d, c in sorted(groups.items())}

    def to_dict(self) -> dict[str, Any]:
        reviews = self.reviews
        return {
            "venue": self.venue,
            "period": {"start": when(self.start), "end": when(self.end)},
            "papers": len(self.papers),
            "reviews": len(reviews),
            "reviews_changed": sum(r.change != 0 for r in reviews),
            "share_changed": self.share_changed,
            "by_decision": self.by_decision(),
            "rises": [p.to_dict() for p in self.rises()],
            "falls": [p.to_dict() for p in self.falls()],
            "converged": [p.to_dict() for p in self.converged()],
            "diverged": [p.to_dict() for p in self.diverged()],
        }


def review_change(versions: list[ReviewVersion]) -> ReviewChange | None:
    """The first and last rated version of one review's versions (oldest first); None without a rating."""
    rated = [v for v in versions if v.rating is not None]
    if not rated:
        return None
    first, last = rated[0], rated[-1]
    assert first.rating is not None and last.rating is not None
    return ReviewChange(
        first.review_id, first.reviewer, first.rating, first.modified, last.rating, last.modified, len(rated)
    )


def build_rebuttal(
    store: RebuttalStore, venue: str, start: int | None = None, end: int | None = None, limit: int = MOVERS
) -> Rebuttal:
    """The rebuttal of a venue within [start, end] (ms; open when None); NotFoundError without a review history."""
    venue = store.get_venue(venue).id
    history = [
        v
        for v in store.review_versions(venue)
        if (start is None or v.modified >= start) and (end is None or v.modified <= end)
    ]
    if not history:
        raise NotFoundError(
            f"no review history for {venue}"
            + (" in that period" if start is not None or end is not None else "")
            + ": histories come from 'confnav fetch openreview'"
        )
    by_review: dict[tuple[str, str], list[ReviewVersion]] = defaultdict(list)
    for version in history:
        by_review[(version.paper_id, version.review_id)].append(version)
    by_paper: dict[str, list[ReviewChange]] = defaultdict(list)
    for (paper_id, _), versions in sorted(by_review.items()):
        if (change := review_change(versions)) is not None:
            by_paper[paper_id].append(change)
    papers = store.papers_by_id(venue, list(by_paper))
    result = Rebuttal(venue, start, end, limit=limit)
    for paper_id, reviews in sorted(by_paper.items()):
        paper = papers.get(paper_id)
        decision = paper.decision.label if paper else ""
        result.papers.append(PaperChange(paper_id, paper.title if paper else paper_id, decision, reviews))
    return result
