"""Affiliations only where the source aligns them, on the real ICLR 2021 files: no author is placed at another
author's institution, and institution statistics, pages and the store's list count the paper's own list."""

from __future__ import annotations

import json

from click.testing import CliRunner
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.ingest import ingest
from confnav.institutions import institution_names
from confnav.model import name_key
from confnav.reports.stats import institution_table
from confnav.store import open_store
from confnav.store.copy import TABLES
from confnav.store.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from confnav.store.postgres_schema import MIGRATIONS as POSTGRES_MIGRATIONS
from confnav.web.app import create_app
from tests.backends import BACKEND, Location
from tests.conftest import DATA

PERFORMERS = "Ua6zuk0WRH"
RECORDS = {r["id"]: r for r in json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text())}


def parts(record: dict[str, str], key: str) -> list[str]:
    return [p.strip() for p in record[key].split(";")] if record.get(key) else []


def aligned(record: dict[str, str]) -> bool:
    return bool(record["aff"]) and len(parts(record, "aff")) == len(parts(record, "author"))


def test_performers_authors_are_not_placed_at_other_authors_institutions(iclr2021_db: Location) -> None:
    with open_store(iclr2021_db) as store:
        paper = store.get_paper(PERFORMERS)
    places = {name_key(a.name): a.affiliation for a in paper.authors}
    assert places[name_key("David Benjamin Belanger")] != "University of Cambridge"
    assert places[name_key("Adrian Weller")] != "Research, Google"
    assert not paper.affiliations_by_author and all(a.affiliation is None for a in paper.authors)
    # the paper's institutions are all still there, as the paper's list
    assert paper.affiliations == list(dict.fromkeys(parts(RECORDS[PERFORMERS], "aff")))
    assert {"University of Cambridge", "Research, Google"} <= set(paper.places)


def test_every_record_is_paired_only_where_its_counts_match(iclr2021_db: Location) -> None:
    with open_store(iclr2021_db) as store:
        papers = {p.id: p for p in store.iter_papers("iclr2021")}
    checked = {True: 0, False: 0}
    for paper_id, record in RECORDS.items():
        given = [a.affiliation for a in papers[paper_id].authors]
        if aligned(record):
            assert given == [a or None for a in parts(record, "aff")], paper_id
        else:
            assert given == [None] * len(given), paper_id
        checked[aligned(record)] += 1
    assert checked[True] > 1_000 and checked[False] > 1_500


def test_show_lists_the_papers_institutions_or_pairs_aligned_ones(iclr2021_db: Location) -> None:
    runner = CliRunner()
    shown = runner.invoke(cli, ["--db", str(iclr2021_db), "show", PERFORMERS])
    assert shown.exit_code == 0, shown.output
    assert "Affiliations: Google Brain Robotics & Columbia University;" in shown.output
    assert "(University of Cambridge)" not in shown.output and "(Research, Google)" not in shown.output
    paired_id, record = next((i, r) for i, r in RECORDS.items() if aligned(r) and all(parts(r, "aff")))
    paired = runner.invoke(cli, ["--db", str(iclr2021_db), "show", "--", paired_id])
    name, place = parts(record, "author")[0], parts(record, "aff")[0]
    assert f"{name} ({place})" in paired.output and "Affiliations:" not in paired.output


def test_web_paper_and_institution_count_the_papers_list(iclr2021_db: Location) -> None:
    client = TestClient(create_app(iclr2021_db), base_url="http://127.0.0.1")
    paper = client.get(f"/api/paper/{PERFORMERS}").json()
    assert paper["affiliations_by_author"] is False and all(a["affiliation"] is None for a in paper["authors"])
    assert "University of Cambridge" in paper["affiliations"]
    page = client.get(f"/paper/{PERFORMERS}").text
    assert 'class="affiliations">Affiliations: ' in page and '(<a href="/institution/' not in page
    cambridge = client.get("/api/institution/University of Cambridge").json()
    assert PERFORMERS in {p["id"] for p in cambridge["papers"]}
    assert "David Benjamin Belanger" not in {a["name"] for a in cambridge["authors"]}
    google = client.get("/api/institution/Google").json()
    assert PERFORMERS in {p["id"] for p in google["papers"]}
    assert "Adrian Weller" not in {a["name"] for a in google["authors"]}


def test_institution_statistics_count_papers_from_the_papers_list(iclr2021_db: Location) -> None:
    """Each institution's accepted papers, counted from the raw file's paper-level lists, whoever the authors."""
    with open_store(iclr2021_db) as store:
        papers = list(store.iter_papers("iclr2021"))
        places = store.paper_places()
        performers = set(store.pks_of(PERFORMERS))
    counted = {row[0]: int(row[1].replace(",", "")) for row in institution_table(papers).rows}
    accepted = [r for r in RECORDS.values() if r["status"] in {"Oral", "Spotlight", "Poster"}]
    for name, count in counted.items():
        assert count == sum(
            1 for r in accepted if name in {n for a in parts(r, "aff") if a for n in institution_names(a)}
        )
    assert counted["Google"] > 100
    # the store's paper-level list holds every one of the paper's institutions
    assert {place for place, pk in places if pk in performers} == set(parts(RECORDS[PERFORMERS], "aff"))


def test_a_later_file_with_aligned_affiliations_pairs_them(iclr2021_copy: Location, write) -> None:  # type: ignore[no-untyped-def]
    names = parts(RECORDS[PERFORMERS], "author")
    own = ["Google" if i < 11 else "University of Cambridge" for i in range(len(names))]
    line = {"id": PERFORMERS, "title": "Rethinking Attention with Performers", "venue": "ICLR 2021"}
    line["authors"] = [{"name": n, "affiliation": a} for n, a in zip(names, own, strict=True)]  # type: ignore[assignment]
    path = write("affiliations.jsonl", json.dumps(line) + "\n")
    with open_store(iclr2021_copy) as store:
        ingest(store, [path])
        paper = store.get_paper(PERFORMERS)
        places = {place for place, pk in store.paper_places() if pk in store.pks_of(PERFORMERS)}
    assert [a.affiliation for a in paper.authors] == own and paper.affiliations_by_author
    assert paper.affiliations == ["Google", "University of Cambridge"]
    assert paper.provenance["authors.affiliation"] == "jsonl:affiliations.jsonl"
    assert paper.provenance["authors"].startswith("paperlists:")  # the byline still comes from the list
    assert paper.institutions == [] and places == {"Google", "University of Cambridge"}


def test_an_older_store_gains_the_papers_list_in_place(iclr2021_copy: Location) -> None:
    """The new table is filled from the stored papers when a store of the previous schema is opened."""
    migrations = POSTGRES_MIGRATIONS if BACKEND == "postgres" else SQLITE_MIGRATIONS
    latest = next(version for version, _, sql in migrations if "CREATE TABLE paper_places" in sql)
    with open_store(iclr2021_copy) as store:
        before = sorted(store.paper_places())
        with store.transaction():
            store.conn.execute("DROP TABLE paper_places")
            store.conn.execute("DELETE FROM schema_migrations WHERE version = ?", (latest,))
    with open_store(iclr2021_copy) as store:
        assert sorted(store.paper_places()) == before and len(before) > 5_000
    assert "paper_places" in TABLES
