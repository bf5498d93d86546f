"""The tests' PostgreSQL bookkeeping: a session store's databases outlive the test and the module that made them."""

from __future__ import annotations

from pathlib import Path

import pytest

from confnav.store import open_store
from tests import backends
from tests.backends import Location


def _opens(location: Location) -> bool:
    try:
        with open_store(location):
            return True
    except Exception:  # noqa: BLE001 - a dropped database: any failure to open says so
        return False


def test_the_runs_databases_survive_a_tests_drop(fresh_location: Location, tmp_path: Path) -> None:
    if not isinstance(fresh_location, str):
        pytest.skip("SQLite files are removed with the test's folder, not dropped")
    mark = backends.databases_made()
    with backends.kept_for_the_run():
        kept = backends.new_location(tmp_path, "kept")
    own = backends.new_location(tmp_path, "own")
    backends.drop_made_since(mark)  # as after a test or a module
    try:
        assert _opens(kept) and not _opens(own)
    finally:
        backends.drop(kept)
