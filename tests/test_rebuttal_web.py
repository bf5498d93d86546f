"""The rebuttal on the web: a venue fetched from the local OpenReview server during its rebuttal (ratings
raised, lowered, a late review), then after its decisions; the venue page, its JSON, a paper's page."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from confnav.fetch import fetch_openreview
from confnav.fetch.openreview import OpenReviewClient
from confnav.ingest import ingest
from confnav.settings import Settings
from confnav.store import open_store
from confnav.web.app import create_app
from confnav.web.rebuttal import RebuttalBody
from tests.backends import Location
from tests.openreview_server import FakeOpenReview
from tests.test_review_history import OPEN, rebut, server  # noqa: F401 - the server fixture

pytestmark = pytest.mark.usefixtures("server")


def fetched(location: Location, url: str, folder: Path) -> None:
    with open_store(location, create=True) as store:
        client = OpenReviewClient.from_settings(Settings.load(), url, url, timeout=5.0, backoff=0.0)
        fetch_openreview(store, folder / "store.db", OPEN, client=client)


@pytest.fixture
def site(server: tuple[FakeOpenReview, str], fresh_location: Location, tmp_path: Path) -> Iterator[tuple]:  # noqa: F811
    """The venue fetched after its rebuttal, beside a venue ingested from a file (no history)."""
    state, url = server
    moved = rebut(state, OPEN)
    fetched(fresh_location, url, tmp_path)
    listed = tmp_path / "iclr2017.json"
    listed.write_text(json.dumps([{"id": "abc123", "title": "A paper without reviews' history", "status": "Poster"}]))
    with open_store(fresh_location) as store:
        ingest(store, [listed], venue="iclr2017")
    yield state, url, moved, fresh_location, tmp_path


def client(location: Location) -> TestClient:
    return TestClient(create_app(location), base_url="http://127.0.0.1")


def test_the_rebuttal_page_states_its_dates_draws_its_charts_and_links_its_movers(site: tuple) -> None:
    (first, second, _, up, _), location = site[2], site[3]
    web = client(location)
    home = web.get("/").text
    assert 'href="/venues/iclr2018/rebuttal"' in home and 'href="/venues/iclr2017/rebuttal"' not in home
    text = web.get("/venues/iclr2018/rebuttal").text
    assert "The rebuttal at ICLR 2018" in text
    dates = re.search(r"from <strong>(\d{4}-\d\d-\d\d)</strong> to <strong>(\d{4}-\d\d-\d\d)</strong>", text)
    assert dates is not None
    charts = re.findall(r'<svg class="chart" id="([\w-]+)" role="img" aria-labelledby="[\w -]+"', text)
    assert charts == ["rebuttal-dates", "rebuttal-before-after"]
    assert '<title id="rebuttal-before-after-title">Reviews by rating before and after the rebuttal</title>' in text
    assert "<script" not in text.split("<main", 1)[-1].split("</main>")[0]  # read without JavaScript
    assert "Decisions are not out yet" in text
    rises = text.split('id="rises"')[1].split('id="falls"')[0]
    falls = text.split('id="falls"')[1].split('id="converged"')[0]
    assert f'href="/paper/{first}?venue=iclr2018"' in rises and f"/paper/{second}?" not in rises
    assert f'href="/paper/{second}?venue=iclr2018"' in falls
    share = re.search(r"2 of (\d+) reviews of 6 papers changed their rating \(<strong>([\d.]+)%</strong>\)", text)
    assert share is not None and float(share.group(2)) == pytest.approx(round(200 / int(share.group(1)), 1))

    answer = web.get("/api/rebuttal/iclr2018")
    assert answer.status_code == 200
    body = RebuttalBody.model_validate(answer.json())
    assert [p.paper for p in body.rises] == [first] and [p.paper for p in body.falls] == [second]
    assert body.reviews_changed == 2 and not body.decided
    assert sum(body.before.values()) == sum(body.after.values()) == body.reviews
    assert body.distributions[-1].reviews == body.after  # at the last date every review is at its last rating
    assert sum(body.distributions[0].reviews.values()) < body.reviews  # the late review came after the first date
    assert body.first_version is not None and body.first_version[:10] == dates.group(1)

    paper = web.get(f"/paper/{first}", params={"venue": "iclr2018"}).text
    assert "Ratings before and after the rebuttal" in paper and f"{up:g} <span" in paper
    assert f"{up + 2:g} <span" in paper and 'href="/venues/iclr2018/rebuttal"' in paper


def test_a_venue_without_history_says_so_and_decisions_are_compared_once_out(site: tuple) -> None:
    state, url, (first, second, *_), location, folder = site
    web = client(location)
    empty = web.get("/venues/iclr2017/rebuttal")
    assert empty.status_code == 200 and "has no review history" in empty.text and "<svg" not in empty.text
    assert web.get("/api/rebuttal/iclr2017").status_code == 404
    assert "no review history" in web.get("/api/rebuttal/iclr2017").json()["error"]
    assert web.get("/venues/nosuch2020/rebuttal").status_code == 404
    assert web.get("/api/rebuttal/nosuch2020").status_code == 404
    assert "Ratings before and after" not in web.get("/paper/abc123", params={"venue": "iclr2017"}).text

    withdrawn = state.venues[OPEN].notes[3]  # a withdrawal during the review period is not a decision
    withdrawn["content"]["venueid"] = {"value": f"{OPEN}/Withdrawn_Submission"}
    withdrawn["tmdate"] = state.tick()
    fetched(location, url, folder)
    with open_store(location) as store:
        assert store.papers_by_id("iclr2018", [withdrawn["id"]])[withdrawn["id"]].decision.kind == "withdrawn"
    assert "Decisions are not out yet" in client(location).get("/venues/iclr2018/rebuttal").text
    state.decide(OPEN, first, "Accept (Oral)")
    state.decide(OPEN, second, "Reject")
    fetched(location, url, folder)
    web = client(location)
    text = web.get("/venues/iclr2018/rebuttal").text
    assert "Decisions are not out yet" not in text
    table = text.split('id="by-decision"')[1].split('id="rises"')[0]
    assert "Reject" in table and "Under Review" in table
    body = web.get("/api/rebuttal/iclr2018").json()
    assert body["decided"] and body["by_decision"]["Reject"]["papers"] == 1
    assert body["by_decision"]["Reject"]["mean_change"] < 0
    home = web.get("/").text
    assert "2 decided since the last fetch" in home and f'href="/paper/{first}?venue=iclr2018"' in home
