"""Shared fixtures: the real corpus in ../shared/data, a fresh store per test, one real store per session."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from confnav.embed.base import PretrainedEmbedder
from confnav.embed.multilingual import MultilingualEmbedder
from confnav.embed.onnx import OnnxEmbedder
from confnav.embed.sentence import SentenceTransformerEmbedder
from confnav.ingest import ingest
from confnav.store import SqlStore, open_store
from confnav.store.copy import TABLES, table_rows
from tests import backends
from tests.backends import BACKEND, Location, clone, freeze, new_location
from tests.shared_embeddings import shared_embedder
from tests.shared_stores import session_store

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

pytest_plugins = ("tests.module_order", "pytester")  # the longest modules first (the workers' balance); its test


# Tests that use one of these run on the backend CONFNAV_TEST_BACKEND names; with postgres, only they run.
STORE_FIXTURES = {
    "store",
    "iclr2021_db",
    "iclr2021_copy",
    "iclr2020_db",
    "indexed_db",
    "topics_db",
    "web_db",
    "served",
    "sparse_db",
    "fresh_location",
    "listed_db",
    "reindex_needed",  # tests/test_kill_writers.py
}


# What a test needs, read from the fixtures it uses (directly or through other fixtures): the markers that
# `make check` leaves out (`-m "not semantic and not browser and not slow"`; markers in pyproject.toml).
NEEDS = {
    "semantic": {"indexed_db", "topics_db"},  # build the semantic model's vectors of the corpus
    "browser": {"browser"},  # Debian's Chromium through Playwright
    "llm": {"local_llm"},  # a real local LLM served by llama.cpp (the `llm-local` extra)
}


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test by the fixtures it uses; on the PostgreSQL run, keep the tests that use a store fixture
    (the rest do not touch a backend)."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for marker, fixtures in NEEDS.items():
            if used & fixtures:
                item.add_marker(marker)
    if BACKEND != "postgres":
        return
    keep = [
        item
        for item in items
        if STORE_FIXTURES & set(getattr(item, "fixturenames", ())) and not item.get_closest_marker("sqlite_only")
    ]
    skipped = [item for item in items if item not in keep]
    config.hook.pytest_deselected(items=skipped)
    items[:] = keep


@pytest.fixture(autouse=True)
def semantic_model_only_when_marked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A test not marked `semantic` that loads a semantic model fails (after it ran, unchanged), so that no such
    test slips into the fast tier unmarked; a failed load (a test of the error) is not a use."""
    if request.node.get_closest_marker("semantic"):
        yield
        return
    loaded: list[str] = []
    for kind in (OnnxEmbedder, SentenceTransformerEmbedder, MultilingualEmbedder):

        def load(self: PretrainedEmbedder, original: Callable[[PretrainedEmbedder], object] = kind._load) -> object:
            model = original(self)
            loaded.append(self.name)
            return model

        monkeypatch.setattr(kind, "_load", load)
    yield
    if loaded:
        pytest.fail(f"this test loads the model {loaded[0]!r}: mark it @pytest.mark.semantic", pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def postgres_server_root(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The session's PostgreSQL server keeps its data in the session's base folder, which outlives every test."""
    backends.session_root = tmp_path_factory.getbasetemp()


@pytest.fixture(scope="module", autouse=True)
def drop_module_databases() -> Iterator[None]:
    """A module's PostgreSQL databases are dropped after it (a run makes hundreds; kept, they filled CI's disk)."""
    mark = backends.databases_made()
    yield
    backends.drop_made_since(mark)


@pytest.fixture(autouse=True)
def drop_test_databases() -> Iterator[None]:
    """A test's own PostgreSQL databases are dropped after it, as pytest removes its folder when it passes."""
    mark = backends.databases_made()
    yield
    backends.drop_made_since(mark)


def snapshot(location: Location) -> list[tuple[object, ...]]:
    """The whole content of a store, table by table, to compare stores for equivalence."""
    with open_store(location) as store:
        return [(table, *row) for table in TABLES for row in table_rows(store, table)]


@pytest.fixture
def no_back_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The OpenReview clients the code makes itself (the command line's, the web app's) retry without waiting: the
    tests check that a retry happens and how it ends, not the seconds of back-off the product waits between tries."""
    from confnav.fetch.openreview import OpenReviewClient

    made = OpenReviewClient.from_settings

    def quick(cls: type[OpenReviewClient], *args: Any, **http: Any) -> OpenReviewClient:
        return made(*args, **{"backoff": 0.0, **http})

    monkeypatch.setattr(OpenReviewClient, "from_settings", classmethod(quick))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqlStore]:
    """A fresh, empty store for one test."""
    with open_store(new_location(tmp_path, "test"), create=True) as fresh:
        yield fresh


@pytest.fixture(scope="session")
def iclr2021_db(tmp_path_factory: pytest.TempPathFactory) -> Location:
    """A store holding the three ICLR 2021 files, built once per session; copy it before writing."""

    def build(path: Path) -> None:
        with open_store(path, create=True) as real:
            ingest(real, ICLR2021)

    return session_store("iclr2021", tmp_path_factory.mktemp("real"), build)


@pytest.fixture(scope="session")
def iclr2020_db(tmp_path_factory: pytest.TempPathFactory) -> Location:
    """A store holding ICLR 2020 alone (titles and reviews, no vectors), built once per session; copy it before
    writing."""

    def build(path: Path) -> None:
        with open_store(path, create=True) as store:
            ingest(store, [ICLR2020])

    return session_store("iclr2020", tmp_path_factory.mktemp("iclr2020"), build)


@pytest.fixture
def iclr2020_copy(iclr2020_db: Location, tmp_path: Path) -> Location:
    """A private copy of the session's ICLR 2020 store that a test may change."""
    return clone(iclr2020_db, tmp_path)


@pytest.fixture
def fresh_location(tmp_path: Path) -> Location:
    """Where a new store of the tested backend goes (a file, or a database URL other processes can open)."""
    return new_location(tmp_path, "fresh")


@pytest.fixture
def iclr2021_copy(iclr2021_db: Location, tmp_path: Path) -> Location:
    """A private copy of the session's ICLR 2021 store that a test may change."""
    return clone(iclr2021_db, tmp_path)


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
    """Model exports and the demo go to a folder of this test session, never the user's cache: the default
    settings' cache folder, and the one the command line reads from the environment."""
    folder = tmp_path_factory.mktemp("cache")
    if shared := os.environ.get("CONFNAV_TEST_SHARED"):
        # The model's ONNX export (half a CPU-minute) is made once per `make test`, not once per worker and pass;
        # an export is renamed into place whole, so processes exporting at once never see half of one.
        (Path(shared) / "onnx").mkdir(parents=True, exist_ok=True)
        (folder / "onnx").symlink_to(Path(shared) / "onnx", target_is_directory=True)
    previous = os.environ.get("CONFNAV_CACHE")
    os.environ["CONFNAV_CACHE"] = str(folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("confnav.settings.default_cache_dir", lambda: folder)
        yield folder
    if previous is None:
        os.environ.pop("CONFNAV_CACHE", None)
    else:
        os.environ["CONFNAV_CACHE"] = previous


@pytest.fixture(scope="session")
def indexed_db(iclr2021_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """The ICLR 2021 store with the default semantic index, built once per session; copy before writing."""
    from confnav.embed import choose_embedder
    from confnav.navigator import Navigator
    from confnav.settings import Settings

    def build(path: Path) -> None:
        embedder, notice = choose_embedder()
        assert notice is None, notice
        with open_store(path) as store, shared_embedder(embedder) as shared:
            Navigator(Settings()).index(store, shared)  # as `confnav index`: vectors, then TL;DRs

    return session_store("indexed", tmp_path_factory.mktemp("indexed"), build, start="iclr2021")


@pytest.fixture(scope="session")
def topics_db(indexed_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2021 with themes, plus ICLR 2020 ingested and indexed (trends, track record); copy before writing."""
    from confnav.embed import choose_embedder
    from confnav.navigator import Navigator
    from confnav.settings import Settings
    from confnav.topics import ensure_topics

    def build(path: Path) -> None:
        with open_store(path) as store:
            ingest(store, [ICLR2020])
            with shared_embedder(choose_embedder()[0]) as shared:
                Navigator(Settings()).index(store, shared, venue="iclr2020")
            ensure_topics(store, "iclr2021")

    return session_store("topics", tmp_path_factory.mktemp("topics"), build, start="indexed")


@pytest.fixture(scope="session")
def light_topics_db(iclr2021_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2021 with themes, plus ICLR 2020, indexed by the TF-IDF embedder (seconds, not the minutes of the
    semantic model): for tests of what does not depend on the model, such as limits and refusals."""
    from confnav.embed.sparse import SparseEmbedder
    from confnav.navigator import Navigator
    from confnav.settings import Settings
    from confnav.topics import ensure_topics

    def build(path: Path) -> None:
        with open_store(path) as store:
            ingest(store, [ICLR2020])
            Navigator(Settings()).index(store, SparseEmbedder())
            ensure_topics(store, "iclr2021")

    return session_store("light", tmp_path_factory.mktemp("light"), build, start="iclr2021")


@pytest.fixture(scope="session")
def web_template_db(topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """topics_db with one paper whose title and abstract hold HTML and script, indexed, themes rebuilt: what the
    web and browser tests serve (each module serves its own copy)."""
    from tests.web_fixtures import add_hostile_paper

    return session_store("web", tmp_path_factory.mktemp("web"), add_hostile_paper, start="topics")


@pytest.fixture(scope="session")
def sparse_template_db(iclr2021_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2021 indexed by the TF-IDF embedder (no themes): vectors for the personal pages without the model."""
    from tests.web_fixtures import add_sparse_index

    return session_store("sparse", tmp_path_factory.mktemp("sparse"), add_sparse_index, start="iclr2021")


@pytest.fixture(scope="module")
def listed_db(tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2021's paper list alone (no ratings, no decisions, no authors yet: news tests ingest them next);
    copy before writing."""
    location = new_location(tmp_path_factory.mktemp("listed"), "listed")
    with open_store(location, create=True) as store:
        ingest(store, [DATA / "iclr2021" / "paperlist.tsv"])
    return freeze(location)


@pytest.fixture(scope="session")
def local_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a real local LLM (SmolLM2-135M-Instruct on llama.cpp's server), started once per session;
    skipped, with the reason, only where the `llm-local` extra is not installed (`make test` installs it)."""
    from tests.local_llm import local_llm_server, missing

    if reason := missing():
        pytest.skip(reason)
    with local_llm_server(tmp_path_factory.mktemp("llm") / "server.log") as url:
        yield url


# The browser tests' (test_browser*.py): a served copy of topics_db and Debian's Chromium, one of each per module.
@pytest.fixture(scope="module")
def browser_db(web_template_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    return clone(web_template_db, tmp_path_factory.mktemp("browser"), "web")


@pytest.fixture(scope="module")
def base_url(browser_db: Path) -> Iterator[str]:
    from tests.web_fixtures import running_server

    with running_server(browser_db) as url:
        yield url


HANG_MS = 180_000  # a browser wait this long is a hang: pages answer in well under a second on an idle machine


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    from tests.web_fixtures import CHROMIUM, SHOTS

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        opened = launched.new_context

        def new_context(**options):  # type: ignore[no-untyped-def]
            """A context whose waits catch a hang, not a slow machine (HANG, not Playwright's 30 s)."""
            context = opened(**options)
            context.set_default_timeout(HANG_MS)
            return context

        launched.new_context = new_context
        yield launched
        launched.close()
