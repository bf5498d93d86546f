"""Speed of `experts` in a large store: the 96,000-paper, 250-venue store of benchmarks/ingest_many.py (keyword
search: the store holds no vectors), five topics asked of one venue and of the whole store, warm.

With --baseline SRC the same questions are asked of another confnav checkout's src folder, on the same store, in
the same run (each version in a fresh process).
Run: python benchmarks/experts_speed.py [--db STORE] [--baseline OLD_SRC]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import machine
from ingest_many import make_input

TOPICS = (
    "graph neural networks",
    "reinforcement learning",
    "adversarial robustness",
    "image segmentation",
    "language models",
)


def timings(db: str) -> dict[str, object]:
    """Child mode: the first question (which builds the keyword index) and each topic's seconds per scope."""
    from confnav.search.engine import Searcher
    from confnav.search.experts import find_experts
    from confnav.store import open_store

    with open_store(db, read_only=True) as store:
        venues = sorted(v.id for v in store.venue_list())
        venue = venues[len(venues) // 2]
        searcher = Searcher(store)
        start = time.perf_counter()
        find_experts(searcher, "learning", venue)
        result: dict[str, object] = {"first": time.perf_counter() - start, "asked": venue}
        for label, scope in (("venue", venue), ("store", None)):
            seconds = []
            for topic in TOPICS:
                start = time.perf_counter()
                find_experts(searcher, topic, scope)
                seconds.append(time.perf_counter() - start)
            result[label] = seconds
    return result


def run(db: str, src: Path | None) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(src.resolve())} if src else None
    done = subprocess.run(
        [sys.executable, str(Path(__file__)), "--child", db], capture_output=True, text=True, check=True, env=env
    )
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", help="a store made by ingest_many's input (else one is built: about a minute)")
    parser.add_argument("--baseline", type=Path, metavar="SRC", help="another checkout's src folder, same store")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(timings(args.child)))
        return
    print(f"# experts speed ({machine()})")
    with tempfile.TemporaryDirectory() as name:
        db = args.db
        if db is None:
            from confnav.ingest import ingest
            from confnav.store import open_store

            inputs = Path(name) / "inputs"
            inputs.mkdir()
            db = str(Path(name) / "experts.db")
            with open_store(db, create=True) as store:
                ingest(store, make_input(inputs, 250, 96_000))
        versions = [("this version", None)] + ([(f"baseline {args.baseline}", args.baseline)] if args.baseline else [])
        for label, src in versions:
            found = run(db, src)
            venue, whole = found["asked"], found["store"]
            print(f"{label}: first question {found['first']:.2f} s (builds the keyword index)")
            print(f"  one venue ({venue}): median {statistics.median(found['venue']):.3f} s over {len(TOPICS)} topics")
            print(f"  whole store: median {statistics.median(whole):.2f} s over {len(TOPICS)} topics")


if __name__ == "__main__":
    main()
