"""The news page and its API: watches added and stopped from the web, the news an ingest keeps for them, papers
imported into a profile (a pasted library, a person from a local OpenReview server), and on a shared server none
of it open to another profile."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from confnav.ingest import ingest
from confnav.personal.access import rotate_secret
from confnav.personal.news import NewsRecorder
from confnav.settings import Settings
from confnav.store import open_store
from confnav.web.app import create_app
from tests.backends import Location, clone
from tests.conftest import DATA
from tests.openreview_server import FakeOpenReview, Venue, api2_note, serving, signed_in

PAPERLIST = DATA / "iclr2021" / "paperlist.tsv"
RATINGS = DATA / "iclr2021" / "ratings.tsv"
KNOWN_TITLE = "Score-Based Generative Modeling through Stochastic Differential Equations"


@pytest.fixture
def location(listed_db: Location, tmp_path: Path) -> Location:
    return clone(listed_db, tmp_path)


def local(location: Location) -> TestClient:
    """The app on loopback, with the settings `confnav serve` reads (the environment: service URLs and keys)."""
    return TestClient(create_app(location, settings=Settings.load()), base_url="http://127.0.0.1")


def test_watches_added_from_the_web_keep_the_news_of_the_next_ingest(location: Location) -> None:
    client = local(location)
    before = client.get("/news").text  # no profile yet: no link to a feed that would answer 404
    assert "/feeds/" not in before and "Once me watches something" in before
    assert client.get("/feeds/me.atom").status_code == 404
    made = client.post("/api/profiles/me/watches", json={"query": 'keyword:"generative models"', "venue": "iclr2021"})
    assert made.status_code == 201, made.text
    assert 'href="/feeds/me.atom"' in client.get("/news").text
    assert client.get("/feeds/me.atom").status_code == 200
    watch = made.json()
    assert watch["kind"] == "query" and watch["says"] == '"keyword:"generative models"" in iclr2021'
    decisions = client.post("/api/profiles/me/watches", json={"decisions": True, "venue": "iclr2021"}).json()
    assert [w["id"] for w in client.get("/api/profiles/me/watches").json()] == [watch["id"], decisions["id"]]
    assert client.get("/api/profiles/me/news").json() == []
    assert "Nothing yet" in client.get("/news").text

    with open_store(location) as store:
        ingest(store, [RATINGS], watcher=NewsRecorder(store))  # as `confnav ingest` does
    items = client.get("/api/profiles/me/news").json()
    by_watch = {item["watch"] for item in items}
    assert by_watch == {watch["id"], decisions["id"]}
    with open_store(location) as store:
        for item in items:
            if item["watch"] == watch["id"]:  # a keyword-only watch: the query's words are in the paper's keywords
                paper = store.get_paper(item["paper_id"], "iclr2021")
                assert any("generative model" in k.lower() for k in paper.keywords)
    shown = client.get("/news").text
    assert f"/paper/{items[0]['paper_id']}?venue=iclr2021" in shown and "generative models" in shown
    assert client.get("/api/profiles/me/news", params={"since": "2999-01-01"}).json() == []
    assert client.get("/api/profiles/me/news", params={"since": "yesterday"}).status_code == 400

    gone = client.delete(f"/api/profiles/me/watches/{watch['id']}")
    assert gone.status_code == 200 and gone.json()["id"] == watch["id"]
    assert {item["watch"] for item in client.get("/api/profiles/me/news").json()} == {decisions["id"]}
    assert client.delete(f"/api/profiles/me/watches/{watch['id']}").status_code == 404


def test_bad_watches_and_imports_are_refused_in_one_line(location: Location) -> None:
    client = local(location)
    for body in ({}, {"query": "a", "author": "b"}, {"theme": "t99", "venue": "iclr2021"}, {"query": "the of"}):
        answer = client.post("/api/profiles/me/watches", json=body)
        assert answer.status_code == 400 and "\n" not in answer.json()["error"], body
    assert client.post("/api/profiles/me/watches", json={"query": "x", "venue": "nowhere"}).status_code == 404
    assert client.post("/api/profiles/me/watches", json={"query": "x", "colour": "red"}).status_code == 422
    for body in ({}, {"text": "@article{x, title={A}}", "person": "~A_B1"}, {"person": "Ada Lovelace"}):
        answer = client.post("/api/profiles/me/import", json=body)
        assert answer.status_code == 400 and "\n" not in answer.json()["error"], body
    empty = client.post("/api/profiles/me/import", json={"text": "\n\n", "filename": "mine.bib"})
    assert empty.status_code == 400 and empty.json()["error"].startswith("mine.bib: no bibtex entries")
    assert client.get("/api/profiles/me/watches").json() == []


def test_a_pasted_library_is_matched_and_its_bad_entries_reported(location: Location) -> None:
    client = local(location)
    library = (
        f"@inproceedings{{song2021,\n  title = {{{KNOWN_TITLE}}},\n  year = {{2021}}\n}}\n"
        "@article{broken, title = {Unclosed\n"
        "@misc{own, title = {A paper of my own on sparse attention}, abstract = {We study attention.}}\n"
    )
    done = client.post("/api/profiles/me/import", json={"text": library, "filename": "mine.bib"})
    assert done.status_code == 200, done.text
    report = done.json()
    assert (report["matched"], report["own"], report["added"]) == (1, 1, 2)
    assert report["problems"] == [
        "mine.bib: line 5: unreadable BibTeX entry '@article{broken, title = {Unclosed', skipped"
    ]
    titles = {item["title"] for item in client.get("/api/profiles/me").json()["items"]}
    assert KNOWN_TITLE in titles and "A paper of my own on sparse attention" in titles


@pytest.fixture
def openreview(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A local OpenReview with one API 2 venue of three ICLR 2021 records by one person."""
    records = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text(encoding="utf-8"))[:3]
    for record in records:
        record["authorids"] = "~Ada_Lovelace1; " + record.get("authorids", "")
    state = FakeOpenReview()
    venue = "ICLR.cc/2021/Conference"
    state.add_venue(
        Venue(venue, 2, [api2_note(venue, i, r, state.tick(), "accepted") for i, r in enumerate(records, 1)])
    )
    signed_in(monkeypatch)
    with serving(state) as url:
        monkeypatch.setenv("CONFNAV_OPENREVIEW_URL", url)
        monkeypatch.setenv("CONFNAV_OPENREVIEW_V1_URL", url + "/v1")
        yield url


def test_a_person_is_fetched_into_the_profile(location: Location, openreview: str) -> None:
    done = local(location).post("/api/profiles/me/import", json={"person": "~Ada_Lovelace1"})
    assert done.status_code == 200, done.text
    assert done.json()["matched"] == 3


def test_an_unreachable_service_answers_502(
    location: Location, monkeypatch: pytest.MonkeyPatch, no_back_off: None
) -> None:
    monkeypatch.setenv("OPENREVIEW_TOKEN", "t")
    monkeypatch.setenv("CONFNAV_OPENREVIEW_URL", "http://127.0.0.1:9")
    answer = local(location).post("/api/profiles/me/import", json={"person": "~Ada_Lovelace1"})
    assert answer.status_code == 502 and "127.0.0.1:9" in answer.json()["error"]


def test_on_a_shared_server_another_profile_sees_and_changes_nothing(location: Location) -> None:
    with open_store(location) as store:
        store.add_watch("alice", "query", "diffusion", None)
        store.create_profile("bob")
        alice, bob = rotate_secret(store, "alice", check=False), rotate_secret(store, "bob", check=False)
    shared = TestClient(create_app(location, allowed_hosts=None), base_url="http://example.org")
    alice_watch = shared.get(f"/api/profiles/alice/watches?key={alice}").json()[0]["id"]
    for key in (None, bob, "wrong"):
        q = f"?key={key}" if key else ""
        assert shared.get(f"/api/profiles/alice/watches{q}").status_code == 404
        assert shared.get(f"/api/profiles/alice/news{q}").status_code == 404
        assert shared.post(f"/api/profiles/alice/watches{q}", json={"query": "x"}).status_code == 404
        assert shared.post(f"/api/profiles/alice/import{q}", json={"text": "a title"}).status_code == 404
        assert shared.delete(f"/api/profiles/alice/watches/{alice_watch}{q}").status_code == 404
    # bob, with his own key, cannot stop alice's watch through his own profile either
    assert shared.delete(f"/api/profiles/bob/watches/{alice_watch}?key={bob}").status_code == 404
    with open_store(location) as store:
        assert [w.id for w in store.watches("alice")] == [alice_watch]
    assert "alice" not in shared.get(f"/news?profile=bob&key={bob}").text
