"""A disk that fills up during a write: one line naming the full disk and the store, and the store as it was."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from confnav.errors import StoreFullError
from confnav.ingest import ingest
from confnav.store import open_store
from confnav.store.sql import SqlStore
from tests.backends import BACKEND, Location
from tests.conftest import DATA, ICLR2020, snapshot

pytestmark = pytest.mark.failure_injection
ICLR2021_LIST = DATA / "iclr2021" / "paperlists-iclr2021.json"


@pytest.mark.sqlite_only
def test_a_sqlite_store_filling_its_disk_names_the_disk_and_keeps_what_it_had(tmp_path: Path) -> None:
    path = tmp_path / "full.db"
    with open_store(path, create=True) as store:
        ingest(store, [ICLR2020])
    before = snapshot(path)
    with open_store(path) as store:
        pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
        store.conn.execute(f"PRAGMA max_page_count = {pages + 50}")  # a disk with room for 50 more pages
        with pytest.raises(StoreFullError) as caught:
            ingest(store, [ICLR2021_LIST])
    assert str(caught.value).startswith(f"{path}: the disk holding the store is full;")
    assert "rollback" not in str(caught.value) and "\n" not in str(caught.value)
    assert snapshot(path) == before


def _disk_full(store: SqlStore) -> BaseException:
    """The error the store's own backend gives when its disk is full."""
    if store.location.startswith("postgresql://"):
        import psycopg

        return psycopg.errors.DiskFull('could not extend file "base/16384/16400": No space left on device')
    error = sqlite3.OperationalError("database or disk is full")
    error.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[attr-defined]
    return error


def test_either_backend_maps_a_full_disk_to_one_line(iclr2020_copy: Location, monkeypatch: pytest.MonkeyPatch) -> None:
    before = snapshot(iclr2020_copy)
    with open_store(iclr2020_copy) as store:
        full = _disk_full(store)
        original = store.put_papers

        def put_papers(papers: Any, new_venues: Any = ()) -> Any:
            original(papers, new_venues)  # written, then the disk fills up
            raise full

        monkeypatch.setattr(store, "put_papers", put_papers)
        with pytest.raises(StoreFullError, match="the disk holding the store is full"):
            ingest(store, [ICLR2021_LIST])
    assert snapshot(iclr2020_copy) == before


@pytest.mark.sqlite_only
def test_a_full_disk_while_a_store_is_opened_and_migrated_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def migrate_on_a_full_disk(conn: sqlite3.Connection) -> None:
        try:
            raise sqlite3.OperationalError("database or disk is full")
        except sqlite3.OperationalError:  # what migrate's own rollback then says, hiding the cause
            raise sqlite3.OperationalError("cannot rollback - no transaction is active") from None

    monkeypatch.setattr("confnav.store.sqlite.migrate", migrate_on_a_full_disk)
    with pytest.raises(StoreFullError, match="the disk holding the store is full"):
        open_store(tmp_path / "new.db", create=True)


@pytest.mark.skipif(BACKEND != "postgres", reason="only PostgreSQL sends writes from a second thread")
def test_a_full_disk_met_by_a_write_sent_from_the_second_thread_is_named(
    iclr2020_copy: Location, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL sends ingest's rows from a second thread: the disk filling up there is told as on the first."""
    before = snapshot(iclr2020_copy)
    with open_store(iclr2020_copy) as store:
        full = _disk_full(store)
        original = store._copy
        threads = []

        def copy(table: str, *args: Any) -> None:
            threads.append(threading.current_thread())
            if table == "paper_keywords":
                raise full
            original(table, *args)

        monkeypatch.setattr(store, "_copy", copy)
        with pytest.raises(StoreFullError, match="the disk holding the store is full"):
            ingest(store, [ICLR2021_LIST])
    assert threads and all(thread is not threading.main_thread() for thread in threads)
    assert snapshot(iclr2020_copy) == before
