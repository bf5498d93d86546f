"""The personal pages and API on a store served locally: like or dislike papers from hits and paper pages, and
"For you" per venue learning from them (TF-IDF vectors: no semantic model)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from confnav.web.app import create_app
from tests.backends import Location, clone

PERFORMER = "Ua6zuk0WRH"  # Rethinking Attention with Performers
VIT = "YicbFdNTTy"  # An Image is Worth 16x16 Words


@pytest.fixture(scope="module")
def client(sparse_template_db: Location, tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    location = clone(sparse_template_db, tmp_path_factory.mktemp("personal"))
    return TestClient(create_app(location), base_url="http://127.0.0.1")


def _for_you(client: TestClient, profile: str = "me") -> dict[str, object]:
    answer = client.get(f"/api/profiles/{profile}/recommend", params={"venue": "iclr2021", "limit": 10})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_like_changes_for_you_and_undo_changes_it_back(client: TestClient) -> None:
    cold = _for_you(client, "cold")
    assert cold["hits"] == [] and "like a few papers" in str(cold["notices"])
    page = client.get("/venues/iclr2021/for-you", params={"profile": "cold"})
    assert page.status_code == 200 and 'id="for-you-start"' in page.text
    assert page.text.count('<li class="hit"') == 8 and 'id="to-mark"' in page.text  # a cold start asks for marks

    liked = client.post("/api/profiles/cold/marks", json={"id": PERFORMER, "mark": "like"})
    assert liked.status_code == 201 and liked.json() == {
        "name": "cold",
        "id": PERFORMER,
        "venue": "iclr2021",
        "mark": "like",
    }
    first = _for_you(client, "cold")["hits"]
    assert len(first) == 10 and PERFORMER not in {h["id"] for h in first}
    assert all(h["reason"] == "close to your 'Rethinking Attention with Performers' (2021)" for h in first)
    page = client.get("/venues/iclr2021/for-you", params={"profile": "cold"}).text
    assert first[0]["title"].replace("'", "&#39;") in page and "Close to your" in page and "scale None" not in page
    must_read = page.split('id="must-read"')[1]  # the personal must-read beside the recommendations
    assert must_read.count('<li class="hit"') == 10 and "Close to your" in must_read

    client.post("/api/profiles/cold/marks", json={"id": VIT, "mark": "like", "venue": "iclr2021"})
    both = _for_you(client, "cold")["hits"]
    assert [h["id"] for h in both] != [h["id"] for h in first]
    assert any("16x16" in h["reason"] for h in both)

    undone = client.delete(f"/api/profiles/cold/marks/{VIT}", params={"venue": "iclr2021"})
    assert undone.status_code == 200
    assert [h["id"] for h in _for_you(client, "cold")["hits"]] == [h["id"] for h in first]
    marks = client.get("/api/profiles/cold/marks").json()["marks"]
    assert marks == [{"venue": "iclr2021", "id": PERFORMER, "mark": "like"}]


def test_a_dislike_moves_papers_down(client: TestClient) -> None:
    client.post("/api/profiles/picky/marks", json={"id": PERFORMER, "mark": "like"})
    before = [h["id"] for h in _for_you(client, "picky")["hits"]]
    client.post("/api/profiles/picky/marks", json={"id": before[0], "mark": "dislike"})
    after = [h["id"] for h in _for_you(client, "picky")["hits"]]
    assert before[0] not in after and after != before[1:]  # the model learned from it, not only dropped it


def test_hits_and_paper_pages_carry_the_buttons_and_links(client: TestClient) -> None:
    client.cookies.clear()  # a page opened with ?profile= chose another profile before
    search = client.get("/search", params={"q": "attention"}).text
    assert search.count('class="mark" data-mark="like"') == 20
    assert 'aria-label="Not for me: ' in search and 'data-profile="me"' in search
    paper = client.get(f"/paper/{PERFORMER}").text
    assert f'data-mark="like" data-id="{PERFORMER}"' in paper and 'href="/venues/iclr2021/for-you"' in paper
    home = client.get("/").text
    assert 'href="/for-you"' in home and 'href="/venues/iclr2021/for-you"' in home
    chosen = client.get("/for-you", params={"profile": "cold"})
    assert 'data-profile="cold"' in chosen.text and "confnav_profile=cold" in chosen.headers["set-cookie"]
    assert 'data-profile="cold"' in client.get("/search").text  # the cookie chose it
    client.cookies.clear()


def test_local_profiles_are_listed_and_bad_marks_refused(client: TestClient) -> None:
    client.post("/api/profiles/listed/marks", json={"id": PERFORMER, "mark": "like"})
    assert {"name": "listed", "papers": 0, "marks": 1} in client.get("/api/profiles").json()
    wrong = client.post("/api/profiles/listed/marks", json={"id": PERFORMER, "mark": "love"})
    assert wrong.status_code == 400 and "like, dislike" in wrong.json()["error"]
    assert client.post("/api/profiles/listed/marks", json={"id": "nope", "mark": "like"}).status_code == 404
    assert client.get("/api/profiles/nobody").status_code == 404
    assert client.get("/venues/nowhere/for-you").status_code == 404


@pytest.mark.parametrize("key", ["日本", "x" * 42 + "é", "a b", "x" * 44])
def test_a_link_whose_key_cannot_be_a_secret_is_refused_not_kept(client: TestClient, key: str) -> None:
    """Locally a link's key is not checked but goes into a cookie: text no secret has (a header holds Latin-1
    alone) is refused as a wrong key, on every page a link opens."""
    for path in ("/for-you", "/venues/iclr2021/for-you"):
        answer = client.get(path, params={"key": key}, follow_redirects=False)
        assert answer.status_code == 404 and "opens with this key" in answer.text, (path, answer.status_code)
        assert "set-cookie" not in answer.headers
    kept = client.get("/for-you", params={"key": "x" * 43}, follow_redirects=False)
    assert kept.status_code == 303 and "confnav_key=" + "x" * 43 in kept.headers["set-cookie"]
    client.cookies.clear()
