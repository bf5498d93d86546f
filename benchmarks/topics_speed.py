"""CPU and wall time of one theme build (`TopicBuilder.build`: cluster, sub-themes, labels, map) on ICLR 2021 indexed
by the TF-IDF embedder, for this confnav and a baseline version in the same run; and whether the two build the same
themes, labels, keywords, sub-themes and map, there and on other venues.

Each build runs in a new process on its own copy of the store (the baseline with its own source on PYTHONPATH) and
dumps the stored themes and assignments; the dumps are compared byte for byte. The baseline is a git revision
(default: main), checked out into a temporary worktree, or a source folder (`--baseline-src`).
Run: python benchmarks/topics_speed.py [--db INDEXED.db] [--baseline REV | --baseline-src SRC] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import DATA, ICLR2021, ROOT, machine, median

TIMED = "iclr2021"
COMPARED = {"neurips2018": DATA / "paperlists" / "nips2018.json", "cvpr2019": DATA / "paperlists" / "cvpr2019.json"}


def indexed_store(path: Path) -> None:
    """ICLR 2021 and the compared paperlists venues in one store, indexed by the TF-IDF embedder."""
    from confnav.embed.sparse import SparseEmbedder
    from confnav.index import build_index
    from confnav.ingest import ingest
    from confnav.store import SqliteStore

    with SqliteStore(path) as store:
        ingest(store, [*ICLR2021, *COMPARED.values()])
        build_index(store, SparseEmbedder())


STEPS = (("clusterer", "fit_predict"), ("labeler", "label"), ("layout", "fit_transform"))


def child(db: Path, venue: str, out: Path) -> None:
    """Build the venue's themes in `db` (the confnav on PYTHONPATH), print its CPU and wall seconds (and the CPU of
    the clustering, labels and map steps), dump the result."""
    from confnav.store import SqliteStore
    from confnav.topics import TopicBuilder

    with SqliteStore(db) as store:
        builder = TopicBuilder.from_settings(store.settings)
        steps = {name: 0.0 for name, _ in STEPS}
        for name, method in STEPS:
            setattr(getattr(builder, name), method, timed(getattr(getattr(builder, name), method), steps, name))
        start, started = time.perf_counter(), time.process_time()
        builder.build(store, venue)
        cpu, wall = time.process_time() - started, time.perf_counter() - start
        themes = [[t.id, t.level, t.parent, t.label, t.data] for t in store.themes(venue)]
        where = store.assignments(venue)
        placed = [[pk, *(getattr(where[pk], f) for f in ("theme", "subtheme", "confidence", "x", "y"))] for pk in where]
    out.write_text(json.dumps({"themes": themes, "assignments": sorted(placed)}, sort_keys=True))
    print(json.dumps({"cpu": cpu, "wall": wall, "steps": steps}))


def timed(step: Any, spent: dict[str, float], name: str) -> Any:
    """The step, its CPU seconds added to `spent[name]` at each call."""

    def call(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return step(*args, **kwargs)
        finally:
            spent[name] += time.process_time() - started

    return call


def build_by(source: Path, db: Path, venue: str, folder: Path, name: str) -> tuple[float, float, dict[str, float], str]:
    """One build of the venue by the confnav in `source`, in a new process on a copy of `db`: CPU s, wall s, the CPU
    s of each step, the dump."""
    copy, out = folder / f"{name}.db", folder / f"{name}.json"
    shutil.copy(db, copy)
    env = {**os.environ, "PYTHONPATH": str(source)}
    command = [sys.executable, __file__, "--child", str(copy), venue, str(out)]
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    copy.unlink()
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return figures["cpu"], figures["wall"], figures["steps"], out.read_text()


def baseline_source(rev: str, folder: Path) -> Path:
    """The source folder of `rev`, checked out into a detached worktree under `folder`."""
    tree = folder / "baseline"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev], check=True, capture_output=True
    )
    return tree / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, help="A store with ICLR 2021, NeurIPS 2018 and CVPR 2019, TF-IDF indexed")
    parser.add_argument("--baseline", default="main", help="git revision to compare with (default: main)")
    parser.add_argument("--baseline-src", type=Path, help="a source folder to compare with, instead of a revision")
    parser.add_argument("--runs", type=int, default=1, help="timed builds of ICLR 2021 by each version")
    parser.add_argument("--child", nargs=3, metavar=("DB", "VENUE", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), args.child[1], Path(args.child[2]))
        return
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        db = folder / "indexed.db"
        if args.db:
            shutil.copy(args.db, db)
        else:
            indexed_store(db)
        old = args.baseline_src.resolve() if args.baseline_src else baseline_source(args.baseline, folder)
        try:
            compare(db, old, folder, args.runs, args.baseline_src or args.baseline)
        finally:
            if not args.baseline_src:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old.parent)], check=True)


def compare(db: Path, old: Path, folder: Path, runs: int, baseline: object) -> None:
    """Time ICLR 2021's build by both versions, alternating, then check every venue's output is the same."""
    timings: dict[str, list[tuple[float, float, dict[str, float]]]] = {"baseline": [], "this": []}
    dumps: dict[tuple[str, str], str] = {}
    for run in range(runs):
        for version, source in (("baseline", old), ("this", ROOT / "src")):
            cpu, wall, steps, dumps[version, TIMED] = build_by(source, db, TIMED, folder, f"{version}-{run}")
            timings[version].append((cpu, wall, steps))
    for venue in COMPARED:
        for version, source in (("baseline", old), ("this", ROOT / "src")):
            dumps[version, venue] = build_by(source, db, venue, folder, f"{version}-{venue}")[3]
    print(f"one theme build of {TIMED} (TF-IDF vectors), median of {runs}; CPU-s of the steps (imports inside):")
    total: dict[str, float] = {}
    for version, name in (("baseline", f"baseline ({baseline})"), ("this", "this")):
        total[version] = median([c for c, _, _ in timings[version]])
        shown = ", ".join(f"{s} {median([t[s] for _, _, t in timings[version]]):.1f}" for s, _ in STEPS)
        elapsed = median([w for _, w, _ in timings[version]])
        print(f"  {name}: {total[version]:.1f} CPU-s, {elapsed:.1f} s wall ({shown})")
    print(f"  CPU ratio (baseline / this): {total['baseline'] / total['this']:.2f}x")
    for venue in (TIMED, *COMPARED):
        same = dumps["baseline", venue] == dumps["this", venue]
        themes = len(json.loads(dumps["this", venue])["themes"])
        print(f"  {venue}: {themes} themes and sub-themes, output {'identical' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
