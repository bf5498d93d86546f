"""Decisions that arrived with a fetch: the papers pending when the store last had them that the fetch found
decided, kept in the ingest's own transaction, and the fetch's run, so that a venue can say what its last fetch
decided (news for a venue's decision watch comes from the watcher this one passes the changes on to)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from confnav.ingest import ChangeWatcher, PaperChange
from confnav.personal.news import pending_decided
from confnav.store.protocols import ArrivalStore, IngestStore


class ArrivalsStore(IngestStore, ArrivalStore, Protocol):
    """What recording arrivals needs: the ingest's store and the arrivals tables."""


@dataclass
class ArrivalRecorder:
    """The ingest's ChangeWatcher during a fetch: keeps each pending paper that got a decision, then tells `inner`
    (the news recorder, when given) of every change."""

    store: ArrivalsStore
    inner: ChangeWatcher | None = None
    fetched: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="microseconds"))
    decided: int = 0

    def __post_init__(self) -> None:
        self._inner_watching = False

    def watching(self) -> bool:
        self._inner_watching = self.inner is not None and self.inner.watching()
        return True  # a decision is seen only by comparing each changed paper with its stored self

    def record(self, changes: list[PaperChange]) -> None:
        by_venue: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
        for change in changes:
            if pending_decided(change):
                before = change.before.decision.label if change.before else ""
                by_venue[change.after.venue].append((change.after.id, before, change.after.decision.label))
        for venue, decided in by_venue.items():
            self.store.put_arrivals(venue, self.fetched, decided)
            self.decided += len(decided)
        if self._inner_watching and self.inner is not None:
            self.inner.record(changes)

    def finish(self, venues: Iterable[str]) -> None:
        """Record this fetch's run for each venue it brought (those the store holds)."""
        known = {v.id for v in self.store.venue_list()}
        with self.store.transaction():
            for venue in sorted(set(venues) & known):
                self.store.put_fetch_run(venue, self.fetched)
