"""Shared fixtures: the real corpus in ../shared/data, a fresh store per test, one real store per session."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confnav.ingest import ingest
from confnav.store import SqliteStore

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
EXAMPLES = ROOT.parent / "shared" / "examples"
ICLR2021 = [
    DATA / "iclr2021" / "paperlist.tsv",
    DATA / "iclr2021" / "ratings.tsv",
    DATA / "iclr2021" / "paperlists-iclr2021.json",
]
ICLR2020 = DATA / "iclr2020" / "paperlists-iclr2020.json"
MARKDOWN_PAGE = EXAMPLES / "iclr2021-paperlist-page1.md"


def snapshot(path: Path) -> list[str]:
    """The whole content of a store as SQL text, to compare stores for equivalence."""
    with SqliteStore(path) as store:
        return list(store.conn.iterdump())


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    """A fresh, empty store file for one test."""
    with SqliteStore(tmp_path / "test.db") as fresh:
        yield fresh


@pytest.fixture(scope="session")
def iclr2021_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding the three ICLR 2021 files, built once per session; copy it before writing."""
    path = tmp_path_factory.mktemp("real") / "iclr2021.db"
    with SqliteStore(path) as real:
        ingest(real, ICLR2021)
    return path


@pytest.fixture
def iclr2021_copy(iclr2021_db: Path, tmp_path: Path) -> Path:
    """A private copy of the session's ICLR 2021 store that a test may change."""
    copy = tmp_path / "copy.db"
    shutil.copy(iclr2021_db, copy)
    return copy


@pytest.fixture
def write(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Write a small input file into the test's folder and return its path."""

    def _write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    return _write


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Model exports and the demo go to a folder of this test session, never the user's cache."""
    folder = tmp_path_factory.mktemp("cache")
    previous = os.environ.get("CONFNAV_CACHE")
    os.environ["CONFNAV_CACHE"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("CONFNAV_CACHE", None)
    else:
        os.environ["CONFNAV_CACHE"] = previous


@pytest.fixture(scope="session")
def indexed_db(iclr2021_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ICLR 2021 store with the default semantic index, built once per session; copy before writing."""
    from confnav.embed import choose_embedder
    from confnav.index import build_index

    path = tmp_path_factory.mktemp("indexed") / "indexed.db"
    shutil.copy(iclr2021_db, path)
    embedder, notice = choose_embedder()
    assert notice is None, notice
    with SqliteStore(path) as store:
        build_index(store, embedder)
    return path


@pytest.fixture(scope="session")
def topics_db(indexed_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ICLR 2021 with themes, plus ICLR 2020 ingested and indexed (trends, track record); copy before writing."""
    from confnav.embed import choose_embedder
    from confnav.index import build_index
    from confnav.topics import ensure_topics

    path = tmp_path_factory.mktemp("topics") / "topics.db"
    shutil.copy(indexed_db, path)
    with SqliteStore(path) as store:
        ingest(store, [ICLR2020])
        build_index(store, choose_embedder()[0], venue="iclr2020")
        ensure_topics(store, "iclr2021")
    return path
