"""Session stores built once per `make test` and handed to every pass and worker.

Each is built on SQLite by whichever process asks first (the others wait for it), kept in CONFNAV_TEST_SHARED, and
placed on the process's backend: a private copy of the file on SQLite, a `confnav copy` of it into a new database on
PostgreSQL. Ingest, indexing and themes written straight to PostgreSQL are tested by their own tests
(tests/test_ingest_real.py, tests/test_kill_writers.py, the contract suite); the session stores only need the
same content. Without CONFNAV_TEST_SHARED each process builds its own in its temporary folder.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from confnav.store import open_store
from confnav.store.copy import copy_store
from tests.backends import BACKEND, Location, freeze, kept_for_the_run, new_location

_built: dict[str, Path] = {}  # store name → its SQLite file, in this process


def session_store(name: str, folder: Path, build: Callable[[Path], None], start: str | None = None) -> Location:
    """The session store `name` on this process's backend: `build` completes a SQLite file (a copy of the store
    `start` when given, else a path to create) once per `make test`; copy it before writing."""
    built = _sqlite_store(name, folder, build, start)
    private = folder / (f"{name}.db" if BACKEND != "postgres" else f"{name}-sqlite.db")
    if private != built:
        shutil.copy(built, private)  # opened only here: the shared file is never open while others copy it
    if BACKEND != "postgres":
        return private
    with kept_for_the_run():
        location = new_location(folder, name)
        with open_store(private) as source, open_store(location, create=True) as target:
            copy_store(source, target)
        return freeze(location)


def sqlite_file(name: str) -> Path:
    """The SQLite file of a session store this process already asked for (to start another store from)."""
    return _built[name]


def _sqlite_store(name: str, folder: Path, build: Callable[[Path], None], start: str | None) -> Path:
    if name in _built:
        return _built[name]
    shared = os.environ.get("CONFNAV_TEST_SHARED")
    if not shared:
        path = folder / (f"{name}.db" if BACKEND != "postgres" else f"{name}-sqlite.db")
        _make(path, build, start)
    else:
        path = Path(shared) / "stores" / f"{name}.db"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not path.exists():
                partial = path.with_suffix(".partial.db")
                partial.unlink(missing_ok=True)
                _make(partial, build, start)
                partial.replace(path)
    _built[name] = path
    return path


def _make(path: Path, build: Callable[[Path], None], start: str | None) -> None:
    if start is not None:
        shutil.copy(_built[start], path)
    build(path)
