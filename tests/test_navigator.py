"""The composition root: steps chosen in the config file or the environment reach topics, ranking, the keyword
index, summaries and indexing from the CLI, the library and the web app; a wrong name is one line at start-up."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.embed.sparse import SPARSE_MODEL, SparseEmbedder
from confnav.errors import ConfnavError
from confnav.index import build_index, semantic_model
from confnav.ingest import ingest
from confnav.model import Paper
from confnav.navigator import Navigator
from confnav.rank import RankMode, WeightedRanker
from confnav.rank.ranker import Ranking
from confnav.search.engine import Searcher
from confnav.search.keyword import KeywordIndex
from confnav.settings import Settings, Steps
from confnav.store import SqlStore, open_store
from confnav.store.protocols import AnalysisStore
from confnav.summarize.tldr import Tldr
from confnav.topics import ensure_topics
from confnav.web.app import create_app
from tests.conftest import MARKDOWN_PAGE
from tests.test_registry import SPEC as TINY_EMBEDDER

HERE = __name__


class Thirds:
    """A clusterer putting every third paper in the same theme."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit_predict(self, vectors: np.ndarray, low: int, high: int) -> np.ndarray:
        return np.arange(len(vectors)) % 3


class Flat:
    """A layout placing each paper at its vector's first two values."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit_transform(self, vectors: np.ndarray) -> np.ndarray:
        return np.asarray(vectors[:, :2], dtype=np.float64)


class Reversed(WeightedRanker):
    """The weighted ranking read from the bottom."""

    def rank(self, store: AnalysisStore, venue: str, *, theme: str | None = None) -> Ranking:
        ranking = super().rank(store, venue, theme=theme)
        ranking.papers = ranking.papers[::-1]
        return ranking


class CountingIndex:
    """BM25F, counting how often it is built."""

    built = 0

    def __init__(self, documents: Sequence[Mapping[str, str]], weights: Mapping[str, float]) -> None:
        CountingIndex.built += 1
        self.inner = KeywordIndex.build(documents, weights)

    @property
    def size(self) -> int:
        return self.inner.size

    def score(self, query: str | Sequence[str]) -> np.ndarray:
        return self.inner.score(query)

    def containing(self, text: str) -> np.ndarray:
        return self.inner.containing(text)

    def to_bytes(self) -> bytes:
        return self.inner.to_bytes()


class Plain:
    """A summarizer answering with the title."""

    def tldr(self, paper: Paper) -> Tldr:
        return Tldr(paper.id, paper.title, "plugged")


@pytest.fixture
def indexed(store: SqlStore) -> SqlStore:
    ingest(store, [MARKDOWN_PAGE])
    build_index(store, SparseEmbedder())
    return store


def config(tmp_path: Path, **steps: str) -> Path:
    path = tmp_path / "confnav.toml"
    path.write_text("[steps]\n" + "".join(f'{k} = "{v}"\n' for k, v in steps.items()), encoding="utf-8")
    return path


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def test_steps_chosen_in_the_config_file_reach_topics_and_rank(
    indexed: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = {"clusterer": f"{HERE}:Thirds", "layout": f"{HERE}:Flat", "ranker": f"{HERE}:Reversed"}
    monkeypatch.setenv("CONFNAV_CONFIG", str(config(tmp_path, **chosen)))
    db = str(indexed.location)
    themes = run("topics", "--db", db, "--json")
    assert themes.exit_code == 0, themes.stderr
    assert [t["id"] for t in json.loads(themes.stdout)] == ["t01", "t02", "t03"]
    venue = indexed.pick_venue(None)
    run_params = indexed.topic_run(venue)
    assert run_params is not None and run_params[2]["steps"]["clusterer"] == chosen["clusterer"]
    ranked = run("rank", "--db", db, "--json", "--top", "1000", "--mode", "at-conference")
    assert ranked.exit_code == 0, ranked.stderr
    with open_store(indexed.location, settings=Settings(steps=Steps(**chosen))) as same:  # the same themes
        expected = WeightedRanker(mode=RankMode.AT_CONFERENCE).rank(same, venue).papers[::-1]
    assert [p["id"] for p in json.loads(ranked.stdout)] == [item.paper.id for item in expected]
    monkeypatch.delenv("CONFNAV_CONFIG")  # the default steps again: the themes are stale and rebuilt by Leiden
    again = run("topics", "--db", db, "--json")
    assert again.exit_code == 0 and len(json.loads(again.stdout)) != 3
    assert indexed.topic_run(venue)[2]["steps"]["clusterer"] == "leiden"  # type: ignore[index]


def test_steps_reach_indexing_search_and_summaries(
    indexed: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFNAV_CONFIG", str(config(tmp_path, embedder=TINY_EMBEDDER, summarizer=f"{HERE}:Plain")))
    db = str(indexed.location)
    assert run("index", "--db", db).exit_code == 0 and semantic_model(indexed) == TINY_EMBEDDER
    assert run("index", "--db", db, "--model", SPARSE_MODEL).exit_code == 0  # the flag over the config file
    assert semantic_model(indexed) == SPARSE_MODEL
    paper = next(indexed.iter_papers(indexed.pick_venue(None)))
    told = run("tldr", "--db", db, "--json", "--", paper.id)
    assert told.exit_code == 0, told.stderr
    summary = json.loads(told.stdout)
    assert summary == {"id": paper.id, "tldr": paper.title, "source": "plugged"}
    before = CountingIndex.built
    settings = Settings(steps=Steps(index=f"{HERE}:CountingIndex"))
    with open_store(indexed.location, settings=settings) as chosen:
        assert Searcher(chosen).search("graph neural networks", mode="keyword").hits
    assert CountingIndex.built > before


def test_an_unknown_step_is_one_line_naming_the_setting(
    indexed: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFNAV_STEP_RANKER", "nope")
    result = run("venues", "--db", str(indexed.location))
    assert result.exit_code == 1 and result.stderr == (
        "error: setting steps.ranker ([steps] ranker or $CONFNAV_STEP_RANKER): unknown ranker 'nope';"
        " known: weighted, or package.module:Class\n"
    )
    monkeypatch.setenv("CONFNAV_STEP_RANKER", f"{HERE}:Plain")
    result = run("venues", "--db", str(indexed.location))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "is not a ranker: it has no 'rank'" in result.stderr
    monkeypatch.delenv("CONFNAV_STEP_RANKER")
    bad = tmp_path / "bad.toml"
    bad.write_text('[steps]\ncolour = "blue"\n', encoding="utf-8")
    monkeypatch.setenv("CONFNAV_CONFIG", str(bad))
    result = run("venues", "--db", str(indexed.location))
    assert result.exit_code == 1 and result.stderr == (
        f"error: {bad}: [steps] colour: not a kind of step; known: embedder, index, clusterer, labeler, layout,"
        " ranker, summarizer\n"
    )
    with pytest.raises(ConfnavError, match=r"^setting steps\.layout .*unknown layout 'umap'"):
        Navigator(Settings(steps=Steps(layout="umap")))


def test_a_flag_wins_over_the_environment_which_wins_over_the_config_file(tmp_path: Path) -> None:
    path = config(tmp_path, ranker="from.config:Ranker", clusterer="from.config:Clusterer")
    assert Settings.load(env={}, config_file=path).steps == Steps(
        clusterer="from.config:Clusterer", ranker="from.config:Ranker"
    )
    env = {"CONFNAV_STEP_RANKER": "from.env:Ranker"}
    loaded = Settings.load(env=env, config_file=path)
    assert (loaded.steps.ranker, loaded.steps.clusterer) == ("from.env:Ranker", "from.config:Clusterer")
    flagged = Settings.load(env=env, config_file=path, steps=Steps(ranker="from.flag:Ranker"))
    assert (flagged.steps.ranker, flagged.steps.clusterer) == ("from.flag:Ranker", "from.config:Clusterer")
    assert Settings.from_json(flagged.to_json()) == flagged  # as a server hands them to its workers
    assert Settings.load(env={}).steps == Steps() and Settings().steps.chosen() == {}


def test_the_web_app_holds_one_navigator_and_ranks_with_its_steps(indexed: SqlStore) -> None:
    venue = indexed.pick_venue(None)
    ensure_topics(indexed, venue)  # a server never builds themes inline
    app = create_app(indexed.location, settings=Settings(steps=Steps(ranker=f"{HERE}:Reversed")))
    state = app.state.confnav
    assert isinstance(state.navigator, Navigator) and state.navigator.store is state.stores
    assert state.navigator.settings.serving and isinstance(state.navigator.ranker(), Reversed)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        answer = client.get("/api/rank", params={"venue": venue, "top": 100, "mode": "at-conference"})
        assert answer.status_code == 200, answer.text
        expected = WeightedRanker(mode=RankMode.AT_CONFERENCE).rank(indexed, venue).papers[::-1]
        assert [p["id"] for p in answer.json()] == [item.paper.id for item in expected][:100]
        assert state.stores.current().caches is state.stores.caches  # the per-thread stores share one copy
