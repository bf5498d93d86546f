"""Scale: SQLite and PostgreSQL side by side on a store of 500,000 papers (and smaller sizes).

The ICLR 2021 records (real paperlists and OpenReview data) are replicated into synthetic venues of
3,014 papers each, with perturbed titles and abstracts and perturbed vectors, as in search_speed.py's
100,000-paper test. For each backend and size it measures:
  - ingest rate (papers and their vectors written through the store's own methods),
  - index build time (SQLite: the in-memory corpus and keyword index a worker loads; PostgreSQL: the
    HNSW index, plus the keyword index every worker then loads from the store),
  - hybrid search latency for one client, warm (p50, p99; goals p50 <= 30 ms, p99 <= 100 ms),
  - 50 closed-loop clients against `confnav serve --workers 2` (p50, p99, errors) and RSS per worker
    (goal <= 1 GB).
Run: python benchmarks/scale.py [--sizes 100000,500000] [--backends sqlite,postgres] [--db ICLR.db]
"""

from __future__ import annotations

import argparse
import gc
import http.client
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import confnav_server, machine, postgres_database, prepare_store
from confnav.model import Venue
from confnav.search.engine import Searcher
from confnav.search.stored import build_keyword_index
from confnav.store import PaperFilter, open_store
from confnav.store.sql import SqlStore
from search_speed import latency, percentile, perturb, queries
from web_load import load


def seed(db: Path) -> tuple[list, list[np.ndarray], str]:
    """The ICLR 2021 papers, their vectors (row order) and the model name."""
    with open_store(db) as store:
        rows = list(store.paper_rows("iclr2021"))
        model = next(m for m in store.embedding_models() if "|" not in m)
        pks, blobs = store.embeddings(model)
    by_pk = dict(zip(pks, blobs, strict=True))
    return [p for _, p in rows], [np.frombuffer(by_pk[pk], dtype=np.float32) for pk, _ in rows], model


def fill(store: SqlStore, papers: list, vectors: list[np.ndarray], model: str, target: int) -> float:
    """Write `target` papers (copies of the seed in synthetic venues) and their vectors; return seconds."""
    rng, noise = random.Random(11), np.random.default_rng(11)
    start = time.perf_counter()
    copy = 0
    written = 0
    while written < target:
        venue = Venue(f"synth{copy:04d}", f"Synthetic {copy}", f"synth{copy:04d}", 1990 + copy % 36)
        part = papers[: target - written]
        made = [
            replace(
                p,
                id=f"{p.id}~{copy}",
                venue=venue.id,
                venue_name=venue.name,
                year=venue.year,
                title=perturb(p.title, rng),
                abstract=perturb(p.abstract, rng) if p.abstract else None,
            )
            for p in part
        ]
        with store.transaction():
            store.put_venue(venue)
            store.put_papers(made)
        pks = [pk for pk, _ in store.paper_rows(venue.id)]
        rows = []
        for pk, vector in zip(pks, vectors, strict=False):
            noisy = vector + noise.normal(0, 0.02, vector.shape).astype(np.float32)
            rows.append((pk, "synthetic", (noisy / np.linalg.norm(noisy)).astype(np.float32).tobytes()))
        with store.transaction():
            store.put_embeddings(model, rows)
        written += len(made)
        copy += 1
    return time.perf_counter() - start


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@contextmanager
def serving(location: str, workers: int) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """`confnav serve --workers N`, every worker warmed up (started together, each loads the corpus)."""
    started = time.monotonic()
    warming = confnav_server(location, "--workers", str(workers), ready="/api/search?q=warm+up", wait=1800)
    with warming as (port, process):
        time.sleep(time.monotonic() - started)  # the other workers started at the same time: let them finish too
        for _ in range(4 * workers):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            connection.request("GET", "/api/search?q=graph+neural+networks")
            connection.getresponse().read()
        yield port, process


def workers_rss(process: subprocess.Popen[bytes]) -> list[float]:
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    pids = [int(p) for p in children.read_text().split()] if children.exists() else []
    found = []
    for pid in pids or [process.pid]:
        try:
            found.append(rss_mb(pid))
        except OSError:
            continue
    return [r for r in found if r > 100] or found  # uvicorn's supervisor is small; workers hold the app


def measure(
    backend: str,
    location: str,
    papers: list,
    vectors: list[np.ndarray],
    model: str,
    size: int,
    clients: int,
    seconds: float,
) -> None:
    with open_store(location, create=True) as store:
        if store.count_papers() >= size:  # --keep: measured before, only the search figures again
            print(f"  (the store of {store.count_papers():,} papers built by an earlier run)")
        else:
            took = fill(store, papers, vectors, model, size)
            print(f"  ingest: {size:,} papers with vectors in {took:.0f} s ({size / took:,.0f} papers/s)")
        start = time.perf_counter()
        if backend == "postgres" and not store.get_cache("keyword-index"):
            store.index_vectors(model)
            hnsw = time.perf_counter() - start
            build_keyword_index(store)
            print(f"  index build: HNSW {hnsw:.0f} s, keyword index {time.perf_counter() - start - hnsw:.0f} s")
        searcher = Searcher(store)
        start = time.perf_counter()
        searcher.warm()
        gc.collect()
        gc.freeze()  # as `serve` does after warming up
        print(f"  worker start (load corpus or row keys, keyword index, vectors): {time.perf_counter() - start:.1f} s")
        workload, warming = queries(papers), queries(papers, seed=8)  # other texts, the same kinds of filter
        for made in (workload, warming):
            made += [(text, replace(where, venue="synth0003")) for text, where in made[:60]]  # rare filter
        for table, column in (("papers", "data"), ("embeddings", "vector")):  # as on a server that has run a while
            store.conn.execute(f"SELECT count(*) FROM {table} WHERE {column} IS NOT NULL").fetchone()
        latency(searcher, warming)  # a worker builds each filter's row mask once per store change
        times = latency(searcher, workload)
        print(
            f"  hybrid, one client, warm ({len(workload)} queries after {len(warming)} others): "
            f"p50 {percentile(times, 50):.1f} ms, "
            f"p99 {percentile(times, 99):.1f} ms"
        )
    with serving(location, 2) as (port, process):
        ids = [f"{p.id}~{i}" for i in range(3) for p in papers]
        topics = [text for text, where in queries(papers) if where == PaperFilter()]
        results = load(port, ids, lambda rng: rng.choice(topics), clients, seconds)
        rss = workers_rss(process)
    lat = np.array([t for t, _ in results]) * 1000
    errors = sum(1 for _, ok in results if not ok)
    print(
        f"  {clients} clients, serve --workers 2, {seconds:g} s: {len(results) / seconds:.0f} requests/s, "
        f"p50 {np.percentile(lat, 50):.1f} ms, p99 {np.percentile(lat, 99):.1f} ms, errors {errors}; "
        f"RSS per worker {', '.join(f'{r:.0f}' for r in rss)} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500000", help="comma-separated store sizes")
    parser.add_argument("--backends", default="postgres,sqlite")
    parser.add_argument("--db", type=Path, help="an indexed ICLR 2021 store to start from (saves embedding)")
    parser.add_argument("--postgres", help="a PostgreSQL server URL (default: a local pgserver)")
    parser.add_argument("--keep", action="store_true", help="reuse stores an earlier --keep run left (PostgreSQL)")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        papers, vectors, model = seed(prepare_store(folder, args.db, with_2020=False))
        for size in (int(s) for s in args.sizes.split(",")):
            for backend in args.backends.split(","):
                print(f"\n{backend}, {size:,} papers")
                if backend == "postgres":
                    location = postgres_database(folder, f"scale_{size}", args.postgres, keep=args.keep)
                else:
                    location = str(folder / f"scale_{size}.db")
                measure(backend, location, papers, vectors, model, size, args.clients, args.seconds)


if __name__ == "__main__":
    main()
