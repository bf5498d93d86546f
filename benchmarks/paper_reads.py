"""Time to read every paper of a store into memory (what a search corpus, a worker's start and a ranking do
first), as a serving process does it: while it still holds the papers it read before.

Each version runs in a fresh process on the same store, alternating, `--runs` reads each; with --baseline SRC
another confnav checkout's src folder is timed in the same run.
Run: python benchmarks/paper_reads.py --db STORE [--baseline OLD_SRC] [--rounds 3] [--runs 8]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ROOT, machine, peak_rss_mb, run_child

HELD = 2  # earlier reads still alive, as a corpus is while the next one is made


def timings(db: str, runs: int) -> dict[str, object]:
    """Child mode: seconds of each whole read of the store's papers, the earlier reads held."""
    from confnav.store import open_store

    seconds: list[float] = []
    held: list[list[object]] = []
    with open_store(db, read_only=True) as store:
        for _ in range(runs):
            store.caches.rows.clear()
            start = time.perf_counter()
            held.append(list(store.paper_rows()))
            seconds.append(time.perf_counter() - start)
            del held[:-HELD]
        papers = len(held[-1])
    return {"papers": papers, "seconds": seconds, "rss_mb": peak_rss_mb()}


def child(src: Path, db: str, runs: int) -> dict[str, object]:
    result: dict[str, object] = json.loads(
        run_child(Path(__file__), "--child", "--db", db, "--runs", str(runs), src=src)
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a SQLite store (e.g. benchmarks/ingest_many.py's)")
    parser.add_argument("--baseline", type=Path, help="another confnav checkout's src folder, timed alike")
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes per version, alternating")
    parser.add_argument("--runs", type=int, default=8, help="whole reads per process (the first is left out)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(timings(args.db, args.runs)))
        return
    versions = {"this": ROOT / "src", **({"baseline": args.baseline} if args.baseline else {})}
    reads: dict[str, list[float]] = {name: [] for name in versions}
    rss: dict[str, float] = {}
    papers = 0
    for _ in range(args.rounds):
        for name, src in versions.items():
            result = child(src, args.db, args.runs)
            seconds = result["seconds"]
            assert isinstance(seconds, list)
            reads[name] += seconds[1:]  # the first read also warms the file cache and the imports
            rss[name] = max(rss.get(name, 0.0), float(str(result["rss_mb"])))
            papers = int(str(result["papers"]))
    print(f"machine: {machine()}")
    print(f"store: {args.db} ({papers:,} papers), {args.rounds} processes x {args.runs - 1} reads per version")
    for name, values in reads.items():
        line = f"{name}: median {statistics.median(values):.3f} s, best {min(values):.3f} s"
        line += f", peak RSS {rss[name]:.0f} MB"
        if name == "baseline":
            ratio = statistics.median(reads["this"]) / statistics.median(values)
            line += f"; this / baseline = {ratio:.2f}x"
        print(line)


if __name__ == "__main__":
    main()
