"""The connection the store's SQL is written against, and PostgreSQL's adapter to it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol


class Cursor(Protocol):
    """The part of a DB-API cursor the store reads."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """A connection taking `?` placeholders: sqlite3's as it is, PostgreSQL's through an adapter."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> Any: ...


def _postgres_sql(sql: str) -> str:
    """The statement with PostgreSQL's placeholders (`%s`), a literal `%` doubled."""
    return sql.replace("%", "%%").replace("?", "%s")


class PostgresConnection:
    """A psycopg 3 connection that takes the store's `?` placeholders."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self._translated: dict[str, str] = {}
        self.settle: Callable[[], None] = lambda: None  # waits for writes sent from another thread (deferred.py)

    def _sql(self, sql: str) -> str:
        if sql not in self._translated:
            self._translated[sql] = _postgres_sql(sql)
        return self._translated[sql]

    def execute(self, sql: str, parameters: Sequence[Any] = (), /, *, binary: bool = False) -> Cursor:
        """Run a statement; `binary` asks for the results in binary format (a vector arrives as its float32 bytes,
        not as text that Python parses number by number)."""
        self.settle()
        return self.raw.execute(self._sql(sql), parameters or None, binary=binary)

    def send(self, sql: str, parameters: Sequence[Any] = (), /) -> None:
        """Run a statement from the thread that sends deferred writes (which must not wait for itself)."""
        self.raw.execute(self._sql(sql), parameters or None)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> None:
        rows = list(rows)
        self.settle()
        if rows:
            with self.raw.cursor() as cursor:
                cursor.executemany(self._sql(sql), rows)
