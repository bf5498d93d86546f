"""What reviewing gave a venue: each version and text of its reviews, its rating scale, and the decisions a fetch
found arrived."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DecisionsArrived:
    """A venue's latest fetch and the papers it found decided that were pending before it: (paper id, title,
    decision label) each. `fetched` and `previous` (the fetch before, if any) are ISO 8601 times in UTC."""

    venue: str
    fetched: str
    previous: str | None
    papers: tuple[tuple[str, str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        listed = [{"id": i, "title": t, "decision": d} for i, t, d in self.papers]
        return {"venue": self.venue, "fetched": self.fetched, "previous": self.previous, "decided": listed}


@dataclass(frozen=True)
class ReviewVersion:
    """One version of one review as the source gave it: rating and confidence at `modified` (ms since 1970).

    `origin` says how it was seen: "edits" (read from the review's edit history) or "fetch" (the review as a
    fetch found it); a store keeps every version, so the history survives the source keeping only the last.
    """

    venue: str
    paper_id: str
    review_id: str
    reviewer: str
    modified: int
    rating: float | None
    confidence: float | None
    origin: str = "fetch"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


REVIEW_KINDS = ("meta-review", "decision", "review")  # the order a paper page shows them in


@dataclass(frozen=True)
class ReviewText:
    """What one review (or meta-review, or decision comment) says, as last fetched: its text fields in the source's
    order as (name, text), since venues name them differently (summary, strengths, main_review, metareview, …)."""

    venue: str
    paper_id: str
    review_id: str
    reviewer: str
    kind: str  # one of REVIEW_KINDS
    modified: int  # the source's time of this text (ms since 1970)
    fields: tuple[tuple[str, str], ...]

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "fields": [list(field) for field in self.fields]}


@dataclass(frozen=True)
class RatingScale:
    """The ratings a venue's reviewers gave, read from the data: `1–10`, or `1, 3, 6, 8` where steps are uneven."""

    values: tuple[float, ...]

    @classmethod
    def of(cls, ratings: list[float]) -> RatingScale:
        return cls(tuple(sorted(set(ratings))))

    @property
    def low(self) -> float:
        return self.values[0]

    @property
    def high(self) -> float:
        return self.values[-1]

    def describe(self) -> str:
        if not self.values:
            return "no ratings"
        whole = all(float(v).is_integer() for v in self.values)
        span = int(self.high - self.low) + 1
        if whole and len(self.values) > 4 and len(self.values) >= span - 1:  # one unused step still reads as a range
            return f"{self.low:g}–{self.high:g}"
        return ", ".join(f"{v:g}" for v in self.values)

    def same_as(self, other: RatingScale) -> bool:
        """Comparable without rescaling: the same lowest and highest rating."""
        return (self.low, self.high) == (other.low, other.high)

    def rescale(self, value: float) -> float:
        """A rating on this scale as a share of the way from its lowest to its highest value (0–1)."""
        return (value - self.low) / (self.high - self.low) if self.high > self.low else 0.0
