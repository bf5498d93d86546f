"""The store contract: every method of every store protocol, on a real SQLite file and a real PostgreSQL.

Each test runs on both backends; the ones that read compare the two backends' answers as well,
so the second backend behaves as the first, not merely "works".
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from confnav.decisions import DecisionTable, label_key
from confnav.errors import ConfnavError, NotFoundError, ReadOnlyStoreError, StoreBusyError
from confnav.ingest import ingest
from confnav.model import Outcome, name_key
from confnav.store import PaperFilter, SqlStore, open_store
from confnav.store.copy import copy_store, table_counts, table_rows
from confnav.store.protocols import NearestNeighbours, Store
from confnav.store.topics import StoredAssignment, StoredTheme
from tests.backends import Location, clone, new_location
from tests.conftest import DATA, snapshot

BACKENDS = ("sqlite", "postgres")
FILES = [DATA / "paperlists" / "corl2023.json", DATA / "iclr2020" / "paperlists-iclr2020.json"]
DIMENSION = 16


def vector_of(pk: int) -> np.ndarray:
    """A fixed unit vector per paper, so both backends hold the same vectors."""
    v = np.random.default_rng(pk).standard_normal(DIMENSION).astype(np.float32)
    return v / np.linalg.norm(v)


def fill(store: SqlStore) -> None:
    """Two real venues, vectors for every paper, themes of one venue, signals and a reading list."""
    ingest(store, FILES)
    rows = [(pk, f"h{pk}", vector_of(pk).tobytes()) for pk, _ in store.paper_rows()]
    with store.transaction():
        store.put_embeddings("test-model", rows)
        store.put_embeddings("test-model|keywords", rows[:10])
        store.put_cache("keyword-index", store.generation(), b"\x00\x01binary")
        pks = [pk for pk, _ in store.paper_rows("corl2023")]
        themes = [
            StoredTheme("corl2023", "t01", 1, None, "Robot learning", {"size": len(pks)}),
            StoredTheme("corl2023", "t01.1", 2, "t01", "Grasping", {}),
        ]
        placed = [StoredAssignment(pk, "t01", "t01.1", 0.5, pk % 2 == 0, pk / 7, -pk / 3) for pk in pks]
        store.put_topics("corl2023", store.generation(), "test-model", {"k": 1}, themes, placed)
        first = store.get_paper(store.papers_by_pk(pks[:1])[pks[0]].id, "corl2023")
        store.put_external_signals("corl2023", "test", [(first.id, "citations", 12.0)])
    store.index_vectors("test-model")
    store.create_list("to read")
    store.add_to_list("to read", first.id, "corl2023")


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Location]:
    """One filled store per backend, built once for the module's read-only tests."""
    locations = {}
    for backend in BACKENDS:
        location = new_location(tmp_path_factory.mktemp(f"contract-{backend}"), "contract", backend)
        with open_store(location, create=True) as store:
            fill(store)
        locations[backend] = location
    return locations


@pytest.fixture(params=BACKENDS)
def fresh(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlStore]:
    with open_store(new_location(tmp_path, "fresh", request.param), create=True) as store:
        yield store


def answers(store: SqlStore) -> dict[str, Any]:
    """What every read method answers on the filled store (in comparable plain values)."""
    corl = [p for _, p in store.paper_rows("corl2023")]
    some = corl[3]
    pks = store.filter_pks(PaperFilter(venue="corl2023", decision="oral"))
    return {
        "venues": [v.to_dict() for v in store.venues()],
        "venue_list": (store.venue_list(), store.venue_list() == [summary.venue for summary in store.venues()]),
        "venue": store.get_venue("iclr2020"),
        "latest": store.pick_venue(None),
        "count": (store.count_papers(), store.count_papers("corl2023")),
        "paper": store.get_paper(some.id, "corl2023").to_dict(),
        "papers": [p.id for p in store.papers(PaperFilter(venue="iclr2020", decision="accepted"), limit=20)],
        "reviewed": (  # the filter's papers that entered review, and those Decision.reviewed admits
            len(store.filter_pks(PaperFilter(venue="iclr2020", decision="reviewed"))),
            sum(p.decision.reviewed for _, p in store.paper_rows("iclr2020")),
        ),
        "by_author": sorted(p.id for p in store.papers(PaperFilter(author=some.authors[0].name))),
        "by_keyword": len(store.papers(PaperFilter(keyword="reinforcement"))),
        "by_year_rating": len(store.papers(PaperFilter(venue="iclr2020", year=2020, min_rating=6))),
        "iter": [p.id for p in store.iter_papers("iclr2020")][:50],
        "rows": len(list(store.paper_rows())),
        "by_pk": sorted(p.id for p in store.papers_by_pk(pks).values()),
        "places": sorted(store.paper_places()),
        "pks_of": len(store.pks_of(some.id)),
        "profiles": store.author_profiles([name_key(a.name) for a in some.authors] + ["nobody at all"]),
        "venues_of": store.venues_of([some.id, "not-a-paper"]),
        "coauthored": [p.id for p in store.papers_by_pk(store.coauthored(store.pks_of(some.id), limit=5)).values()],
        "names": store.decision_names(),
        "labels": store.decision_labels(),
        "scales": {v: s.describe() for v, s in store.rating_scales().items()},
        "some_scales": {
            v: s.describe()
            for v, s in store.rating_scales(["iclr2020", "corl2023", "no such venue", "iclr2020"]).items()
        },
        "generations": store.venue_generations(["iclr2020", "corl2023", "no such venue"]),
        "table": store.decision_table().rows(),
        "records": {k: [r.fields for r in v] for k, v in list(store.records("corl2023").items())[:5]},
        "merge": store.merge_version(),
        "state": store.state(),
        "versions": store.versions(),
        "cache": store.get_cache("keyword-index"),
        "hashes": len(store.embedding_hashes("test-model")),
        "models": store.embedding_models(),
        "vectors": store.embeddings("test-model", "corl2023")[1][:3],
        "run": store.topic_run("corl2023"),
        "themes": [t.__dict__ for t in store.themes("corl2023")],
        "level2": [t.id for t in store.themes("corl2023", 2)],
        "assigned": len(store.assignments("corl2023")),
        "signals": store.external_signals("corl2023"),
        "cited": {venue: store.has_citation_counts(venue) for venue in ("corl2023", "iclr2020")},
        "lists": store.reading_lists(),
        "list": [p.id for p in store.list_papers("to read")],
    }


def test_both_backends_answer_alike(filled: dict[str, Location]) -> None:
    found = {}
    for backend, location in filled.items():
        with open_store(location) as store:
            assert isinstance(store, Store)
            found[backend] = answers(store)
    sqlite, postgres = found["sqlite"], found["postgres"]
    for key in sqlite:
        assert sqlite[key] == postgres[key], key
    assert sqlite["count"][1] > 100 and sqlite["by_pk"] and sqlite["by_author"] and sqlite["assigned"]
    assert sqlite["reviewed"][0] == sqlite["reviewed"][1] < sqlite["count"][0]  # ICLR 2020's desk rejects left out
    assert len(sqlite["places"]) > 300  # CoRL 2023's papers all list their institutions
    assert sqlite["venue_list"][1] and len(sqlite["venue_list"][0]) == 2
    assert sqlite["profiles"] and "nobody at all" not in sqlite["profiles"]  # CoRL 2023 gives OpenReview ids
    assert sqlite["cited"] == {"corl2023": True, "iclr2020": False}  # CoRL 2023's file holds Google Scholar counts
    assert sqlite["some_scales"] == {v: sqlite["scales"][v] for v in ("corl2023", "iclr2020")}  # asked together
    assert sqlite["generations"]["no such venue"] == 0 < sqlite["generations"]["iclr2020"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_coauthored_papers_share_an_author(filled: dict[str, Location], backend: str) -> None:
    """A profile's collaborators' papers: every other paper with an author of the same profile id, or of the same
    name where either lacks one; the papers sharing most authors first."""
    with open_store(filled[backend]) as store:
        papers = dict(store.paper_rows())
    people = {pk: {(name_key(a.name), a.profile or "") for a in p.authors} for pk, p in papers.items()}

    def shared(mine: int, other: int) -> int:
        return sum(1 for n, f in people[mine] for m, g in people[other] if n == m and (not f or not g or f == g))

    chosen = max(people, key=lambda pk: sum(shared(pk, o) > 0 for o in people if o != pk))
    expected = {o: shared(chosen, o) for o in people if o != chosen and shared(chosen, o)}
    with open_store(filled[backend]) as store:
        found = store.coauthored([chosen])
    assert len(expected) > 3 and set(found) == set(expected)
    assert [expected[pk] for pk in found] == sorted(expected.values(), reverse=True)


def test_citation_counts_supplied_for_a_venue_without_them(fresh: SqlStore) -> None:
    ingest(fresh, [DATA / "paperlists" / "siggraph2022.json"])
    venue = fresh.venues()[0].venue.id
    first = next(fresh.iter_papers(venue))
    assert not fresh.has_citation_counts(venue)
    with fresh.transaction():
        fresh.put_external_signals(venue, "counts.csv", [(first.id, "mentions", 3.0)])
    assert not fresh.has_citation_counts(venue)
    with fresh.transaction():
        fresh.put_external_signals(venue, "counts.csv", [(first.id, "citations", 3.0)])
    assert fresh.has_citation_counts(venue)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_limit_past_sqls_integers_lists_every_paper(filled: dict[str, Location], backend: str) -> None:
    with open_store(filled[backend]) as store:  # both backends once refused the number itself
        every = store.papers(PaperFilter(venue="iclr2020"))
        assert [p.id for p in store.papers(PaperFilter(venue="iclr2020"), limit=2**63)] == [p.id for p in every]


@pytest.mark.parametrize("backend", BACKENDS)
def test_missing_things_are_clear_errors(filled: dict[str, Location], backend: str) -> None:
    with open_store(filled[backend]) as store:
        with pytest.raises(NotFoundError, match="unknown venue 'nope'"):
            store.get_venue("nope")
        with pytest.raises(NotFoundError, match="no paper with id"):
            store.get_paper("not-a-paper")
        with pytest.raises(ConfnavError, match="no paper has the decision"):
            store.papers(PaperFilter(decision="plenary"))
        with pytest.raises(ConfnavError, match="different scales"):
            store.papers(PaperFilter(min_rating=5))
        with pytest.raises(NotFoundError, match="no reading list"):
            store.list_papers("nope")


def test_writes_commit_or_roll_back(fresh: SqlStore) -> None:
    ingest(fresh, FILES[:1])
    generation, count = fresh.generation(), fresh.count_papers()
    with pytest.raises(RuntimeError), fresh.transaction():
        fresh.count_change("themes")
        fresh.conn.execute("DELETE FROM paper_authors")
        raise RuntimeError("boom")
    assert fresh.generation() == generation and fresh.count_papers() == count
    assert dict(fresh.state()).get("themes") is None
    with fresh.transaction():
        fresh.count_change("themes")
        fresh.set_merge_version(99)
    assert dict(fresh.state())["themes"] == 1 and fresh.merge_version() == 99


def test_a_write_of_several_transactions_waits_for_another_writer_once(fresh: SqlStore) -> None:
    """With a deadline (a server's request), the write's transactions share one wait for another writer: a
    second attempt after the first timed out gives up at once, instead of waiting as long again."""
    with open_store(fresh.location) as holder, holder.transaction():  # another process's ingest holds the store
        fresh.write_deadline = time.monotonic() + 1.0
        start = time.monotonic()
        for _ in range(3):
            with pytest.raises(StoreBusyError), fresh.transaction():
                pass
        waited = time.monotonic() - start
        fresh.write_deadline = None
    assert 0.9 <= waited < 1.8, waited  # not 3 s
    with fresh.transaction():  # the store is free again, and its own wait is back
        fresh.count_change("themes")
    assert fresh.lock_wait() == fresh.write_wait


def test_papers_update_only_when_changed(fresh: SqlStore) -> None:
    ingest(fresh, FILES[:1])
    paper = next(fresh.iter_papers())
    with fresh.transaction():
        assert fresh.put_papers([paper]) == ["unchanged"]
    before = fresh.generation()
    from dataclasses import replace

    with fresh.transaction():
        assert fresh.put_papers([replace(paper, title="A new title")]) == ["updated"]
    assert fresh.generation() == before + 1 and fresh.get_paper(paper.id).title == "A new title"
    with fresh.transaction():  # two writes in one transaction: two generations, each paper stamped with its own
        fresh.put_papers([replace(paper, title="Newer")])
        fresh.put_papers([replace(paper, id="another-paper", title="Another")])
    assert fresh.generation() == before + 3
    assert [p.id for _, p in fresh.papers_changed_since(before + 2)] == ["another-paper"]
    fresh.put_papers([replace(paper, title="Written outside a transaction")])  # made at once, seen by others
    with open_store(fresh.location) as other:
        assert other.get_paper(paper.id).title == "Written outside a transaction"
        assert other.generation() == before + 4


def test_ingest_writes_alike_on_both_backends(tmp_path: Path) -> None:
    """New, changed and unchanged papers, a record given twice in one file, a record replaced: the rows written
    (PostgreSQL's bulk path, SQLite's statements) are the same, row keys included."""
    first = [
        {"id": "p1", "title": "First Paper", "status": "Poster", "author": "Ann Lee, Bo Chen", "keywords": "a; b"},
        {"id": "p2", "title": "Second Paper", "status": "Oral", "author": "Cy Diaz"},
        {"id": "p3", "title": "Third Paper", "status": "Reject", "author": "Di Ng", "aff": "MIT"},
    ]
    second = [
        {**first[0], "title": "First Paper, Retitled", "keywords": "c"},
        {**first[1], "author": "Cy Diaz, Ed Fox"},
        first[2],
        {"id": "p4", "title": "Fourth Paper", "status": "Poster", "author": "Fay Gu"},
        {"id": "p4", "title": "Fourth Paper", "abstract": "Given the second time."},
    ]
    written: dict[str, Any] = {}
    path = tmp_path / "in" / "conf2022.json"
    path.parent.mkdir()
    for backend in BACKENDS:
        with open_store(new_location(tmp_path, f"alike-{backend}", backend), create=True) as store:
            path.write_text(json.dumps(first))
            ingest(store, [path])
            path.write_text(json.dumps(second))
            result = ingest(store, [path])
            tables = ("papers", "paper_authors", "paper_keywords", "paper_places", "source_records")
            written[backend] = (
                (result.added, result.updated, result.unchanged),
                {table: list(table_rows(store, table)) for table in tables},
            )
    assert written["sqlite"][0] == (1, 2, 1)
    for table in written["sqlite"][1]:
        assert written["sqlite"][1][table] == written["postgres"][1][table], table


def test_overrides_and_vectors_and_lists(fresh: SqlStore) -> None:
    ingest(fresh, FILES[:1])
    table = DecisionTable({"corl2023": {label_key("Accept (Oral)"): (Outcome.ACCEPTED, "keynote")}})
    with fresh.transaction():
        fresh.put_decision_overrides(table)
    assert fresh.decision_table().rows() == table.rows()
    rows = [(pk, "h", vector_of(pk).tobytes()) for pk, _ in fresh.paper_rows()]
    with fresh.transaction():
        fresh.put_embeddings("a", rows)
        fresh.put_embeddings("b", rows[:5])
        assert fresh.delete_embeddings(keep_models=["a"]) == 5
    assert fresh.embedding_models() == {"a": len(rows)}
    pks, blobs = fresh.embeddings("a")
    assert np.frombuffer(blobs[0], dtype=np.float32).tolist() == vector_of(pks[0]).tolist()
    with fresh.transaction():
        fresh.copy_embeddings("a", [(pks[0], pks[1])])
    assert fresh.embeddings("a")[1][1] == blobs[0] and fresh.embedding_hashes("a")[pks[1]] == "h"
    paper = next(fresh.iter_papers())
    fresh.create_list("mine")
    fresh.add_to_list("mine", paper.id)
    assert fresh.reading_lists() == [("mine", 1)]
    fresh.remove_from_list("mine", paper.id)
    fresh.delete_list("mine")
    assert fresh.reading_lists() == []


def test_nearest_in_postgres_with_a_rare_filter(filled: dict[str, Location]) -> None:
    """HNSW answers agree with exact search; a filter few papers pass still gets every one of them."""
    with open_store(filled["postgres"]) as store:
        assert isinstance(store, NearestNeighbours)
        pks, blobs = store.embeddings("test-model")
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(pks), DIMENSION)
        query = vector_of(10**6)
        exact = [pks[i] for i in np.argsort(-(matrix @ query))[:10]]
        found = store.nearest("test-model", query, None, 10)
        assert len(found) == 10 and len(set(exact) & {pk for pk, _ in found}) >= 9
        rare = store.papers(PaperFilter(venue="corl2023", decision="oral"))
        assert 0 < len(rare) < 50
        wanted = PaperFilter(venue="corl2023", decision="oral")
        got = store.nearest("test-model", query, wanted, 60)
        assert {pk for pk, _ in got} == set(store.filter_pks(wanted))  # all of them, fewer than asked
        admitted = set(store.filter_pks(wanted))
        best = sorted(admitted, key=lambda pk: -float(vector_of(pk) @ query))[:5]
        assert [pk for pk, _ in store.nearest("test-model", query, wanted, 5)] == best
        scores = store.vector_scores("test-model", query, best)
        assert scores[best[0]] == pytest.approx(float(vector_of(best[0]) @ query), abs=1e-5)
        assert store.vectors_of("test-model", best[:1])[best[0]].tolist() == vector_of(best[0]).tolist()


def test_a_refit_of_another_process_that_changes_the_vector_size(tmp_path: Path) -> None:
    """A connection trusts the vector size it last read (no round trip per search), yet when another connection
    refits the model to another size it answers a query of the old size with nothing, not an error, and a query of
    the new size in full; inside a transaction it reads the size each time, as before."""
    location = new_location(tmp_path, "sizes", "postgres")
    with open_store(location, create=True) as reader, open_store(location) as writer:
        ingest(reader, FILES[:1])
        pks = [pk for pk, _ in reader.paper_rows()]
        with reader.transaction():
            reader.put_embeddings("m", [(pk, "h", vector_of(pk).tobytes()) for pk in pks])
        reader.index_vectors("m")
        old = vector_of(10**6)
        assert len(reader.nearest("m", old, None, 5)) == 5 and len(reader.vector_scores("m", old, pks[:3])) == 3
        wide = {pk: np.r_[vector_of(pk), np.zeros(4, dtype=np.float32)] for pk in pks}  # another fit's size
        wider = wide[pks[0]]
        with writer.transaction():
            writer.drop_vectors("m")
            writer.put_embeddings("m", [(pk, "h2", v.tobytes()) for pk, v in wide.items()])
        writer.index_vectors("m")
        assert reader.nearest("m", old, None, 5) == [] and reader.vector_scores("m", old, pks[:3]) == {}
        assert len(reader.nearest("m", wider, None, 5)) == 5
        assert reader.vector_scores("m", wider, pks[:1])[pks[0]] == pytest.approx(1.0, abs=1e-5)
        with reader.transaction():
            assert reader.nearest("m", old, None, 5) == [] and len(reader.nearest("m", wider, None, 5)) == 5


def test_copy_round_trips_unchanged(filled: dict[str, Location], tmp_path: Path) -> None:
    """SQLite → PostgreSQL → SQLite gives back every row; the counts are checked on the way."""
    middle = new_location(tmp_path, "middle", "postgres")
    back = tmp_path / "back.db"
    with open_store(filled["sqlite"]) as source, open_store(middle) as target:
        result = copy_store(source, target)
        assert result.tables == table_counts(source) and result.vector_indexes == ["test-model"]
    with open_store(middle) as source, open_store(back, create=True) as target:
        copy_store(source, target)
        with pytest.raises(ConfnavError, match="copy into an empty store"):
            copy_store(source, target)
    assert snapshot(back) == snapshot(filled["sqlite"]) == snapshot(middle)
    with open_store(middle) as store:  # new papers get fresh keys after a copy
        ingest(store, [DATA / "paperlists" / "nips2018.json"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_read_only_store_refuses_writes(filled: dict[str, Location], backend: str, tmp_path: Path) -> None:
    location = clone(filled[backend], tmp_path)
    with open_store(location, read_only=True) as store:
        assert store.count_papers() > 0
        with pytest.raises(ReadOnlyStoreError):
            store.create_list("x")


def test_a_password_is_never_shown(tmp_path: Path) -> None:
    """An unreachable server is one clear line naming it, without the password (the CLI shows the same)."""
    from click.testing import CliRunner

    from confnav.cli import cli

    url = "postgresql://reader:s3cret-pw@127.0.0.1:9/confnav"
    with pytest.raises(ConfnavError) as caught:
        open_store(url)
    assert "s3cret-pw" not in str(caught.value) and "postgresql://reader:***@127.0.0.1:9/confnav" in str(caught.value)
    result = CliRunner().invoke(cli, ["venues", "--db", url])
    assert result.exit_code == 1 and "s3cret-pw" not in result.output + result.stderr
    assert "Traceback" not in result.output + result.stderr
