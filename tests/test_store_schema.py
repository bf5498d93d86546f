"""The schema declared once (store/schema.py) is what both backends' released migrations build, and both
backends built from it have the same tables and columns."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from confnav.store import open_store
from confnav.store.connection import PostgresConnection
from confnav.store.schema import TABLES, ddl
from tests.backends import new_location, schema_of

BACKENDS = ("sqlite", "postgres")


class Declared:
    """An empty database given the declaration's DDL, shaped as a store for `schema_of`."""

    def __init__(self, location: Path | str, backend: str) -> None:
        self.location = str(location)
        self.raw: Any
        if backend == "postgres":
            import psycopg

            self.raw = psycopg.connect(self.location, autocommit=True)
            self.conn: Any = PostgresConnection(self.raw)
        else:
            self.raw = self.conn = sqlite3.connect(location, isolation_level=None)
        for statement in ddl("postgres" if backend == "postgres" else "sqlite").split(";"):
            self.conn.execute(statement)


def without_history(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema listing without the table that records applied migrations."""
    drop = "schema_migrations"
    return {
        part: {t: v for t, v in listing.items() if t != drop}
        if isinstance(listing, dict)
        else [row for row in listing if drop not in row[:2]]
        for part, listing in schema.items()
    }


@pytest.mark.parametrize("backend", BACKENDS)
def test_released_migrations_build_the_declared_schema(backend: str, tmp_path: Path) -> None:
    with open_store(new_location(tmp_path, "migrated", backend), create=True) as store:
        migrated = without_history(schema_of(store))
    declared = Declared(new_location(tmp_path, "declared", backend), backend)
    try:
        assert schema_of(declared) == migrated
    finally:
        declared.raw.close()


def test_both_backends_have_the_same_tables_and_columns(tmp_path: Path) -> None:
    columns = {}
    for backend in BACKENDS:
        declared = Declared(new_location(tmp_path, backend, backend), backend)
        listing = schema_of(declared)["columns"]
        declared.raw.close()
        if isinstance(listing, dict):
            columns[backend] = {table: [row[1] for row in rows] for table, rows in listing.items()}
        else:
            columns[backend] = {}
            for row in listing:
                columns[backend].setdefault(row[0], []).append(row[1])
    assert columns["sqlite"] == columns["postgres"] == {t.name: list(t.column_names) for t in TABLES}
