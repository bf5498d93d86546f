"""A big venue's review history fetched from a local OpenReview-like server, first in full, then incrementally.

The venue (seeded): 12,000 submissions in review, their texts the real ICLR 2021 records repeated with new ids,
4 reviews each with 3 versions (posted, then revised twice), ratings 1-10 and confidences 1-5 drawn at random.
The server is the one the tests use (tests/openreview_server.py), counting requests and bytes it sends.

Figures (issue 38 item 6), each beside a same-run baseline:
- first fetch into a fresh SQLite store: time and requests, the edits read a submission at a time
  (`/notes/edits?invitation=…`) against one request per review (`note.id=…`, a server refusing the filter);
- second fetch after ~2% of the reviews changed: requests, bytes, time and rows written, against reading every changed
  submission again with its replies, and (`--baseline OLD_SRC`) against the same fetch by another version of confnav
  (its source folder) into a copy of the store and snapshot; the review versions it adds;
- the store's size with every version against the store of the same fetch with the last version only
  (a venue whose edits are not public); goal: the history adds at most 30%;
- the rebuttal (`build_rebuttal`, the JSON the CLI prints) warm: goal <= 300 ms; and `confnav rebuttal --json`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.openreview_server import PASSWORD, USER, FakeOpenReview, Venue, api2_note, serving

from _util import DATA, ROOT, machine, median, peak_rss_mb
from confnav.fetch import FetchResult, fetch_openreview
from confnav.fetch.openreview import OpenReviewClient
from confnav.fetch.snapshot import PageLog
from confnav.reports.rebuttal import build_rebuttal
from confnav.settings import Settings
from confnav.store import SqliteStore

VENUE, VENUE_ID = "ICLR.cc/2027/Conference", "iclr2027"


def build(size: int, reviews: int, versions: int, seed: int) -> FakeOpenReview:
    """The venue in review: every submission with `reviews` reviews, each revised until it has `versions`."""
    rng = random.Random(seed)
    records = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text())
    state = FakeOpenReview()
    notes = []
    for number in range(1, size + 1):
        record = dict(records[(number - 1) % len(records)])
        record["id"] = f"{record['id']}-{(number - 1) // len(records)}"
        record["rating"] = ";".join(str(rng.randint(1, 10)) for _ in range(reviews))
        record["confidence"] = ";".join(str(rng.randint(1, 5)) for _ in range(reviews))
        notes.append(api2_note(VENUE, number, record, state.tick(), "review"))
    state.add_venue(Venue(VENUE, 2, notes))
    for _ in range(versions - 1):
        for reply in all_reviews(state):
            revise(state, reply, rng)
    return state


def all_reviews(state: FakeOpenReview) -> list[dict[str, Any]]:
    return [r for n in state.venues[VENUE].notes for r in n["details"]["replies"] if "rating" in r["content"]]


def revise(state: FakeOpenReview, reply: dict[str, Any], rng: random.Random) -> None:
    rating = reply["content"]["rating"]["value"]
    now = int(str(rating).split(":")[0])
    state.revise_reply(VENUE, reply, rating=min(10, max(1, now + rng.choice((-2, -1, 1, 2)))))


def fetch(state: FakeOpenReview, url: str, db: Path) -> tuple[float, int, int, FetchResult, int]:
    """One fetch into `db`: seconds, requests and bytes the server saw, what the fetch says, and the rows it
    wrote (inserted, updated or deleted, as SQLite counts them)."""
    requests, sent = state.requests, state.bytes_served
    start = time.perf_counter()
    with SqliteStore(db) as store:
        rows = store.conn.total_changes
        result = fetch_openreview(store, db, VENUE, client=OpenReviewClient.from_settings(Settings.load(), url, url))
        rows = store.conn.total_changes - rows
    return time.perf_counter() - start, state.requests - requests, state.bytes_served - sent, result, rows


def copy_store(db: Path, target: Path) -> None:
    """A copy of the store at `db` and its snapshot, whose marker names the copy: a fetch into it goes on from
    where the store's last fetch left off."""
    shutil.copytree(db.parent, target.parent)
    for marker in target.parent.glob("snapshots/openreview/*.ingested"):
        marker.write_text(json.dumps({**json.loads(marker.read_text()), "store": str(target.resolve())}))


def fetch_by(source: str, url: str, db: Path) -> tuple[float, int]:
    """The fetch into `db` by the confnav in the folder `source` (a release before settings were passed in), in a
    new process: seconds and rows written."""
    script = (
        "import json, sys, time; from pathlib import Path; from confnav.fetch import fetch_openreview;"
        " from confnav.fetch.openreview import OpenReviewClient; from confnav.store import SqliteStore;"
        " db = Path(sys.argv[2]); start = time.perf_counter(); store = SqliteStore(db);"
        " rows = store.conn.total_changes;"
        " fetch_openreview(store, db, sys.argv[3], client=OpenReviewClient.from_environment(sys.argv[1], sys.argv[1]));"
        " rows = store.conn.total_changes - rows; store.close(); print(json.dumps([time.perf_counter() - start, rows]))"
    )
    env = {**os.environ, "PYTHONPATH": source}
    done = subprocess.run([sys.executable, "-c", script, url, str(db), VENUE], check=True, capture_output=True, env=env)
    seconds, rows = json.loads(done.stdout)
    return float(seconds), int(rows)


def reread_baseline(state: FakeOpenReview, url: str, folder: Path, since: int) -> tuple[int, int]:
    """What a second fetch costs when every changed submission is read again with its replies: requests, bytes."""
    client = OpenReviewClient.from_settings(Settings.load(), url, url)
    requests, sent = state.requests, state.bytes_served
    log = PageLog(folder / "baseline.part", {"baseline": True})
    try:
        list(client.changed_since(client.venue(VENUE), since, log))
    finally:
        log.discard()
    return state.requests - requests, state.bytes_served - sent


def size_mb(db: Path) -> float:
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*") if p.is_file()) / 2**20


def rebuttal_ms(db: Path, runs: int) -> tuple[float, float, int, float, float]:
    """The rebuttal of the venue as JSON, warm: median ms (wall, then CPU) of `runs` after one untimed run, its
    size, and the median ms of its two reads from the store (the versions' ratings, the papers' titles and
    decisions)."""
    with SqliteStore(db) as store:
        text = json.dumps(build_rebuttal(store, VENUE_ID).to_dict())
        timings, cpu, versions, papers = [], [], [], []
        for _ in range(runs):
            start, started = time.perf_counter(), time.process_time()
            json.dumps(build_rebuttal(store, VENUE_ID).to_dict())
            timings.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - started) * 1000)
            start = time.perf_counter()
            store.review_ratings(VENUE_ID)
            versions.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            store.paper_decisions(VENUE_ID)
            papers.append((time.perf_counter() - start) * 1000)
    return median(timings), median(cpu), len(text), median(versions), median(papers)


def cli_ms(db: Path, runs: int) -> float:
    """`confnav rebuttal --venue V --json` as a user runs it (a new process each time), median ms."""
    command = [sys.executable, "-m", "confnav", "--db", str(db), "rebuttal", "--venue", VENUE_ID, "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    subprocess.run(command, check=True, capture_output=True, env=env)
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env)
        timings.append((time.perf_counter() - start) * 1000)
    return median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submissions", type=int, default=12_000)
    parser.add_argument("--reviews", type=int, default=4)
    parser.add_argument("--versions", type=int, default=3)
    parser.add_argument("--changed", type=float, default=0.02, help="share of reviews revised before the 2nd run")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-baseline", action="store_true", help="skip the per-review first fetch (slow)")
    parser.add_argument("--baseline", metavar="OLD_SRC", help="the second fetch also by this confnav source folder")
    args = parser.parse_args()
    os.environ["OPENREVIEW_USERNAME"], os.environ["OPENREVIEW_PASSWORD"] = USER, PASSWORD
    state = build(args.submissions, args.reviews, args.versions, args.seed)
    reviews = all_reviews(state)
    print(f"machine: {machine()}, load average {os.getloadavg()[0]:.1f} at the start")
    print(
        f"local OpenReview-like server: {args.submissions:,} submissions, {len(reviews):,} reviews with"
        f" {args.versions} versions each (seed {args.seed})"
    )
    with tempfile.TemporaryDirectory() as name, serving(state) as url:
        folder = Path(name)
        db = folder / "all" / "live.db"
        db.parent.mkdir()
        first = fetch(state, url, db)
        print(
            f"  first fetch + ingest: {first[0]:.1f} s, {first[1]:,} requests, {first[2] / 2**20:.0f} MB sent,"
            f" {first[3].review_versions:,} review versions stored ({first[3].history})"
        )
        if not args.no_baseline:
            state.venues[VENUE].edits_by_invitation = False
            (folder / "per-review").mkdir()
            slow = fetch(state, url, folder / "per-review" / "live.db")
            state.venues[VENUE].edits_by_invitation = True
            print(
                f"    baseline, edits one review at a time: {slow[0]:.1f} s, {slow[1]:,} requests,"
                f" {slow[2] / 2**20:.0f} MB sent, {slow[3].review_versions:,} review versions"
            )
        state.venues[VENUE].edits_public = False
        (folder / "last").mkdir()
        last = fetch(state, url, folder / "last" / "live.db")
        state.venues[VENUE].edits_public = True
        since = state.clock
        rng = random.Random(args.seed + 1)
        changed = rng.sample(reviews, round(len(reviews) * args.changed))
        for reply in changed:
            revise(state, reply, rng)
        if args.baseline:
            copy_store(db, folder / "old" / db.name)
        second = fetch(state, url, db)
        print(
            f"  second fetch, {len(changed):,} reviews ({args.changed:.0%}) changed: {second[0]:.1f} s,"
            f" {second[1]:,} requests, {second[2] / 2**10:,.0f} KB sent, {second[3].notes:,} submissions updated,"
            f" {second[3].review_versions:,} review versions added, {second[4]:,} rows written"
        )
        if args.baseline:
            seconds, rows = fetch_by(args.baseline, url, folder / "old" / db.name)
            print(f"    baseline, the same fetch by {args.baseline}: {seconds:.1f} s, {rows:,} rows written")
        again = reread_baseline(state, url, folder, since)
        print(f"    baseline, changed submissions read again: {again[0]:,} requests, {again[1] / 2**10:,.0f} KB sent")
        unchanged = fetch(state, url, db)
        print(f"  third fetch, nothing changed: {unchanged[0]:.1f} s, {unchanged[1]} requests, {unchanged[2]:,} bytes")
        with_history, without = size_mb(db), size_mb(folder / "last" / "live.db")
        print(
            f"  store: {with_history:.1f} MB with every version, {without:.1f} MB with the last version only"
            f" ({last[3].review_versions:,} versions): the history adds {with_history / without - 1:.0%}"
            f" ({1 - without / with_history:.0%} of the store); goal <= 30%"
        )
        ms, cpu, chars, versions, papers = rebuttal_ms(db, args.runs)
        print(
            f"  rebuttal (library, JSON {chars / 2**10:.0f} KB), warm: {ms:.0f} ms ({cpu:.0f} ms CPU) median of"
            f" {args.runs}; goal <= 300 ms (reading the versions {versions:.0f} ms, the papers {papers:.0f} ms)"
        )
        cli = cli_ms(db, 3)
        print(f"  confnav rebuttal --venue {VENUE_ID} --json, a new process each time: {cli:.0f} ms median of 3")
    print(
        f"  peak RSS {peak_rss_mb():.0f} MB (server and client in one process); load average"
        f" {os.getloadavg()[0]:.1f} at the end"
    )


if __name__ == "__main__":
    main()
