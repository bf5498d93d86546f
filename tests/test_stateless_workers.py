"""Serving workers map what search holds from files every worker shares: their answers are a single process's,
a write is seen in a new generation of files, and a file of an older state is never read after the switch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from confnav.search.engine import Searcher
from confnav.search.mapped import home
from confnav.search.stored import build_keyword_index
from confnav.settings import Settings
from confnav.store import PaperFilter, open_store
from tests.backends import Location, clone

QUERIES = [
    ("graph neural networks", "hybrid", {}),
    ("offline reinforcement learning", "keyword", {}),
    ('"contrastive learning" images', "hybrid", {}),
    ("adversarial robustness", "semantic", {"decision": "poster"}),
    ("meta-learning few-shot", "hybrid", {"author": "Sergey Levine"}),
]
WORKER = """
import json, sys
from confnav.search.engine import Searcher
from confnav.settings import Settings
from confnav.store import PaperFilter, open_store
from tests.test_stateless_workers import QUERIES, answers
with open_store(sys.argv[1], settings=Settings.load().replace(serving=True)) as store:
    print(json.dumps(answers(Searcher(store))))
"""


def answers(searcher: Searcher) -> list[list[tuple[str, float, float | None, float | None]]]:
    """Each query's hits: paper id and scores, exactly as computed."""
    found = []
    for text, mode, where in QUERIES:
        results = searcher.search(text, mode=mode, where=PaperFilter(**where), limit=20)  # type: ignore[arg-type]
        found.append([(h.paper.id, h.score, h.keyword_score, h.semantic_score) for h in results.hits])
    return found


def serving() -> Settings:
    """A server's settings (the cache folder of this test session)."""
    return Settings.load().replace(serving=True)


def indexed(location: Location, folder: Path) -> Location:
    """A private copy of the store, its keyword index stored as `confnav index` leaves it."""
    copy = clone(location, folder)
    with open_store(copy) as store:
        build_keyword_index(store, rebuild=False)
    return copy


def mapped_from(array: np.ndarray) -> Path:
    """The file an array is mapped from."""
    assert isinstance(array, np.memmap) or isinstance(array.base, np.memmap), "held in memory, not mapped"
    return Path(array.filename if isinstance(array, np.memmap) else array.base.filename)  # type: ignore[union-attr]


def test_two_workers_answer_as_one_process(sparse_template_db: Location, tmp_path: Path) -> None:
    """Two worker processes started at once map the same files and answer every query exactly as a single process
    holding everything in its own memory."""
    location = indexed(sparse_template_db, tmp_path)
    with open_store(location) as store:
        alone = answers(Searcher(store))
    assert alone[0] and alone[1] and any(h[3] is not None for h in alone[0])
    root = Path(__file__).resolve().parents[1]
    env = os.environ | {"PYTHONPATH": f"{root / 'src'}{os.pathsep}{root}"}
    command = [sys.executable, "-c", WORKER, str(location)]
    workers = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outputs = [worker.communicate(timeout=600)[0] for worker in workers]
    assert all(worker.returncode == 0 for worker in workers)
    expected = json.loads(json.dumps(alone))
    assert [json.loads(output) for output in outputs] == [expected, expected]
    with open_store(location, settings=serving()) as store:
        kinds = {folder.name.split("-")[0] for folder in home(store).iterdir()}
    assert {"keyword", "rows", "authors"} <= kinds and kinds & {"vectors", "neighbours"}  # neighbours: PostgreSQL


def test_a_write_is_searched_in_a_new_generation_of_files(sparse_template_db: Location, tmp_path: Path) -> None:
    """A paper written while a worker serves is found once the worker switched, from files named by the new
    state; the files of the state before are never read again, even when they are gone."""
    location = indexed(sparse_template_db, tmp_path)
    with open_store(location, settings=serving()) as store, open_store(location) as writer:
        searcher = Searcher(store)
        assert searcher.search("zyxwvut qqxjvbk", mode="keyword").matching == 0
        before = searcher.corpus
        old_rows, old_index = mapped_from(before.pks).parent, mapped_from(before.keyword.segments[0].pks).parent
        paper = next(p for _, p in writer.paper_rows("iclr2021"))
        with writer.transaction():
            writer.put_papers([replace(paper, id="new-paper", title="Zyxwvut qqxjvbk tessellations")])
        searcher.search("warm up")  # a server answers from the state it holds while it loads the new one
        searcher.wait_for_refresh()
        after = searcher.corpus
        assert after is not before and after.generation > before.generation
        new_rows = mapped_from(after.pks).parent
        assert new_rows != old_rows and new_rows.exists()
        for folder in old_rows.parent.glob("rows-*"):
            if folder != new_rows:
                for file in folder.iterdir():
                    file.unlink()  # a stale state's files gone: nothing may need them
        found = searcher.search("zyxwvut qqxjvbk", mode="keyword")
        assert found.matching == 1 and found.hits[0].paper.id == "new-paper"
        assert mapped_from(after.keyword.segments[0].pks).parent == old_index  # the base is unchanged: one file
        with open_store(location) as fresh:
            assert answers(searcher) == answers(Searcher(fresh))


def test_a_new_keyword_base_is_a_new_folder(sparse_template_db: Location, tmp_path: Path) -> None:
    """A rebuilt keyword base gets a new name, so a worker never maps the files of the base it replaced."""
    location = indexed(sparse_template_db, tmp_path)
    with open_store(location, settings=serving()) as store:
        first = mapped_from(Searcher(store).corpus.keyword.segments[0].pks).parent
    with open_store(location) as writer:
        build_keyword_index(writer, rebuild=True)
    with open_store(location, settings=serving()) as store:
        searcher = Searcher(store)
        second = mapped_from(searcher.corpus.keyword.segments[0].pks).parent
        assert second != first
        with open_store(location) as fresh:
            assert answers(searcher) == answers(Searcher(fresh))
