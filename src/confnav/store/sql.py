"""What both backends share: the store's SQL, written once for SQLite and PostgreSQL alike.

Statements use `?` placeholders and only SQL both databases speak (upserts, RETURNING,
NULLS LAST); a backend supplies a connection with `execute` and `executemany`, its
transactions and its schema.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Self

from confnav.errors import ConfnavError, NotFoundError, ReadOnlyStoreError, VenueNameError, argument, excerpt
from confnav.gc_pause import collection_paused
from confnav.model import (
    Outcome,
    Paper,
    Venue,
    fold,
    is_placeholder_title,
    name_key,
    venues_named,
)
from confnav.settings import Settings
from confnav.store.arrivals import ArrivalTables
from confnav.store.base import REVIEWED, PaperFilter, StoreCaches, VenueSummary
from confnav.store.connection import Connection
from confnav.store.decisions import DecisionTables
from confnav.store.derived import DerivedTables
from confnav.store.jobs import JobTables
from confnav.store.lists import ReadingLists
from confnav.store.news import NewsTables
from confnav.store.paper_writes import PaperWrites
from confnav.store.profiles import ProfileTables
from confnav.store.reviews import ReviewTables
from confnav.store.rows import paper_from_json
from confnav.store.schedules import ScheduleTables
from confnav.store.search_reads import SearchReads
from confnav.store.topics import TopicTables

INSERT_BATCH = 2000  # rows per statement of a bulk insert


class SqlStore(
    DerivedTables,
    TopicTables,
    ReadingLists,
    ProfileTables,
    NewsTables,
    ScheduleTables,
    DecisionTables,
    JobTables,
    ReviewTables,
    ArrivalTables,
    PaperWrites,
    SearchReads,
):
    """Papers of several venues in one SQL database; subclasses connect, migrate and open transactions."""

    conn: Connection
    location: str  # what messages call the store: its file, or its URL without the password
    settings: Settings = Settings()  # open_store gives each store the settings it was opened with
    has_code_sql = ""  # a backend's SQL admitting papers whose `links.code` is an http(s) URL (PaperFilter.has_code)
    keeps_rows = True  # cache every paper in memory between changes (a laptop store); False streams them

    read_only: bool = False
    _writer: int | None = None  # the thread inside a transaction of this store, if any
    write_wait = 60.0  # seconds a write waits for another writer before a StoreBusyError (one writer at a time)
    lock_waited = 0.0  # seconds this store's transactions have waited for the writer lock, in all (a server's timing)
    write_deadline: float | None = None  # a request's write: the monotonic time all its transactions must lock by
    caches: StoreCaches  # the papers cached per venue (when `keeps_rows`) and memos; shared when given to open_store

    def close(self) -> None: ...

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All writes inside commit together or not at all, one writer at a time (readers never wait for it); a
        transaction begun inside another is part of it (a fetch's ingest, history and run commit together)."""
        if self.read_only:
            raise ReadOnlyStoreError(f"{self.location} is open read-only")
        if self._writer == threading.get_ident():
            yield
            return
        asked = time.perf_counter()
        with self._atomic():
            self.lock_waited += time.perf_counter() - asked
            self._writer = threading.get_ident()
            try:
                yield
            finally:
                self._writer = None

    def _atomic(self) -> AbstractContextManager[None]:
        """The backend's own transaction."""
        raise NotImplementedError

    def wait_for_writers(self, seconds: float) -> None:
        """How long a write waits for another writer before giving up with StoreBusyError."""
        raise NotImplementedError

    def lock_wait(self) -> float:
        """Seconds the next transaction may wait for another writer: what is left before `write_deadline` when one
        is set (a write made of several transactions waits that long in all, not that long each), else
        `write_wait`."""
        if self.write_deadline is None:
            return self.write_wait
        return max(0.0, self.write_deadline - time.monotonic())

    def vector_value(self, data: bytes) -> Any:
        """A vector (float32 bytes) as this backend's `embeddings.vector` column takes it."""
        return data

    def vector_bytes(self, value: Any) -> bytes:
        """An `embeddings.vector` column value as float32 bytes."""
        return bytes(value)

    def insert_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Insert many rows into one table (a store copy's bulk load), a batch per statement."""
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        batch: list[Sequence[Any]] = []
        for row in rows:
            batch.append(row)
            if len(batch) >= INSERT_BATCH:
                self.conn.executemany(sql, batch)
                batch.clear()
        self.conn.executemany(sql, batch)

    def vector_rows(self, sql: str, parameters: Sequence[Any] = ()) -> Iterable[Any]:
        """The rows of a query that reads `embeddings.vector` (each vector then goes through `vector_bytes`)."""
        return self.conn.execute(sql, parameters)

    def author_clause(self, tokens: list[str]) -> tuple[str, list[Any]]:
        """SQL admitting papers with an author whose name holds every token (any order), and its parameters."""
        likes = " AND ".join("(' ' || a.name_key || ' ') LIKE ?" for _ in tokens)
        return f"EXISTS (SELECT 1 FROM paper_authors a WHERE a.paper_pk = p.pk AND {likes})", [
            f"% {t} %" for t in tokens
        ]

    def index_vectors(self, model: str) -> bool:
        """Build a nearest-neighbour index of a model's vectors where the backend has one; True if built now."""
        return False

    def after_bulk_load(self) -> None:
        """Called after rows were written with their own keys (a copy), so new rows get fresh ones."""

    def files_home(self) -> Path:
        """A path whose folder holds the files that belong with this store (fetch snapshots): by default in the
        cache folder, under a name made from the store's location."""
        return self.settings.cache_dir / "stores" / hashlib.sha1(self.location.encode()).hexdigest()[:12] / "store"

    def paper_rows(self, venue: str | None = None) -> Iterator[tuple[int, Paper]]:
        """Papers with their internal row keys, in key order; cached in memory until the store changes
        (when the backend `keeps_rows`), else read as they are used.

        Callers share the cached Paper objects and must not modify them (use dataclasses.replace).
        """
        if not self.keeps_rows:
            return self._stream_rows(venue)
        generation = self.generation()
        cached = self.caches.rows.get(venue)
        if cached is None or cached[0] != generation:
            params: tuple[str, ...]
            sql, params = "SELECT pk, data FROM papers", ()
            if venue:
                sql, params = sql + " WHERE venue = ?", (venue,)
            with collection_paused():  # thousands of papers, all kept: a collection pass would free none
                rows = [(pk, paper_from_json(data)) for pk, data in self.conn.execute(sql + " ORDER BY pk", params)]
            for stale in [v for v, (g, _) in list(self.caches.rows.items()) if g != generation]:
                self.caches.rows.pop(stale, None)  # other venues' rows of an older state: read again when asked
            cached = self.caches.rows[venue] = (generation, rows)
        return iter(cached[1])

    def _stream_rows(self, venue: str | None) -> Iterator[tuple[int, Paper]]:
        params: tuple[str, ...]
        sql, params = "SELECT pk, data FROM papers", ()
        if venue:
            sql, params = sql + " WHERE venue = ?", (venue,)
        for pk, data in self.conn.execute(sql + " ORDER BY pk", params):
            yield pk, paper_from_json(data)

    def papers_changed_since(self, generation: int) -> list[tuple[int, Paper]]:
        """Papers written after the store's `generation` (added or changed), with their row keys, in key order."""
        rows = self.conn.execute("SELECT pk, data FROM papers WHERE changed > ?", (generation,))  # by its index
        return [(pk, paper_from_json(data)) for pk, data in sorted(rows)]

    def papers_by_pk(self, pks: Sequence[int]) -> dict[int, Paper]:
        """The papers with these row keys (keys not in the store are left out)."""
        found: dict[int, Paper] = {}
        wanted = list(dict.fromkeys(int(pk) for pk in pks))
        with collection_paused():  # every paper read is returned
            for offset in range(0, len(wanted), 500):
                part = wanted[offset : offset + 500]
                marks = ", ".join("?" * len(part))
                for pk, data in self.conn.execute(f"SELECT pk, data FROM papers WHERE pk IN ({marks})", part):
                    found[pk] = paper_from_json(data)
        return found

    def pks_of(self, paper_id: str, venue: str | None = None) -> list[int]:
        """Row keys of the papers with this id (in one venue when given), in key order."""
        sql, params = "SELECT pk FROM papers WHERE id = ?", [paper_id]
        if venue:
            sql, params = sql + " AND venue = ?", [paper_id, venue]
        return [row[0] for row in self.conn.execute(sql + " ORDER BY pk", params)]

    def filter_pks(self, where: PaperFilter) -> list[int]:
        """Row keys of the papers a filter admits."""
        clauses, params = self._where(where)
        return [row[0] for row in self.conn.execute(f"SELECT p.pk FROM papers p {clauses}", params)]

    def venues_of(self, paper_ids: Iterable[str]) -> dict[str, set[str]]:
        """The venues holding each of these paper ids (ids in no venue are left out)."""
        found: dict[str, set[str]] = {}
        for paper_id in set(paper_ids):
            for (venue,) in self.conn.execute("SELECT venue FROM papers WHERE id = ?", (paper_id,)):
                found.setdefault(paper_id, set()).add(venue)
        return found

    def get_venue(self, venue_id: str) -> Venue:
        """The venue an id names, or any spelling of it (`ICLR 2021`, `iclr-2021`: venues_named); NotFoundError for
        a venue not here, VenueNameError for a series held more than once (naming its venues) or a name with words
        left over (`ICLR 2021 Workshop`)."""
        row = self.conn.execute("SELECT id, name, conference, year FROM venues WHERE id = ?", (venue_id,)).fetchone()
        if row is not None:
            return Venue(*row)
        venues = self.venue_list()
        try:
            found = venues_named(venue_id, venues)
        except ValueError as exc:
            raise VenueNameError(str(exc)) from None
        if len(found) == 1:
            return found[0]
        if found:
            named = ", ".join(f"{v.id} ({v.name})" for v in found)
            raise VenueNameError(f"venue {excerpt(venue_id)} is ambiguous: it could mean {named}; name one of them")
        known = ", ".join(v.id for v in venues) or "none yet; run 'confnav ingest'"
        raise NotFoundError(f"unknown venue {excerpt(venue_id)} (in the store: {known})")

    def pick_venue(self, venue: str | None) -> str:
        """The venue asked for (checked), or the latest one in the store when none is named."""
        if venue:
            return self.get_venue(venue).id
        row = self.conn.execute("SELECT id FROM venues ORDER BY year DESC, id DESC LIMIT 1").fetchone()
        if row is None:
            raise ConfnavError("the store is empty: run 'confnav ingest FILE...' first")
        return row[0]

    def venue_list(self) -> list[Venue]:
        """Every venue of the store, oldest first, without counting its papers: what menus and series need (the
        counts of `venues` group every paper of every venue)."""
        return [
            Venue(*row) for row in self.conn.execute("SELECT id, name, conference, year FROM venues ORDER BY year, id")
        ]

    def venues(self) -> list[VenueSummary]:
        """Every venue of the store, oldest first, with its papers counted by decision, outcome and track."""
        return [self.venue_summary(venue) for venue in self.venue_list()]

    def venue_summary(self, venue: Venue) -> VenueSummary:
        """A venue with its papers counted by decision, outcome and track on the basis of every count and rate the
        reports show (decision_counts: placeholder records left out, and counted apart)."""
        by_decision: dict[str, int] = {}
        by_outcome: dict[str, int] = {}
        for decision, n in sorted(self.decision_counts(venue.id), key=lambda dn: (dn[0].tier, dn[0].name)):
            by_decision[decision.name] = by_decision.get(decision.name, 0) + n
            by_outcome[decision.outcome.value] = by_outcome.get(decision.outcome.value, 0) + n
        tracks: Counter[str] = Counter()
        placeholders = 0
        for track, title in self.conn.execute("SELECT track, title FROM papers WHERE venue = ?", (venue.id,)):
            if is_placeholder_title(title):
                placeholders += 1
            elif track is not None:
                tracks[track] += 1
        ordered = dict(sorted(tracks.items(), key=lambda tn: (-tn[1], tn[0])))
        return VenueSummary(venue, sum(by_decision.values()), by_decision, by_outcome, ordered, placeholders)

    def get_paper(self, paper_id: str, venue: str | None = None) -> Paper:
        """The paper with this id (and venue, when ids repeat across venues)."""
        query, params = "SELECT data FROM papers WHERE id = ?", [paper_id]
        if venue:
            venue = self.get_venue(venue).id  # an unknown venue says so, not that the paper is missing
            query, params = query + " AND venue = ?", [paper_id, venue]
        rows = self.conn.execute(query, params).fetchall()
        if not rows:
            where = f" in venue {venue!r}" if venue else ""
            raise NotFoundError(f"no paper with id {excerpt(paper_id)}{where}")
        if len(rows) > 1:
            raise ConfnavError(f"id {excerpt(paper_id)} is in several venues; pass {argument('venue')}")
        return paper_from_json(rows[0][0])

    def papers(self, where: PaperFilter | None = None, limit: int | None = None) -> list[Paper]:
        """Papers matching a filter, best decision tier and rating first."""
        clauses, params = self._where(where or PaperFilter())
        order = "p.venue, p.tier, p.rating_mean DESC NULLS LAST, p.title"
        sql = f"SELECT p.data FROM papers p {clauses} ORDER BY {order}"
        if limit:  # past SQL's largest integer is all of them (both backends refuse the number itself)
            sql += f" LIMIT {min(int(limit), 2**63 - 1)}"
        return [paper_from_json(row[0]) for row in self.conn.execute(sql, params)]

    def iter_papers(self, venue: str | None = None) -> Iterator[Paper]:
        for _, paper in self.paper_rows(venue):
            yield paper

    def count_papers(self, venue: str | None = None) -> int:
        if venue:
            return self.conn.execute("SELECT COUNT(*) FROM papers WHERE venue = ?", (venue,)).fetchone()[0]
        return self.conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0]

    def _where(self, f: PaperFilter) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        if f.venue:
            clauses.append("p.venue = ?")
            params.append(self.get_venue(f.venue).id)
        if f.year:
            clauses.append("p.venue IN (SELECT id FROM venues WHERE year = ?)")
            params.append(f.year)
        if f.decision is not None:
            wanted = f.decision_key()
            if wanted == REVIEWED:  # as Decision.reviewed: any known decision but a desk reject
                clauses.append("(p.outcome <> ? AND lower(p.decision) <> ?)")
                params.extend([Outcome.UNKNOWN.value, "desk-reject"])
            else:
                clauses.append("(p.outcome = ? OR lower(p.decision) = ?)")
                params.extend([wanted, wanted])
                self._check_decision(wanted)
        if f.has_code:
            clauses.append(self.has_code_sql)
        if f.min_rating is not None:
            if not f.venue:
                self._check_scales()
            clauses.append("p.rating_mean >= ?")
            params.append(f.min_rating)
        if f.author:
            tokens = name_key(f.author).split()
            if tokens:
                clause, values = self.author_clause(tokens)
                clauses.append(clause)
                params.extend(values)
        if f.keyword:
            clauses.append("EXISTS (SELECT 1 FROM paper_keywords k WHERE k.paper_pk = p.pk AND k.keyword_key LIKE ?)")
            params.append(f"%{fold(f.keyword)}%")
        return ("WHERE " + " AND ".join(clauses) if clauses else ""), params
