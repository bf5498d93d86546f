"""The Store interface every backend implements, and the filters and summaries it speaks."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Protocol

from confnav.errors import ConfnavError
from confnav.model import Decision, Paper, Venue
from confnav.sources.base import SourceRecord


@dataclass(frozen=True)
class PaperFilter:
    """Which papers to return; every given condition must hold."""

    venue: str | None = None
    decision: str | None = None  # a Decision value, or "accepted"
    author: str | None = None
    keyword: str | None = None
    year: int | None = None
    min_rating: float | None = None

    def __post_init__(self) -> None:
        allowed = [d.value for d in Decision] + ["accepted"]
        if self.decision is not None and self.decision not in allowed:
            raise ConfnavError(f"unknown decision {self.decision!r} (one of: {', '.join(allowed)})")

    def decisions(self) -> list[str] | None:
        """The decision values this filter admits, or None for all."""
        if self.decision is None:
            return None
        if self.decision == "accepted":
            return [d.value for d in Decision if d.accepted]
        return [Decision(self.decision).value]


@dataclass
class VenueSummary:
    """A venue in the store with its paper counts by decision."""

    venue: Venue
    papers: int
    by_decision: dict[str, int] = field(default_factory=dict)

    @property
    def accepted(self) -> int:
        return sum(n for d, n in self.by_decision.items() if Decision(d).accepted)

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.venue.id,
            "name": self.venue.name,
            "year": self.venue.year,
            "papers": self.papers,
            "accepted": self.accepted,
            "by_decision": self.by_decision,
        }


class Store(Protocol):
    """Papers of several venues, their source records, and the writes of one ingest."""

    def transaction(self) -> AbstractContextManager[None]: ...

    def put_venue(self, venue: Venue) -> None: ...

    def put_records(self, records: list[SourceRecord]) -> None: ...

    def records(self, venue: str) -> dict[str, list[SourceRecord]]: ...

    def put_paper(self, paper: Paper) -> str: ...

    def get_paper(self, paper_id: str, venue: str | None = None) -> Paper: ...

    def papers(self, where: PaperFilter | None = None, limit: int | None = None) -> list[Paper]: ...

    def iter_papers(self, venue: str | None = None) -> Iterator[Paper]: ...

    def venues(self) -> list[VenueSummary]: ...

    def pick_venue(self, venue: str | None) -> str: ...

    def get_venue(self, venue_id: str) -> Venue: ...

    def close(self) -> None: ...
