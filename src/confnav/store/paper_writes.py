"""Ingest's writes to the store (a mixin of SqlStore): venues, source records, merged papers with their filter
rows, and a paper's new id wherever it is named. PostgreSQL writes the same rows its own way (postgres_writes.py)."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from typing import Any

from confnav.model import Paper, Venue
from confnav.sources.base import SourceRecord
from confnav.store.base import canonical_json
from confnav.store.connection import Connection
from confnav.store.derived import venue_generation_key
from confnav.store.rows import PAPER_COLUMNS, index_rows, indexed, paper_columns, record_rows, same_paper

GENERATION_STEP = "UPDATE meta SET value = value + 1 WHERE key = 'generation'"

# The tables naming papers by (venue, paper_id): a renamed paper keeps its lists, marks, notes, tags and news.
RENAMED = (
    "source_records",
    "external_signals",
    "reading_list_papers",
    "profile_items",
    "profile_marks",
    "profile_notes",
    "profile_tags",
    "news_items",
    "review_versions",
    "review_texts",
    "decisions_arrived",
)


class PaperWrites:
    """Write what an ingest read and merged, inside the caller's transaction."""

    conn: Connection
    generation: Callable[[], int]
    count_change: Callable[[str], None]
    _ids_in: Callable[..., Iterator[tuple[Any, ...]]]  # rows of these papers of a venue, a batch at a time (news.py)

    def put_venue(self, venue: Venue) -> bool:
        """Add a venue unless the store has it; True if added (then it holds nothing yet)."""
        added = self.conn.execute(
            "INSERT INTO venues (id, name, conference, year) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO NOTHING",
            (venue.id, venue.name, venue.conference, venue.year),
        )
        return added.rowcount == 1

    def put_records(self, records: list[SourceRecord]) -> None:
        """Store each record under its resolved (venue, paper id), replacing the same source's earlier one
        (ingest passes only records that changed)."""
        rows = record_rows(records)
        self.conn.executemany(
            """INSERT INTO source_records (venue, paper_id, source, kind, line, record, data)
               VALUES (?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT(venue, paper_id, source) DO UPDATE SET
                 kind = excluded.kind, line = excluded.line, record = excluded.record, data = excluded.data""",
            rows,
        )

    def rename_paper(self, venue: str, old: str, new: str) -> None:
        """Give a paper another id everywhere it is named (its row keeps its key, vectors and themes)."""
        row = self.conn.execute("SELECT data FROM papers WHERE venue = ? AND id = ?", (venue, old)).fetchone()
        if row is not None:
            data = canonical_json({**json.loads(row[0]), "id": new})
            self.conn.execute("UPDATE papers SET id = ?, data = ? WHERE venue = ? AND id = ?", (new, data, venue, old))
        for table in RENAMED:
            self.conn.execute(f"UPDATE {table} SET paper_id = ? WHERE venue = ? AND paper_id = ?", (new, venue, old))

    def records(self, venue: str, paper_ids: Collection[str] | None = None) -> dict[str, list[SourceRecord]]:
        """Every stored source record of a venue (of these papers only, when given), grouped by paper id."""
        grouped: dict[str, list[SourceRecord]] = {}
        select = "SELECT p.paper_id, p.source, p.kind, p.line, p.record, p.data FROM source_records p"
        rows = (
            self.conn.execute(f"{select} WHERE p.venue = ? ORDER BY p.paper_id, p.source", (venue,))
            if paper_ids is None
            else self._ids_in(venue, list(paper_ids), select, "p.paper_id", "p.paper_id, p.source")
        )
        for paper_id, source, kind, line, record, data in rows:
            rec = SourceRecord(
                source=source,
                kind=kind,
                id=paper_id,
                fields=json.loads(data),
                venue=venue,
                line=line,
                record=record,
                stored=data,
            )
            rec._key = (venue, paper_id)
            grouped.setdefault(paper_id, []).append(rec)
        return grouped

    def put_paper(self, paper: Paper) -> str:
        """Insert or update one merged paper: "added", "updated" or "unchanged"."""
        return self.put_papers([paper])[0]

    def put_papers(self, papers: list[Paper], new_venues: Collection[str] = ()) -> list[str]:
        """Insert or update merged papers and their index rows in a few batched statements; the papers of
        `new_venues` (added in this transaction, holding no papers yet) are not looked up.

        Returns "added", "updated" or "unchanged" for each; only real changes advance the generation.
        """
        found: dict[tuple[str, str], tuple[int, str]] = {}
        for venue in {p.venue for p in papers} - set(new_venues):
            ids = [p.id for p in papers if p.venue == venue]
            for pk, paper_id, data in self._ids_in(venue, ids, "SELECT p.pk, p.id, p.data FROM papers p"):
                found[(venue, paper_id)] = (pk, data)
        changes: list[str] = []
        written: list[tuple[int | None, Paper, str]] = []
        same_rows: set[int] = set()  # changed papers whose filter rows stay as they are
        for paper in papers:
            fields = paper.to_dict()
            data = canonical_json(fields)
            row = found.get((paper.venue, paper.id))
            if row and same_paper(row[1], data):
                changes.append("unchanged")
                continue
            written.append((row[0] if row else None, paper, data))
            changes.append("updated" if row else "added")
            if row and indexed(json.loads(row[1])) == indexed(fields):
                same_rows.add(row[0])
        if not written:
            return changes
        generation = self._advance_generation(sorted({p.venue for _, p, _ in written}))
        new = [(p, paper_columns(p, data, generation)) for pk, p, data in written if pk is None]
        changed = [(pk, p, paper_columns(p, data, generation)) for pk, p, data in written if pk is not None]
        self._write_papers(new, changed, same_rows)
        return changes

    def _advance_generation(self, venues: list[str]) -> int:
        """Advance the store's generation and these venues' counters; the new generation, which each written paper
        records (what changed since an index was made)."""
        self.conn.execute(GENERATION_STEP)
        for venue in venues:
            self.count_change(venue_generation_key(venue))
        return self.generation()

    def _write_papers(
        self,
        new: list[tuple[Paper, tuple[Any, ...]]],
        changed: list[tuple[int, Paper, tuple[Any, ...]]],
        same_rows: Collection[int] = (),
    ) -> None:
        """Write new papers and changed ones (with their row keys) and their index rows, but for the changed
        papers in `same_rows`, whose index rows stay; `values` are each paper's columns besides venue and id. A
        backend with a bulk path writes them its own way."""
        old = [(pk,) for pk, _, _ in changed if pk not in same_rows]
        self.conn.executemany(
            f"UPDATE papers SET {', '.join(f'{c} = ?' for c in PAPER_COLUMNS)} WHERE pk = ?",
            [(*values, pk) for pk, _, values in changed],
        )
        for table in ("paper_authors", "paper_keywords", "paper_places"):
            self.conn.executemany(f"DELETE FROM {table} WHERE paper_pk = ?", old)
        rows = [(pk, paper) for pk, paper, _ in changed if pk not in same_rows]
        columns = ("venue", "id", *PAPER_COLUMNS)
        inserted = f"INSERT INTO papers ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))}) RETURNING pk"
        for paper, values in new:
            (pk,) = self.conn.execute(inserted, (paper.venue, paper.id, *values)).fetchone()
            rows.append((pk, paper))
        self._put_index_rows(rows)

    def _put_index_rows(self, rows: list[tuple[int, Paper]]) -> None:
        """Author and keyword rows (for filters) of freshly written papers."""
        for table, columns, values in index_rows(rows):
            marks = ", ".join("?" * len(columns))
            self.conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", values)

    # --- reads ---
