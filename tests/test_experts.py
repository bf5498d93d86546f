"""Experts on a topic, on the real ICLR 2021 store (TF-IDF index) plus a small venue of namesakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.embed.sparse import SparseEmbedder
from confnav.errors import ConfnavError, NotFoundError
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.keys import is_placeholder_place
from confnav.reports.stats import author_rows
from confnav.search.engine import Searcher
from confnav.search.experts import EVIDENCE, WEIGHTS, candidates, find_experts
from confnav.search.text import terms
from confnav.store import open_store
from confnav.web.app import create_app
from tests.backends import Location, clone
from tests.conftest import DATA

STORM = "Tropical cyclone track forecasting with {} neural weather models"
ABSTRACT = "We forecast tropical cyclone tracks and intensity from satellite imagery with {} neural weather models."


def _paper(number: int, kind: str, authors: list[dict[str, str]]) -> dict[str, object]:
    return {
        "id": f"storm-{number}",
        "title": STORM.format(kind),
        "abstract": ABSTRACT.format(kind),
        "authors": authors,
        "decision": "Accept (Poster)" if number % 2 else "Reject",
    }


ADA1 = {"name": "Ada Namesake", "profile": "~Ada_Namesake1", "affiliation": "Storm <b>Institute</b>"}
ADA2 = {"name": "Ada Namesake", "profile": "~Ada_Namesake2", "affiliation": "Other University"}
BO = {"name": "Bo Variant", "profile": "~Bo_Variant1"}
BO_LONG = {"name": "Bo H. Variant", "profile": "~Bo_Variant1"}
HOSTILE = {"name": "<script>window.pwned=1</script> Eve", "profile": "~Eve1"}
STORMS = [
    _paper(1, "graph", [ADA1, BO]),
    _paper(2, "spectral", [ADA1, BO_LONG]),
    _paper(3, "recurrent", [ADA2, HOSTILE]),
]


@pytest.fixture(scope="module")
def experts_db(iclr2021_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2021 plus a venue of storm papers by namesakes, indexed by TF-IDF."""
    folder = tmp_path_factory.mktemp("experts")
    location = clone(iclr2021_db, folder, "experts")
    storms = folder / "storms.jsonl"
    storms.write_text("".join(json.dumps(p) + "\n" for p in STORMS), encoding="utf-8")
    with open_store(location) as store:
        ingest(store, [storms], venue="storm2021")
        build_index(store, SparseEmbedder())
    return location


def test_a_topic_returns_authors_with_their_matching_papers(experts_db: Location) -> None:
    with open_store(experts_db) as store:
        found = find_experts(Searcher(store), "graph neural networks", "iclr2021", limit=10)
        assert found.mode == "hybrid" and len(found.experts) == 10
        scores = [e.score for e in found.experts]
        assert scores == sorted(scores, reverse=True)
        for expert in found.experts:
            assert expert.matching and all(p.venue == "iclr2021" for p, _ in expert.matching)
            assert all(expert.name in [a.name for a in p.authors] for p, _ in expert.matching)
            assert expert.papers >= len(expert.matching) and 0 <= expert.accepted <= expert.papers
        top_titles = " ".join(p.title.lower() for e in found.experts[:3] for p, _ in e.matching)
        assert "graph" in top_titles
        assert any(e.institutions for e in found.experts)


def test_scores_weigh_evidence_and_author_keywords_count_beyond_the_pool(experts_db: Location) -> None:
    with open_store(experts_db) as store:
        searcher = Searcher(store)
        found = find_experts(searcher, "reinforcement learning", "iclr2021", limit=10)
        pool = candidates(searcher, "reinforcement learning", "iclr2021")[0].experts
    for expert in found.experts:
        assert list(expert.evidence) == list(EVIDENCE)
        assert expert.score == pytest.approx(sum(WEIGHTS[k] * v for k, v in expert.evidence.items()))
    ranked = [e.key for e in found.experts]
    for better in found.experts:  # evidence only adds: a person with at least as much of each kind ranks higher
        for worse in pool:
            if worse.key not in ranked and all(better.evidence[k] >= worse.evidence[k] for k in EVIDENCE):
                assert better.score >= worse.score
    wanted = {"reinforc", "learn"}
    assert set(terms("reinforcement learning")) == wanted
    tagged_only = [(e, p) for e in pool for p, share in e.matching if share == 0]
    assert tagged_only  # a paper its authors tagged with the topic counts though the search ranked it past the pool
    for expert, paper in tagged_only:
        assert any(wanted <= set(terms(k)) for k in paper.keywords) and expert.evidence["keyword"] > 0
        shares = [share for _, share in expert.matching]
        assert shares == sorted(shares, reverse=True)  # pooled papers first, best first
    assert sum(e.evidence["keyword"] > 0 for e in found.experts) >= 8  # the top people tag their work with it


def test_namesakes_are_two_rows_and_name_variants_of_one_profile_one(experts_db: Location) -> None:
    with open_store(experts_db) as store:
        found = find_experts(Searcher(store), "tropical cyclone forecasting", "storm2021", limit=10)
    rows = {e.profile: e for e in found.experts}
    assert {"~Ada_Namesake1", "~Ada_Namesake2", "~Bo_Variant1"} <= set(rows)
    assert [e.name for e in found.experts].count("Ada Namesake") == 2
    assert len(rows["~Ada_Namesake1"].matching) == 2 and len(rows["~Ada_Namesake2"].matching) == 1
    assert rows["~Ada_Namesake1"].score > rows["~Ada_Namesake2"].score  # two papers beat one as close
    assert rows["~Bo_Variant1"].papers == 2 and rows["~Bo_Variant1"].accepted == 1
    assert rows["~Ada_Namesake1"].institutions == ["Storm <b>Institute</b>"]


def test_a_name_only_author_is_told_apart_by_profiles_of_other_venues_without_reading_them(
    experts_db: Location, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Experts read only the papers on the topic and those of the people found, by the store's keyword and author
    indexes; the profile ids a name carries in other venues come from the name index. Reading every paper of the
    scope took 8 s per question in a 96,000-paper store."""
    location = clone(experts_db, tmp_path)
    later = tmp_path / "storms2022.jsonl"
    later.write_text(json.dumps(_paper(4, "graph", [{"name": "Bo Variant"}])) + "\n", encoding="utf-8")
    with open_store(location) as store:
        ingest(store, [later], venue="storm2022")
        build_index(store, SparseEmbedder())
        searcher = Searcher(store)
        searcher.search("warm", limit=1)  # the search's own index is built once, as a server holds it

        def every_paper(*args: object, **kwargs: object) -> None:
            raise AssertionError("read every paper of the scope")

        monkeypatch.setattr(store, "papers", every_paper)
        monkeypatch.setattr(store, "iter_papers", every_paper)
        one = find_experts(searcher, "tropical cyclone forecasting", "storm2022", limit=10)
        whole = find_experts(searcher, "tropical cyclone forecasting", limit=10)
    assert [(e.name, e.profile, e.papers) for e in one.experts] == [("Bo Variant", "~Bo_Variant1", 1)]
    bo = next(e for e in whole.experts if e.profile == "~Bo_Variant1")
    assert bo.papers == 3 and bo.accepted == 1  # under two spellings of his name, in two venues


def test_bad_topics_and_venues_are_clear_errors(experts_db: Location) -> None:
    with open_store(experts_db) as store:
        with pytest.raises(ConfnavError, match="needs a topic"):
            find_experts(Searcher(store), "   ")
        with pytest.raises(ConfnavError, match="needs a topic"):  # the question first, then its scope
            find_experts(Searcher(store), "", "nope")
        with pytest.raises(NotFoundError, match="unknown venue 'nope'"):
            find_experts(Searcher(store), "graphs", "nope")
    result = CliRunner().invoke(cli, ["--db", str(experts_db), "experts", ""])
    assert result.exit_code == 1 and "needs a topic" in result.output and "Traceback" not in result.output


def test_the_cli_lists_experts_in_text_and_json(experts_db: Location) -> None:
    runner = CliRunner()
    text = runner.invoke(cli, ["--db", str(experts_db), "experts", "tropical cyclone", "--venue", "storm2021"])
    assert text.exit_code == 0, text.output
    assert "~Ada_Namesake1" in text.output and "storm-1" in text.output
    data = runner.invoke(cli, ["--db", str(experts_db), "experts", "tropical cyclone", "--limit", "2", "--json"])
    assert data.exit_code == 0, data.output
    found = json.loads(data.output)
    assert len(found["experts"]) == 2 and found["experts"][0]["matching"][0]["id"].startswith("storm-")


def test_api_and_page_answer_and_escape(experts_db: Location, tmp_path: Path) -> None:
    client = TestClient(create_app(clone(experts_db, tmp_path, "served")), base_url="http://127.0.0.1")
    api = client.get("/api/experts", params={"q": "tropical cyclone", "venue": "storm2021"})
    assert api.status_code == 200
    names = [(e["name"], e["profile"]) for e in api.json()["experts"]]
    assert ("Ada Namesake", "~Ada_Namesake1") in names and ("Ada Namesake", "~Ada_Namesake2") in names
    page = client.get("/experts", params={"q": "tropical cyclone <i>storms</i>"})
    assert page.status_code == 200
    html = page.text
    assert "<script>window.pwned" not in html and "&lt;script&gt;window.pwned" in html
    assert "Storm &lt;b&gt;Institute&lt;/b&gt;" in html and "&lt;i&gt;storms&lt;/i&gt;" in html
    assert 'href="/paper/storm-1?venue=storm2021"' in html and 'href="/author/Ada%20Namesake"' in html
    assert client.get("/experts").status_code == 200  # the empty form
    assert client.get("/api/experts", params={"q": " "}).json() == {
        "error": "experts needs a topic, e.g. confnav experts 'graph neural networks'"
    }
    assert client.get("/api/experts", params={"q": " "}).status_code == 400
    assert client.get("/experts", params={"q": ""}).status_code == 400
    assert client.get("/api/experts", params={"q": "graphs", "venue": "nope"}).status_code == 404


def test_a_placeholder_is_no_ones_institution_in_experts_show_and_pages(tmp_path: Path) -> None:
    """CoRL 2023's data gives "Unknown Institution" for some authors (Dieter Fox's normalised institution): experts
    showed it as his institution; no list of places (experts, show, the paper and author pages) shows it now, and
    experts name what the statistics count for the person."""
    location = tmp_path / "corl.db"
    with open_store(location, create=True) as store:
        ingest(store, [DATA / "paperlists" / "corl2023.json"])
        build_index(store, SparseEmbedder())
        found = find_experts(Searcher(store), "imitation learning", "corl2023", 10)
        fox = next(e for e in found.experts if e.name == "Dieter Fox")
        assert not any(is_placeholder_place(p) for e in found.experts for p in e.institutions)
        assert fox.institutions == []  # his own entries' place is "Department of Computer Science": no institution
        assert any(row.name == "Dieter Fox" for row in author_rows(list(store.iter_papers("corl2023"))))
    shown = CliRunner().invoke(cli, ["--db", str(location), "show", "0hPkttoGAf"])
    assert "Institutions: NVIDIA; University of Michigan\n" in shown.output and "Unknown" not in shown.output
    client = TestClient(create_app(location), base_url="http://127.0.0.1")
    for page in ("/paper/0hPkttoGAf", "/author/Dieter Fox", "/experts?q=imitation+learning&venue=corl2023"):
        text = client.get(page).text
        assert "Dieter Fox" in text and "Unknown Institution" not in text, page


def test_institutions_are_named_as_the_statistics_name_them(experts_db: Location) -> None:
    """Sergey Levine was shown under "Electrical Engineering & Computer Science Department, University of
    California Berkeley", Aviral Kumar under "University of California, Berkeley · Google DeepMind", where
    `stats` and `ask` say "UC Berkeley" and "DeepMind": experts (CLI, JSON, web) now name them the same way."""
    from confnav.institutions import normalize_institution

    with open_store(experts_db) as store:
        found = find_experts(Searcher(store), "offline reinforcement learning", "iclr2021", limit=10)
    people = {e.profile: e for e in found.experts}
    assert "UC Berkeley" in people["~Aviral_Kumar2"].institutions
    shown = [place for e in found.experts for place in e.institutions]
    assert shown and all(normalize_institution(place) == place for place in shown), shown
    assert not any("University of California" in place for place in shown)
    args = ["experts", "offline reinforcement learning", "--venue", "iclr2021", "--json", "--db", str(experts_db)]
    run = CliRunner().invoke(cli, args)
    assert run.exit_code == 0, run.output
    listed = {e["profile"]: e["institutions"] for e in json.loads(run.stdout)["experts"]}
    assert listed["~Aviral_Kumar2"] == people["~Aviral_Kumar2"].institutions
