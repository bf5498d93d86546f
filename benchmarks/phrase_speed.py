"""Serving workers' query latency by kind of query (plain, filtered, phrase, phrase with a rating filter) on a large
store, this version against a baseline checkout, run interleaved in fresh worker processes (the machine may be
shared: compare ratios within one run), and whether both answer every query with the same papers in the same order.

    python benchmarks/phrase_speed.py STORE --seed-db ICLR2021_DB --baseline OTHER/src [--rounds 3] [--queries 20]

STORE is a store `benchmarks/scale.py --keep` built (its papers are copies of the seed store's ICLR 2021 papers).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from confnav.store import PaperFilter
from scale import environment, seed
from search_speed import queries

KINDS = ("plain", "filtered", "phrase", "phrase+rating")
WORKER = """
import json, sys, time
sys.path.insert(0, sys.argv[3])
from phrase_speed import workloads
from confnav.search.engine import Searcher
from confnav.settings import Settings
from confnav.store import open_store
start = time.perf_counter()
store = open_store(sys.argv[1], settings=Settings().replace(serving=True))
searcher = Searcher(store)
searcher.warm()
report = {"start": time.perf_counter() - start}
timed, warming = workloads(sys.argv[2], 7), workloads(sys.argv[2], 8)
for kind, work in timed.items():
    work = work[: int(sys.argv[4])]
    for text, where in warming[kind][:5]:  # each filter's row mask is built once per store state
        searcher.search(text, where=where)
    times, answers = [], []
    for text, where in work:
        began = time.perf_counter()
        results = searcher.search(text, where=where)
        times.append((time.perf_counter() - began) * 1000)
        answers.append([[h.paper.venue, h.paper.id] for h in results.hits] + [results.matching])
    report[kind] = {"times": times, "answers": answers}
print(json.dumps(report))
"""


def workloads(seed_db: str, rng_seed: int) -> dict[str, list[tuple[str, PaperFilter]]]:
    """The queries of each kind (search_speed's varied queries, sorted by what they ask)."""
    papers = seed(Path(seed_db))[0]
    made = queries(papers, 240, rng_seed)
    plain = [(t, w) for t, w in made if w == PaperFilter() and '"' not in t]
    phrased = [(t, w) for t, w in made if w.min_rating is not None]
    accepted = [(t, w) for t, w in made if w.decision is not None]
    return {
        "plain": plain[:40],
        "filtered": accepted + [(t, replace(w, venue="synth0003")) for t, w in plain[:20]],
        "phrase": [(t, PaperFilter()) for t, _ in phrased],
        "phrase+rating": phrased,
    }


def run(location: str, seed_db: str, src: str | None, count: int) -> dict:
    """One fresh serving worker of the code at `src`: its start and the time and answer of `count` queries of each
    kind."""
    command = [sys.executable, "-c", WORKER, location, seed_db, str(Path(__file__).resolve().parent), str(count)]
    done = subprocess.run(command, env=environment(src), capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("store")
    parser.add_argument("--seed-db", required=True)
    parser.add_argument("--baseline", required=True, help="the source folder of the version to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=20, help="queries of each kind per run")
    options = parser.parse_args()
    this = str(Path(__file__).resolve().parents[1] / "src")
    versions = {"baseline": options.baseline, "this version": this}
    runs: dict[str, list[dict]] = {label: [] for label in versions}
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for turn in range(options.rounds):  # which goes first alternates: the first reads the shared files from disk
        for label, src in list(versions.items())[:: 1 if turn % 2 == 0 else -1]:
            runs[label].append(run(options.store, options.seed_db, src, options.queries))
            medians = ", ".join(f"{k} {np.median(runs[label][-1][k]['times']):.0f}" for k in KINDS)
            print(f"  run of {label}: median ms {medians}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for kind in KINDS:
        counts = len(runs["baseline"][0][kind]["times"])
        print(f"  {kind} ({counts} queries × {options.rounds} rounds):")
        figures = {}
        for label, done in runs.items():
            times = np.concatenate([r[kind]["times"] for r in done])
            figures[label] = np.percentile(times, [50, 95, 99])
            p50, p95, p99 = figures[label]
            print(f"    {label:12} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  p99 {p99:6.1f} ms")
        ratio = figures["this version"] / figures["baseline"]
        print(f"    ratio        p50 {ratio[0]:6.2f}     p95 {ratio[1]:6.2f}     p99 {ratio[2]:6.2f}")
        same = all(r[kind]["answers"] == runs["baseline"][0][kind]["answers"] for done in runs.values() for r in done)
        print(f"    same papers, order and count in every run: {same}")
    for label, done in runs.items():
        starts = ", ".join(f"{r['start']:.1f}" for r in done)
        print(f"  {label}: worker start {starts} s (the first run of a version writes the files it lacks)")


if __name__ == "__main__":
    main()
