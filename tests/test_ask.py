"""`confnav ask` offline (library, CLI, API, page) on the real ICLR store with TF-IDF vectors, and its LLM path
against the fake chat server: every citation a retrieved paper, every number the store's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from confnav.answer import DOES_NOT_SAY, Answer, ask
from confnav.answer.check import verify_answer
from confnav.cli import cli
from confnav.model import fold
from confnav.search.engine import Searcher
from confnav.store import PaperFilter, SqlStore, open_store
from confnav.summarize.llm import ChatClient, LLMConfig, numbers
from confnav.web.app import create_app
from tests.backends import Location, clone
from tests.llm_server import fake_llm

LINEAR = "which ICLR 2021 papers make attention linear with random features?"
SHARED = "http://papers.lab.example"  # a host name: the app answers as a server shared by a lab


@pytest.fixture(scope="module")
def ask_db(light_topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    return clone(light_topics_db, tmp_path_factory.mktemp("ask"), "ask")


@pytest.fixture(scope="module")
def searcher(ask_db: Location) -> Iterator[Searcher]:
    with open_store(ask_db) as store:
        yield Searcher(store)


def assert_grounded(searcher: Searcher, answer: Answer) -> None:
    """Every cited id is a retrieved paper of the store, every number in a sentence a count or its papers'."""
    assert verify_answer(searcher, answer) == []
    retrieved = {r.paper.id for r in answer.papers}
    for sentence in answer.sentences:
        assert set(sentence.cites) <= retrieved
        assert sentence.cites or sentence.source == "count"


def test_answer_cites_the_papers_that_make_attention_linear(searcher: Searcher) -> None:
    answer = ask(searcher, LINEAR)
    assert answer.unanswered is None and answer.venues == ["iclr2021"] and answer.mode == "extractive"
    cited = [c for s in answer.sentences for c in s.cites]
    assert "Ua6zuk0WRH" in cited and "QtTKTdVrFBB" in cited  # Performers, Random Feature Attention
    assert all(part.heading for part in answer.parts)  # grouped by theme
    assert all(r.paper.venue == "iclr2021" for r in answer.papers)
    assert_grounded(searcher, answer)


def expected_count(store: SqlStore, venue: str, phrase: str, decision: str | None) -> int:
    """The count by hand: papers whose folded title, abstract or keywords hold the phrase's words in a row."""
    wanted = f" {fold(phrase)} "
    papers = store.papers(PaperFilter(venue=venue, decision=decision))
    return sum(wanted in f" {fold(' '.join([p.title, p.abstract or '', *p.keywords]))} " for p in papers)


def test_counting_question_is_answered_from_the_store(searcher: Searcher) -> None:
    answer = ask(searcher, "How many accepted papers on graph neural networks are there at ICLR 2021?")
    whole, accepted = [c for c in answer.counts if not c.scope]  # the filter's own counts apart (test_ask_lifecycle)
    assert (whole.phrase, whole.decision, accepted.decision) == ("graph neural networks", None, "accepted")
    store = searcher.store
    assert whole.value == expected_count(store, "iclr2021", "graph neural networks", None)  # type: ignore[arg-type]
    assert accepted.value == expected_count(store, "iclr2021", "graph neural networks", "accepted")  # type: ignore[arg-type]
    said, counted = answer.parts[0].sentences[:2]
    assert said.source == "count" and said.text.startswith("Only the papers that were accepted are counted")
    assert counted.source == "count" and f"{accepted.value:,} of them were accepted" in counted.text
    assert all(r.paper.decision.outcome.value == "accepted" for r in answer.papers)
    assert_grounded(searcher, answer)


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("What is the best recipe for chocolate cake?", "no paper of the store is about “recipe for chocolate cake”"),
        ("Which CVPR 2019 papers study pose estimation?", "it holds no papers of CVPR 2019"),
    ],
)
def test_the_store_does_not_say(searcher: Searcher, question: str, reason: str) -> None:
    answer = ask(searcher, question)
    assert answer.unanswered and answer.unanswered.startswith(DOES_NOT_SAY) and reason in answer.unanswered
    assert not answer.parts and not answer.papers


def test_a_venue_the_store_lacks_is_named_beside_the_answer(searcher: Searcher) -> None:
    answer = ask(searcher, "Which ICLR 2021 and CVPR 2019 papers study 3D pose estimation?")
    assert answer.unanswered is None and answer.venues == ["iclr2021"] and answer.papers
    assert "it holds no papers of CVPR 2019" in answer.notices[0]


def test_llm_prose_is_checked_sentence_by_sentence(searcher: Searcher) -> None:
    with fake_llm() as (url, state):
        answer = ask(searcher, LINEAR, client=ChatClient(LLMConfig(url, "m")))
    assert "Question: " + LINEAR in str(state.requests[0]["messages"])
    assert answer.mode == "llm" and (answer.generated, answer.dropped, answer.replaced) == (4, 2, 1)
    texts = " ".join(s.text for s in answer.sentences)
    assert "B1e-kxSKDH" not in json.dumps(answer.to_dict()["parts"]) and "Reformer" not in texts
    assert "97.25" not in texts and "active area" not in texts
    assert "Several papers make attention cheaper." in texts
    assert_grounded(searcher, answer)


def test_llm_failure_leaves_the_extractive_answer(searcher: Searcher) -> None:
    answer = ask(searcher, LINEAR, client=ChatClient(LLMConfig("http://127.0.0.1:9/v1", "m", timeout=2)))
    assert answer.mode == "extractive" and "the answer is extractive" in answer.notices[0]
    assert_grounded(searcher, answer)


def test_cli_ask_text_and_json(ask_db: Location) -> None:
    runner = CliRunner()
    text = runner.invoke(cli, ["ask", "--db", str(ask_db), LINEAR])
    assert (
        text.exit_code == 0 and "Rethinking Attention with Performers" in text.stdout and "[Ua6zuk0WRH]" in text.stdout
    )
    data = json.loads(runner.invoke(cli, ["--json", "ask", "--db", str(ask_db), LINEAR, "--venue", "iclr2021"]).stdout)
    assert data["answered"] and data["mode"] == "extractive" and data["venues"] == ["iclr2021"]
    assert {c for p in data["parts"] for s in p["sentences"] for c in s["cites"]} <= {p["id"] for p in data["papers"]}
    unsaid = runner.invoke(cli, ["ask", "--db", str(ask_db), "best chocolate cake recipe"])
    assert unsaid.exit_code == 0 and unsaid.stdout.startswith(DOES_NOT_SAY)
    bad = runner.invoke(cli, ["ask", "--db", str(ask_db), LINEAR, "--venue", "nips1999"])
    assert bad.exit_code == 1 and "nips1999" in bad.stderr and "Traceback" not in bad.output


def test_api_and_page(ask_db: Location, tmp_path: Path) -> None:
    client = TestClient(create_app(clone(ask_db, tmp_path, "web")), base_url="http://127.0.0.1")
    data = client.get("/api/ask", params={"q": LINEAR}).json()
    assert data["answered"] and any(p["id"] == "Ua6zuk0WRH" for p in data["papers"])
    for number in {n for p in data["parts"] for s in p["sentences"] for n in numbers(s["text"])}:
        assert number in json.dumps(data["papers"]) or number in json.dumps(data["counts"])
    page = client.get("/venues/iclr2021/ask", params={"q": f"{LINEAR} <b>"})
    assert page.status_code == 200 and 'data-paper="Ua6zuk0WRH"' in page.text
    assert "features? <b>" not in page.text and "features? &lt;b&gt;" in page.text
    assert "does not say" in client.get("/ask", params={"q": "chocolate cake recipes"}).text
    assert client.get("/ask").status_code == 200 and client.get("/ask", params={"q": " "}).status_code == 400
    assert client.get("/api/ask", params={"q": ""}).status_code == 400
    assert client.get("/venues/nope2020/ask", params={"q": "x"}).status_code == 404


def test_ask_for_a_profile_orders_papers_by_closeness(ask_db: Location, tmp_path: Path) -> None:
    db = str(clone(ask_db, tmp_path, "profiled"))
    runner = CliRunner()
    liked = runner.invoke(cli, ["profile", "like", "--db", db, "--profile", "ml", "--", "QtTKTdVrFBB"])
    assert liked.exit_code == 0, liked.output
    data = json.loads(runner.invoke(cli, ["--json", "ask", "--db", db, LINEAR, "--for", "ml"]).stdout)
    assert (
        data["answered"]
        and data["papers"][0]["close_to"]
        and "Random Feature Attention" in data["papers"][0]["close_to"]
    )
    unknown = runner.invoke(cli, ["ask", "--db", db, LINEAR, "--for", "nobody"])
    assert unknown.exit_code == 1 and "nobody" in unknown.stderr


def test_a_venues_own_decision_names_are_read_from_the_question() -> None:
    """A venue's own decision (ACL's Findings) is a decision of the question, not a word of its topic."""
    from confnav.answer.question import read_question
    from confnav.model import Venue

    acl = Venue("acl2022", "ACL 2022", "acl", 2022)
    read = read_question(
        "How many Findings papers on dialogue state tracking at ACL 2022?", [acl], ["Main", "Findings"]
    )
    assert (read.venues, read.decision, read.counting, read.topic) == (
        ["acl2022"],
        "findings",
        True,
        "dialogue state tracking",
    )
    plain = read_question("How many papers on dialogue state tracking at ACL 2022?", [acl], ["Main", "Findings"])
    assert plain.decision is None and plain.topic == "dialogue state tracking"


def test_ask_with_a_profile_on_a_shared_server(ask_db: Location, tmp_path: Path) -> None:
    """`/api/ask` and the ask page with a profile, on a server reachable from other machines: its owner's answer
    favours the profile and says so; another key cannot ask with it (the API's 404, the page answers without it)."""
    app = create_app(clone(ask_db, tmp_path, "shared"), allowed_hosts=None)  # as `serve --host 0.0.0.0`
    owner, other = TestClient(app, base_url=SHARED), TestClient(app, base_url=SHARED)
    assert owner.post("/api/profiles", json={"name": "alice"}).status_code == 201
    assert owner.post("/api/profiles/alice/marks", json={"id": "QtTKTdVrFBB", "mark": "like"}).status_code == 201
    bob = other.post("/api/profiles", json={"name": "bob"}).json()["secret"]
    assert other.post("/api/profiles/bob/marks", json={"id": "Ua6zuk0WRH", "mark": "like"}).status_code == 201
    data = owner.get("/api/ask", params={"q": LINEAR, "profile": "alice"}).json()
    assert data["profile"] == "alice" and "Random Feature Attention" in data["papers"][0]["close_to"]
    assert any("ordered for the profile 'alice'" in n for n in data["notices"])
    plain = owner.get("/api/ask", params={"q": LINEAR}).json()
    assert plain["profile"] is None and not any(p["close_to"] for p in plain["papers"])
    for params in ({}, {"key": bob}, {"key": "wrong"}):
        refused = other.get("/api/ask", params={"q": LINEAR, "profile": "alice", **params})
        assert refused.status_code == 404 and "close to" not in refused.text
    page = owner.get("/ask", params={"q": LINEAR, "profile": "alice"})
    assert page.status_code == 200 and "close to your" in page.text and 'value="alice" checked' in page.text
    theirs = other.get("/ask", params={"q": LINEAR, "profile": "alice"})
    assert theirs.status_code == 200 and "profiles are personal" in theirs.text and "close to your" not in theirs.text
    assert 'value="bob"' in theirs.text  # the form offers the profile this browser has open, which has likes


@pytest.mark.parametrize(
    ("text", "cited", "wrong"),
    [
        (  # the title of one paper over another's citation
            "Decorrelated Adversarial Learning for Age-Invariant Face Recognition: we factorize features.",
            [("Low-Rank Laplacian-Uniform Mixed Model for Robust Face Recognition", "A robust face model.")],
            "title",
        ),
        (  # an invented title, after a stray opening word
            "Papers: A Simple Neural Attentive Meta-Learning Algorithm for Deep Learning: it learns to learn.",
            [("Meta-Learning and Universality", "We study meta-learning.")],
            "title",
        ),
        (  # a method another paper proposes
            "We propose DiffPool, a pooling module for graphs.",
            [("Link Prediction Based on Graph Neural Networks", "We learn heuristics from local subgraphs.")],
            "names",
        ),
    ],
)
def test_a_model_sentence_naming_what_its_paper_does_not_is_refused(
    text: str, cited: list[tuple[str, str]], wrong: str
) -> None:
    from confnav.summarize.checked import attribution_failures

    failures = attribution_failures(text, cited, "ICLR 2018")
    assert failures and wrong in failures[0], failures
    title, words = cited[0]
    assert not attribution_failures(f"{title}: it names only its own work.", cited, "ICLR 2018")
    assert not attribution_failures(f'"{title}" builds on {words.split()[-1]}', cited)
