"""The rebuttal, per review, per paper and per venue, from the store's review histories.

Within the review period (all of the history unless dates are given) a review's pre-rebuttal rating is its first
version and its post-rebuttal rating its last, each with the source's time. A paper's change is the mean of its
post ratings less the mean of its pre ratings; its spread is the highest rating less the lowest, before and after.
The rating distribution at a date counts each review posted by then at its latest rating by then.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from statistics import fmean
from typing import Any, Protocol

from confnav.errors import NotFoundError
from confnav.model import Paper, ReviewVersion
from confnav.store.protocols import ReviewStore, VenueReader

MOVERS = 10
DATES = 6  # at most this many dates of the period get a rating distribution (the first and last always)
DAY = 86_400_000  # ms


class RebuttalStore(VenueReader, ReviewStore, Protocol):
    """What the rebuttal reads: the venue, its review histories and its papers."""

    def papers_by_id(self, venue: str, paper_ids: list[str]) -> dict[str, Paper]: ...


def when(stamp: int | None) -> str | None:
    """A source time (ms) as ISO 8601 in UTC."""
    return datetime.fromtimestamp(stamp / 1000, UTC).isoformat(timespec="seconds") if stamp is not None else None


def day(stamp: int) -> str:
    """A source time (ms) as its UTC date, `2017-11-27`."""
    return datetime.fromtimestamp(stamp / 1000, UTC).date().isoformat()


def rating_key(rating: float) -> str:
    """A rating as a distribution's key: `6`, `5.5`."""
    return f"{rating:g}"


def tally(ratings: list[float]) -> dict[str, int]:
    """How many of these ratings have each value, lowest first."""
    found: dict[float, int] = defaultdict(int)
    for rating in ratings:
        found[rating] += 1
    return {rating_key(r): found[r] for r in sorted(found)}


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
    decided: bool = False  # a decision that decides: accepted, rejected after review, workshop (not a withdrawal)

    @cached_property
    def pre_mean(self) -> float:
        return fmean(r.pre for r in self.reviews)

    @cached_property
    def post_mean(self) -> float:
        return fmean(r.post for r in self.reviews)

    @cached_property
    def change(self) -> float:
        return self.post_mean - self.pre_mean

    @cached_property
    def pre_spread(self) -> float:
        return max(r.pre for r in self.reviews) - min(r.pre for r in self.reviews)

    @cached_property
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
    history: list[ReviewVersion] = field(default_factory=list, repr=False)  # the versions within the period

    @property
    def first_at(self) -> int:
        """The time of the period's first version: the date the pre-rebuttal ratings are from."""
        return min(v.modified for v in self.history)

    @property
    def last_at(self) -> int:
        """The time of the period's last version: the date the post-rebuttal ratings are from."""
        return max(v.modified for v in self.history)

    def dates(self, most: int = DATES) -> list[int]:
        """The times (ms) whose distributions are shown: the ends of the first and last days with versions and
        of days between, evenly chosen; within a single day, the times of its versions, evenly chosen."""
        days = sorted({v.modified // DAY for v in self.history})
        if len(days) > 1:
            return [min((d + 1) * DAY - 1, self.last_at) for d in _evenly(days, most)]
        return _evenly(sorted({v.modified for v in self.history}), most)

    def date_labels(self) -> list[str]:
        """The shown dates as a reader reads them: days, or times of day when the history is one day long."""
        moments = self.dates()
        days = [day(m) for m in moments]
        return days if len(set(days)) == len(days) else [(when(m) or "")[:19].replace("T", " ") for m in moments]

    def distribution_at(self, moment: int) -> dict[str, int]:
        """Reviews by rating at a time: each review posted by then at its last rating by then."""
        latest: dict[tuple[str, str], float] = {}
        for version in self.history:  # by paper, review and time
            if version.modified <= moment and version.rating is not None:
                latest[(version.paper_id, version.review_id)] = version.rating
        return tally(list(latest.values()))

    def distributions(self) -> list[tuple[int, dict[str, int]]]:
        """The rating distribution at each of the shown dates."""
        return [(moment, self.distribution_at(moment)) for moment in self.dates()]

    def before_after(self) -> tuple[dict[str, int], dict[str, int]]:
        """Reviews by pre-rebuttal rating and by post-rebuttal rating."""
        reviews = self.reviews
        return tally([r.pre for r in reviews]), tally([r.post for r in reviews])

    @property
    def decided(self) -> bool:
        """Whether decisions are out: some paper has a decision that decides (a withdrawal does not)."""
        return any(p.decided for p in self.papers)

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
        return {d: {"papers": len(c), "mean_change": fmean(c)} for d, c in sorted(groups.items())}

    def to_dict(self) -> dict[str, Any]:
        reviews = self.reviews
        before, after = self.before_after()
        return {
            "venue": self.venue,
            "period": {"start": when(self.start), "end": when(self.end)},
            "first_version": when(self.first_at),
            "last_version": when(self.last_at),
            "distributions": [{"at": when(m), "reviews": counts} for m, counts in self.distributions()],
            "before": before,
            "after": after,
            "decided": self.decided,
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


def _evenly(values: list[int], most: int) -> list[int]:
    """At most `most` of the values (sorted), the first and the last among them, the rest evenly spaced."""
    if len(values) <= most:
        return values
    return [values[round(i * (len(values) - 1) / (most - 1))] for i in range(most)]


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
    by_paper = changes_by_paper(history)
    papers = store.papers_by_id(venue, list(by_paper))
    result = Rebuttal(venue, start, end, limit=limit, history=history)
    for paper_id, reviews in sorted(by_paper.items()):
        result.papers.append(paper_change(paper_id, papers.get(paper_id), reviews))
    return result


def changes_by_paper(history: list[ReviewVersion]) -> dict[str, list[ReviewChange]]:
    """Each paper's review changes (its reviews with a rating) from versions ordered by paper, review and time."""
    by_review: dict[tuple[str, str], list[ReviewVersion]] = defaultdict(list)
    for version in history:
        by_review[(version.paper_id, version.review_id)].append(version)
    by_paper: dict[str, list[ReviewChange]] = defaultdict(list)
    for (paper_id, _), versions in sorted(by_review.items()):
        if (change := review_change(versions)) is not None:
            by_paper[paper_id].append(change)
    return by_paper


def paper_change(paper_id: str, paper: Paper | None, reviews: list[ReviewChange]) -> PaperChange:
    """A paper's change, with its title and decision when the store has the paper."""
    if paper is None:
        return PaperChange(paper_id, paper_id, "", reviews)
    decision = paper.decision
    return PaperChange(
        paper_id, paper.title, decision.label, reviews, decision.decided and decision.kind != "withdrawn"
    )


def paper_rebuttal(store: RebuttalStore, venue: str, paper_id: str) -> PaperChange | None:
    """One paper's reviews before and after the rebuttal (its whole history); None without a rated history."""
    reviews = changes_by_paper(store.review_versions(venue, paper_id)).get(paper_id)
    if not reviews:
        return None
    return paper_change(paper_id, store.papers_by_id(venue, [paper_id]).get(paper_id), reviews)


def rating_order(*counts: dict[str, int]) -> list[str]:
    """The ratings any of these distributions holds, lowest first (the categories of their charts)."""
    return sorted({key for one in counts for key in one}, key=float)
