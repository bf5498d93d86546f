"""Researcher profiles kept in the store: their papers (matched to stored ones, or their own texts) and the
papers they liked or disliked (a mixin of SqlStore)."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from confnav.errors import ConfnavError, NotFoundError, excerpt
from confnav.model import Paper
from confnav.sources.links import openreview_id
from confnav.store.connection import Connection

NAME_RULE = "use 1-60 letters or digits (any script, accents included), '_', '.' or '-', not beginning with '.' or '-'"
_TAG = re.compile(r"^[^,;\r\n]{1,60}$")
MARKS = ("like", "dislike")


def checked_tag(tag: str) -> str:
    """A tag as kept (spaces trimmed); a ConfnavError for one that is not a word or short phrase."""
    if not _TAG.match(tag.strip()):
        raise ConfnavError(f"tag {excerpt(tag)}: use 1-60 characters without commas, semicolons or line breaks")
    return tag.strip()


@dataclass(frozen=True)
class ProfileItem:
    """One entry of a profile: a stored paper (venue, paper_id) or the profile's own text (no paper_id)."""

    title: str
    abstract: str | None = None
    year: int | None = None
    venue: str | None = None
    paper_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)  # identifiers (doi, arxiv, openreview) and other fields


def valid_name(name: str) -> bool:
    """Whether a profile name keeps NAME_RULE: letters as any script writes them (combining accents too, as some
    keyboards send `ü`), so that the rule's "letters" holds; nothing that needs quoting in a path or a shell."""
    if not 1 <= len(name) <= 60 or not (name[0].isalnum() or name[0] == "_"):
        return False
    return all(c.isalnum() or c in "_.-" or unicodedata.category(c).startswith("M") for c in name)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ProfileTables:
    """Create profiles, add their items, mark papers; items keep the order they were imported in."""

    conn: Connection
    get_paper: Callable[..., Paper]  # provided by SqlStore
    transaction: Callable[[], AbstractContextManager[None]]

    def profiles(self) -> list[tuple[str, int, int]]:
        """Each profile's name, number of items and of marks."""
        rows = self.conn.execute(
            "SELECT name, (SELECT COUNT(*) FROM profile_items i WHERE i.profile = p.name),"
            " (SELECT COUNT(*) FROM profile_marks m WHERE m.profile = p.name) FROM profiles p ORDER BY created, name"
        )
        return [(name, items, marks) for name, items, marks in rows]

    def create_profile(self, name: str) -> None:
        if not valid_name(name):
            raise ConfnavError(f"profile name {excerpt(name)}: {NAME_RULE}")
        with self.transaction():
            self.conn.execute(
                "INSERT INTO profiles (name, created) VALUES (?, ?) ON CONFLICT(name) DO NOTHING", (name, _now())
            )

    def add_profile_items(self, name: str, items: list[ProfileItem]) -> int:
        """Append items not already in the profile (same paper, or same title for own texts); the number added."""
        self.create_profile(name)
        have = {
            (venue, paper_id) if paper_id else (None, title.casefold())
            for venue, paper_id, title in self.conn.execute(
                "SELECT venue, paper_id, title FROM profile_items WHERE profile = ?", (name,)
            )
        }
        rows = []
        for item in items:
            key = (item.venue, item.paper_id) if item.paper_id else (None, item.title.casefold())
            if key not in have:
                have.add(key)
                rows.append(item)
        with self.transaction():
            start = self.conn.execute(
                "SELECT COALESCE(MAX(position), 0) FROM profile_items WHERE profile = ?", (name,)
            ).fetchone()[0]
            self.conn.executemany(
                "INSERT INTO profile_items (profile, position, venue, paper_id, title, abstract, year, data)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (name, start + i, it.venue, it.paper_id, it.title, it.abstract, it.year, json.dumps(it.data))
                    for i, it in enumerate(rows, start=1)
                ],
            )
        return len(rows)

    def profile_items(self, name: str) -> list[ProfileItem]:
        self._require_profile(name)
        rows = self.conn.execute(
            "SELECT title, abstract, year, venue, paper_id, data FROM profile_items WHERE profile = ?"
            " ORDER BY position",
            (name,),
        ).fetchall()
        return [ProfileItem(t, a, y, v, p, json.loads(d)) for t, a, y, v, p, d in rows]

    def profile_paper(self, ref: str, venue: str | None = None) -> Paper:
        """The stored paper a profile verb names as `profile import` reads ids: the id in any case, or an
        OpenReview link to it. NotFoundError, quoting `ref`, when none is."""
        paper_id = openreview_id(ref) or ref.strip()
        try:
            return self.get_paper(paper_id, venue)
        except NotFoundError:
            query, params = "SELECT DISTINCT id FROM papers WHERE lower(id) = ?", [paper_id.lower()]
            if venue:
                query, params = query + " AND venue = ?", [*params, venue]
            found = [row[0] for row in self.conn.execute(query, params)]
        if len(found) > 1:
            raise ConfnavError(
                f"{excerpt(ref)} is the id of several papers in other cases ({', '.join(found)}): give one"
            )
        if not found:
            raise NotFoundError(f"no paper with id {excerpt(ref)}" + (f" in venue {excerpt(venue)}" if venue else ""))
        return self.get_paper(found[0], venue)

    def mark_paper(self, name: str, paper_id: str, mark: str, venue: str | None = None) -> Paper:
        """Like or dislike a stored paper (a later mark replaces an earlier one)."""
        if mark not in MARKS:
            raise ConfnavError(f"a mark is one of {', '.join(MARKS)}, not {excerpt(mark)}")
        paper = self.profile_paper(paper_id, venue)
        self.create_profile(name)
        with self.transaction():
            self.conn.execute(
                "INSERT INTO profile_marks (profile, venue, paper_id, mark, created) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(profile, venue, paper_id) DO UPDATE SET mark = excluded.mark, created = excluded.created",
                (name, paper.venue, paper.id, mark, _now()),
            )
        return paper

    def unmark_paper(self, name: str, paper_id: str, venue: str | None = None) -> Paper:
        """Take back a like or dislike (nothing happens when the paper was not marked)."""
        paper = self.profile_paper(paper_id, venue)
        self._require_profile(name)
        with self.transaction():
            self.conn.execute(
                "DELETE FROM profile_marks WHERE profile = ? AND venue = ? AND paper_id = ?",
                (name, paper.venue, paper.id),
            )
        return paper

    def profile_key(self, name: str) -> str | None:
        """The hash of the profile's secret; None when the profile has none (or does not exist)."""
        row = self.conn.execute("SELECT hash FROM profile_keys WHERE profile = ?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def set_profile_key(self, name: str, key_hash: str | None, new: bool = False) -> bool:
        """Keep the hash of a profile's new secret (None: drop it, so that no secret opens the profile); with `new`,
        only for a profile created here (False, and nothing changed, when the name is taken)."""
        if not valid_name(name):
            raise ConfnavError(f"profile name {excerpt(name)}: {NAME_RULE}")
        with self.transaction():
            exists = self.conn.execute("SELECT 1 FROM profiles WHERE name = ?", (name,)).fetchone() is not None
            if new and exists:
                return False
            if not new and not exists:
                raise NotFoundError(f"no profile named {excerpt(name)}")
            if new:
                self.conn.execute("INSERT INTO profiles (name, created) VALUES (?, ?)", (name, _now()))
            self.conn.execute("DELETE FROM profile_keys WHERE profile = ?", (name,))
            if key_hash is not None:
                self.conn.execute(
                    "INSERT INTO profile_keys (profile, hash, created) VALUES (?, ?, ?)", (name, key_hash, _now())
                )
        return True

    def profile_marks(self, name: str) -> list[tuple[str, str, str]]:
        """(venue, paper id, mark) of each marked paper, oldest first."""
        self._require_profile(name)
        rows = self.conn.execute(
            "SELECT venue, paper_id, mark FROM profile_marks WHERE profile = ? ORDER BY created, venue, paper_id",
            (name,),
        )
        return [(venue, paper_id, mark) for venue, paper_id, mark in rows]

    def note_paper(self, name: str, paper_id: str, note: str, venue: str | None = None) -> Paper:
        """Keep the profile's note on a stored paper (a later note replaces it)."""
        if not note.strip():
            raise ConfnavError("a note needs some text")
        return self._annotate(
            name,
            paper_id,
            venue,
            "INSERT INTO profile_notes (profile, venue, paper_id, note, created) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT(profile, venue, paper_id) DO UPDATE SET note = excluded.note, created = excluded.created",
            note.strip(),
        )

    def tag_paper(self, name: str, paper_id: str, tag: str, venue: str | None = None) -> Paper:
        """Give a stored paper one of the profile's tags (a word or short phrase)."""
        return self._annotate(
            name,
            paper_id,
            venue,
            "INSERT INTO profile_tags (profile, venue, paper_id, tag, created) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            checked_tag(tag),
        )

    def _annotate(self, name: str, paper_id: str, venue: str | None, sql: str, text: str) -> Paper:
        paper = self.profile_paper(paper_id, venue)  # NotFoundError names an unknown id before anything is written
        self.create_profile(name)
        with self.transaction():
            self.conn.execute(sql, (name, paper.venue, paper.id, text, _now()))
        return paper

    def profile_notes(self, name: str) -> dict[tuple[str, str], str]:
        """The profile's note on each noted paper, by (venue, paper id)."""
        self._require_profile(name)
        rows = self.conn.execute(
            "SELECT venue, paper_id, note FROM profile_notes WHERE profile = ? ORDER BY created, venue, paper_id",
            (name,),
        )
        return {(venue, paper_id): note for venue, paper_id, note in rows}

    def profile_tags(self, name: str) -> dict[tuple[str, str], list[str]]:
        """The profile's tags of each tagged paper, by (venue, paper id), alphabetically."""
        self._require_profile(name)
        tags: dict[tuple[str, str], list[str]] = {}
        rows = self.conn.execute(
            "SELECT venue, paper_id, tag FROM profile_tags WHERE profile = ? ORDER BY venue, paper_id, tag", (name,)
        )
        for venue, paper_id, tag in rows:
            tags.setdefault((venue, paper_id), []).append(tag)
        return tags

    def give_list(self, list_name: str, name: str) -> None:
        """Make a reading list the profile's (a list no profile was given is the default profile's)."""
        if not self.conn.execute("SELECT 1 FROM reading_lists WHERE name = ?", (list_name,)).fetchone():
            raise NotFoundError(f"no reading list named {excerpt(list_name)}")
        self.create_profile(name)
        with self.transaction():
            self.conn.execute(
                "INSERT INTO profile_lists (list, profile) VALUES (?, ?)"
                " ON CONFLICT(list) DO UPDATE SET profile = excluded.profile",
                (list_name, name),
            )

    def list_owners(self) -> dict[str, str]:
        """Each reading list given to a profile, with that profile (a list given to none is the default profile's)."""
        return dict(self.conn.execute("SELECT list, profile FROM profile_lists"))

    def profile_lists(self, name: str, default: bool) -> list[tuple[str, int]]:
        """The profile's reading lists and their sizes; the `default` profile also has the lists nobody was given."""
        rows = self.conn.execute(
            "SELECT l.name, (SELECT COUNT(*) FROM reading_list_papers p WHERE p.list = l.name)"
            " FROM reading_lists l LEFT JOIN profile_lists o ON o.list = l.name"
            " WHERE o.profile = ? OR (o.profile IS NULL AND ?) ORDER BY l.created, l.name",
            (name, default),
        )
        return [(list_name, n) for list_name, n in rows]

    def _require_profile(self, name: str) -> None:
        if not self.conn.execute("SELECT 1 FROM profiles WHERE name = ?", (name,)).fetchone():
            raise NotFoundError(f"no profile named {excerpt(name)}: import papers with 'confnav profile import FILE'")
