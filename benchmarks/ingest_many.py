"""Ingest about 250 paperlists files (96,000 records, ~60 venues' worth) in one call, then again unchanged.

The input is made from the eight real paperlists-format files in ../shared/data:
file i takes a slice of real file i mod 8 under its own conference-year, so every
shape (no ids, comma-separated authors, workshop labels, no abstracts) recurs.
Goal (issue 11): first ingest <= 60 s with peak RSS <= 1.5 GB; ingesting again unchanged <= 30 s.
Goal (issue 41): PostgreSQL's ingest rate at least SQLite's, both measured in the same run.
Each ingest runs in a fresh process, so its peak RSS is that of the whole ingest.
Run: python benchmarks/ingest_many.py [--backends sqlite,postgres] [--baseline OLD_SRC]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import DATA, machine, peak_rss_mb, postgres_database

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


def one_run(location: str, inputs: Path, skip_bad: bool) -> None:
    """Child mode: ingest every file of `inputs` in one call into the store at `location` (a file or a
    postgresql:// URL); print seconds, counts and peak MB."""
    from confnav.ingest import ingest
    from confnav.store import open_store

    paths = sorted(inputs.glob("*.json"))
    start = time.perf_counter()
    with open_store(location, create=True) as store:
        result = ingest(store, paths, skip_bad=skip_bad)
    seconds = time.perf_counter() - start
    counts = {"added": result.added, "updated": result.updated, "unchanged": result.unchanged}
    print(json.dumps({"seconds": seconds, "peak_mb": peak_rss_mb(), "venues": len(result.venues)} | counts))


def two_runs(location: str, inputs: Path, src: Path | None = None) -> tuple[dict[str, float], dict[str, float]]:
    """The first ingest and the unchanged one, each in a fresh process, with `src`'s confnav when given."""
    env = {**os.environ, "PYTHONPATH": str(src.resolve())} if src else None
    extra = ["--skip-bad"] if src else []
    runs = []
    for _ in range(2):
        command = [sys.executable, str(Path(__file__)), "--child", location, str(inputs), *extra]
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
        runs.append(json.loads(done.stdout))
    return runs[0], runs[1]


def store_mb(location: str) -> float:
    """The store's size on disk: its file, or its PostgreSQL database."""
    if not location.startswith("postgresql://"):
        return Path(location).stat().st_size / 2**20
    import psycopg

    with psycopg.connect(location) as conn:
        return conn.execute("SELECT pg_database_size(current_database())").fetchone()[0] / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=250)
    parser.add_argument("--records", type=int, default=96_000)
    parser.add_argument("--backends", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    parser.add_argument("--postgres", help="a PostgreSQL server URL (default: a local pgserver)")
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
        one_run(args.child[0], Path(args.child[1]), args.skip_bad)
        return
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        inputs = folder / "inputs"
        inputs.mkdir()
        paths = make_input(inputs, args.files, args.records)
        total = sum(len(json.loads(p.read_text())) for p in paths)
        print(f"ingest {len(paths)} paperlists files, {total:,} records, in one call")
        rates: dict[str, float] = {}
        for backend in args.backends.split(","):
            versions = [("this version", None)] + ([(f"baseline {args.baseline}", args.baseline)] * bool(args.baseline))
            for label, src in versions:
                stem = f"many_{backend}_{'base' if src else 'new'}"
                if backend == "postgres":
                    location = postgres_database(folder, stem, args.postgres)
                else:
                    location = str(folder / f"{stem}.db")
                first, again = two_runs(location, inputs, src)
                rates[f"{backend}, {label}"] = first["added"] / first["seconds"]
                _report(f"{backend}, {label}", first, again, store_mb(location))
    print("ingest rates (first ingest, papers added per second):")
    for label, rate in rates.items():
        print(f"  {label:40} {rate:8,.0f} papers/s")


def _report(label: str, first: dict[str, float], again: dict[str, float], size: float) -> None:
    print(f"{label}: {first['venues']} venues")
    print(
        f"  first:  {first['seconds']:.1f} s, {first['added']:,} papers added"
        f" ({first['added'] / first['seconds']:,.0f} papers/s), peak RSS {first['peak_mb']:.0f} MB;"
        " goal <= 60 s and <= 1,536 MB"
    )
    print(
        f"  again:  {again['seconds']:.1f} s, {again['unchanged']:,} unchanged, {again['added']} added,"
        f" {again['updated']} updated, peak RSS {again['peak_mb']:.0f} MB; goal <= 30 s"
    )
    print(f"  store:  {size:.0f} MB")


if __name__ == "__main__":
    main()
