"""Stores of papers: the Store interface and its default SQLite backend."""

from __future__ import annotations

import os
from pathlib import Path

from confnav.errors import ConfnavError
from confnav.store.base import PaperFilter, VenueSummary
from confnav.store.protocols import Store
from confnav.store.sqlite import SqliteStore

DEFAULT_DB = "confnav.db"

__all__ = ["DEFAULT_DB", "PaperFilter", "SqliteStore", "Store", "VenueSummary", "default_db_path", "open_store"]


def default_db_path() -> Path:
    """`$CONFNAV_DB` if set, else `./confnav.db`."""
    return Path(os.environ.get("CONFNAV_DB") or DEFAULT_DB)


def open_store(path: str | Path | None = None, create: bool = False) -> SqliteStore:
    """Open (and migrate) the store at `path` or the default location; only ingest should `create` one."""
    where = Path(path) if path else default_db_path()
    if not create and not where.exists():
        raise ConfnavError(
            f"no store at {where}: create one with 'confnav ingest FILE --db {where}' (or try 'confnav demo')"
        )
    return SqliteStore(where)
