"""The two real backends the tests run on: SQLite files, and PostgreSQL (with pgvector) started by pgserver.

`CONFNAV_TEST_BACKEND=postgres` makes the shared store fixtures PostgreSQL databases; the contract
suite runs on both whatever it says.
"""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BACKEND = os.environ.get("CONFNAV_TEST_BACKEND", "sqlite")
Location = Path | str

_server_uri: str | None = None
_names = itertools.count()
_templates: dict[str, str] = {}  # database → an untouched copy that clones are made from
_made: list[str] = []  # every database this process made, in order, so that a test's own can be dropped after it
_session_depth = 0  # >0 while a session store is made: its databases live as long as the run
session_root: Path | None = None  # the session's base temporary folder (set by conftest); the server's data is there


def postgres_admin(folder: Path) -> str:
    """The URL of the session's PostgreSQL server (started on first use, data in `folder`)."""
    global _server_uri
    if _server_uri is None:
        import pgserver

        _server_uri = pgserver.get_server(folder, cleanup_mode="stop").get_uri()
    return _server_uri


def _database_url(admin: str, name: str) -> str:
    base, _, query = admin.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}?{query}"


def new_postgres(folder: Path, stem: str) -> str:
    """A fresh, empty database on the session's server."""
    import psycopg

    admin = postgres_admin(folder)
    name = f"{stem}_{os.getpid()}_{next(_names)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    _remember(name)
    return _database_url(admin, name)


def _name(url: str) -> str:
    return url.partition("?")[0].rsplit("/", 1)[1]


def freeze(location: Location) -> Location:
    """Keep an untouched copy of a finished session store, so that clones never wait for its readers."""
    if isinstance(location, str) and location.startswith("postgresql://"):
        import psycopg

        assert _server_uri is not None
        name = _name(location)
        with psycopg.connect(_server_uri, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}_tpl" TEMPLATE "{name}"')
        _templates[name] = f"{name}_tpl"
        _remember(f"{name}_tpl")
    return location


def clone_postgres(folder: Path, source: str, stem: str) -> str:
    """A new database made from `source` (from its frozen copy when it has one, else with its sessions ended)."""
    import psycopg

    admin = postgres_admin(folder)
    template = _templates.get(_name(source)) or _name(source)
    name = f"{stem}_{os.getpid()}_{next(_names)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        if template == _name(source):
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (template,),
            )
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    _remember(name)
    return _database_url(admin, name)


@contextmanager
def kept_for_the_run() -> Iterator[None]:
    """The databases made inside live as long as the run (a session store's): no test's or module's drop takes
    them, whichever test first asked for the store."""
    global _session_depth
    _session_depth += 1
    try:
        yield
    finally:
        _session_depth -= 1


def _remember(name: str) -> None:
    if not _session_depth:
        _made.append(name)


def databases_made() -> int:
    """How many databases this process has made so far (a mark for `drop_made_since`)."""
    return len(_made)


def drop_made_since(mark: int) -> None:
    """Drop the databases made after `mark`, so that a long run's server does not fill the disk."""
    if _server_uri is None or len(_made) <= mark:
        return
    names, _made[mark:] = _made[mark:], []
    _drop(names)


def drop(location: str) -> None:
    """Drop one database of the session's server, and the connections left open to it."""
    _drop([_name(location)])


def _drop(names: list[str]) -> None:
    import psycopg

    assert _server_uri is not None
    with psycopg.connect(_server_uri, autocommit=True) as conn:
        for name in names:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def new_location(folder: Path, stem: str, backend: str = BACKEND) -> Location:
    """Where a fresh store of this backend lives: a file in `folder`, or a new database."""
    if backend == "postgres":
        return new_postgres(_server_folder(folder), stem)
    return folder / f"{stem}.db"


def clone(location: Location, folder: Path, stem: str = "copy") -> Location:
    """A private copy of a store that a test may change."""
    if isinstance(location, str) and location.startswith("postgresql://"):
        return clone_postgres(_server_folder(folder), location, stem)
    target = folder / f"{stem}.db"
    shutil.copy(location, target)
    return target


def _server_folder(folder: Path) -> Path:
    """One server per test session, in the session's base temporary folder (never in a test's own folder, which
    is removed when the test passes)."""
    root = Path(os.environ.get("CONFNAV_TEST_PGDATA") or (session_root or folder) / "pgdata")
    root.mkdir(parents=True, exist_ok=True)
    return root


def schema_of(store: Any) -> dict[str, object]:
    """A store's tables with their columns (name, type, nullability, default), indexes and keys, as the database
    says."""
    conn = store.conn
    if isinstance(store.location, str) and store.location.startswith("postgresql://"):
        columns = conn.execute(
            "SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default, is_identity"
            " FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"
        ).fetchall()
        indexes = conn.execute(
            "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname"
        ).fetchall()
        keys = conn.execute(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2"
        ).fetchall()
        storage = conn.execute(  # columns whose storage is not their type's own (EXTERNAL: never compressed)
            "SELECT c.relname, a.attname, a.attstorage FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
            " JOIN pg_type t ON t.oid = a.atttypid WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'"
            " AND a.attnum > 0 AND a.attstorage <> t.typstorage ORDER BY 1, 2"
        ).fetchall()
        return {
            "columns": [tuple(row) for row in columns],
            "indexes": [tuple(row) for row in indexes],
            "keys": [tuple(row) for row in keys],
            "storage": [tuple(row) for row in storage],
        }
    tables = [
        name
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        if not name.startswith("sqlite_")
    ]
    columns = {table: [tuple(row) for row in conn.execute(f"PRAGMA table_info({table})")] for table in tables}
    indexes = conn.execute("SELECT tbl_name, name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name")
    keys = {table: [tuple(row) for row in conn.execute(f"PRAGMA foreign_key_list({table})")] for table in tables}
    return {"columns": columns, "indexes": [tuple(row) for row in indexes], "keys": keys}
