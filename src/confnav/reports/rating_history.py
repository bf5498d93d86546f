"""A venue's review versions held as columns (times and ratings as arrays), so that the rebuttal of a venue with
tens of thousands of reviews reads each version once and computes its figures without an object per version."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Row = tuple[str, str, str, int, float | None]  # paper, review, reviewer, time (ms), rating: a store's review_ratings


class RatingHistory:
    """Review versions ordered by paper, review and time; each version's review is a group, numbered in that order."""

    def __init__(self, rows: Sequence[Row]) -> None:
        papers, reviews, reviewers, modified, ratings = zip(*rows, strict=True) if rows else ((), (), (), (), ())
        self.papers: tuple[str, ...] = papers
        self.review_ids: tuple[str, ...] = reviews
        self.reviewers: tuple[str, ...] = reviewers
        self.modified = np.array(modified, dtype=np.int64)
        self.rating = np.array(ratings, dtype=np.float64)  # NaN where a version has no rating
        paper_of, review_of = np.array(papers, dtype=object), np.array(reviews, dtype=object)
        starts = np.ones(len(rows), dtype=bool)
        starts[1:] = (paper_of[1:] != paper_of[:-1]) | (review_of[1:] != review_of[:-1])
        self.group = np.cumsum(starts) - 1

    def __len__(self) -> int:
        return len(self.modified)

    def first_at(self) -> int:
        return int(self.modified.min())

    def last_at(self) -> int:
        return int(self.modified.max())

    def days(self, length: int) -> list[int]:
        """The periods of `length` ms (days) holding a version, in order."""
        return [int(d) for d in np.unique(self.modified // length)]

    def times(self) -> list[int]:
        """The distinct times of the versions, in order."""
        return [int(t) for t in np.unique(self.modified)]

    def latest_ratings(self, moment: int) -> list[float]:
        """Each review's last rating by `moment` (reviews without a rating by then left out), lowest first."""
        taken = np.flatnonzero((self.modified <= moment) & ~np.isnan(self.rating))
        groups = self.group[taken]
        last = np.ones(len(taken), dtype=bool)
        last[:-1] = groups[1:] != groups[:-1]
        return [float(r) for r in np.sort(self.rating[taken[last]])]

    def rated_reviews(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per review with a rating: the rows of its first and last rated versions, and how many are rated."""
        rated = np.flatnonzero(~np.isnan(self.rating))
        if not len(rated):
            return rated, rated, rated
        groups = self.group[rated]
        starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
        ends = np.r_[starts[1:], len(rated)] - 1
        return rated[starts], rated[ends], ends - starts + 1
