"""The rebuttal, per review, per paper and per venue, from the store's review histories.

Within the review period (all of the history unless dates are given) a review's pre-rebuttal rating is its first
version and its post-rebuttal rating its last, each with the source's time. A paper's change is the mean of its
post ratings less the mean of its pre ratings; its spread is the highest rating less the lowest, before and after.
The rating distribution at a date counts each review posted by then at its latest rating by then.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from statistics import fmean
from typing import Any, NamedTuple, Protocol

from confnav.errors import NotFoundError
from confnav.model import Decision
from confnav.reports.rating_history import RatingHistory
from confnav.store.protocols import ReviewStore, VenueReader

MOVERS = 10
DATES = 6  # at most this many dates of the period get a rating distribution (the first and last always)
DAY = 86_400_000  # ms


class RebuttalStore(VenueReader, ReviewStore, Protocol):
    """What the rebuttal reads: the venue, its review histories and its papers' titles and decisions."""

    def paper_decisions(self, venue: str, paper_id: str | None = None) -> dict[str, tuple[str, Decision]]: ...


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
    found = Counter(ratings)
    return {rating_key(r): found[r] for r in sorted(found)}


class ReviewChange(NamedTuple):
    """One review's first and last rating within the period, with when each was given (a venue's tens of thousands
    made at the cost of tuples)."""

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
    pre_mean: float = field(init=False, repr=False, compare=False)  # the figures of its reviews, computed once
    post_mean: float = field(init=False, repr=False, compare=False)
    change: float = field(init=False, repr=False, compare=False)
    pre_spread: float = field(init=False, repr=False, compare=False)
    post_spread: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pre, post = [r.pre for r in self.reviews], [r.post for r in self.reviews]
        self.pre_mean, self.post_mean = fmean(pre), fmean(post)
        self.change = self.post_mean - self.pre_mean
        self.pre_spread, self.post_spread = max(pre) - min(pre), max(post) - min(post)

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
    history: RatingHistory = field(default_factory=lambda: RatingHistory(()), repr=False)  # versions in the period

    @property
    def first_at(self) -> int:
        """The time of the period's first version: the date the pre-rebuttal ratings are from."""
        return self.history.first_at()

    @property
    def last_at(self) -> int:
        """The time of the period's last version: the date the post-rebuttal ratings are from."""
        return self.history.last_at()

    def dates(self, most: int = DATES) -> list[int]:
        """The times (ms) whose distributions are shown: the ends of the first and last days with versions and
        of days between, evenly chosen; within a single day, the times of its versions, evenly chosen."""
        days = self.history.days(DAY)
        if len(days) > 1:
            return [min((d + 1) * DAY - 1, self.last_at) for d in _evenly(days, most)]
        return _evenly(self.history.times(), most)

    def date_labels(self) -> list[str]:
        """The shown dates as a reader reads them: days, or times of day when the history is one day long."""
        moments = self.dates()
        days = [day(m) for m in moments]
        return days if len(set(days)) == len(days) else [(when(m) or "")[:19].replace("T", " ") for m in moments]

    def distribution_at(self, moment: int) -> dict[str, int]:
        """Reviews by rating at a time: each review posted by then at its last rating by then."""
        return tally(self.history.latest_ratings(moment))

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


def build_rebuttal(
    store: RebuttalStore, venue: str, start: int | None = None, end: int | None = None, limit: int = MOVERS
) -> Rebuttal:
    """The rebuttal of a venue within [start, end] (ms; open when None); NotFoundError without a review history."""
    venue = store.get_venue(venue).id
    history = RatingHistory(store.review_ratings(venue, start=start, end=end))
    if not len(history):
        raise NotFoundError(
            f"no review history for {venue}"
            + (" in that period" if start is not None or end is not None else "")
            + ": histories come from 'confnav fetch openreview'"
        )
    by_paper = changes_by_paper(history)
    papers = store.paper_decisions(venue)
    result = Rebuttal(venue, start, end, limit=limit, history=history)
    for paper_id, reviews in sorted(by_paper.items()):
        result.papers.append(paper_change(paper_id, papers.get(paper_id), reviews))
    return result


def changes_by_paper(history: RatingHistory) -> dict[str, list[ReviewChange]]:
    """Each paper's review changes (its reviews with a rating, by review): each review's first and last rated
    version and how many it has."""
    first, last, count = history.rated_reviews()
    rows = first.tolist()
    reviews = [history.review_ids[row] for row in rows]
    pre, pre_at = history.rating[first].tolist(), history.modified[first].tolist()
    post, post_at = history.rating[last].tolist(), history.modified[last].tolist()
    reviewers = [history.reviewers[row] for row in rows]
    changes = map(ReviewChange, reviews, reviewers, pre, pre_at, post, post_at, count.tolist())
    found = list(zip([history.papers[row] for row in rows], reviews, changes, strict=True))
    found.sort()  # by paper and review, also where the store's collation orders them otherwise
    by_paper: dict[str, list[ReviewChange]] = defaultdict(list)
    for paper_id, _, change in found:
        by_paper[paper_id].append(change)
    return by_paper


def paper_change(paper_id: str, paper: tuple[str, Decision] | None, reviews: list[ReviewChange]) -> PaperChange:
    """A paper's change, with its title and decision when the store has the paper."""
    if paper is None:
        return PaperChange(paper_id, paper_id, "", reviews)
    title, decision = paper
    return PaperChange(paper_id, title, decision.label, reviews, decision.decided and decision.kind != "withdrawn")


def paper_rebuttal(store: RebuttalStore, venue: str, paper_id: str) -> PaperChange | None:
    """One paper's reviews before and after the rebuttal (its whole history); None without a rated history."""
    reviews = changes_by_paper(RatingHistory(store.review_ratings(venue, paper_id))).get(paper_id)
    if not reviews:
        return None
    return paper_change(paper_id, store.paper_decisions(venue, paper_id).get(paper_id), reviews)


def rating_order(*counts: dict[str, int]) -> list[str]:
    """The ratings any of these distributions holds, lowest first (the categories of their charts)."""
    return sorted({key for one in counts for key in one}, key=float)
