"""A store written by the previous release (commit 5ca8686) opens with this one on both backends: it migrates
in place, keeps every paper with its fields, searches, and ends with the schema of a freshly created store.

The old store is rebuilt from tests/fixtures/store_5ca8686.json: that release's migrations for each backend,
frozen, and the rows its ingest wrote for real papers.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from confnav.ingest import ingest
from confnav.search.engine import Searcher
from confnav.store import PaperFilter, open_store
from confnav.store.connection import Connection, PostgresConnection
from confnav.store.migrations import Migration, migrate
from tests.backends import Location, new_location, schema_of
from tests.conftest import DATA, MARKDOWN_PAGE

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "store_5ca8686.json").read_text(encoding="utf-8"))
BACKENDS = ("sqlite", "postgres")
OLD_VERSION = {"sqlite": 9, "postgres": 3}
DERIVED_AUTHOR_FIELDS = ("institution", "country")


def old_migrations(backend: str) -> list[Migration]:
    return [(m["version"], m["name"], m["sql"]) for m in FIXTURE["migrations"][backend]]


def write_old_store(location: Location, backend: str) -> None:
    """The previous release's schema, applied by its migrations, holding the rows its ingest wrote."""
    raw: Any
    if backend == "postgres":
        import psycopg

        raw = psycopg.connect(str(location), autocommit=True)
        conn: Connection = PostgresConnection(raw)
        migrate(conn, old_migrations(backend), begin="BEGIN")
    else:
        raw = sqlite3.connect(location, isolation_level=None)
        conn = raw
        migrate(conn, old_migrations(backend))
    conn.execute("BEGIN")
    conn.execute("DELETE FROM meta")
    for table, content in FIXTURE["rows"].items():
        columns = content["columns"]
        marks = ", ".join("?" * len(columns))
        conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", content["rows"])
    if backend == "postgres":
        conn.execute("SELECT setval(pg_get_serial_sequence('papers', 'pk'), MAX(pk) + 1, false) FROM papers")
    conn.execute("COMMIT")
    raw.close()


def current_papers() -> dict[tuple[str, str], dict[str, Any]]:
    """The fixture's papers as this release ingests them from the same real files (sources aside)."""
    ids = {(row[1], row[2]) for row in FIXTURE["rows"]["papers"]["rows"]}
    with open_store(":memory:", create=True) as store:
        ingest(store, [MARKDOWN_PAGE, DATA / "paperlists" / "corl2023.json"])
        return {(p.venue, p.id): comparable(p.to_dict()) for _, p in store.paper_rows() if (p.venue, p.id) in ids}


def comparable(paper: dict[str, Any]) -> dict[str, Any]:
    """A paper's fields without where it was read from (the fixture's files were excerpts) and without what
    this release derives at ingest that the old one did not store (each author's institution and country)."""
    fields = {k: v for k, v in paper.items() if k not in ("provenance", "sources")}
    fields["authors"] = [{k: v for k, v in a.items() if k not in DERIVED_AUTHOR_FIELDS} for a in paper["authors"]]
    return fields


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_previous_release_store_migrates_in_place(backend: str, tmp_path: Path) -> None:
    old = new_location(tmp_path, "old", backend)
    write_old_store(old, backend)
    with open_store(old) as store:
        applied = [row[0] for row in store.conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
        assert applied[-1] > OLD_VERSION[backend], applied
        assert store.count_papers() == len(FIXTURE["rows"]["papers"]["rows"])
        papers = {(p.venue, p.id): comparable(p.to_dict()) for _, p in store.paper_rows()}
        assert papers == current_papers()
        # institutions were filled from the stored papers by the migration that added them
        places = {pk for _, pk in store.paper_places()}
        corl = {pk for pk, _ in store.paper_rows("corl2023")}
        assert places == corl
        assert [p.title for p in store.list_papers("to read")] == [
            row[3] for row in FIXTURE["rows"]["papers"]["rows"] if row[1] == "corl2023"
        ][:1]
        hits = Searcher(store).search("on-policy actor-critic design decisions", mode="keyword").hits
        assert hits[0].paper.id == "nIAxjsniDzg"
        accepted = store.papers(PaperFilter(venue="corl2023", decision="accepted"))
        assert len(accepted) == 8
        # each paper's ratings were copied beside its JSON by the migration that added them: the scales read there
        scales = store._rating_scales_in_python()
        assert scales and store.rating_scales() == scales == store.rating_scales(list(scales))
        migrated = schema_of(store)
        assert "paper_places" in str(migrated["columns"]) and "papers_by_outcome" in str(migrated["indexes"])
        ingest(store, [DATA / "iclr2020" / "paperlists-iclr2020.json"])  # the migrated store takes new writes
        assert store.count_papers() > len(papers)
    with open_store(new_location(tmp_path, "fresh", backend), create=True) as fresh:
        assert migrated == schema_of(fresh)
