"""Soak: `confnav serve` under mixed reads and writes for a long time, with writer processes killed (kill -9).

Builds an ICLR 2021 store (ingest of the three real files, then `confnav index`) in a temporary folder, serves
it, and for `--minutes` runs at once: reader threads (search with varied filters, paper, similar, stats, rank,
the home, search and paper pages), a reading-list writer (create, add, remove, delete through the API), and a
writer-process loop (`confnav ingest` of synthetic venues made by recombining real ICLR titles, abstracts
and authors: new venues at first, then the same venues' papers rewritten, so the store reaches a steady size; a
re-ingest of an existing file; `confnav index`), some of whose runs are killed at a random
moment and then run again to completion. The server's memory (with its worker processes) is sampled throughout.

Reports requests, errors (5xx, connection errors, answers slower than 10 s; writer runs that failed),
latency per kind, memory over time and writer runs, then checks the store (PRAGMA integrity_check; each
ingested venue holds exactly its file's records). PASS needs no error, a sound store and memory growth after
warm-up under `--rss-growth-mb`; exit code 1 otherwise.
"""

from __future__ import annotations

import argparse
import csv
import http.client
import json
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlencode

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ICLR2021, confnav_server, machine

CONFNAV = str(Path(sys.executable).parent / "confnav")
TIMEOUT = 10.0
IDLE = 4.0  # seconds a client reuses an idle keep-alive connection (the server keeps one open 5 s)
TOPICS = [
    "graph neural networks",
    "offline reinforcement learning",
    "adversarial robustness",
    "contrastive learning",
    "federated learning privacy",
    "transformers long sequences",
    "meta-learning few-shot",
    "normalizing flows",
    "knowledge distillation",
    "neural architecture search",
    "implicit bias gradient descent",
    "protein",
    '"neural tangent kernel"',
    "author:Sergey Levine",
    "diffusion",
    "lottery ticket pruning",
]
READS = {
    "search": 30,
    "paper": 15,
    "similar": 8,
    "stats": 4,
    "rank": 1,
    "page:home": 4,
    "page:search": 10,
    "page:paper": 10,
}


@dataclass
class Corpus:
    """Real ICLR 2021 parts to draw requests and synthetic records from."""

    ids: list[str]
    titles: list[str]
    abstracts: list[str]
    authors: list[list[str]]
    keywords: list[str]
    statuses: list[str]
    ratings: list[str]

    @classmethod
    def load(cls) -> Corpus:
        with ICLR2021[0].open(encoding="utf-8") as table:
            abstracts = [row["abstract"] for row in csv.DictReader(table, delimiter="\t") if row["abstract"]]
        items = json.loads(ICLR2021[2].read_text(encoding="utf-8"))
        return cls(
            ids=[i["id"] for i in items],
            titles=[i["title"] for i in items],
            abstracts=abstracts,
            authors=[i["author"].split(";") for i in items if i.get("author")],
            keywords=sorted({k.strip() for i in items for k in i.get("keywords", "").split(";") if k.strip()}),
            statuses=[i["status"] for i in items],
            ratings=[i["rating"] for i in items if i.get("rating")],
        )


def synthetic_venue(corpus: Corpus, folder: Path, slot: int, turn: int, records: int) -> tuple[str, Path, list[str]]:
    """A JSONL file of `records` realistic records (parts of real records recombined) of the venue in `slot`:
    its venue id, path and paper ids. Each turn rewrites the same papers (same ids) with other contents."""
    rng = random.Random(turn)
    letters = "".join(chr(97 + int(d)) for d in str(slot))
    venue = f"soak{letters}2024"
    path, ids = folder / f"{venue}.jsonl", [f"{venue}-{i}" for i in range(records)]
    with path.open("w", encoding="utf-8") as out:
        for paper_id in ids:
            first, second = rng.choice(corpus.titles).split(), rng.choice(corpus.titles).split()
            sentences = [s for a in rng.sample(corpus.abstracts, 3) for s in a.split(". ")[:2]]
            record = {
                "id": paper_id,
                "title": " ".join(first[: len(first) // 2 + 1] + second[len(second) // 2 :]),
                "abstract": ". ".join(rng.sample(sentences, min(4, len(sentences)))),
                "authors": rng.choice(corpus.authors)[:3] + rng.choice(corpus.authors)[:2],
                "keywords": rng.sample(corpus.keywords, 3),
                "decision": rng.choice(corpus.statuses),
                "ratings": rng.choice(corpus.ratings),
            }
            out.write(json.dumps(record) + "\n")
    return venue, path, ids


@dataclass
class Log:
    """Everything measured, appended to by every thread (list appends are atomic)."""

    requests: list[tuple[str, float, str | None]] = field(default_factory=list)  # kind, seconds, error
    rss: list[tuple[float, float]] = field(default_factory=list)  # seconds since start, MB
    writers: list[dict[str, object]] = field(default_factory=list)
    client_errors: list[str] = field(default_factory=list)  # unexpected 4xx: reported, not counted as errors
    retries: list[str] = field(default_factory=list)  # 503 with Retry-After (a write waited on a writer), retried


class Client:
    """One keep-alive connection that reconnects after a failure and logs every request."""

    def __init__(self, port: int, log: Log) -> None:
        self.port, self.log = port, log
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        self.last_used = time.monotonic()

    def call(self, kind: str, method: str, path: str, body: dict[str, str] | None = None) -> bytes | None:
        """One request as a client does it: a 503 with Retry-After (the store was busy with a writer) is asked
        again after the time it names, up to three times; only a final failure counts as an error."""
        for _ in range(3):
            payload, retry_after = self._once(kind, method, path, body)
            if retry_after is None:
                return payload
            self.log.retries.append(f"{method} {path}")
            time.sleep(retry_after)
        return self._once(kind, method, path, body)[0]

    def _once(
        self, kind: str, method: str, path: str, body: dict[str, str] | None
    ) -> tuple[bytes | None, float | None]:
        """The answer's body (None on an error), and the seconds to wait when it was a 503 with Retry-After."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data else {}
        if time.monotonic() - self.last_used > IDLE:  # the server closes idle connections: start a new one, as
            self.connection.close()  # pooling clients do, rather than race its close with a request
        start = time.perf_counter()
        error, payload, retry_after = None, None, None
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
            payload = response.read()
            if response.status == 503 and response.getheader("Retry-After", "").isdigit():
                retry_after = min(float(response.getheader("Retry-After", "1")), 10.0)
                self.log.requests.append((kind, time.perf_counter() - start, None))
                self.last_used = time.monotonic()
                return None, retry_after
            if response.status >= 500:
                error = f"HTTP {response.status} {method} {path}: {payload[:200].decode(errors='replace')}"
            elif response.status >= 400:
                self.log.client_errors.append(f"HTTP {response.status} {method} {path}: {payload[:200]!r}")
        except TimeoutError:
            error = f"timeout > {TIMEOUT:g} s: {method} {path}"
        except (OSError, http.client.HTTPException) as exc:
            error = f"connection error {type(exc).__name__}: {exc} ({method} {path})"
        if error:
            self.connection.close()
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        self.log.requests.append((kind, time.perf_counter() - start, error))
        self.last_used = time.monotonic()
        return (None if error else payload), None


def reader(port: int, corpus: Corpus, stop: threading.Event, log: Log, seed: int) -> None:
    """Closed-loop reads of every kind, drawn by weight."""
    rng, client = random.Random(seed), Client(port, log)
    kinds, weights = list(READS), list(READS.values())
    while not stop.is_set():
        kind = rng.choices(kinds, weights)[0]
        paper = quote(rng.choice(corpus.ids))
        query = rng.choice([rng.choice(TOPICS), rng.choice(corpus.titles), " ".join(rng.sample(corpus.keywords, 2))])
        params = {"q": query, "limit": rng.choice([10, 20, 50]), "mode": rng.choice(["hybrid", "keyword", "semantic"])}
        if rng.random() < 0.5:
            filters = [
                {"venue": "iclr2021"},
                {"decision": "accepted"},
                {"min_rating": 6},
                {"sort": "rating"},
                {"offset": 20},
                {"keyword": rng.choice(corpus.keywords)},
            ]
            params |= rng.choice(filters)
        path = {
            "search": f"/api/search?{urlencode(params)}",
            "paper": f"/api/paper/{paper}",
            "similar": f"/api/similar/{paper}",
            "stats": "/api/stats?venue=iclr2021",
            "rank": "/api/rank?venue=iclr2021",
            "page:home": "/",
            "page:search": f"/search?q={quote(query)}",
            "page:paper": f"/paper/{paper}",
        }[kind]
        client.call(kind, "GET", path)


def list_writer(port: int, corpus: Corpus, stop: threading.Event, log: Log, seed: int) -> None:
    """Reading lists made, filled, thinned and deleted through the API, one after another."""
    rng, client = random.Random(seed), Client(port, log)
    number = 0
    while not stop.is_set():
        name, number = f"soak list {number}", number + 1
        client.call("list:create", "POST", "/api/lists", {"name": name})
        papers = rng.sample(corpus.ids, rng.randint(3, 12))
        for paper in papers:
            client.call("list:add", "POST", f"/api/lists/{quote(name)}/papers", {"id": paper, "venue": "iclr2021"})
        for paper in papers[: len(papers) // 3]:
            client.call("list:remove", "DELETE", f"/api/lists/{quote(name)}/papers/{quote(paper)}")
        if rng.random() < 0.8:  # a few lists stay
            client.call("list:delete", "DELETE", f"/api/lists/{quote(name)}")
        stop.wait(rng.uniform(0.2, 1.0))


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
) -> None:
    """Every `every` seconds one writer job: ingest a synthetic venue (half the jobs), re-ingest a file, or index.
    The first `venues` ingests add new venues; later ones rewrite those venues' papers, so the store stops growing
    while the writes go on (memory must then stop growing too)."""
    number = 0
    while not stop.wait(every):
        turn = number % 6
        if turn in (0, 2, 4):
            slot = (number // 2) % venues
            venue, path, ids = synthetic_venue(corpus, folder, slot, number, records)
            files[venue] = (path, ids)
            writers.run("ingest", "ingest", str(path), "--venue", venue)
        elif turn == 3 and files:
            path, _ = files[min(files)]
            writers.run("re-ingest", "ingest", str(path), "--venue", min(files))
        else:
            writers.run("index", "index", *index_args)
        number += 1


def check_store(db: Path, files: dict[str, tuple[Path, list[str]]]) -> list[str]:
    """Problems found in the store after the run: integrity, and venues whose papers differ from their file."""
    problems = []
    with sqlite3.connect(db) as conn:
        if (result := conn.execute("PRAGMA integrity_check").fetchall()) != [("ok",)]:
            problems.append(f"integrity_check: {result[:5]}")
        for venue, (_, ids) in sorted(files.items()):
            stored = [row[0] for row in conn.execute("SELECT id FROM papers WHERE venue = ?", (venue,))]
            if len(stored) != len(ids) or set(stored) != set(ids):
                problems.append(f"{venue}: {len(stored)} papers ({len(set(stored))} distinct), file has {len(ids)}")
    return problems


def summary(log: Log, seconds: float, warmup: float) -> dict[str, object]:
    """Per-kind counts, errors and latency; memory over time; writer outcomes."""
    by_kind: dict[str, list[float]] = defaultdict(list)
    errors = [(kind, error) for kind, _, error in log.requests if error]
    for kind, latency, _ in log.requests:
        by_kind[kind].append(latency * 1000)
    kinds = {
        kind: {
            "requests": len(ms),
            "errors": sum(1 for k, _ in errors if k == kind),
            **{f"p{p}_ms": float(np.percentile(ms, p)) for p in (50, 95, 99)},
            "max_ms": max(ms),
        }
        for kind, ms in sorted(by_kind.items())
    }
    rss = [mb for _, mb in log.rss]
    after = [mb for t, mb in log.rss if t >= warmup] or rss[-1:]
    step = max(1, len(log.rss) // 12)
    writers: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for run in log.writers:
        writers[str(run["kind"])][str(run["outcome"])] += 1
    return {
        "seconds": seconds,
        "requests": len(log.requests),
        "kinds": kinds,
        "errors": len(errors),
        "first_errors": [e for _, e in errors[:8]],
        "client_errors": len(log.client_errors),
        "first_client_errors": log.client_errors[:5],
        "retried_503": len(log.retries),
        "rss_mb": {
            "start": rss[0],
            "after_warmup": after[0],
            "max": max(rss),
            "end": rss[-1],
            "growth_after_warmup": max(after) - after[0],
            "series": [(round(t), round(mb)) for t, mb in log.rss[::step]],
        },
        "writers": {k: dict(v) for k, v in writers.items()},
        "writer_failures": [f"{r['kind']}: {r['error']}" for r in log.writers if r["outcome"] == "failed"],
    }


def build_store(folder: Path, index_args: list[str]) -> Path:
    db = folder / "soak.db"
    for args in (["ingest", *map(str, ICLR2021)], ["index", *index_args]):
        subprocess.run([CONFNAV, *args, "--db", str(db), "-q"], check=True, stdout=subprocess.DEVNULL)
    return db


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
        db = build_store(folder, index_args)
        files: dict[str, tuple[Path, list[str]]] = {}
        serve_args = ["--workers", str(args.workers)] if args.workers > 1 else []
        with confnav_server(str(db), *serve_args) as (port, server):
            stop, start = threading.Event(), time.monotonic()
            writers = Writers(db, log, rng, args.kill_share)
            threads = [threading.Thread(target=reader, args=(port, corpus, stop, log, i)) for i in range(args.readers)]
            threads += [
                threading.Thread(target=list_writer, args=(port, corpus, stop, log, 99)),
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
        problems = check_store(db, files)
    report = summary(log, seconds, warmup) | {"store_problems": problems, "machine": machine()}
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
        print("store: integrity_check ok; every ingested venue holds exactly its file's records")
    ok = not report["errors"] and not report["writer_failures"] and not report["store_problems"]
    verdict = "PASS" if ok and rss["growth_after_warmup"] < bound else "FAIL"
    print(f"verdict: {verdict} (no request errors, no failed writer runs, a sound store, RSS growth < {bound:g} MB)")
    return verdict


if __name__ == "__main__":
    main()
