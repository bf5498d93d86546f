"""Time ingest of the three ICLR 2021 files into a fresh store (median of 5 runs) and report peak memory.

Each run is a fresh process, so its peak RSS is that of one whole ingest.
Goal (issue 2): at most 3 s and 300 MB on the 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ICLR2021, machine, median, peak_rss_mb, run_child


def one_run() -> None:
    """Child mode: ingest into a fresh store, print seconds and peak MB as JSON."""
    from confnav.ingest import ingest
    from confnav.store import SqliteStore

    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        with SqliteStore(Path(folder) / "bench.db") as store:
            result = ingest(store, ICLR2021)
        seconds = time.perf_counter() - start
    assert result.added == 3014, result.added
    print(json.dumps({"seconds": seconds, "peak_mb": peak_rss_mb()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        one_run()
        return
    runs = [json.loads(run_child(Path(__file__), "--child")) for _ in range(args.runs)]
    seconds = median([r["seconds"] for r in runs])
    peak = max(r["peak_mb"] for r in runs)
    print(f"machine: {machine()}")
    print(f"ingest ICLR 2021 (3 files, 3,014 papers) into a fresh store, {args.runs} runs")
    each = ", ".join(f"{r['seconds']:.2f}" for r in runs)
    print(f"  median {seconds:.2f} s (runs: {each}); goal <= 3 s")
    print(f"  peak RSS {peak:.0f} MB (whole process); goal <= 300 MB")


if __name__ == "__main__":
    main()
