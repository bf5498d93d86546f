"""What search reads of every paper without parsing whole papers: texts, author names and profiles, places,
row facts. A mixin of the SQL stores (sql.py), written once for SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from confnav.model import is_placeholder_title
from confnav.store.connection import Connection
from confnav.store.rows import grouped


class SearchReads:
    """Mixin for the SQL stores: the column and filter-table reads that text search and author pages index."""

    conn: Connection

    def paper_texts(self) -> Iterator[tuple[int, str, str | None, list[str], list[str]]]:
        """Every paper's row key, title, abstract, keywords and author names, in key order: what text search
        indexes, read from the columns and filter tables without parsing whole papers."""
        keywords = self.conn.execute("SELECT paper_pk, keyword FROM paper_keywords ORDER BY paper_pk, position")
        authors = self.conn.execute("SELECT paper_pk, name FROM paper_authors ORDER BY paper_pk, position")
        lists = [grouped(iter(keywords)), grouped(iter(authors))]
        pending: list[tuple[int, list[str]]] = [next(group, (-1, [])) for group in lists]
        for pk, title, abstract in self.conn.execute("SELECT pk, title, abstract FROM papers ORDER BY pk"):
            found: list[list[str]] = []
            for i, group in enumerate(lists):
                while 0 <= pending[i][0] < pk:
                    pending[i] = next(group, (-1, []))
                found.append(pending[i][1] if pending[i][0] == pk else [])
            yield pk, title, abstract, found[0], found[1]

    def texts_by_pk(self, pks: Sequence[int]) -> dict[int, tuple[str, str | None, list[str], list[str]]]:
        """The title, abstract, keywords and author names of these papers, read from their columns without parsing
        whole papers (keys not in the store are left out): what a query's exact conditions check."""
        found: dict[int, tuple[str, str | None, list[str], list[str]]] = {}
        wanted = list(dict.fromkeys(int(pk) for pk in pks))
        for offset in range(0, len(wanted), 500):
            part = wanted[offset : offset + 500]
            marks = ", ".join("?" * len(part))
            lists: dict[int, tuple[list[str], list[str]]] = {pk: ([], []) for pk in part}
            for at, (table, column) in enumerate((("paper_keywords", "keyword"), ("paper_authors", "name"))):
                sql = f"SELECT paper_pk, {column} FROM {table} WHERE paper_pk IN ({marks}) ORDER BY paper_pk, position"
                for pk, value in self.conn.execute(sql, part):
                    lists[pk][at].append(value)
            for pk, title, abstract in self.conn.execute(
                f"SELECT pk, title, abstract FROM papers WHERE pk IN ({marks})", part
            ):
                found[pk] = (title, abstract, *lists[pk])
        return found

    def author_keys(self) -> list[tuple[int, str]]:
        """Every author's paper row key and normalised name (`name_key`), in key order: what author filters match."""
        return list(self.conn.execute("SELECT paper_pk, name_key FROM paper_authors ORDER BY paper_pk, position"))

    def author_profiles(self, name_keys: Iterable[str]) -> dict[str, set[str]]:
        """The profile ids authors of these normalised names carry anywhere in the store, by name: what tells
        namesakes apart (PeopleIndex), found by the name index instead of reading every paper."""
        sql = "SELECT DISTINCT name_key, profile FROM paper_authors WHERE name_key IN ({})"
        sql += " AND profile IS NOT NULL AND profile <> ''"
        return self._pairs_in(sql, name_keys)

    def profile_names(self, profiles: Iterable[str]) -> dict[str, set[str]]:
        """The normalised names under which authors carry each of these profile ids, anywhere in the store."""
        return self._pairs_in("SELECT DISTINCT profile, name_key FROM paper_authors WHERE profile IN ({})", profiles)

    def coauthored(self, pks: Iterable[int], limit: int = 300) -> list[int]:
        """Up to `limit` other papers sharing an author with these (the same profile id, or the same normalised
        name where either side has none), most shared authors first: the work of a profile's collaborators."""
        sql = (
            "SELECT b.paper_pk, COUNT(*) FROM paper_authors a JOIN paper_authors b ON b.name_key = a.name_key"
            " WHERE a.paper_pk IN ({}) AND a.name_key <> '' AND (a.profile IS NULL OR a.profile = ''"
            " OR b.profile IS NULL OR b.profile = '' OR a.profile = b.profile) GROUP BY b.paper_pk"
        )
        own = set(pks)
        shared: dict[int, int] = {}
        for pk, count in self._rows_in(sql, own):
            if pk not in own:
                shared[pk] = shared.get(pk, 0) + int(count)
        return sorted(shared, key=lambda pk: (-shared[pk], pk))[:limit]

    def keywords_in(self, venue: str | None = None) -> list[str]:
        """Every distinct author keyword, as written, of a venue's papers (or of the store's)."""
        sql = "SELECT DISTINCT k.keyword FROM paper_keywords k"
        if venue is None:
            return [k for (k,) in self.conn.execute(sql)]
        sql += " JOIN papers p ON p.pk = k.paper_pk WHERE p.venue = ?"
        return [k for (k,) in self.conn.execute(sql, (venue,))]

    def pks_with(
        self, keywords: Iterable[str] = (), name_keys: Iterable[str] = (), venue: str | None = None
    ) -> set[int]:
        """The row keys of a venue's papers (or the store's) with any of these author keywords (as written) or
        authors of these normalised names, found by the filter tables' indexes."""
        found: set[int] = set()
        for table, column, values in (
            ("paper_keywords", "keyword", keywords),
            ("paper_authors", "name_key", name_keys),
        ):
            sql = f"SELECT t.paper_pk FROM {table} t JOIN papers p ON p.pk = t.paper_pk WHERE t.{column} IN ({{}})"
            found.update(pk for (pk,) in self._rows_in(sql, values, venue))
        return found

    def _pairs_in(self, sql: str, values: Iterable[Any]) -> dict[Any, set[Any]]:
        """(first column → set of second) over the rows of `_rows_in`."""
        found: dict[Any, set[Any]] = {}
        for first, second in self._rows_in(sql, values):
            found.setdefault(first, set()).add(second)
        return found

    def _rows_in(self, sql: str, values: Iterable[Any], venue: str | None = None) -> Iterator[Any]:
        """The rows of `sql`, its `{}` filled with the values' placeholders, 500 at a time (a statement's parameters
        are limited); with `venue`, only that venue's papers (`p`)."""
        wanted = sorted(set(values))
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            query = sql.format(", ".join("?" * len(part))) + (" AND p.venue = ?" if venue is not None else "")
            yield from self.conn.execute(query, [*part, *([venue] if venue is not None else [])])

    def paper_places(self) -> list[tuple[str, int]]:
        """Every paper's institutions as (place, row key): the paper-level list institution pages look up."""
        return [(place, pk) for place, pk in self.conn.execute("SELECT place, paper_pk FROM paper_places")]

    def row_facts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
        """Every paper's row key, whether it lacks an abstract, its mean rating (0 without) and its decision's
        outcome, in key order."""
        rows = self.conn.execute(
            "SELECT pk, abstract IS NULL OR abstract = '', COALESCE(rating_mean, 0), outcome FROM papers ORDER BY pk"
        ).fetchall()
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool), np.zeros(0), []
        pks, short, ratings, outcomes = zip(*rows, strict=True)
        return (
            np.array(pks, dtype=np.int64),
            np.array(short, dtype=bool),
            np.array(ratings, dtype=np.float64),
            list(outcomes),
        )

    def placeholder_pks(self) -> list[int]:
        """Row keys of the papers whose title only holds a place (model.PLACEHOLDER_TITLES), in key order."""
        rows = self.conn.execute("SELECT pk, title FROM papers ORDER BY pk")
        return [pk for pk, title in rows if is_placeholder_title(title)]
