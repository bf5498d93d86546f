"""PostgreSQL's bulk write path for ingest: rows go in with `COPY`, and what they replace goes in one set-based
statement per table, instead of one statement per row (each a round trip to the server).

New papers take row keys drawn in one query from the table's sequence; changed papers go through a temporary
staging table (this connection's own, emptied at every commit) and one `UPDATE … FROM`. Everything runs inside
the caller's transaction, so a failed ingest leaves nothing behind. The writes are sent from a second thread
(deferred.py): the server applies them while the caller merges the next venue.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from confnav.model import Paper
from confnav.sources.base import SourceRecord
from confnav.store.connection import PostgresConnection
from confnav.store.deferred import DeferredWrites
from confnav.store.derived import COUNT_CHANGE, venue_generation_key
from confnav.store.paper_writes import GENERATION_STEP
from confnav.store.rows import PAPER_COLUMNS, RECORD_COLUMNS, index_rows, record_rows
from confnav.store.sql import SqlStore

FILTER_TABLES = ("paper_authors", "paper_keywords", "paper_places")
EMBEDDING_COLUMNS = ("paper_pk", "model", "text_hash", "vector")
VECTOR_COPY_TYPES = ("int8", "text", "text", "vector")  # the embeddings columns' types, for a binary COPY


class CopyWrites(SqlStore):
    """Ingest's writes (source records, merged papers and their filter rows) as COPY and set-based merges."""

    raw: Any  # the psycopg connection
    conn: PostgresConnection
    deferred: DeferredWrites
    _generation_now: int | None = None  # the generation this transaction has reached (it alone writes it)

    def put_records(self, records: list[SourceRecord]) -> None:
        """Store each record under its resolved (venue, paper id), replacing the same source's earlier one: the
        earlier rows of these keys are deleted in one statement and the new ones copied in (of two records of one
        key in the batch the later wins, as row-by-row upserts would have it)."""
        rows = list({row[:3]: row for row in record_rows(records)}.values())
        if not rows:
            return
        keys = [[row[i] for row in rows] for i in range(3)]

        def write() -> None:
            self.raw.execute(
                "DELETE FROM source_records WHERE (venue, paper_id, source) IN"
                " (SELECT * FROM unnest(%s::text[], %s::text[], %s::text[]))",
                keys,
            )
            self._copy("source_records", RECORD_COLUMNS, rows)

        self._send(write)

    def _send(self, write: Callable[[], None]) -> None:
        """Send a write from the second thread inside this store's transaction (which waits for it before
        committing); outside one, the write is made at once in a transaction of its own (its staging table
        empties at every commit, so its statements cannot each commit on their own)."""
        if self._writer == threading.get_ident():
            self.deferred.submit(write)
        else:
            with self.transaction():
                write()

    def _advance_generation(self, venues: list[str]) -> int:
        """The next generation, counted here once the transaction's first write has read it (the writer lock
        keeps every other writer out until it commits); the counters' updates are sent with the writes."""
        if self._writer != threading.get_ident():
            return super()._advance_generation(venues)
        if self._generation_now is None:
            self._generation_now = self.generation()
        self._generation_now += 1

        def write() -> None:
            self.conn.send(GENERATION_STEP)
            for venue in venues:
                self.conn.send(COUNT_CHANGE, (venue_generation_key(venue),))

        self._send(write)
        return self._generation_now

    def _write_papers(
        self,
        new: list[tuple[Paper, tuple[Any, ...]]],
        changed: list[tuple[int, Paper, tuple[Any, ...]]],
        same_rows: Collection[int] = (),
    ) -> None:
        """New papers copied in under row keys drawn from the table's own sequence; changed papers staged and
        updated in one statement; the changed papers' filter rows deleted, and every paper's copied in afresh
        (but those of the changed papers in `same_rows`, which stay). Sent from the writes' thread."""
        self._send(lambda: self._send_papers(new, changed, same_rows))

    def _send_papers(
        self,
        new: list[tuple[Paper, tuple[Any, ...]]],
        changed: list[tuple[int, Paper, tuple[Any, ...]]],
        same_rows: Collection[int],
    ) -> None:
        pks = sorted(
            pk
            for (pk,) in self.raw.execute(
                "SELECT nextval(pg_get_serial_sequence('papers', 'pk')) FROM generate_series(1, %s)", (len(new),)
            )
        )
        columns = ("pk", "venue", "id", *PAPER_COLUMNS)
        self._copy("papers", columns, ((pk, p.venue, p.id, *v) for pk, (p, v) in zip(pks, new, strict=True)))
        if changed:
            self._stage("stage_papers", "papers", columns, [(pk, p.venue, p.id, *v) for pk, p, v in changed])
            updates = ", ".join(f"{c} = s.{c}" for c in PAPER_COLUMNS)
            self.raw.execute(f"UPDATE papers p SET {updates} FROM stage_papers s WHERE p.pk = s.pk")
            old = [pk for pk, _, _ in changed if pk not in same_rows]
            for table in FILTER_TABLES:
                self.raw.execute(f"DELETE FROM {table} WHERE paper_pk = ANY(%s)", (old,))
        kept = ((pk, p) for pk, p, _ in changed if pk not in same_rows)
        self._put_index_rows([*zip(pks, (p for p, _ in new), strict=True), *kept])

    def _put_index_rows(self, rows: list[tuple[int, Paper]]) -> None:
        """The filter tables' rows, copied straight in (their keys are fresh: the papers' old rows are gone)."""
        for table, columns, values in index_rows(rows):
            self._copy(table, columns, values)

    def _stage(self, name: str, like: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Empty the temporary table `name` (made on first use with `like`'s column types) and copy `rows` in."""
        listed = ", ".join(columns)
        self.raw.execute(
            f"CREATE TEMP TABLE IF NOT EXISTS {name} ON COMMIT DELETE ROWS AS SELECT {listed} FROM {like} WITH NO DATA"
        )
        self.raw.execute(f"TRUNCATE {name}")
        self._copy(name, columns, rows)

    def insert_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """One COPY per table; vectors in binary format (pgvector's text form costs a Python call per number)."""
        types = VECTOR_COPY_TYPES if table == "embeddings" and tuple(columns) == EMBEDDING_COLUMNS else None
        self.deferred.settle()
        self._copy(table, columns, rows, types)

    def _copy(
        self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], types: Sequence[str] | None = None
    ) -> None:
        """COPY rows into a table: in text format (every value as psycopg writes it, None as NULL), or in binary
        format when the columns' PostgreSQL `types` are given."""
        statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN" + (" (FORMAT BINARY)" if types else "")
        with self.raw.cursor() as cursor, cursor.copy(statement) as copy:
            if types:
                copy.set_types(types)
            for row in rows:
                copy.write_row(row)
