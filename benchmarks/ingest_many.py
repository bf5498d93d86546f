"""Ingest about 250 paperlists files (96,000 records, ~60 venues' worth) in one call, then again unchanged.

The input is made from the eight real paperlists-format files in ../shared/data:
file i takes a slice of real file i mod 8 under its own conference-year, so every
shape (no ids, comma-separated authors, workshop labels, no abstracts) recurs.
Goal (issue 11): first ingest <= 60 s with peak RSS <= 1.5 GB; ingesting again unchanged <= 30 s.
Each ingest runs in a fresh process, so its peak RSS is that of the whole ingest.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import DATA, machine, peak_rss_mb, run_child

SOURCES = [
    *sorted((DATA / "paperlists").glob("*.json")),
    DATA / "iclr2020" / "paperlists-iclr2020.json",
    DATA / "iclr2021" / "paperlists-iclr2021.json",
]


def make_input(folder: Path, files: int, records: int) -> list[Path]:
    """`files` paperlists files holding `records` records in all, each cut from one real file under its own
    conference-year; a file longer than its source repeats records with their titles and ids marked."""
    loaded = [json.loads(path.read_text()) for path in SOURCES]
    series = [
        f"{path.stem.replace('paperlists-', '').rstrip('0123456789')}{'abcdefgh'[i]}" for i, path in enumerate(SOURCES)
    ]
    per_file = records // files
    paths = []
    for i in range(files):
        items = loaded[i % len(loaded)]
        positions = range(i * per_file, (i + 1) * per_file)
        chunk = [_copy(items[n % len(items)], n // len(items)) for n in positions]
        path = folder / f"{series[i % len(loaded)]}{1900 + i // len(loaded)}.json"
        path.write_text(json.dumps(chunk))
        paths.append(path)
    return paths


def _copy(item: dict[str, object], repeat: int) -> dict[str, object]:
    """A record as is, or its `repeat`-th copy with title and ids marked so that it is another paper."""
    if not repeat:
        return item
    marked = {key: f"{value} r{repeat}" if key == "title" else value for key, value in item.items()}
    for key in ("id", "pid", "ssid"):
        if marked.get(key):
            marked[key] = f"{marked[key]}-r{repeat}"
    return marked


def one_run(db: Path, inputs: Path, skip_bad: bool) -> None:
    """Child mode: ingest every file of `inputs` in one call; print seconds, counts and peak MB."""
    from confnav.ingest import ingest
    from confnav.store import SqliteStore

    paths = sorted(inputs.glob("*.json"))
    start = time.perf_counter()
    with SqliteStore(db) as store:
        result = ingest(store, paths, skip_bad=skip_bad)
    seconds = time.perf_counter() - start
    counts = {"added": result.added, "updated": result.updated, "unchanged": result.unchanged}
    print(json.dumps({"seconds": seconds, "peak_mb": peak_rss_mb(), "venues": len(result.venues)} | counts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=250)
    parser.add_argument("--records", type=int, default=96_000)
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="SRC",
        help="Also run another confnav checkout's src folder on the same input (with skip-bad: older versions refuse"
        " records they cannot read)",
    )
    parser.add_argument("--child", nargs=2, metavar=("DB", "INPUTS"), help=argparse.SUPPRESS)
    parser.add_argument("--skip-bad", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        one_run(Path(args.child[0]), Path(args.child[1]), args.skip_bad)
        return
    with tempfile.TemporaryDirectory() as folder:
        inputs = Path(folder) / "inputs"
        inputs.mkdir()
        paths = make_input(inputs, args.files, args.records)
        total = sum(len(json.loads(p.read_text())) for p in paths)
        db = Path(folder) / "many.db"
        first = json.loads(run_child(Path(__file__), "--child", str(db), str(inputs)))
        again = json.loads(run_child(Path(__file__), "--child", str(db), str(inputs)))
        size = db.stat().st_size / 2**20
        base = _baseline(args.baseline, Path(folder), inputs) if args.baseline else None
    print(f"machine: {machine()}")
    print(f"ingest {len(paths)} paperlists files, {total:,} records, {first['venues']} venues, in one call")
    print(
        f"  first:  {first['seconds']:.1f} s, {first['added']:,} papers added, peak RSS {first['peak_mb']:.0f} MB;"
        " goal <= 60 s and <= 1,536 MB"
    )
    print(
        f"  again:  {again['seconds']:.1f} s, {again['unchanged']:,} unchanged, {again['added']} added,"
        f" {again['updated']} updated, peak RSS {again['peak_mb']:.0f} MB; goal <= 30 s"
    )
    print(f"  store:  {size:.0f} MB")
    if base:
        first_b, again_b = base
        print(f"baseline {args.baseline} on the same input (skip-bad):")
        print(
            f"  first:  {first_b['seconds']:.1f} s, {first_b['added']:,} papers added (this version: "
            f"{first['seconds'] / first_b['seconds']:.2f}x the time, {first['added'] / max(first_b['added'], 1):.2f}x"
            f" the papers), peak RSS {first_b['peak_mb']:.0f} MB"
        )
        print(f"  again:  {again_b['seconds']:.1f} s (this version: {again['seconds'] / again_b['seconds']:.2f}x)")


def _baseline(src: Path, folder: Path, inputs: Path) -> tuple[dict[str, float], dict[str, float]]:
    """The same two runs with another checkout's confnav on the import path."""
    import os
    import subprocess

    db, env = folder / "baseline.db", {**os.environ, "PYTHONPATH": str(src.resolve())}
    runs = []
    for _ in range(2):
        command = [sys.executable, str(Path(__file__)), "--child", str(db), str(inputs), "--skip-bad"]
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
        runs.append(json.loads(done.stdout))
    return runs[0], runs[1]


if __name__ == "__main__":
    main()
