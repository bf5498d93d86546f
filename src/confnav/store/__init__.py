"""Stores of papers: the Store interface and its default SQLite backend."""

from __future__ import annotations

import os
from pathlib import Path

from confnav.store.base import PaperFilter, Store, VenueSummary
from confnav.store.sqlite import SqliteStore

DEFAULT_DB = "confnav.db"

__all__ = ["DEFAULT_DB", "PaperFilter", "SqliteStore", "Store", "VenueSummary", "default_db_path", "open_store"]


def default_db_path() -> Path:
    """`$CONFNAV_DB` if set, else `./confnav.db`."""
    return Path(os.environ.get("CONFNAV_DB") or DEFAULT_DB)


def open_store(path: str | Path | None = None) -> SqliteStore:
    """Open (creating and migrating if needed) the store at `path` or the default location."""
    return SqliteStore(Path(path) if path else default_db_path())
