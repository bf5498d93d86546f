"""The store's derived tables: topic runs (themes, assignments, map positions) and external signals."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from confnav.store.connection import Connection
from confnav.store.derived import SIGNALS_KEY


@dataclass
class StoredTheme:
    """A theme row: id like `t03` (level 1) or `t03.2` (level 2), its label and JSON details."""

    venue: str
    id: str
    level: int
    parent: str | None
    label: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class StoredAssignment:
    """Where one paper sits: its theme, sub-theme, closeness to the centre, and map position."""

    paper_pk: int
    theme: str
    subtheme: str | None
    confidence: float
    low_confidence: bool
    x: float
    y: float


class TopicTables:
    """Mixin for SqliteStore: themes and external signals; `conn` is the store's connection."""

    conn: Connection
    citation_count_sql = ""  # a backend's SQL for a paper's citation count in its JSON (`data`), NULL when none
    count_change: Callable[[str], None]

    def topic_run(self, venue: str) -> tuple[int, str, dict[str, Any]] | None:
        """(store generation, model, parameters) of the venue's stored themes, or None."""
        row = self.conn.execute("SELECT generation, model, data FROM topic_runs WHERE venue = ?", (venue,)).fetchone()
        return (row[0], row[1], json.loads(row[2])) if row else None

    def put_topics(
        self,
        venue: str,
        generation: int,
        model: str,
        params: dict[str, Any],
        themes: list[StoredTheme],
        assignments: list[StoredAssignment],
    ) -> None:
        """Replace the venue's themes and assignments (call inside a transaction)."""
        self.count_change("themes")
        self.conn.execute("DELETE FROM themes WHERE venue = ?", (venue,))
        self.conn.execute("DELETE FROM paper_themes WHERE venue = ?", (venue,))
        self.conn.execute(
            "INSERT INTO topic_runs (venue, generation, model, data) VALUES (?, ?, ?, ?) ON CONFLICT(venue)"
            " DO UPDATE SET generation = excluded.generation, model = excluded.model, data = excluded.data",
            (venue, generation, model, json.dumps(params, sort_keys=True)),
        )
        self.conn.executemany(
            "INSERT INTO themes (venue, id, level, parent, label, data) VALUES (?, ?, ?, ?, ?, ?)",
            [(t.venue, t.id, t.level, t.parent, t.label, json.dumps(t.data, sort_keys=True)) for t in themes],
        )
        self.conn.executemany(
            "INSERT INTO paper_themes (paper_pk, venue, theme, subtheme, confidence, low_confidence, x, y)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (a.paper_pk, venue, a.theme, a.subtheme, a.confidence, int(a.low_confidence), a.x, a.y)
                for a in assignments
            ],
        )

    def themes(self, venue: str, level: int | None = None) -> list[StoredTheme]:
        params: list[object]
        sql, params = "SELECT venue, id, level, parent, label, data FROM themes WHERE venue = ?", [venue]
        if level is not None:
            sql, params = sql + " AND level = ?", [venue, level]
        rows = self.conn.execute(sql + " ORDER BY id", params).fetchall()
        return [StoredTheme(r[0], r[1], r[2], r[3], r[4], json.loads(r[5])) for r in rows]

    def assignments(self, venue: str) -> dict[int, StoredAssignment]:
        """Paper pk → its assignment, for every paper of the venue."""
        rows = self.conn.execute(
            "SELECT paper_pk, theme, subtheme, confidence, low_confidence, x, y FROM paper_themes WHERE venue = ?",
            (venue,),
        )
        return {r[0]: StoredAssignment(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6]) for r in rows}

    def put_external_signals(self, venue: str, source: str, rows: list[tuple[str, str, float]]) -> None:
        """Store (paper id, signal name, value) rows from a user file, replacing earlier values."""
        self.count_change(SIGNALS_KEY)
        self.conn.executemany(
            "INSERT INTO external_signals (venue, paper_id, name, value, source) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT(venue, paper_id, name) DO UPDATE SET value = excluded.value, source = excluded.source",
            [(venue, paper_id, name, value, source) for paper_id, name, value in rows],
        )

    def external_signals(self, venue: str) -> dict[str, dict[str, float]]:
        """Paper id → {signal name: value} of the user-supplied signals of a venue."""
        found: dict[str, dict[str, float]] = {}
        rows = self.conn.execute("SELECT paper_id, name, value FROM external_signals WHERE venue = ?", (venue,))
        for paper_id, name, value in rows:
            found.setdefault(paper_id, {})[name] = value
        return found

    def has_citation_counts(self, venue: str, supplied: bool = True) -> bool:
        """Whether any paper of the venue holds a citation count (ingested or fetched; with `supplied`, also from
        a signals file), asked inside the database: reading the venue's papers for it took a second."""
        sql = f"SELECT EXISTS (SELECT 1 FROM papers WHERE venue = ? AND {self.citation_count_sql} IS NOT NULL)"
        if not supplied:
            return bool(self.conn.execute(sql, (venue,)).fetchone()[0])
        sql += " OR EXISTS (SELECT 1 FROM external_signals WHERE venue = ? AND name = 'citations')"
        return bool(self.conn.execute(sql, (venue, venue)).fetchone()[0])
