"""The default store: one SQLite file; every write goes through one transaction."""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from confnav.errors import ConfnavError, StoreBusyError, StoreFullError, argument
from confnav.store.base import StoreCaches
from confnav.store.migrations import migrate, not_a_store
from confnav.store.sql import SqlStore

MEMORY = ":memory:"  # SQLite's database of one connection, never a file


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
        """Open the store file; a path with no file yet (not read-only) is given a new, whole store first, and an
        existing file that is not a confnav store is refused and left as it is."""
        self.caches = caches if caches is not None else StoreCaches()
        self.path = Path(path)
        self.location = str(self.path)
        self.read_only = read_only
        if self.path.is_dir():
            raise ConfnavError(f"{self.path}: is a directory; {argument('db')} needs a file path")
        if not self.path.parent.exists():
            raise ConfnavError(f"{self.path}: folder {self.path.parent} does not exist")
        try:
            if not read_only and self.location != MEMORY and not self.path.exists():
                _create(self.path)
            if read_only:
                uri = f"{self.path.resolve().as_uri()}?mode=ro"
                self.conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            else:
                self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            if self.location != MEMORY:
                self._require_store()
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

    def _require_store(self) -> None:
        """Refuse, before anything is written, a file that holds no confnav schema (another program's database,
        an empty file): only a store confnav made is migrated, so a wrong --db never alters someone's data."""
        tables = [row[0] for row in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        if reason := not_a_store(tables):
            self.conn.close()
            if not tables and self.path.stat().st_size == 0:
                reason = "an empty file; ingest makes a store only at a path where no file is yet"
            raise ConfnavError(f"{self.path}: not a confnav store ({reason})")

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


def _create(path: Path) -> None:
    """Make a whole store beside `path`, then link it there unless a file came meanwhile (another ingest's
    store, kept): a file at a store's path is never a store half made, so it is either confnav's or refused."""
    made = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.new")  # the mode a new file gets
    try:
        conn = sqlite3.connect(made, isolation_level=None)
        try:
            conn.execute("PRAGMA foreign_keys = ON")  # as every open migrates
            conn.execute("PRAGMA journal_mode = WAL")
            migrate(conn)
        finally:
            conn.close()
        try:
            os.link(made, path)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links: claim the path, then move the store onto it
            try:
                os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return
            os.replace(made, path)
    finally:
        for part in (made, made.with_name(made.name + "-wal"), made.with_name(made.name + "-shm")):
            part.unlink(missing_ok=True)


def _disk_full(exc: BaseException | None) -> bool:
    """Whether SQLite failed for want of space (SQLITE_FULL: the disk, or the file's page limit)."""
    return isinstance(exc, sqlite3.OperationalError) and (
        getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "database or disk is full" in str(exc)
    )
