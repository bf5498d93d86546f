"""End to end on the real ICLR corpus: counts, merging, idempotence, two venues side by side."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.decisions import load_decision_table
from confnav.ingest import ingest
from confnav.store import PaperFilter, open_store
from confnav.store.copy import table_counts
from tests.backends import BACKEND, Location, new_location
from tests.conftest import DATA, ICLR2020, ICLR2021, MARKDOWN_PAGE, snapshot


def test_iclr2021_counts(iclr2021_db: Path) -> None:
    with open_store(iclr2021_db, create=True) as store:
        (summary,) = store.venues()
        papers = list(store.iter_papers("iclr2021"))
    assert summary.venue.id == "iclr2021" and summary.venue.name == "ICLR 2021"
    assert summary.papers == len(papers) == 3014
    assert summary.by_decision["oral"] == 53
    assert summary.by_decision["spotlight"] == 114
    assert summary.by_decision["poster"] == 693
    assert summary.accepted == 860
    assert summary.by_decision["desk-reject"] == 17
    assert sum(1 for p in papers if p.decision.reviewed) == 2997
    assert sum(1 for p in papers if p.abstract) == 2966
    assert all(p.authors for p in papers)
    assert all(p.year == 2021 and p.venue_name == "ICLR 2021" for p in papers)


def test_merged_paper_keeps_provenance(iclr2021_db: Path) -> None:
    with open_store(iclr2021_db, create=True) as store:
        paper = store.get_paper("-2FCwDKRREu")
    assert paper.decision.kind == "oral" and paper.decision.accepted and paper.decision.label == "Oral"
    assert paper.ratings == [7.0, 7.0, 9.0] and paper.confidences == [3.0, 4.0, 5.0]
    assert paper.authors[0].name == "Amy Zhang" and paper.authors[0].affiliation == "University of California, Berkeley"
    assert paper.links["forum"] == "https://openreview.net/forum?id=-2FCwDKRREu"
    assert paper.provenance["abstract"] == "openreview-tsv:paperlist.tsv"
    assert paper.provenance["decision"] == "paperlists:paperlists-iclr2021.json"


def test_final_title_wins_over_submission_title(iclr2021_db: Path) -> None:
    with open_store(iclr2021_db, create=True) as store:
        (paper,) = [p for p in store.iter_papers() if p.title.startswith("ALFWorld")]
    assert paper.provenance["title"].startswith("paperlists:")


def test_markdown_page_merges_onto_existing_papers(iclr2021_copy: Path) -> None:
    before = {p.id: p.to_dict() for p in open_store(iclr2021_copy, create=True).iter_papers()}
    with open_store(iclr2021_copy, create=True) as store:
        result = ingest(store, [MARKDOWN_PAGE])
        after = {p.id: p.to_dict() for p in store.iter_papers()}
    assert result.added == 0 and result.unchanged == 200
    assert after == before


def test_reingest_changes_nothing(iclr2021_copy: Path) -> None:
    before = snapshot(iclr2021_copy)
    with open_store(iclr2021_copy, create=True) as store:
        result = ingest(store, ICLR2021)
    assert (result.added, result.updated, result.unchanged) == (0, 0, 3014)
    assert snapshot(iclr2021_copy) == before


def test_ingest_order_does_not_matter(iclr2021_db: Path, tmp_path: Path) -> None:
    reversed_db = tmp_path / "reversed.db"
    with open_store(reversed_db, create=True) as store:
        ingest(store, [MARKDOWN_PAGE])
        for path in reversed(ICLR2021):
            ingest(store, [path])
        papers = {p.id: p.to_dict() for p in store.iter_papers()}
    with open_store(iclr2021_db, create=True) as store:
        expected = {p.id: p.to_dict() for p in store.iter_papers()}
    assert papers == expected


@pytest.mark.skipif(BACKEND != "postgres", reason="on SQLite the session store is this very ingest")
def test_the_corpus_ingested_on_postgresql_matches_the_session_store(iclr2021_db: Location, tmp_path: Path) -> None:
    """The session stores are built on SQLite and copied to PostgreSQL: ingesting there directly gives the same."""
    direct = new_location(tmp_path, "direct")
    with open_store(direct, create=True) as store:
        ingest(store, ICLR2021)
        papers = {p.id: p.to_dict() for p in store.iter_papers()}
        counts = table_counts(store)
    with open_store(iclr2021_db) as store:
        assert papers == {p.id: p.to_dict() for p in store.iter_papers()}
        derived = table_counts(store)
    # what the other tests' reads of the shared store kept (a ranking's impact estimates) is derived, not ingested
    assert {**counts, "caches": 0} == {**derived, "caches": 0}


def test_iclr2020_beside_2021(iclr2021_copy: Path) -> None:
    with open_store(iclr2021_copy, create=True) as store:
        result = ingest(store, [ICLR2020])
        summaries = {s.venue.id: s for s in store.venues()}
        assert result.venues == ["iclr2020"] and result.added == 2594
        assert summaries["iclr2020"].papers == 2594
        assert summaries["iclr2020"].by_decision["oral"] == 48
        assert summaries["iclr2021"].papers == 3014
        assert len(store.papers(PaperFilter(venue="iclr2020", decision="oral"))) == 48


def test_filters(iclr2021_db: Path) -> None:
    with open_store(iclr2021_db, create=True) as store:
        orals = store.papers(PaperFilter(decision="oral"))
        accepted = store.papers(PaperFilter(decision="accepted"))
        by_song = store.papers(PaperFilter(author="Song, Yang"))
        graph = store.papers(PaperFilter(keyword="Graph Neural"), limit=5)
    assert len(orals) == 53 and all(p.decision.kind == "oral" for p in orals)
    assert len(accepted) == 860
    assert by_song and all(any(a.name.lower() == "yang song" for a in p.authors) for p in by_song)
    assert len(graph) == 5 and all(any("graph neural" in k.lower() for k in p.keywords) for p in graph)


@pytest.mark.semantic  # the demo indexes with the default model
def test_demo_store_is_built_from_the_bundled_page(tmp_path: Path) -> None:
    from confnav.demo import build_demo, demo_data_path

    assert demo_data_path().read_bytes() == MARKDOWN_PAGE.read_bytes()
    built = build_demo(tmp_path)
    assert built.ingest.added == 200
    assert build_demo(tmp_path).ingest.added == 200  # rebuilt from scratch each time


def test_the_sqlite_store_offers_every_store_protocol(store) -> None:  # type: ignore[no-untyped-def]
    from confnav.store.protocols import Store

    assert isinstance(store, Store)  # every method the protocols name exists on the backend


def test_a_config_override_counts_only_real_changes_and_names_other_venues(tmp_path: Path) -> None:
    """docs/ingest.md's config (`[decisions.iclr2018]` + `[decisions.acl]`) with ICLR 2018's real file, ACL 2022
    stored: the summary counted ACL's papers, merged again, under iclr2018 ("2026 updated (iclr2018)"); now the
    file's venue counts its own papers, of which only the 3 "Active" ones change, and ACL's are named apart."""
    config = tmp_path / "confnav.toml"
    config.write_text(
        '[decisions.iclr2018]\n"Active" = "not-accepted:withdrawn"\n\n'
        '[decisions.acl]\n"Findings" = "accepted:findings"\n"Demo" = "workshop"\n'
    )
    iclr2018, acl2022 = DATA / "paperlists" / "iclr2018.json", DATA / "paperlists" / "acl2022.json"
    location = new_location(tmp_path, "config")
    with open_store(location, create=True) as store:
        ingest(store, [iclr2018, acl2022])
        result = ingest(store, [iclr2018], decisions=load_decision_table(config))
        iclr = store.venues()
    assert (result.added, result.updated, result.unchanged) == (0, 3, 992), result.to_dict()
    assert {v: dict(c) for v, c in result.remerged.items()} == {"acl2022": {"unchanged": 1031}}
    assert result.to_dict()["merged_again"] == {"acl2022": {"updated": 0, "unchanged": 1031}}
    assert next(s for s in iclr if s.venue.id == "iclr2018").by_decision["withdrawn"] >= 3
    run = CliRunner().invoke(cli, ["--db", str(location), "ingest", "--config", str(config), str(iclr2018)])
    assert run.exit_code == 0, run.output
    assert ": 0 papers added, 0 updated, 995 unchanged (iclr2018)\n" in run.stdout, run.stdout
    assert "merged again with the decision table given: acl2022 0 updated, 1,031 unchanged" in run.stdout
