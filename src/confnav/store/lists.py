"""Named reading lists kept in the store (a mixin of SqliteStore)."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime

from confnav.errors import ConfnavError, NotFoundError, excerpt
from confnav.model import Paper
from confnav.store.connection import Connection

_NAME = re.compile(r"^[\w][\w .\-]{0,59}$")


class ReadingLists:
    """Create, fill and read reading lists; papers are kept by (venue, id) in the order added."""

    conn: Connection
    get_paper: Callable[..., Paper]  # provided by SqliteStore
    transaction: Callable[[], AbstractContextManager[None]]

    def reading_lists(self) -> list[tuple[str, int]]:
        rows = self.conn.execute(
            "SELECT l.name, COUNT(p.paper_id) FROM reading_lists l LEFT JOIN reading_list_papers p ON p.list = l.name"
            " GROUP BY l.name ORDER BY l.created, l.name"
        )
        return [(name, n) for name, n in rows]

    def create_list(self, name: str) -> None:
        name = name.strip()
        if not _NAME.match(name):
            raise ConfnavError("a list name is 1-60 letters, digits, spaces, '.', '-' or '_'")
        with self.transaction():
            self.conn.execute(
                "INSERT INTO reading_lists (name, created) VALUES (?, ?) ON CONFLICT(name) DO NOTHING",
                (name, datetime.now(UTC).isoformat(timespec="seconds")),
            )

    def delete_list(self, name: str) -> None:
        self._require(name)
        with self.transaction():
            self.conn.execute("DELETE FROM reading_lists WHERE name = ?", (name,))

    def add_to_list(self, name: str, paper_id: str, venue: str | None = None) -> Paper:
        self._require(name)
        paper = self.get_paper(paper_id, venue)
        with self.transaction():
            position = self.conn.execute(
                "SELECT COALESCE(MAX(position), 0) + 1 FROM reading_list_papers WHERE list = ?", (name,)
            ).fetchone()[0]
            self.conn.execute(
                "INSERT INTO reading_list_papers (list, venue, paper_id, position) VALUES (?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                (name, paper.venue, paper.id, position),
            )
        return paper

    def remove_from_list(self, name: str, paper_id: str, venue: str | None = None) -> None:
        """Take a paper off a list; `venue` picks one when papers of several venues share the id. NotFoundError
        when the list holds no such paper (nothing was taken off)."""
        self._require(name)
        where, params = "list = ? AND paper_id = ?", [name, paper_id]
        if venue:
            where, params = where + " AND venue = ?", [*params, venue]
        with self.transaction():
            removed = self.conn.execute(f"DELETE FROM reading_list_papers WHERE {where}", params).rowcount
        if not removed:
            held = f" of {venue}" if venue else ""
            raise NotFoundError(f"the reading list {excerpt(name)} holds no paper {excerpt(paper_id)}{held}")

    def list_papers(self, name: str) -> list[Paper]:
        self._require(name)
        rows = self.conn.execute(
            "SELECT venue, paper_id FROM reading_list_papers WHERE list = ? ORDER BY position", (name,)
        ).fetchall()
        return [self.get_paper(paper_id, venue) for venue, paper_id in rows]

    def _require(self, name: str) -> None:
        if not self.conn.execute("SELECT 1 FROM reading_lists WHERE name = ?", (name,)).fetchone():
            raise NotFoundError(f"no reading list named {excerpt(name)}")
