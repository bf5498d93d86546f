"""The Store interface every backend implements, and the filters and summaries it speaks."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from confnav.errors import ConfnavError, ReadOnlyStoreError, StoreBusyError, argument, excerpt
from confnav.keys import fold
from confnav.limits import FIRST_YEAR, last_year
from confnav.model import Decision, Outcome, Paper, Venue, placeholders_left_out

if TYPE_CHECKING:
    from confnav.store.protocols import CacheStore, Versioned


def read_json(text: str | bytes) -> Any:
    """Parse a stored paper's JSON: orjson (twice the standard library's speed), else the standard library, which
    also reads what orjson refuses (NaN, a lone surrogate). Not for a source's raw fields: orjson reads an integer
    beyond 64 bits as a float."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def canonical_json(value: Any) -> str:
    """Stable JSON text, so an unchanged paper compares equal byte for byte."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def serves_requests(store: Versioned) -> bool:
    """Whether the store answers a server's requests: then a read never writes (no theme build, no cache),
    and long work runs as a background job. Said by the settings the store was opened with."""
    return store.settings.serving


def keep_derived(store: CacheStore, write: Callable[[], None]) -> bool:
    """Run `write` (cache entries a read derived: an index, estimates, vectors) in one transaction, so the next
    process reads them; never from a server's requests, and quietly not into a read-only or busy store (the
    next read derives them again). Whether they were written."""
    if serves_requests(store):
        return False
    try:
        with store.transaction():
            write()
    except (ReadOnlyStoreError, StoreBusyError, sqlite3.OperationalError):
        return False
    return True


@dataclass
class StoreCaches:
    """What a store keeps in memory between changes: the papers per venue (a backend that `keeps_rows`) and
    values derived from every paper, each under the generation it was computed for. Connections of one process
    to the same store may share one (the web app's per-thread connections: one copy of the papers)."""

    rows: dict[str | None, tuple[int, list[tuple[int, Paper]]]] = field(default_factory=dict)
    memos: dict[tuple[object, ...], tuple[int, object]] = field(default_factory=dict)


_EXAMPLES = {"venue": "'iclr2021'", "decision": "'accepted'", "author": "'Yoshua Bengio'", "keyword": "'transformers'"}


@dataclass(frozen=True)
class PaperFilter:
    """Which papers to return; every given condition must hold."""

    venue: str | None = None
    decision: str | None = None  # an outcome (accepted, not-accepted, workshop, …) or a decision's name (oral, …)
    author: str | None = None
    keyword: str | None = None
    year: int | None = None
    min_rating: float | None = None
    has_code: bool = False  # only papers whose source links their code

    def __post_init__(self) -> None:
        """Refuse a condition of the wrong type or out of range as one line naming its argument (`year` to the
        library, `--year` to the CLI: errors.argument), never a Python error from deep in a query."""
        for name in ("venue", "decision", "author", "keyword"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise ConfnavError(f"{argument(name)} {excerpt(value)}: give text, e.g. {_EXAMPLES[name]}")
        for name, value in (("author", self.author), ("keyword", self.keyword)):
            if value is not None and value.strip() and not fold(value):  # "%": it would admit every paper
                wanted = name.replace("author", "name")
                raise ConfnavError(f"{argument(name)} {excerpt(value)}: give a {wanted} with letters or digits")
        if self.year is not None and (
            isinstance(self.year, bool) or not isinstance(self.year, int) or not FIRST_YEAR <= self.year <= last_year()
        ):
            raise ConfnavError(
                f"{argument('year')} {excerpt(self.year)}: give a venue's year as a whole number, {FIRST_YEAR} to "
                f"{last_year()}"
            )
        rating = self.min_rating
        if rating is not None and (
            isinstance(rating, bool) or not isinstance(rating, int | float) or not math.isfinite(rating)
        ):
            raise ConfnavError(f"{argument('min_rating')} {excerpt(rating)}: give a number, e.g. 6")
        if not isinstance(self.has_code, bool):
            raise ConfnavError(f"{argument('has_code')} {excerpt(self.has_code)}: give True or False")

    def decision_key(self) -> str:
        """The decision asked for, as outcomes and kinds are stored: `accepted`, `not-accepted`, `oral`, …"""
        key = " ".join((self.decision or "").lower().replace("_", " ").split())
        return DECISION_SYNONYMS.get(key, key)

    def admits(self, decision: Decision) -> bool:
        """Whether a paper's decision meets this filter's decision condition (True without one)."""
        key = self.decision_key()
        if key == REVIEWED:
            return decision.reviewed
        return not key or key in (decision.outcome.value, decision.name.lower())


REVIEWED = "reviewed"  # the papers that entered review: any known decision but a desk reject (Decision.reviewed)


DECISION_SYNONYMS = {
    "not accepted": "not-accepted",
    "rejected": "reject",  # the kind, as a reader means it: withdrawn and desk-rejected papers are `not-accepted`
    "desk reject": "desk-reject",
    "desk rejected": "desk-reject",
    "withdraw": "withdrawn",
    "accept": "accepted",
    "entered review": REVIEWED,
}


@dataclass
class VenueSummary:
    """A venue in the store with its paper counts by decision (most prominent first), outcome and track, on the
    basis of every count the reports show: placeholder records left out, and how many there were."""

    venue: Venue
    papers: int
    by_decision: dict[str, int] = field(default_factory=dict)
    by_outcome: dict[str, int] = field(default_factory=dict)
    tracks: dict[str, int] = field(default_factory=dict)
    placeholders: int = 0

    @property
    def accepted(self) -> int:
        return self.by_outcome.get(Outcome.ACCEPTED.value, 0)

    @property
    def note(self) -> str | None:
        """The line saying how many placeholder records the counts leave out (None when none)."""
        return placeholders_left_out(self.placeholders)

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.venue.id,
            "name": self.venue.name,
            "year": self.venue.year,
            "papers": self.papers,
            "accepted": self.accepted,
            "by_decision": self.by_decision,
            "by_outcome": self.by_outcome,
            "tracks": self.tracks,
            "placeholders": self.placeholders,
        }
