"""Review histories and the rebuttal: fetched from a local OpenReview server whose reviews have edits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.errors import NotFoundError
from confnav.fetch import fetch_openreview
from confnav.fetch.openreview import OpenReviewClient
from confnav.reports.rebuttal import build_rebuttal
from confnav.settings import Settings
from confnav.sources.values import parse_score
from confnav.store.sql import SqlStore
from tests.conftest import DATA
from tests.openreview_server import FakeOpenReview, Venue, api2_note, serving, signed_in

OPEN, CLOSED = "ICLR.cc/2018/Conference", "ICLR.cc/2019/Conference"  # edits public / not public


def reviewed(count: int, skip: int = 0) -> list[dict[str, str]]:
    """Real ICLR 2018 records with at least three ratings."""
    records = json.loads((DATA / "paperlists" / "iclr2018.json").read_text())
    return [r for r in records if len([x for x in r.get("rating", "").split(";") if x]) >= 3][skip : skip + count]


def ratings(note: dict) -> list[float]:  # type: ignore[type-arg]
    return [
        parse_score(r["content"]["rating"]["value"]) for r in note["details"]["replies"] if "rating" in r["content"]
    ]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeOpenReview, str]]:
    """Two venues in review: one with public edits, one without; six papers each."""
    signed_in(monkeypatch)
    state = FakeOpenReview()
    for venue, skip, public in ((OPEN, 0, True), (CLOSED, 6, False)):
        notes = [api2_note(venue, i, r, state.tick(), "review") for i, r in enumerate(reviewed(6, skip), 1)]
        state.add_venue(Venue(venue, 2, notes, edits_public=public))
    with serving(state) as url:
        yield state, url


def client(url: str) -> OpenReviewClient:
    return OpenReviewClient.from_settings(Settings.load(), url, url, timeout=5.0, backoff=0.0)


def rebut(state: FakeOpenReview, venue: str) -> tuple[str, str, str, float, float]:
    """The crafted rebuttal: paper 1's first review +2, paper 2's second review -3, a late review on paper 3."""
    first, second, third = state.venues[venue].notes[:3]
    up = parse_score(first["details"]["replies"][0]["content"]["rating"]["value"])
    down = parse_score(second["details"]["replies"][1]["content"]["rating"]["value"])
    state.revise(venue, f"{first['id']}-r0", rating=int(up) + 2)
    state.revise(venue, f"{second['id']}-r1", rating=int(down) - 3)
    state.add_review(venue, third["id"], f"{third['id']}-late", 5, 4)
    return first["id"], second["id"], third["id"], up, down


def test_first_fetch_reads_earlier_versions_from_edits_and_the_rebuttal_is_exact(
    server, store: SqlStore, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    first, second, third, up, down = rebut(state, OPEN)
    notes = {n["id"]: n for n in state.venues[OPEN].notes}
    result = fetch_openreview(store, tmp_path / "store.db", OPEN, client=client(url))
    assert result.history == "earlier versions read from the reviews' edits"
    reviews = sum(len(ratings(n)) for n in notes.values())
    assert result.review_versions == reviews + 2  # every review once, and the two revised ones twice
    history = store.review_versions("iclr2018")
    raised = [v for v in history if v.review_id == f"{first}-r0"]
    assert [(v.rating, v.origin) for v in raised] == [(up, "edits"), (up + 2, "edits")]
    assert raised[0].modified < raised[1].modified and raised[0].reviewer.endswith("Reviewer_0")
    assert [v.rating for v in history if v.review_id == f"{third}-late"] == [5.0]
    assert store.papers_by_id("iclr2018", [first])[first].ratings == ratings(notes[first])  # paper keeps the latest

    rebuttal = build_rebuttal(store, "iclr2018")
    by_id = {p.paper_id: p for p in rebuttal.papers}
    n1, n2 = len(ratings(notes[first])), len(ratings(notes[second]))
    assert by_id[first].change == pytest.approx(2 / n1)
    assert by_id[second].change == pytest.approx(-3 / n2)
    assert by_id[third].change == 0 and len(by_id[third].reviews) == len(ratings(notes[third]))
    assert [p.paper_id for p in rebuttal.rises()] == [first]
    assert [p.paper_id for p in rebuttal.falls()] == [second]
    assert rebuttal.share_changed == pytest.approx(2 / reviews)
    moved, fell = by_id[first].reviews[0], by_id[second].reviews[1]
    assert (fell.pre, fell.post) == (down, down - 3)
    assert (moved.pre, moved.post, moved.versions) == (up, up + 2, 2) and moved.pre_at < moved.post_at
    spread = by_id[first]
    if spread.post_spread < spread.pre_spread:
        assert first in [p.paper_id for p in rebuttal.converged()]
    elif spread.post_spread > spread.pre_spread:
        assert first in [p.paper_id for p in rebuttal.diverged()]
    assert rebuttal.by_decision() == {
        "Under Review": {"papers": 6, "mean_change": pytest.approx((2 / n1 - 3 / n2) / 6)}
    }


def test_a_second_fetch_asks_no_edits_and_adds_only_the_new_versions(server, store: SqlStore, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    fetch_openreview(store, tmp_path / "store.db", OPEN, client=client(url))
    before = len(store.review_versions("iclr2018"))
    edits, notes = state.edits_served, state.notes_served
    paper = state.venues[OPEN].notes[4]
    state.revise(OPEN, f"{paper['id']}-r2", rating=1)
    again = fetch_openreview(store, tmp_path / "store.db", OPEN, client=client(url))
    assert state.edits_served == edits and again.history == ""
    assert again.review_versions == 1 and len(store.review_versions("iclr2018")) == before + 1
    assert state.notes_served - notes <= 1 + 10 + 1  # the scan's pages of 1 and 10 notes, then one submission
    latest = [v for v in store.review_versions("iclr2018") if v.review_id == f"{paper['id']}-r2"]
    assert [(v.rating, v.origin) for v in latest][-1] == (1.0, "fetch")
    unchanged = fetch_openreview(store, tmp_path / "store.db", OPEN, client=client(url))
    assert unchanged.review_versions == 0


def test_edits_not_public_keep_the_history_of_successive_fetches(server, store: SqlStore, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    first, _, _, up, _ = rebut(state, CLOSED)
    result = fetch_openreview(store, tmp_path / "store.db", CLOSED, client=client(url))
    assert "does not make the reviews' edits public" in result.history and "successive fetches" in result.history
    history = store.review_versions("iclr2019")
    assert [v.rating for v in history if v.review_id == f"{first}-r0"] == [up + 2]  # only what the fetch saw
    assert {v.origin for v in history} == {"fetch"}
    state.revise(CLOSED, f"{first}-r0", rating=int(up))
    fetch_openreview(store, tmp_path / "store.db", CLOSED, client=client(url))
    kept = [v.rating for v in store.review_versions("iclr2019") if v.review_id == f"{first}-r0"]
    assert kept == [up + 2, up]
    falls = build_rebuttal(store, "iclr2019").falls()
    assert falls[0].paper_id == first  # the fall seen between the two fetches


def test_edit_pages_are_retried_on_429_and_resumed_after_an_interruption(
    server, store: SqlStore, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    rebut(state, OPEN)
    state.revise(OPEN, f"{state.venues[OPEN].notes[3]['id']}-r0", rating=1)  # three submissions with edited reviews
    state.faults = ["none", "429"]  # the notes are answered, the first edits are refused once (Retry-After: 0)
    broken = client(url)
    real = broken.invitation_edits
    calls = 0

    def failing(invitation: str, log):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        if calls == 3:
            raise NotFoundError("connection lost")
        return real(invitation, log)

    broken.invitation_edits = failing  # type: ignore[method-assign]
    with pytest.raises(NotFoundError):
        fetch_openreview(store, tmp_path / "store.db", OPEN, client=broken)
    assert store.review_versions("iclr2018") == []
    assert state.faults == [] and state.edits_served > 0
    result = fetch_openreview(store, tmp_path / "store.db", OPEN, client=client(url))
    assert result.resumed_pages >= 3  # the page of notes and two submissions' edits already fetched
    asked = {e["invitation"] for edits in state.edits.values() for e in edits if len(edits) > 1}
    assert len(asked) == 3
    assert state.edits_served == sum(len(state.edits_under[i]) for i in asked)  # no page of edits asked twice
    assert result.history.startswith("earlier versions")


def test_rebuttal_command_json_and_one_line_errors(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    first, second, *_ = rebut(state, OPEN)
    db = tmp_path / "live.db"
    runner = CliRunner()
    fetched = runner.invoke(
        cli, ["fetch", "openreview", OPEN, "--db", str(db), "--base-url", url, "--v1-url", url, "-q"]
    )
    assert fetched.exit_code == 0, fetched.stderr
    assert "review versions added to the history (earlier versions read from the reviews' edits)" in fetched.stdout
    shown = runner.invoke(cli, ["rebuttal", "--venue", "iclr2018", "--db", str(db), "--json"])
    assert shown.exit_code == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["rises"][0]["paper"] == first and data["falls"][0]["paper"] == second
    assert data["reviews_changed"] == 2 and data["rises"][0]["reviews"][0]["pre_at"].endswith("+00:00")
    text = runner.invoke(cli, ["rebuttal", "--venue", "iclr2018", "--db", str(db)])
    assert text.exit_code == 0 and "Largest rises:" in text.stdout and first in text.stdout
    for args, said in (
        (["--venue", "nosuch2024"], "unknown venue 'nosuch2024'"),
        (["--venue", "iclr2018", "--from", "2099-01-01"], "no review history for iclr2018 in that period"),
        (["--venue", "iclr2018", "--from", "not a date"], "Invalid value for '--from'"),
    ):
        failed = runner.invoke(cli, ["rebuttal", "--db", str(db), *args])
        assert failed.exit_code != 0 and said in failed.stderr and "Traceback" not in failed.stderr
