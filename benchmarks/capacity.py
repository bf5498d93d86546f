"""Capacity: the measured figures per resource, the simplest model they support, and 3,000,000 papers.

The figures are in capacity.tsv beside this script, each with the command, date and store size it came from.
For each backend and resource (RAM per worker, store on disk, worker start, one-client latency, HNSW build,
keyword index rebuild) it fits a line in the number of papers, and keeps it when it grows and explains at least
80% of the points' variance; otherwise the figure is taken as flat (no growth the points show) and the largest
measured value is carried forward. It prints the figures at 10,000, 100,000 and 500,000 papers (measured, or
from the fit where not measured), the extrapolation to 3,000,000 and where each figure passes its goal.
Run: python benchmarks/capacity.py                 (seconds, no store; --markdown for docs/deploy.md's tables)
     python benchmarks/capacity.py --measure 10000,100000 [--backends sqlite,postgres] [--db ICLR.db]
       (builds synthetic stores as scale.py does; prints disk, HNSW, keyword-index and worker RSS rows for the TSV)
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from pathlib import Path

FIGURES = Path(__file__).resolve().with_name("capacity.tsv")
SIZES = (10_000, 100_000, 500_000)
TARGET = 3_000_000
MIN_R2 = 0.8
BACKENDS = {"postgres": "PostgreSQL", "sqlite": "SQLite"}


@dataclass(frozen=True)
class Resource:
    """A measured figure: its label, unit, decimals shown and the project's goal for it (None: no goal)."""

    label: str
    unit: str
    decimals: int
    goal: float | None


# Goals from BENCHMARKS.md (RSS per worker, one-client p50 and p99) and issue 41 (worker start, whole rebuild)
RESOURCES = {
    "rss_mb": Resource("RAM per worker", "MB", 0, 1000),
    "disk_mb": Resource("store on disk", "MB", 0, None),
    "start_s": Resource("worker start", "s", 1, 2),
    "p50_ms": Resource("one client, warm, p50", "ms", 1, 30),
    "p99_ms": Resource("one client, warm, p99", "ms", 0, 100),
    "hnsw_s": Resource("HNSW index build", "s", 0, None),
    "keyword_s": Resource("keyword rebuild CPU", "s", 1, 60),
}


@dataclass(frozen=True)
class Point:
    """One measured figure and where it came from."""

    resource: str
    backend: str
    papers: int
    value: float
    command: str
    date: str
    note: str
    fitted: bool = True  # False: shown but not fitted; the note says why (a loaded machine)


@dataclass(frozen=True)
class Fit:
    """The model of one resource on one backend: a line in papers, or flat at the largest measured value."""

    form: str  # "linear", "flat", or "one size" (nothing to fit: the largest value carried forward)
    intercept: float
    slope: float  # per paper (for a flat figure, the line's slope: below zero when it falls)
    r2: float

    def at(self, papers: int) -> float:
        return self.intercept + self.slope * papers if self.form == "linear" else self.intercept

    def describe(self, unit: str) -> str:
        if self.form == "one size":
            return "one size measured: carried forward"
        if self.form == "flat" and self.slope < 0:
            return "flat: falls as papers grow; largest measured carried"
        if self.form == "flat":
            return f"flat: a line explains {max(self.r2, 0):.0%}; largest measured carried"
        sign = "+" if self.intercept >= 0 else "−"
        per, base = _short(self.slope * 100_000), _short(abs(self.intercept))
        return f"{per} {unit} per 100,000 papers {sign} {base} {unit} (R² {self.r2:.2f})"

    def crossing(self, goal: float) -> int | None:
        """Papers at which the model reaches `goal` (None when it never does)."""
        if self.form != "linear":
            return None
        return max(0, int(float(f"{(goal - self.intercept) / self.slope:.3g}")))  # three significant digits


def _short(value: float) -> str:
    """Three significant digits, with thousands separated."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def load(path: Path = FIGURES) -> list[Point]:
    """The measured figures of the TSV, checked against the known resources and backends."""
    points = []
    with path.open(newline="", encoding="utf-8") as handle:
        for line, row in enumerate(csv.DictReader(handle, delimiter="\t"), start=2):
            if row["resource"] not in RESOURCES or row["backend"] not in BACKENDS:
                raise SystemExit(f"{path.name}:{line}: unknown resource or backend {row['resource']!r}")
            try:
                papers, value = int(row["papers"]), float(row["value"])
            except ValueError:
                raise SystemExit(f"{path.name}:{line}: papers and value must be numbers") from None
            fitted = row["fitted"] == "yes"
            points.append(
                Point(row["resource"], row["backend"], papers, value, row["command"], row["date"], row["note"], fitted)
            )
    return points


def fit(points: list[Point]) -> Fit:
    """Least-squares line through the points; flat at their largest value when it does not grow or explain them."""
    xs, ys = [float(p.papers) for p in points], [p.value for p in points]
    if len(set(xs)) < 2:
        return Fit("one size", max(ys), 0.0, 0.0)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    intercept = my - slope * mx
    total = sum((y - my) ** 2 for y in ys)
    residual = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True))
    r2 = 1.0 - residual / total if total else 1.0
    if slope <= 0 or r2 < MIN_R2:
        return Fit("flat", max(ys), min(slope, 0.0), r2)
    return Fit("linear", intercept, slope, r2)


def models(points: list[Point]) -> dict[tuple[str, str], tuple[list[Point], Fit]]:
    """Each (backend, resource) with its points and fit, in the order of BACKENDS and RESOURCES."""
    grouped: dict[tuple[str, str], list[Point]] = defaultdict(list)
    for point in points:
        grouped[(point.backend, point.resource)].append(point)
    return {
        (b, r): (found, fit([p for p in found if p.fitted]))
        for b in BACKENDS
        for r in RESOURCES
        if (found := grouped[(b, r)]) and any(p.fitted for p in found)
    }


def cell(points: list[Point], model: Fit, papers: int, decimals: int) -> str:
    """The measured value at `papers` (mean, with the range when measured more than once; † when not fitted),
    else ≈ the model's."""
    here = [p for p in points if p.papers == papers]
    values = sorted(p.value for p in here)
    if not here:
        return f"≈ {max(model.at(papers), 0):,.{decimals}f}"
    mean, low, high = (f"{v:,.{decimals}f}" for v in (statistics.fmean(values), values[0], values[-1]))
    shown = mean if low == high else f"{mean} ({low}–{high})"
    return shown + (" †" if not all(p.fitted for p in here) else "")


def table(backend: str, points: list[Point]) -> str:
    """The Markdown table of one backend: measured and modelled figures at each size, and the model's form."""
    heads = [f"{n:,} papers" for n in (*SIZES, TARGET)]
    lines = [
        f"| {BACKENDS[backend]} | {' | '.join(heads)} | model |",
        "| --- |" + " --- |" * (len(heads) + 1),
    ]
    for (b, name), (found, model) in models(points).items():
        if b != backend:
            continue
        resource = RESOURCES[name]
        cells = [cell(found, model, n, resource.decimals) for n in (*SIZES, TARGET)]
        lines.append(f"| {resource.label} ({resource.unit}) | {' | '.join(cells)} | {model.describe(resource.unit)} |")
    return "\n".join(lines)


def tables(points: list[Point]) -> str:
    """The tables of every backend with figures: what docs/deploy.md shows."""
    return "\n\n".join(table(b, points) for b in BACKENDS if any(p.backend == b for p in points))


def breaking(points: list[Point]) -> list[tuple[int, str, str, str]]:
    """Per backend and resource with a goal: the papers at which it passes the goal, first to break first: where
    the model crosses it, or the smallest size measured above it if that comes first."""
    found = []
    for (backend, name), (measured, model) in models(points).items():
        goal = RESOURCES[name].goal
        if goal is None:
            continue
        over = min((p.papers for p in measured if p.fitted and p.value > goal), default=None)
        crossing = model.crossing(goal)
        candidates = [n for n in (over, crossing) if n is not None]
        if candidates:
            at = min(candidates)
            how = "measured" if at == over else "by the model"
            found.append((at, backend, f"{RESOURCES[name].label} passes {goal:,g} {RESOURCES[name].unit}", how))
    return sorted(found)


def report(points: list[Point]) -> str:
    """What docs/deploy.md shows: one table per backend, then where each figure passes its goal, first first."""
    order = [
        f"- {BACKENDS[b]}: {what} {f'at {at:,} papers' if at else 'at every size'} ({how})"
        for at, b, what, how in breaking(points)
    ]
    return tables(points) + "\n\nWhere each figure passes its goal, first first:\n\n" + "\n".join(order)


def measure(sizes: list[int], backends: list[str], db: Path | None, postgres: str | None, clients: int) -> None:
    """Build the synthetic stores of scale.py and print, as TSV rows, their size on disk, index build times and
    the RSS of one `confnav serve` worker after `clients` clients for 20 s (one worker: no supervisor to restart
    a worker slow to answer its health check on a loaded machine)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _util import machine, postgres_database, prepare_store
    from confnav.search.stored import build_keyword_index
    from confnav.store import PaperFilter, open_store
    from scale import fill, seed, serving, workers_rss
    from search_speed import queries
    from web_load import load as load_clients

    print(f"# machine: {machine()}", flush=True)
    command = "python benchmarks/capacity.py --measure " + ",".join(map(str, sizes))
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        papers, vectors, model = seed(prepare_store(folder, db, with_2020=False))
        ids = [f"{p.id}~{i}" for i in range(3) for p in papers]  # pages and searches as scale.py's clients ask
        topics = [text for text, where in queries(papers) if where == PaperFilter()]
        for size in sizes:
            for backend in backends:
                sqlite = folder / f"capacity_{size}.db"
                location = str(sqlite) if backend == "sqlite" else postgres_database(folder, f"cap_{size}", postgres)
                rows = []
                with open_store(location, create=True) as store:
                    fill(store, papers, vectors, model, size)
                    start = time.perf_counter()
                    if store.index_vectors(model):
                        rows.append(("hnsw_s", time.perf_counter() - start))
                    start = time.process_time()  # CPU: this process's own work, whatever else the machine runs
                    build_keyword_index(store)
                    rows.append(("keyword_s", time.process_time() - start))
                    if backend == "postgres":  # benchmarks may ask the server directly, as scale.py does
                        used = store.conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
                if backend == "sqlite":  # closed: the write-ahead log is checkpointed into the file
                    used = sum(p.stat().st_size for p in folder.glob(f"{sqlite.name}*"))
                rows.append(("disk_mb", used / 1e6))
                with serving(location, 1) as (port, process):
                    load_clients(port, ids, lambda rng: rng.choice(topics), clients, 20)
                    rows.append(("rss_mb", max(workers_rss(process))))
                for resource, value in rows:
                    fields = [resource, backend, str(size), f"{value:.1f}", command, str(date.today()), "", "yes"]
                    print("\t".join(fields))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print only what docs/deploy.md shows")
    parser.add_argument("--measure", help="comma-separated store sizes to build and measure (disk, index builds)")
    parser.add_argument("--backends", default="sqlite,postgres", help="with --measure")
    parser.add_argument("--db", type=Path, help="with --measure: an indexed ICLR 2021 store (saves embedding)")
    parser.add_argument("--postgres", help="with --measure: a PostgreSQL server URL (default: a local pgserver)")
    parser.add_argument("--clients", type=int, default=50, help="with --measure: clients before the worker's RSS")
    args = parser.parse_args()
    if args.measure:
        sizes = [int(s) for s in args.measure.split(",")]
        measure(sizes, args.backends.split(","), args.db, args.postgres, args.clients)
        return
    points = load()
    print(report(points))
    if args.markdown:
        return
    print("\nSources:")
    for p in sorted(points, key=lambda p: (p.backend, p.resource, p.papers)):
        print(f"  {p.backend} {p.resource} {p.papers:,}: {p.value:g} — {p.command}, {p.date}; {p.note}".rstrip("; "))


if __name__ == "__main__":
    main()
