"""Soak: `confnav serve` under mixed reads and writes for a long time, with writer processes killed (kill -9).

Builds an ICLR 2021 store (ingest of the three real files, then `confnav index`) in a temporary folder (SQLite)
or a database of a local PostgreSQL (`--backend postgres`), serves it, and for `--minutes` runs at once:
- reader threads: search with varied filters, paper, similar, stats, rank, `ask`, a profile's For you, news and
  Atom feed, the home, search, paper and statistics report pages;
- writers through the API: reading lists (create, add, remove, delete) and a profile (likes and dislikes, some
  taken back; watches added and stopped);
- a writer-process loop: `confnav ingest` of synthetic venues made by recombining real ICLR titles, abstracts
  and authors (new venues at first, then the same venues' papers rewritten, so the store reaches a steady
  size), a re-ingest of an existing file, `confnav index`, and an incremental `confnav fetch openreview` of a
  live venue on a local OpenReview-like server whose reviewers revise ratings between fetches. Some runs are
  killed at a random moment and then run again to completion.
The server's memory (with its worker processes) is sampled throughout.

Reports requests, errors (5xx, connection errors, answers slower than 10 s; writer runs that failed),
latency per kind, memory over time and writer runs, then checks the store (SQLite: PRAGMA integrity_check;
each ingested venue holds exactly its file's records, the fetched venue exactly the server's submissions). PASS
needs no error, a sound store and memory growth after warm-up under `--rss-growth-mb`; exit code 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.openreview_server import PASSWORD, USER, FakeOpenReview, Venue, api2_note, serving

from _soak_load import Corpus, Log, list_writer, profile_writer, reader, summary, synthetic_venue
from _util import DATA, ICLR2021, confnav_server, machine
from confnav.store import open_store

CONFNAV = str(Path(sys.executable).parent / "confnav")
LIVE = "ICLR.cc/2027/Conference"  # the live venue of the local OpenReview-like server
LIVE_SUBMISSIONS = 400
REVISED = 20  # reviews whose rating a reviewer changes before each fetch


def process_tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants (the workers of `serve --workers`), in MB."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")) / 1024
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(child) for child in (task / "children").read_text().split()]
        except (OSError, StopIteration):
            continue
    return total


def sampler(pid: int, stop: threading.Event, log: Log, start: float, every: float) -> None:
    while not stop.is_set():
        log.rss.append((time.monotonic() - start, process_tree_rss_mb(pid)))
        stop.wait(every)


class LiveVenue:
    """An OpenReview venue during its review period, on a local OpenReview-like server (the tests' server, API 2
    shapes): real ICLR 2021 records; between fetches reviewers revise some ratings."""

    def __init__(self, rng: random.Random) -> None:
        records = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text(encoding="utf-8"))
        records = [{**r, "id": f"{r['id']}-live"} for r in records]  # ids of their own: readers ask ICLR 2021's
        self.rng, self.state = rng, FakeOpenReview()
        notes = [
            api2_note(LIVE, n, r, self.state.tick(), "review") for n, r in enumerate(records[:LIVE_SUBMISSIONS], 1)
        ]
        self.state.add_venue(Venue(LIVE, 2, notes))
        self.reviews = [r["id"] for note in notes for r in note["details"]["replies"] if "rating" in r["content"]]
        self.submissions = {note["id"] for note in notes}

    def revise(self) -> None:
        for review in self.rng.sample(self.reviews, min(REVISED, len(self.reviews))):
            self.state.revise(LIVE, review, rating=self.rng.randint(1, 10))

    @contextmanager
    def served(self) -> Iterator[None]:
        """The server on a loopback port, named to `confnav fetch` by the environment its writer runs inherit."""
        with serving(self.state) as url:
            os.environ.update(
                OPENREVIEW_USERNAME=USER,
                OPENREVIEW_PASSWORD=PASSWORD,
                CONFNAV_OPENREVIEW_URL=url,
                CONFNAV_OPENREVIEW_V1_URL=url + "/v1",
            )
            yield


class Writers:
    """Writer processes run one at a time: a killed run (kill -9 at a random moment) is run again to completion;
    a failed run is retried up to three times, each failure logged."""

    def __init__(self, db: Path, log: Log, rng: random.Random, kill_share: float) -> None:
        self.db, self.log, self.rng, self.kill_share = db, log, rng, kill_share
        self.durations: dict[str, float] = {}

    def run(self, kind: str, *args: str) -> bool:
        killable = self.rng.random() < self.kill_share
        for attempt in range(4):
            kill_after = self.rng.uniform(0.2, self.durations.get(kind, 5.0)) if killable and attempt == 0 else None
            record = self._once(kind, [CONFNAV, *args, "--db", str(self.db), "-q"], kill_after)
            self.log.writers.append(record)
            if record["outcome"] == "done":
                return True
        return False

    def _once(self, kind: str, command: list[str], kill_after: float | None) -> dict[str, object]:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if kill_after is not None:
            try:
                process.wait(timeout=kill_after)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGKILL)
                process.wait()
                return {"kind": kind, "outcome": "killed", "seconds": time.perf_counter() - start}
        _, stderr = process.communicate()
        seconds = time.perf_counter() - start
        if process.returncode == 0:
            self.durations[kind] = seconds
            return {"kind": kind, "outcome": "done", "seconds": seconds}
        message = (stderr.strip().splitlines() or ["(no message)"])[-1]
        return {"kind": kind, "outcome": "failed", "seconds": seconds, "error": message}


def writer_loop(
    writers: Writers,
    corpus: Corpus,
    folder: Path,
    stop: threading.Event,
    every: float,
    records: int,
    venues: int,
    files: dict[str, tuple[Path, list[str]]],
    index_args: list[str],
    live: LiveVenue,
) -> None:
    """Every `every` seconds one writer job: ingest a synthetic venue (half the jobs), fetch the live venue after
    its reviewers revised some ratings, re-ingest a file, or index. The first `venues` ingests add new venues;
    later ones rewrite those venues' papers, so the store stops growing while the writes go on (memory must then
    stop growing too)."""
    number = 0
    while not stop.wait(every):
        turn = number % 6
        if turn in (0, 2, 4):
            slot = (number // 2) % venues
            venue, path, ids = synthetic_venue(corpus, folder, slot, number, records)
            files[venue] = (path, ids)
            writers.run("ingest", "ingest", str(path), "--venue", venue)
        elif turn == 1:
            live.revise()
            writers.run("fetch", "fetch", "openreview", LIVE)
        elif turn == 3 and files:
            path, _ = files[min(files)]
            writers.run("re-ingest", "ingest", str(path), "--venue", min(files))
        else:
            writers.run("index", "index", *index_args)
        number += 1


def check_store(location: str, files: dict[str, tuple[Path, list[str]]], live: LiveVenue) -> list[str]:
    """Problems found in the store after the run: integrity (SQLite), venues whose papers differ from their file,
    and the fetched venue's papers against the server's submissions."""
    problems = []
    if not location.startswith("postgresql://"):
        with sqlite3.connect(location) as conn:
            if (result := conn.execute("PRAGMA integrity_check").fetchall()) != [("ok",)]:
                problems.append(f"integrity_check: {result[:5]}")
    with open_store(location) as store:
        expected = {venue: set(ids) for venue, (_, ids) in files.items()}
        fetched = [
            v.id
            for v in (s.venue for s in store.venues())
            if v.id not in expected and v.id not in ("iclr2021", "iclr2020")
        ]
        expected |= {venue: live.submissions for venue in fetched}
        for venue, ids in sorted(expected.items()):
            stored = [p.id for p in store.iter_papers(venue)]
            if len(stored) != len(ids) or set(stored) != ids:
                problems.append(f"{venue}: {len(stored)} papers ({len(set(stored))} distinct), expected {len(ids)}")
        if not fetched:
            problems.append(f"the live venue {LIVE} was never fetched")
    return problems


def build_store(folder: Path, index_args: list[str], backend: str) -> str:
    """The ICLR 2021 store, indexed: a file in `folder`, or a database of a PostgreSQL started there."""
    location = str(folder / "soak.db")
    if backend == "postgres":
        import pgserver
        import psycopg

        admin = pgserver.get_server(folder / "pgdata", cleanup_mode="stop").get_uri()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("CREATE DATABASE soak")
        base, _, query = admin.partition("?")
        location = f"{base.rsplit('/', 1)[0]}/soak?{query}"
    for args in (["ingest", *map(str, ICLR2021)], ["index", *index_args]):
        subprocess.run([CONFNAV, *args, "--db", location, "-q"], check=True, stdout=subprocess.DEVNULL)
    return location


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=30, help="How long the load runs (at most 240).")
    parser.add_argument("--seconds", type=float, help="How long the load runs, in seconds (smoke runs).")
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1, help="`confnav serve --workers`.")
    parser.add_argument("--model", help="Embedding model for every `confnav index` (default: confnav's).")
    parser.add_argument("--records", type=int, default=3000, help="Records per synthetic venue.")
    parser.add_argument("--venues", type=int, default=4, help="Synthetic venues; later ingests rewrite them.")
    parser.add_argument("--writer-every", type=float, default=20, help="Seconds between writer jobs.")
    parser.add_argument("--kill-share", type=float, default=0.4, help="Share of writer jobs killed with -9.")
    parser.add_argument("--rss-growth-mb", type=float, default=300, help="PASS bound on memory growth after warm-up.")
    parser.add_argument("--warmup", type=float, help="Seconds of warm-up (default: a sixth of the run, at most 300).")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--json", type=Path, help="Also write the report as JSON here.")
    args = parser.parse_args()
    seconds = args.seconds if args.seconds else args.minutes * 60
    if not 0 < seconds <= 240 * 60:
        parser.error("the run lasts more than 0 and at most 240 minutes")
    warmup = args.warmup if args.warmup is not None else min(300.0, seconds / 6)
    index_args = ["--model", args.model] if args.model else []
    print(f"machine: {machine()}")
    corpus, log, rng = Corpus.load(), Log(), random.Random(args.seed)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        db = build_store(folder, index_args, args.backend)
        live = LiveVenue(random.Random(args.seed))
        files: dict[str, tuple[Path, list[str]]] = {}
        serve_args = ["--workers", str(args.workers)] if args.workers > 1 else []
        with live.served(), confnav_server(db, *serve_args) as (port, server):
            stop, start = threading.Event(), time.monotonic()
            writers = Writers(db, log, rng, args.kill_share)
            threads = [threading.Thread(target=reader, args=(port, corpus, stop, log, i)) for i in range(args.readers)]
            threads += [
                threading.Thread(target=list_writer, args=(port, corpus, stop, log, 99)),
                threading.Thread(target=profile_writer, args=(port, corpus, stop, log, 98)),
                threading.Thread(target=sampler, args=(server.pid, stop, log, start, 5.0)),
                threading.Thread(
                    target=writer_loop,
                    args=(
                        writers,
                        corpus,
                        folder,
                        stop,
                        args.writer_every,
                        args.records,
                        args.venues,
                        files,
                        index_args,
                        live,
                    ),
                ),
            ]
            for thread in threads:
                thread.start()
            stop.wait(seconds)
            stop.set()
            for thread in threads:
                thread.join()
            log.rss.append((time.monotonic() - start, process_tree_rss_mb(server.pid)))
        problems = check_store(db, files, live)
    report = summary(log, seconds, warmup) | {"store_problems": problems, "machine": machine(), "backend": args.backend}
    verdict = print_report(report, args.rss_growth_mb)
    if args.json:
        args.json.write_text(json.dumps(report | {"verdict": verdict}, indent=1))
    sys.exit(0 if verdict == "PASS" else 1)


def print_report(report: dict, bound: float) -> str:  # type: ignore[type-arg]
    """Print the report; return PASS or FAIL."""
    seconds = report["seconds"]
    print(
        f"{seconds:g} s of load: {report['requests']:,} requests ({report['requests'] / seconds:.0f}/s), "
        f"errors {report['errors']}, unexpected 4xx {report['client_errors']}"
    )
    print(f"  {'kind':<13} {'requests':>8} {'errors':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for kind, k in report["kinds"].items():
        print(
            f"  {kind:<13} {k['requests']:>8} {k['errors']:>6} {k['p50_ms']:>8.1f} {k['p95_ms']:>8.1f}"
            f" {k['p99_ms']:>8.1f} {k['max_ms']:>8.1f}"
        )
    print(
        f"  writes told to retry (503 with Retry-After while a writer held the store), then asked again: "
        f"{report['retried_503']}"
    )
    for kind, split in report["writes_split"].items():
        parts = ", ".join(f"{name} {ms:.0f}" for name, ms in split["slowest_parts_ms"].items())
        tails = ", ".join(f"{name[:-7]} {ms:.0f}" for name, ms in split.items() if name.endswith("_p99_ms"))
        print(f"  {kind}: slowest answer {split['slowest_seen_ms']:.0f} ms = {parts} (server's parts, ms); p99 {tails}")
    for error in report["first_errors"] + report["first_client_errors"]:
        print(f"  error: {error}")
    rss = report["rss_mb"]
    print(
        f"server RSS: start {rss['start']:.0f} MB, after warm-up {rss['after_warmup']:.0f} MB, max {rss['max']:.0f}"
        f" MB, end {rss['end']:.0f} MB; growth after warm-up {rss['growth_after_warmup']:.0f} MB"
        f" (bound {bound:g})"
    )
    print("  series (s, MB): " + ", ".join(f"{t}:{mb}" for t, mb in rss["series"]))
    for kind, outcomes in report["writers"].items():
        print(f"writer {kind}: " + ", ".join(f"{n} {outcome}" for outcome, n in sorted(outcomes.items())))
    for failure in report["writer_failures"][:8]:
        print(f"  writer failed: {failure}")
    for problem in report["store_problems"]:
        print(f"store: {problem}")
    if not report["store_problems"]:
        print("store: sound; every ingested venue holds exactly its file's records, the fetched one the server's")
    ok = not report["errors"] and not report["writer_failures"] and not report["store_problems"]
    verdict = "PASS" if ok and rss["growth_after_warmup"] < bound else "FAIL"
    print(f"verdict: {verdict} (no request errors, no failed writer runs, a sound store, RSS growth < {bound:g} MB)")
    return verdict


if __name__ == "__main__":
    main()
