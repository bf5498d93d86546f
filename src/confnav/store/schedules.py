"""A venue's programme kept in the store: sessions with times and rooms, and the papers presented in each (a mixin
of SqlStore). Sessions come from schedule files (replaced file by file) and from the papers' own `session` field."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime

from confnav.model import Paper, Session, fold, session_names
from confnav.store.connection import Connection

PAPER_LIST = "paper list"  # the source of sessions named by the papers' own `session` field


def session_slug(name: str) -> str:
    """An id for a session named `name` (lower case words joined by `-`)."""
    return re.sub(r"[^a-z0-9]+", "-", fold(name)).strip("-")[:80] or "session"


def unique_id(wanted: str, taken: set[str]) -> str:
    """`wanted`, or `wanted-2`, `wanted-3`, … if another session has it."""
    number, candidate = 1, wanted
    while candidate in taken:
        number += 1
        candidate = f"{wanted}-{number}"
    return candidate


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


class ScheduleTables:
    """Store, replace and read a venue's sessions and which papers each presents."""

    conn: Connection
    paper_rows: Callable[..., Iterator[tuple[int, Paper]]]  # provided by SqlStore
    count_change: Callable[[str], None]

    def put_sessions(self, venue: str, source: str, sessions: list[Session], links: list[tuple[str, str]]) -> None:
        """Replace the venue's sessions from `source` (and their paper links) by these, inside the caller's
        transaction; `links` are (session id, paper id) in presentation order. A session id another source holds
        is taken over by this one."""
        ids = [s.id for s in sessions] + [
            row[0]
            for row in self.conn.execute("SELECT id FROM sessions WHERE venue = ? AND source = ?", (venue, source))
        ]
        self.conn.executemany(
            "DELETE FROM session_papers WHERE venue = ? AND session = ?", [(venue, i) for i in set(ids)]
        )
        self.conn.executemany("DELETE FROM sessions WHERE venue = ? AND id = ?", [(venue, i) for i in set(ids)])
        self.conn.executemany(
            "INSERT INTO sessions (venue, id, name, starts, ends, timezone, room, link, source)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    venue,
                    s.id,
                    s.name,
                    s.start.isoformat() if s.start else None,
                    s.end.isoformat() if s.end else None,
                    s.timezone,
                    s.room,
                    s.link,
                    source,
                )
                for s in sessions
            ],
        )
        rows = list(dict.fromkeys(links))
        self.conn.executemany(
            "INSERT INTO session_papers (venue, session, paper_id, position) VALUES (?, ?, ?, ?)",
            [(venue, session, paper, position) for position, (session, paper) in enumerate(rows)],
        )
        self.count_change("sessions")

    def sessions(self, venue: str) -> list[Session]:
        """The venue's sessions, earliest first (those without a time last, by name)."""
        rows = self.conn.execute(
            "SELECT id, name, starts, ends, timezone, room, link, source FROM sessions WHERE venue = ?", (venue,)
        ).fetchall()
        sessions = [
            Session(venue, i, name, _time(starts), _time(ends), tz, room, link, source)
            for i, name, starts, ends, tz, room, link, source in rows
        ]
        return sorted(sessions, key=lambda s: (s.start is None, s.start.timestamp() if s.start else 0, s.name, s.id))

    def session_papers(self, venue: str) -> list[tuple[str, str]]:
        """(session id, paper id) of every paper presented in a session of the venue, in presentation order."""
        rows = self.conn.execute(
            "SELECT session, paper_id FROM session_papers WHERE venue = ? ORDER BY position, session, paper_id",
            (venue,),
        )
        return [(session, paper) for session, paper in rows]

    def sync_list_sessions(
        self, venue: str, named: bool = True, papers: Iterable[tuple[str, str | None]] | None = None
    ) -> None:
        """Rebuild the venue's sessions named by its papers' own `session` field (no times: a paper list gives
        none); sessions of that name from a schedule file are left as they are. `named`: whether the papers just
        written name a session; if not, and the venue has no such sessions yet, nothing is read or rebuilt.
        `papers`: (id, session) of every paper of the venue, when the caller holds them (else they are read)."""
        had = self.conn.execute("SELECT 1 FROM sessions WHERE venue = ? AND source = ?", (venue, PAPER_LIST)).fetchone()
        if not had and not named:
            return
        taken = {
            fold(name)
            for (name,) in self.conn.execute(
                "SELECT name FROM sessions WHERE venue = ? AND source <> ?", (venue, PAPER_LIST)
            )
        }
        found: dict[str, Session] = {}
        links: list[tuple[str, str]] = []
        if papers is None:
            papers = ((paper.id, paper.session) for _, paper in self.paper_rows(venue))
        for paper_id, named_sessions in papers:
            for name in session_names(named_sessions):
                if fold(name) in taken:
                    continue
                if fold(name) not in found:
                    ids = {s.id for s in found.values()}
                    found[fold(name)] = Session(venue, unique_id(f"list-{session_slug(name)}", ids), name)
                links.append((found[fold(name)].id, paper_id))
        if found or had:
            self.put_sessions(venue, PAPER_LIST, list(found.values()), links)
