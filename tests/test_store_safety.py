"""A store from anywhere is data only; an interrupted index run is finished exactly; writers take turns."""

from __future__ import annotations

import csv
import json
import os
import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.embed import SparseEmbedder
from confnav.embed.views import embedder_state_cache
from confnav.errors import StoreBusyError
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.search.engine import Searcher
from confnav.search.keyword_store import BASE_CACHE, DELTA_CACHE
from confnav.store import open_store
from tests.backends import Location, clone, new_location
from tests.conftest import DATA

pytestmark = pytest.mark.failure_injection


class Payload:
    """What a crafted store would carry: unpickling it writes a file (it must never be unpickled)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (Path.write_text, (self.marker, "pwned"))


def _real_records(count: int, offset: int = 0) -> list[dict[str, object]]:
    """Real ICLR 2021 titles and abstracts as JSONL records of a made-up venue."""
    with (DATA / "iclr2021" / "paperlist.tsv").open(encoding="utf-8", newline="") as tsv:
        rows = list(csv.DictReader(tsv, delimiter="\t", quoting=csv.QUOTE_NONE))
    chosen = [r for r in rows if r.get("abstract")][offset : offset + count]
    return [
        {"id": f"paper-{offset + i}", "title": r["title"], "abstract": r["abstract"], "authors": ["A. Author"]}
        for i, r in enumerate(chosen)
    ]


def _jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def sparse_db(tmp_path_factory: pytest.TempPathFactory) -> Location:
    """A small store (400 real abstracts, venue test2021) with the TF-IDF index; copy it before writing."""
    folder = tmp_path_factory.mktemp("sparse")
    location = new_location(folder, "sparse")
    with open_store(location, create=True) as store:
        ingest(store, [_jsonl(folder / "test2021.jsonl", _real_records(400))], venue="test2021")
        build_index(store, SparseEmbedder())
    return location


def _vectors(location: Location) -> dict[tuple[int, str], tuple[str, bytes]]:
    with open_store(location) as store:
        return {
            (pk, model): (digest, bytes(vector))
            for model in store.embedding_models()
            for pk, digest, vector in _embedding_rows(store, model)
        }


def _embedding_rows(store: object, model: str) -> list[tuple[int, str, bytes]]:
    rows = store.conn.execute(  # type: ignore[attr-defined]
        "SELECT paper_pk, text_hash, vector FROM embeddings WHERE model = ? ORDER BY paper_pk", (model,)
    )
    return [(pk, digest, store.vector_bytes(vector)) for pk, digest, vector in rows]  # type: ignore[attr-defined]


def test_a_crafted_store_never_runs_code(sparse_db: Location, tmp_path: Path) -> None:
    location = clone(sparse_db, tmp_path, "crafted")
    marker = tmp_path / "pwned.txt"
    with open_store(location) as store, store.transaction():
        store.put_cache(embedder_state_cache(SparseEmbedder.name), store.generation(), pickle.dumps(Payload(marker)))
        for name in (BASE_CACHE, DELTA_CACHE):
            store.put_cache(name, store.generation(), pickle.dumps(Payload(marker)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    search = [sys.executable, "-m", "confnav", "search", "--db", str(location), "graph neural networks"]
    done = subprocess.run(search, capture_output=True, text=True, check=False, env=env)
    assert not marker.exists()
    assert "Traceback" not in done.stderr
    assert done.returncode == 0 and "no semantic index yet: run 'confnav index'" in done.stdout + done.stderr
    semantic = subprocess.run([*search, "--mode", "semantic"], capture_output=True, text=True, check=False, env=env)
    assert semantic.returncode == 1 and "needs an index" in semantic.stderr and not marker.exists()
    index = CliRunner().invoke(cli, ["index", "--db", str(location), "--model", SparseEmbedder.name, "-q"])
    assert not marker.exists()
    assert index.exit_code == 0, index.output
    assert subprocess.run(search, capture_output=True, text=True, check=False, env=env).returncode == 0


class Interrupted(SparseEmbedder):
    """The fallback embedder, killed after its first batch (as kill -9 would stop `confnav index`)."""

    def __init__(self) -> None:
        super().__init__()
        self.batches = 0

    def embed(self, texts, progress=None):  # type: ignore[no-untyped-def]
        self.batches += 1
        if self.batches > 1:
            raise KeyboardInterrupt
        return super().embed(texts, progress)


@pytest.mark.slow
def test_an_interrupted_rebuild_is_finished_exactly(sparse_db: Location, tmp_path: Path) -> None:
    more = _jsonl(tmp_path / "test2021-more.jsonl", _real_records(300, offset=400))
    interrupted, clean = clone(sparse_db, tmp_path, "interrupted"), clone(sparse_db, tmp_path, "clean")
    for location in (interrupted, clean):
        with open_store(location) as store:
            ingest(store, [more], venue="test2021")  # the corpus changes: the TF-IDF model is refitted
    with open_store(interrupted) as store, pytest.raises(KeyboardInterrupt):
        build_index(store, Interrupted())
    with open_store(interrupted) as store:
        build_index(store, SparseEmbedder())
    with open_store(clean) as store:
        build_index(store, SparseEmbedder())
    left, right = _vectors(interrupted), _vectors(clean)
    assert left.keys() == right.keys()
    for key, (digest, vector) in right.items():
        assert left[key][0] == digest
        assert np.allclose(np.frombuffer(left[key][1], np.float32), np.frombuffer(vector, np.float32), atol=1e-5)
    with open_store(interrupted) as store:
        assert build_index(store, SparseEmbedder()).embedded == 0


@pytest.mark.slow
def test_two_ingests_at_once_make_each_paper_once(fresh_location: Location, tmp_path: Path) -> None:
    """One file names the papers by id, the other by title only: whichever commits first, they merge."""
    records = _real_records(150)
    with_ids = _jsonl(tmp_path / "listed.jsonl", records)
    titles_only = _jsonl(tmp_path / "titles.jsonl", [{"title": r["title"], "decision": "Accept"} for r in records])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for attempt in range(3):
        location = fresh_location if attempt == 0 else new_location(tmp_path, f"attempt{attempt}")
        runs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "confnav",
                    "ingest",
                    "-q",
                    "--db",
                    str(location),
                    "--venue",
                    "test2021",
                    str(path),
                ],
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
            for path in ([with_ids, titles_only] if attempt % 2 == 0 else [titles_only, with_ids])
        ]
        for run in runs:
            assert run.wait(timeout=120) == 0, run.stderr.read() if run.stderr else ""
        with open_store(location) as store:
            papers = list(store.paper_rows("test2021"))
        assert len(papers) == len(records), f"attempt {attempt}: {len(papers)} papers for {len(records)}"
        assert all(p.decision.name for _, p in papers)


def test_a_writer_waits_for_another_then_says_the_store_is_busy(fresh_location: Location) -> None:
    location = fresh_location
    with open_store(location, create=True):
        pass
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with open_store(location) as other, other.transaction():
            other.count_change("test")
            holding.set()
            release.wait(120)  # released at once; the limit only ends a hung test

    holder = threading.Thread(target=hold)
    holder.start()
    store = open_store(location)
    try:
        assert holding.wait(120)
        store.wait_for_writers(0.3)
        with pytest.raises(StoreBusyError, match="another write"), store.transaction():
            store.count_change("test")
        assert store.generation() == 0  # reads never wait for the writer
    finally:
        release.set()
        holder.join()
    with store, store.transaction():
        store.count_change("test")


def test_a_paper_without_a_vector_is_found_by_its_words_with_a_notice(sparse_db: Location, tmp_path: Path) -> None:
    location = clone(sparse_db, tmp_path, "unindexed")
    title = "Zyxwvut-flavoured attention for ranking conference papers"
    late = {"id": "late-1", "title": title, "abstract": "A paper ingested after the index was built."}
    with open_store(location) as store:
        ingest(store, [_jsonl(tmp_path / "test2021-late.jsonl", [late])], venue="test2021")
        results = Searcher(store).search(title, mode="hybrid")
        assert results.hits[0].paper.id == "late-1"
        assert any("1 paper not in the semantic index yet" in n and "confnav index" in n for n in results.notices)
        semantic = Searcher(store).search(title, mode="semantic")
        assert any("cannot be found by meaning" in n for n in semantic.notices)


def test_papers_liked_or_compared_before_they_have_vectors_are_matched_by_their_words(
    sparse_db: Location, tmp_path: Path
) -> None:
    """`recommend` and `similar` from a paper ingested after the index was built read its words; papers without a
    vector are found by theirs, each time with a notice saying so."""
    location = clone(sparse_db, tmp_path, "unindexed-like")
    words = "Zyxwvut-flavoured attention for ranking conference papers by their reviews"
    late = [
        {"id": "late-1", "title": words, "abstract": "Zyxwvut attention ranks papers. " * 3},
        {"id": "late-2", "title": f"{words}, again", "abstract": "Zyxwvut attention ranks reviews. " * 3},
    ]
    with open_store(location) as store:
        ingest(store, [_jsonl(tmp_path / "test2021-late.jsonl", late)], venue="test2021")
        searcher = Searcher(store)
        liked = searcher.recommend(["late-1"], limit=5)
        assert [h.paper.id for h in liked.hits][:1] == ["late-2"] and liked.mode == "keyword"
        assert any("not in the semantic index yet: matched by their words" in n for n in liked.notices)
        papers = store.iter_papers("test2021")
        indexed = next(p for p in papers if not p.id.startswith("late") and "attention" in (p.abstract or "").lower())
        near = searcher.similar(indexed.id, venue="test2021", limit=50)
        assert near.hits and indexed.id not in {h.paper.id for h in near.hits}
        assert any("2 papers not in the semantic index yet are matched by their words" in n for n in near.notices)


def test_a_server_reloading_after_many_writes_keeps_one_connection_for_it(sparse_db: Location, tmp_path: Path) -> None:
    from confnav.web.state import STATE_AGE, ThreadStores

    location = clone(sparse_db, tmp_path, "served")
    served = ThreadStores(location)
    searcher = Searcher(served)  # type: ignore[arg-type]
    searcher.corpus  # noqa: B018 - loaded once, then refreshed in the background
    with open_store(location) as writer:
        for _ in range(12):
            with writer.transaction():
                writer.conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'vectors'")
            time.sleep(STATE_AGE * 1.2)  # another process's write is seen within STATE_AGE
            searcher.corpus  # noqa: B018 - sees the change and starts a refresh
            searcher.wait_for_refresh()
    assert searcher.current()
    assert len(served._opened) == 2  # the caller's and the refresher's, however many refreshes ran
    searcher.close()  # the server stops: no reload starts on a store about to close
    with open_store(location) as writer, writer.transaction():
        writer.conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'vectors'")
    time.sleep(STATE_AGE * 1.2)
    searcher.corpus  # noqa: B018
    assert not searcher.current() and searcher._refreshing is not None and searcher._refreshing.done()
    served.close()


def test_stored_json_that_the_fast_reader_refuses_is_still_read(iclr2021_db: Location) -> None:
    """Papers are read with orjson, which refuses some of what the standard library writes and reads: a lone
    surrogate (a broken title), NaN. Such a paper is read as the standard library reads it."""
    from confnav.store.base import read_json
    from confnav.store.rows import paper_from_json

    with open_store(iclr2021_db) as store:
        paper = next(iter(store.iter_papers("iclr2021")))
        (text,) = store.conn.execute("SELECT data FROM papers WHERE id = ?", (paper.id,)).fetchone()
    data = json.loads(text)
    crafted = json.dumps({**data, "title": data["title"] + "\ud800"})
    assert paper_from_json(crafted).title == paper.title + "\ud800"
    assert read_json('{"a": NaN, "b": 7}')["b"] == 7


def _foreign_database(location: Location) -> None:
    """Another program's database at the location: one table of a reference manager's (Zotero's `items`)."""
    if isinstance(location, str):
        import psycopg

        with psycopg.connect(location, autocommit=True) as conn:
            conn.execute("CREATE TABLE items (itemID integer PRIMARY KEY, key text)")
            conn.execute("INSERT INTO items VALUES (1, 'ABCD2345')")
        return
    import sqlite3

    conn = sqlite3.connect(location)
    conn.execute("CREATE TABLE items (itemID integer PRIMARY KEY, key text)")
    conn.execute("INSERT INTO items VALUES (1, 'ABCD2345')")
    conn.commit()
    conn.close()


def _fingerprint(location: Location) -> object:
    """The file's bytes (and its journal files' presence), or a database's tables and their rows."""
    if isinstance(location, str):
        import psycopg

        with psycopg.connect(location, autocommit=True) as conn:
            tables = conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
            ).fetchall()
            return tables, conn.execute("SELECT * FROM items").fetchall()
    siblings = sorted(p.name for p in location.parent.iterdir() if p.name.startswith(location.name))
    return location.read_bytes(), siblings


@pytest.mark.parametrize("kind", ["another program's database", "an empty file"])
def test_a_file_that_is_not_a_store_is_refused_by_every_verb_and_left_as_it_was(
    kind: str, fresh_location: Location, tmp_path: Path
) -> None:
    """A --db naming another program's database, or a 0-byte file, is never migrated: read-only verbs and ingest
    alike refuse it in one line, and its bytes are as before (only a path with no file becomes a store)."""
    if kind == "an empty file":
        if isinstance(fresh_location, str):
            pytest.skip("a PostgreSQL database is never a 0-byte file (an empty one is given the schema)")
        fresh_location.touch()
    else:
        _foreign_database(fresh_location)
    before = _fingerprint(fresh_location)
    papers = str(DATA / "paperlists" / "corl2023.json")
    for verb in (["ls"], ["venues"], ["search", "robot"], ["ingest", "-q", papers]):
        result = CliRunner().invoke(cli, ["--db", str(fresh_location), *verb])
        assert result.exit_code == 1, (verb, result.output)
        (line,) = result.stderr.strip().splitlines()
        assert "not a confnav store (" in line, line
        assert ("an empty file" if kind == "an empty file" else "another program's tables (items)") in line
        assert _fingerprint(fresh_location) == before, verb
    if isinstance(fresh_location, Path):
        new = tmp_path / "new.db"
        assert CliRunner().invoke(cli, ["--db", str(new), "ingest", "-q", papers]).exit_code == 0
        assert CliRunner().invoke(cli, ["--db", str(new), "ls"]).exit_code == 0  # a store confnav made
        assert sorted(p.name for p in tmp_path.iterdir() if ".new" in p.name) == []  # no store left half made
