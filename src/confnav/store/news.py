"""Watches kept in the store (a query, an author or a theme a profile follows) and the news items each ingest
found for them (a mixin of SqlStore)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from confnav.errors import ConfnavError, NotFoundError, excerpt
from confnav.model import Paper
from confnav.store.connection import Connection

WATCH_KINDS = ("query", "author", "theme", "decisions")
BATCH = 500  # ids per IN (...) list


def _alike(value: str) -> str:
    """A watch's value as compared with another's: case and spacing aside."""
    return " ".join(value.split()).casefold()


@dataclass(frozen=True)
class Watch:
    """What a profile follows: papers matching a query, by an author, in a theme, or a venue's decisions (its value
    is then the venue's id); of one venue or any."""

    id: str
    profile: str
    kind: str
    value: str
    venue: str | None
    created: str


@dataclass(frozen=True)
class NewsItem:
    """What one ingest changed in a paper a watch follows: new, new reviews, changed ratings or decision.
    `id` is a UUID (the Atom entry's id), `created` RFC 3339 in UTC."""

    id: str
    watch: str
    profile: str
    venue: str
    paper_id: str
    title: str
    kind: str
    summary: str
    created: str


def now() -> str:
    """UTC in RFC 3339 with microseconds, so that news of two ingests a second apart keep their order."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


class NewsTables:
    """Add, list and remove watches; keep and read their news, newest first."""

    conn: Connection
    create_profile: Callable[[str], None]  # provided by ProfileTables
    papers_by_pk: Callable[[Sequence[int]], dict[int, Paper]]  # provided by SqlStore
    transaction: Callable[[], AbstractContextManager[None]]

    def add_watch(self, profile: str, kind: str, value: str, venue: str | None = None) -> Watch:
        """A new watch of the profile (made if new); its id is `w` and a number, never reused. The same watch
        twice (value alike but for case and spacing) is refused: it would only double the profile's news."""
        if kind not in WATCH_KINDS:
            raise ConfnavError(f"a watch is one of {', '.join(WATCH_KINDS)}, not {excerpt(kind)}")
        self.create_profile(profile)
        with self.transaction():
            rows = self.conn.execute(
                "SELECT id, value, venue FROM watches WHERE profile = ? AND kind = ?", (profile, kind)
            )
            for watch_id, held, held_venue in rows.fetchall():
                if held_venue == venue and _alike(held) == _alike(value):
                    raise ConfnavError(
                        f"{profile} already has this watch: {watch_id} ({kind} {excerpt(held)}); nothing added"
                    )
            numbers = [int(i[1:]) for (i,) in self.conn.execute("SELECT id FROM watches") if i[1:].isdigit()]
            watch = Watch(f"w{max(numbers, default=0) + 1}", profile, kind, value, venue, now())
            self.conn.execute(
                "INSERT INTO watches (id, profile, kind, value, venue, created) VALUES (?, ?, ?, ?, ?, ?)",
                (watch.id, profile, kind, value, venue, watch.created),
            )
        return watch

    def watches(self, profile: str | None = None) -> list[Watch]:
        """Every watch (of one profile when given), oldest first."""
        params: tuple[str, ...] = ()
        sql = "SELECT id, profile, kind, value, venue, created FROM watches"
        if profile is not None:
            sql, params = sql + " WHERE profile = ?", (profile,)
        rows = self.conn.execute(sql + " ORDER BY created, id", params).fetchall()
        return [Watch(*row) for row in rows]

    def remove_watch(self, watch_id: str) -> Watch:
        """Drop a watch and its news."""
        found = [w for w in self.watches() if w.id == watch_id]
        if not found:
            raise NotFoundError(f"no watch {excerpt(watch_id)}: 'confnav watch ls' lists them")
        with self.transaction():
            self.conn.execute("DELETE FROM news_items WHERE watch = ?", (watch_id,))
            self.conn.execute("DELETE FROM watches WHERE id = ?", (watch_id,))
        return found[0]

    def put_news(self, items: list[NewsItem]) -> None:
        """Keep news items (call inside a transaction: the ingest's that found them)."""
        self.conn.executemany(
            "INSERT INTO news_items (id, watch, profile, venue, paper_id, title, kind, summary, created)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(n.id, n.watch, n.profile, n.venue, n.paper_id, n.title, n.kind, n.summary, n.created) for n in items],
        )

    def news(self, profile: str, since: str | None = None, limit: int | None = None) -> list[NewsItem]:
        """A profile's news, newest first; `since` (an ISO date or time) keeps those from then on."""
        sql = (
            "SELECT id, watch, profile, venue, paper_id, title, kind, summary, created FROM news_items"
            " WHERE profile = ?"
        )
        params: list[object] = [profile]
        if since:
            sql, params = sql + " AND created >= ?", [*params, since]
        sql += " ORDER BY created DESC, venue, paper_id, watch"
        if limit is not None:
            sql, params = sql + " LIMIT ?", [*params, limit]
        return [NewsItem(*row) for row in self.conn.execute(sql, params)]

    def papers_by_id(self, venue: str, paper_ids: Sequence[str]) -> dict[str, Paper]:
        """The stored papers of a venue with these ids (ids not stored are left out): what an ingest is about to
        change, read before it writes."""
        pks = {pk: paper_id for paper_id, pk in self._ids_in(venue, paper_ids, "SELECT p.id, p.pk FROM papers p")}
        return {pks[pk]: paper for pk, paper in self.papers_by_pk(list(pks)).items()}

    def themes_of(self, venue: str, paper_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The theme and sub-theme ids of these papers of a venue (papers without themes are left out)."""
        sql = "SELECT p.id, t.theme, t.subtheme FROM paper_themes t JOIN papers p ON p.pk = t.paper_pk"
        return {
            paper_id: (theme, *([sub] if sub else [])) for paper_id, theme, sub in self._ids_in(venue, paper_ids, sql)
        }

    def _ids_in(
        self, venue: str, paper_ids: Sequence[str], select: str, column: str = "p.id", order: str = ""
    ) -> Iterator[tuple[Any, ...]]:
        """The rows of `select` (its table as `p`) of these papers of a venue, a batch of ids at a time (each batch
        in `order`, when given)."""
        wanted = list(dict.fromkeys(paper_ids))
        for offset in range(0, len(wanted), BATCH):
            part = wanted[offset : offset + BATCH]
            marks = ", ".join("?" * len(part))
            sql = f"{select} WHERE p.venue = ? AND {column} IN ({marks})" + (f" ORDER BY {order}" if order else "")
            yield from self.conn.execute(sql, [venue, *part])
