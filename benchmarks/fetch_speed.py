"""Fetch a 10,000-submission OpenReview venue with its reviews from a local OpenReview-like server, then again.

The server is the one the tests use (tests/openreview_server.py: API 2 shapes, pages of 1,000, login);
its venue is made of the real ICLR 2021 records, repeated with new ids up to the size asked for.
Goal (issue 12): the first fetch (with ingest) <= 60 s; a re-fetch when nothing changed <= 5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.openreview_server import PASSWORD, USER, FakeOpenReview, Venue, api2_note, serving

from _util import DATA, machine, peak_rss_mb
from confnav.fetch import fetch_openreview
from confnav.fetch.openreview import OpenReviewClient
from confnav.settings import Settings
from confnav.store import SqliteStore

VENUE = "ICLR.cc/2027/Conference"


def build(size: int) -> FakeOpenReview:
    records = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text())
    state = FakeOpenReview()
    notes = []
    for number in range(1, size + 1):
        record = dict(records[(number - 1) % len(records)])
        record["id"] = f"{record['id']}-{(number - 1) // len(records)}"
        state_of = {"Reject": "rejected", "Withdraw": "withdrawn", "Desk Reject": "withdrawn"}.get(
            str(record["status"]), "accepted"
        )
        notes.append(api2_note(VENUE, number, record, state.tick(), state_of))
    state.add_venue(Venue(VENUE, 2, notes))
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--submissions", type=int, default=10_000)
    args = parser.parse_args()
    os.environ["OPENREVIEW_USERNAME"], os.environ["OPENREVIEW_PASSWORD"] = USER, PASSWORD
    state = build(args.submissions)
    reviews = sum(len(n["details"]["replies"]) for n in state.venues[VENUE].notes)
    with tempfile.TemporaryDirectory() as folder, serving(state) as url:
        db = Path(folder) / "live.db"
        timings = []
        for _ in range(2):
            start = time.perf_counter()
            served = state.notes_served
            with SqliteStore(db) as store:
                result = fetch_openreview(
                    store, db, VENUE, client=OpenReviewClient.from_settings(Settings.load(), url, url)
                )
            timings.append((time.perf_counter() - start, state.notes_served - served, result))
    print(f"machine: {machine()}")
    print(f"OpenReview-like local server: {args.submissions:,} submissions with {reviews:,} reviews and decisions")
    first, again = timings
    print(
        f"  first fetch + ingest: {first[0]:.1f} s, {first[1]:,} notes transferred, {first[2].requests} requests,"
        f" {first[2].ingest.added:,} papers added; goal <= 60 s"
    )
    print(
        f"  again, nothing changed: {again[0]:.2f} s, {again[1]:,} notes transferred, {again[2].requests} requests;"
        " goal <= 5 s"
    )
    print(f"  peak RSS {peak_rss_mb():.0f} MB (server and client in one process)")


if __name__ == "__main__":
    main()
