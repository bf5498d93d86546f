"""How review histories are fetched: edits a submission at a time, none for a review never changed, per review
where the server refuses that, and a later fetch that transfers only the notes that changed."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import astuple
from pathlib import Path
from typing import Any

import pytest

from confnav.fetch import fetch_openreview
from confnav.fetch.openreview import OpenReviewClient, patched
from confnav.fetch.snapshot import read_edits_file, read_snapshot
from confnav.model import ReviewVersion
from confnav.settings import Settings
from confnav.store import open_store
from confnav.store.connection import PostgresConnection
from confnav.store.migrations import MIGRATIONS, migrate
from confnav.store.postgres_schema import MIGRATIONS as POSTGRES_MIGRATIONS
from confnav.store.sql import SqlStore
from tests.backends import new_location
from tests.conftest import DATA
from tests.openreview_server import FakeOpenReview, Venue, api2_note, serving, signed_in

VENUE, VENUE_ID = "ICLR.cc/2018/Conference", "iclr2018"
PAPERS = 8


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeOpenReview, str]]:
    """A venue in review: eight real ICLR 2018 submissions with at least three reviews each."""
    signed_in(monkeypatch)
    records = json.loads((DATA / "paperlists" / "iclr2018.json").read_text())
    rated = [r for r in records if len([x for x in r.get("rating", "").split(";") if x]) >= 3][:PAPERS]
    state = FakeOpenReview()
    state.add_venue(Venue(VENUE, 2, [api2_note(VENUE, i, r, state.tick(), "review") for i, r in enumerate(rated, 1)]))
    with serving(state) as url:
        yield state, url


def client(url: str) -> OpenReviewClient:
    return OpenReviewClient.from_settings(Settings.load(), url, url, timeout=5.0, backoff=0.0)


def reviews(state: FakeOpenReview, paper: int) -> list[dict]:  # type: ignore[type-arg]
    return [r for r in state.venues[VENUE].notes[paper]["details"]["replies"] if "rating" in r["content"]]


def revise_all(state: FakeOpenReview, papers: range) -> int:
    """Every review of these papers revised twice (ratings 3 then 7); how many reviews."""
    revised = [review for paper in papers for review in reviews(state, paper)]
    for rating in (3, 7):
        for review in revised:
            state.revise_reply(VENUE, review, rating=rating)
    return len(revised)


def history(store: SqlStore) -> list[tuple[str, str, int, float | None, float | None]]:
    return [(v.paper_id, v.review_id, v.modified, v.rating, v.confidence) for v in store.review_versions(VENUE_ID)]


def test_edits_are_read_a_submission_at_a_time_and_never_for_an_unchanged_review(
    server, store: SqlStore, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    revised = revise_all(state, range(5))  # five submissions revised, three never touched
    total = sum(len(reviews(state, p)) for p in range(PAPERS))
    before = state.requests
    result = fetch_openreview(store, tmp_path / "store.db", VENUE, client=client(url))
    assert result.history == "earlier versions read from the reviews' edits"
    assert state.requests - before == 2 + 1 + 5  # login and group, one page of submissions, one per revised paper
    assert result.review_versions == 3 * revised + (total - revised)
    for paper in range(5):
        for review in reviews(state, paper):
            kept = [(v.rating, v.origin) for v in store.review_versions(VENUE_ID) if v.review_id == review["id"]]
            assert kept[1:] == [(3.0, "edits"), (7.0, "edits")] and kept[0][1] == "edits"
    untouched = {r["id"] for p in range(5, PAPERS) for r in reviews(state, p)}
    assert {v.origin for v in store.review_versions(VENUE_ID) if v.review_id in untouched} == {"fetch"}


def test_a_server_refusing_the_invitation_filter_is_read_review_by_review_to_the_same_history(
    server, store: SqlStore, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    revised = revise_all(state, range(3))
    fetch_openreview(store, tmp_path / "bulk" / "store.db", VENUE, client=client(url))
    state.venues[VENUE].edits_by_invitation = False
    before = state.requests
    with open_store(new_location(tmp_path, "single"), create=True) as single:
        result = fetch_openreview(single, tmp_path / "single" / "store.db", VENUE, client=client(url))
        assert state.requests - before == 2 + 1 + 1 + revised  # the refused request, then one per revised review
        assert result.history.startswith("earlier versions") and history(single) == history(store)


def test_a_second_fetch_transfers_only_what_changed_and_stores_only_the_new_versions(
    server, store: SqlStore, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    revise_all(state, range(2))
    db = tmp_path / "store.db"
    fetch_openreview(store, db, VENUE, client=client(url))
    kept = history(store)
    changed = [reviews(state, 2)[0], reviews(state, 5)[1]]
    for review in changed:
        state.revise_reply(VENUE, review, rating=1)
    late = state.add_review(VENUE, state.venues[VENUE].notes[6]["id"], "late-review", 9, 4)
    new = api2_note(VENUE, PAPERS + 1, {"id": "NEWPAPER", "title": "A late submission", "author": "A B"}, 0, "review")
    new["tmdate"] = state.tick()
    state.venues[VENUE].notes.append(new)
    before, served, edits = state.requests, state.notes_served, state.edits_served
    again = fetch_openreview(store, db, VENUE, client=client(url))
    # login and group, the scan's pages of 1 and 10 notes, then the one submission not held before
    assert state.requests - before == 2 + 2 + 1 and state.edits_served == edits
    assert state.notes_served - served == 1 + 10 + 1  # no submission that was held is read again
    assert again.notes == 4 and again.review_versions == 3  # two revised reviews and the late one
    added = set(history(store)) - set(kept)
    assert {(v[1], v[3]) for v in added} == {(changed[0]["id"], 1.0), (changed[1]["id"], 1.0), ("late-review", 9.0)}
    assert late in {v[2] for v in added} and set(kept) <= set(history(store))
    snapshot = db.resolve().parent / "snapshots" / "openreview" / "ICLR.cc_2018_Conference.jsonl"
    entries, _ = read_snapshot(snapshot)
    held = {r["id"]: r for r in entries[state.venues[VENUE].notes[2]["id"]]["note"]["details"]["replies"]}
    assert held[changed[0]["id"]]["content"]["rating"] == {"value": 1} and "NEWPAPER" in entries
    kept_edits = read_edits_file(snapshot)  # the first fetch's edits, kept beside the snapshot's lines
    assert set(kept_edits) == {n["id"] for n in state.venues[VENUE].notes[:2]} and "edits" not in entries["NEWPAPER"]
    assert store.get_paper(state.venues[VENUE].notes[6]["id"]).ratings[-1] == 9
    unchanged = fetch_openreview(store, db, VENUE, client=client(url))
    assert unchanged.notes == 0 and unchanged.review_versions == 0 and unchanged.ingest.unchanged == PAPERS + 1


def test_changed_notes_are_put_in_place_in_a_held_submission() -> None:
    held = {
        "id": "P",
        "forum": "P",
        "tmdate": 1,
        "content": {"title": {"value": "Old"}},
        "details": {"replies": [{"id": "R1", "tmdate": 1}, {"id": "R2", "tmdate": 1}, {"id": "C", "tmdate": 1}]},
    }
    changes = [
        {"id": "R1", "forum": "P", "tmdate": 5, "content": {"rating": {"value": 8}}},
        {"id": "P", "forum": "P", "tmdate": 4, "content": {"title": {"value": "New"}}},
        {"id": "C", "forum": "P", "tmdate": 6, "ddate": 6},  # a comment deleted
        {"id": "R3", "forum": "P", "tmdate": 7, "content": {"rating": {"value": 2}}},
    ]
    result = patched(held, changes)
    assert result["content"]["title"] == {"value": "New"} and result["tmdate"] == 4
    assert [r["id"] for r in result["details"]["replies"]] == ["R1", "R2", "R3"]
    assert result["details"]["replies"][0]["content"]["rating"] == {"value": 8}
    assert held["details"]["replies"][0] == {"id": "R1", "tmdate": 1}  # what was held is left as it was


@pytest.mark.parametrize("backend", ("sqlite", "postgres"))
def test_a_store_whose_histories_were_kept_before_keeps_them_in_the_compact_table(backend: str, tmp_path: Path) -> None:
    """Step 18 (PostgreSQL 12) rebuilds the review versions' table in the order of venue, paper, review and time."""
    location = new_location(tmp_path, "released", backend)
    raw: Any
    if backend == "postgres":
        import psycopg

        raw = psycopg.connect(str(location), autocommit=True)
        conn: Any = PostgresConnection(raw)
        migrate(conn, [m for m in POSTGRES_MIGRATIONS if m[0] < 12], begin="BEGIN")
    else:
        raw = conn = sqlite3.connect(location, isolation_level=None)
        migrate(conn, [m for m in MIGRATIONS if m[0] < 18])
    versions = [
        ReviewVersion(VENUE_ID, paper, f"{paper}-r{r}", f"{VENUE}/Submission1/Reviewer_{r}", stamp, rating, 3.0, origin)
        for paper in ("P2", "P1")
        for r in (1, 0)
        for stamp, rating, origin in ((20, 6.0, "fetch"), (10, 4.0, "edits"))
    ]
    venue = (VENUE_ID, "ICLR", "iclr", 2018)
    conn.execute("INSERT INTO venues (id, name, conference, year) VALUES (?, ?, ?, ?)", venue)
    conn.executemany(
        "INSERT INTO review_versions (venue, paper_id, review_id, reviewer, modified, rating, confidence, origin,"
        " recorded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(*astuple(v), "2026-11-26T10:00:00+00:00") for v in versions],
    )
    raw.close()
    with open_store(location) as store:
        kept = store.review_versions(VENUE_ID)
        assert kept == sorted(versions, key=lambda v: (v.paper_id, v.review_id, v.modified))
        with store.transaction():
            assert store.add_review_versions(versions) == 0  # the same versions are still known
