"""Decisions that arrived: a venue fetched from the local OpenReview server while its papers are pending, then
again after the programme chairs posted some decisions; the second fetch counts and lists them, `confnav venues`
says so, and a venue's decision watch hears of them as news."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.fetch import fetch_openreview
from confnav.fetch.openreview import OpenReviewClient
from confnav.personal.news import NewsRecorder, add_watch
from confnav.settings import Settings
from confnav.store import open_store
from tests.backends import Location
from tests.openreview_server import FakeOpenReview, Venue, api2_note, serving, signed_in
from tests.test_review_history import reviewed

VENUE = "ICLR.cc/2018/Conference"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeOpenReview, str]]:
    """A venue in its review period: six real ICLR 2018 papers, none decided."""
    signed_in(monkeypatch)
    state = FakeOpenReview()
    notes = [api2_note(VENUE, i, r, state.tick(), "review") for i, r in enumerate(reviewed(6), 1)]
    state.add_venue(Venue(VENUE, 2, notes))
    with serving(state) as url:
        yield state, url


def fetch(location: Location, url: str, folder: Path) -> int:
    """One fetch with the news recorder, as the CLI runs it; how many pending papers it found decided."""
    with open_store(location) as store:
        client = OpenReviewClient.from_settings(Settings.load(), url, url, timeout=5.0, backoff=0.0)
        result = fetch_openreview(store, folder / "store.db", VENUE, client=client, watcher=NewsRecorder(store))
    assert result.to_dict()["decided"] == result.decided
    return result.decided


def test_a_fetch_counts_and_lists_the_decisions_that_arrived_since_the_last(
    server: tuple[FakeOpenReview, str], fresh_location: Location, tmp_path: Path
) -> None:
    state, url = server
    with open_store(fresh_location, create=True) as store:
        assert store.decisions_arrived() == {}
    assert fetch(fresh_location, url, tmp_path) == 0  # the first fetch: every paper pending, nothing before it
    with open_store(fresh_location) as store:
        first = store.decisions_arrived()["iclr2018"]
        assert first.previous is None and first.papers == ()
        add_watch(store, "me", decisions=True, venue="iclr2018")
    oral, rejected, waiting, gone = (n["id"] for n in state.venues[VENUE].notes[:4])
    state.decide(VENUE, oral, "Accept (Oral)")
    state.decide(VENUE, rejected, "Reject")
    withdrawn = state.venues[VENUE].notes[3]  # withdrawn by its authors: news for the watch, not a decision
    withdrawn["content"]["venueid"] = {"value": f"{VENUE}/Withdrawn_Submission"}
    withdrawn["tmdate"] = state.tick()
    assert fetch(fresh_location, url, tmp_path) == 2
    with open_store(fresh_location) as store:
        second = store.decisions_arrived()["iclr2018"]
        titles = store.papers_by_id("iclr2018", [oral, rejected, waiting])
        news = store.news("me")
    assert second.previous == first.fetched and second.fetched > first.fetched
    decided = {paper_id: decision for paper_id, _, decision in second.papers}
    assert set(decided) == {oral, rejected} and waiting not in decided and gone not in decided
    assert titles[oral].decision.accepted and not titles[rejected].decision.accepted
    assert {decided[oral], decided[rejected]} == {titles[oral].decision.label, titles[rejected].decision.label}
    assert [t for i, t, _ in second.papers if i == oral] == [titles[oral].title]
    assert sorted(n.paper_id for n in news) == sorted([oral, rejected, gone]) and {n.kind for n in news} == {"decision"}

    runner = CliRunner()
    text = runner.invoke(cli, ["--db", str(fresh_location), "venues"]).stdout
    assert "2 decided since the last fetch" in text and oral in text and rejected in text
    shown = json.loads(runner.invoke(cli, ["--db", str(fresh_location), "--json", "venues"]).stdout)
    assert {p["id"] for p in shown[0]["last_fetch"]["decided"]} == {oral, rejected}

    assert fetch(fresh_location, url, tmp_path) == 0  # nothing new: none decided since this last fetch
    with open_store(fresh_location) as store:
        third = store.decisions_arrived("iclr2018")["iclr2018"]
        assert third.previous == second.fetched and third.papers == ()
        assert len(store.news("me")) == 3
    text = runner.invoke(cli, ["--db", str(fresh_location), "venues"]).stdout
    assert "0 decided since the last fetch" in text


def test_a_venue_never_fetched_says_nothing_of_fetches(iclr2021_copy: Location) -> None:
    text = CliRunner().invoke(cli, ["--db", str(iclr2021_copy), "venues"]).stdout
    assert "iclr2021" in text and "since the last fetch" not in text
