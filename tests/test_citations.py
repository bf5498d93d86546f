"""`confnav fetch citations` against local servers answering like Semantic Scholar and OpenAlex."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.errors import ConfnavError
from confnav.fetch import FetchError
from confnav.fetch.citations import OpenAlex, SemanticScholar, fetch_citations
from confnav.ingest import ingest
from confnav.settings import Settings
from confnav.store import SqlStore, open_store
from tests.backends import clone
from tests.citation_servers import OPENALEX_KEY, Services, Work, serving
from tests.conftest import DATA


@pytest.fixture(scope="module")
def papers() -> dict[str, list[dict[str, object]]]:
    names = ("acl2022", "siggraph2022", "nips2018")
    return {name: json.loads((DATA / "paperlists" / f"{name}.json").read_text()) for name in names}


@pytest.fixture
def services(papers: dict[str, list[dict[str, object]]]) -> Iterator[tuple[Services, str]]:
    """ACL papers known by their Anthology ids, SIGGRAPH ones by DOI, the first 40 NeurIPS ones by title only."""
    works = [Work(str(r["title"]), 2022, int(r["gs_citation"]), acl=str(r["id"])) for r in papers["acl2022"][:1000]]
    works += [
        Work(str(r["title"]), 2022, 7 + i, doi=str(r["doi"]).split("doi.org/")[1])
        for i, r in enumerate(papers["siggraph2022"])
        if r.get("doi")
    ]
    works += [Work(str(r["title"]), 2018, int(r["gs_citation"])) for r in papers["nips2018"][:40]]
    state = Services(works)
    with serving(state) as url:
        yield state, url


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three venues' paper lists, ingested once for the module; each test writes to its own copy."""
    path = tmp_path_factory.mktemp("citations") / "s.db"
    with open_store(path, create=True) as opened:
        ingest(opened, [DATA / "paperlists" / f"{n}.json" for n in ("acl2022", "siggraph2022", "nips2018")])
    return path


@pytest.fixture
def store(ingested: Path, tmp_path: Path) -> Iterator[SqlStore]:
    with open_store(clone(ingested, tmp_path, "s")) as opened:  # s.db: the path its command lines name
        yield opened


def test_semantic_scholar_batch_by_acl_ids_and_title_matches(services, store: SqlStore, papers) -> None:  # type: ignore[no-untyped-def]
    _, url = services
    s2 = SemanticScholar.from_settings(Settings.load(), url + "/graph/v1", backoff=0.0)
    acl = fetch_citations(store, "acl2022", s2, titles=False)
    assert acl.by_id == 1000 and len(acl.unmatched) == 31 and acl.requests == 3  # batches of at most 500 ids
    signals = store.external_signals("acl2022")
    first = papers["acl2022"][0]
    assert signals[str(first["id"])]["citations"] == first["gs_citation"]
    nips = fetch_citations(store, "neurips2018", s2)
    assert (nips.by_id, nips.by_title, len(nips.unmatched)) == (0, 40, 1009 - 40)


def test_the_ranking_explains_fetched_citations(services, store: SqlStore, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, url = services
    result = CliRunner().invoke(
        cli,
        [
            "fetch",
            "citations",
            "--venue",
            "siggraph2022",
            "--db",
            str(tmp_path / "s.db"),
            "--base-url",
            url + "/graph/v1",
            "--no-titles",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "citation counts for 283 papers from Semantic Scholar (283 by id" in result.stdout
    assert "30 papers not found" in result.stdout
    ranked = CliRunner().invoke(
        cli, ["rank", "--venue", "siggraph2022", "--db", str(tmp_path / "s.db"), "--json", "--top", "5"]
    )
    top = json.loads(ranked.stdout)["papers"] if ranked.stdout.strip().startswith("{") else json.loads(ranked.stdout)
    assert any("citations" in reason for item in top for reason in item["reasons"])


def test_rate_limits_are_waited_out(services, store: SqlStore) -> None:  # type: ignore[no-untyped-def]
    state, url = services
    state.faults = ["429", "429"]
    result = fetch_citations(
        store, "acl2022", SemanticScholar.from_settings(Settings.load(), url + "/graph/v1", backoff=0.0), titles=False
    )
    assert result.by_id == 1000 and state.faults == []


def test_openalex_needs_a_key_and_matches_dois(services, store: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    _, url = services
    monkeypatch.delenv("OPENALEX_API_KEY", raising=False)
    with pytest.raises(ConfnavError, match="set OPENALEX_API_KEY"):
        OpenAlex.from_settings(Settings.load(), url)
    monkeypatch.setenv("OPENALEX_API_KEY", "not-the-key")
    with pytest.raises(FetchError, match="refused OPENALEX_API_KEY") as caught:
        fetch_citations(store, "siggraph2022", OpenAlex.from_settings(Settings.load(), url, backoff=0.0))
    assert "not-the-key" not in str(caught.value)
    monkeypatch.setenv("OPENALEX_API_KEY", OPENALEX_KEY)
    result = fetch_citations(
        store, "siggraph2022", OpenAlex.from_settings(Settings.load(), url, backoff=0.0), titles=False
    )
    assert result.by_id == 283 and result.requests == 3  # DOIs asked 100 at a time
    nips = fetch_citations(store, "neurips2018", OpenAlex.from_settings(Settings.load(), url, backoff=0.0))
    assert nips.by_title == 40
