"""Stores of papers: the Store interface, the default SQLite backend and the PostgreSQL one, chosen by location."""

from __future__ import annotations

from pathlib import Path

from confnav.errors import ConfnavError
from confnav.settings import DEFAULT_DB, Settings
from confnav.store.base import PaperFilter, StoreCaches, VenueSummary
from confnav.store.derived import venue_generation_in, venue_signals_in
from confnav.store.protocols import Store
from confnav.store.sql import SqlStore
from confnav.store.sqlite import SqliteStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

__all__ = [
    "DEFAULT_DB",
    "PaperFilter",
    "SqlStore",
    "SqliteStore",
    "Store",
    "StoreCaches",
    "VenueSummary",
    "describe",
    "is_postgres",
    "open_store",
    "venue_generation_in",
    "venue_signals_in",
]


def is_postgres(location: str | Path) -> bool:
    return str(location).startswith(POSTGRES_SCHEMES)


def describe(location: str | Path) -> str:
    """The location as it may be shown or logged: a URL without its password."""
    if is_postgres(location):
        from confnav.store.postgres import redact

        return redact(str(location))
    return str(location)


def open_store(
    location: str | Path | None = None,
    create: bool = False,
    read_only: bool = False,
    settings: Settings | None = None,
    caches: StoreCaches | None = None,
) -> SqlStore:
    """Open (and migrate) the store at a file path or postgresql:// URL, or the settings' store location.

    Only ingest should `create` a store file; a PostgreSQL database is given its schema when first opened.
    The store keeps `settings` (None: the defaults, never the environment's; the CLI and the web app pass
    theirs) for the steps it makes; stores given the same `caches` share their in-memory papers and memos.
    """
    settings = settings or Settings()
    where = str(location) if location else settings.db
    store: SqlStore
    if is_postgres(where):
        from confnav.store.postgres import PostgresStore

        store = PostgresStore(where, read_only=read_only, caches=caches)
    else:
        path = Path(where)
        if not create and not path.exists():
            raise ConfnavError(
                f"no store at {path}: create one with 'confnav ingest FILE --db {path}' (or try 'confnav demo')"
            )
        store = SqliteStore(path, read_only=read_only, caches=caches)
    store.settings = settings
    return store
