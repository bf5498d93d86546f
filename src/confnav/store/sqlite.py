"""The default store: one SQLite file; every write goes through one transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from confnav.errors import ConfnavError, StoreBusyError, StoreFullError
from confnav.store.base import StoreCaches
from confnav.store.migrations import migrate
from confnav.store.sql import SqlStore


class SqliteStore(SqlStore):
    """Papers of several venues in one SQLite file (created and migrated on open)."""

    conn: sqlite3.Connection
    rating_values_sql = "SELECT DISTINCT p.venue, CAST(r.value AS REAL) FROM papers p, json_each(p.ratings) r"
    decision_json_sql = (
        "COALESCE(json_extract(data, '$.decision.label'), json_extract(data, '$.decision')),"
        " json_extract(data, '$.decision.kind')"
    )
    citation_count_sql = "json_extract(data, '$.citations.count')"
    has_code_sql = (
        "(json_extract(p.data, '$.links.code') LIKE 'https://%'"
        " OR json_extract(p.data, '$.links.code') LIKE 'http://%')"
    )

    def __init__(self, path: str | Path, read_only: bool = False, caches: StoreCaches | None = None) -> None:
        self.caches = caches if caches is not None else StoreCaches()
        self.path = Path(path)
        self.location = str(self.path)
        self.read_only = read_only
        if self.path.is_dir():
            raise ConfnavError(f"{self.path}: is a directory; --db needs a file path")
        if not self.path.parent.exists():
            raise ConfnavError(f"{self.path}: folder {self.path.parent} does not exist")
        try:
            if read_only:
                uri = f"{self.path.resolve().as_uri()}?mode=ro"
                self.conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            else:
                self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.conn.execute("PRAGMA foreign_keys = ON")
            self.wait_for_writers(self.write_wait)
            if not read_only:
                # Write-ahead logging: readers (a running server) keep reading while an ingest writes.
                self.conn.execute("PRAGMA journal_mode = WAL")
                migrate(self.conn)
        except sqlite3.DatabaseError as exc:
            if _disk_full(exc) or _disk_full(exc.__context__):  # a migration's rollback may hide the cause
                raise StoreFullError(self.location) from None
            raise ConfnavError(f"{self.path}: not a confnav store ({exc})") from None

    def close(self) -> None:
        self.conn.close()

    def wait_for_writers(self, seconds: float) -> None:
        """How long a write waits for another connection's write before giving up with StoreBusyError."""
        self.write_wait = seconds
        self.conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")

    def files_home(self) -> Path:
        """Snapshots go beside the store file."""
        return self.path

    @contextmanager
    def _atomic(self) -> Iterator[None]:
        deadline = self.write_deadline is not None
        try:
            if deadline:  # what is left of the write's time (0: no wait at all)
                self.conn.execute(f"PRAGMA busy_timeout = {int(self.lock_wait() * 1000)}")
            self.conn.execute("BEGIN IMMEDIATE")  # the write lock now: a writer never upgrades from a stale read
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreBusyError(self.location, self.write_wait) from None
            raise
        finally:
            if deadline:
                self.conn.execute(f"PRAGMA busy_timeout = {int(self.write_wait * 1000)}")
        try:
            yield
            self.conn.execute("COMMIT")
        except BaseException as exc:
            if self.conn.in_transaction:  # SQLite itself rolls back the whole transaction on some errors
                self.conn.execute("ROLLBACK")
            if _disk_full(exc):
                raise StoreFullError(self.location) from None
            raise


def _disk_full(exc: BaseException | None) -> bool:
    """Whether SQLite failed for want of space (SQLITE_FULL: the disk, or the file's page limit)."""
    return isinstance(exc, sqlite3.OperationalError) and (
        getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "database or disk is full" in str(exc)
    )
