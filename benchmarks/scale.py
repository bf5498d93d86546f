"""Scale: SQLite and PostgreSQL side by side on a store of 500,000 papers (and smaller sizes).

The ICLR 2021 records (real paperlists and OpenReview data) are replicated into synthetic venues of
3,014 papers each, with perturbed titles and abstracts and perturbed vectors, as in search_speed.py's
100,000-paper test. For each backend and size it measures:
  - ingest rate (papers and their vectors written through the store's own methods),
  - index build time (SQLite: the in-memory corpus and keyword index a worker loads; PostgreSQL: the
    HNSW index, plus the keyword index every worker then loads from the store),
  - hybrid search latency for one client, warm (p50, p99; goals p50 <= 30 ms, p99 <= 100 ms),
  - worker start (a fresh process opening the store as a server does and loading what search needs) and its RSS:
    the first worker of a store state, which writes the files every worker maps, and a further one,
  - 50 closed-loop clients against `confnav serve --workers 2` (p50, p99, errors), half of them asking papers, half
    searching: once with a few hundred repeated searches, once with searches never asked before (each on a fresh
    server); the share of the cores the load generator itself used (it runs on the same machine); and RSS, PSS and
    USS per worker
    (PSS counts a page shared by both workers, such as a memory-mapped index file, half in each; USS only the
    pages one worker alone holds).
With `--baseline SRC` (another checkout's `src`, e.g. the previous version's), worker start, the served run and the
memory figures are measured for that code too, on the same stores in the same run. `--folder` keeps the stores (and
a local PostgreSQL server's data) for a later run with `--folder` and `--keep`, which measures them again.
Run: python benchmarks/scale.py [--sizes 100000,500000] [--backends sqlite,postgres] [--db ICLR.db]
    [--folder DIR --keep] [--baseline ../base/src] [--clients 0]
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import confnav_server, machine, postgres_database, prepare_store
from confnav.model import Venue
from confnav.search.engine import Searcher
from confnav.search.stored import build_keyword_index
from confnav.settings import Settings
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


# A worker's start in a fresh interpreter: open the store as `serve` does, load what search needs, embed a query.
WORKER_START = """
import gc, sys, time
from confnav.search.engine import Searcher
from confnav.settings import Settings
from confnav.store import open_store
start = time.perf_counter()
store = open_store(sys.argv[1], settings=Settings().replace(serving=True))
Searcher(store).warm()
gc.collect()
gc.freeze()
took = time.perf_counter() - start
print(took, open("/proc/self/status").read().split("VmRSS:")[1].split()[0])
"""


def memory_mb(pid: int) -> tuple[float, float, float]:
    """A process's resident, proportional and unique set sizes in MB (PSS: each shared page split among its
    sharers; USS: the pages it alone holds, what one more worker costs)."""
    found = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Rss", "Pss", "Private_Clean", "Private_Dirty"):
            found[name] = int(rest.split()[0]) / 1024
    unique = found.get("Private_Clean", 0.0) + found.get("Private_Dirty", 0.0)
    return found.get("Rss", 0.0), found.get("Pss", 0.0), unique


def environment(src: str | None) -> dict[str, str]:
    """This process's environment, with `src` (a checkout's source folder) first on the module path."""
    return os.environ | ({"PYTHONPATH": src} if src else {})


def worker_start(location: str, src: str | None) -> tuple[float, float, float]:
    """Seconds a fresh worker of the code at `src` takes to load what search needs, its RSS in MB then, and the
    seconds of the whole process (interpreter and imports too)."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", WORKER_START, location], env=environment(src), capture_output=True, text=True, check=True
    )
    whole = time.perf_counter() - began
    took, rss = done.stdout.split()[-2:]
    return float(took), int(rss) / 1024, whole


@contextmanager
def serving(location: str, workers: int, src: str | None) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """`confnav serve --workers N`, every worker warmed up (started together, each loads the corpus)."""
    started = time.monotonic()
    ready = "/api/search?q=warm+up"
    with confnav_server(location, "--workers", str(workers), ready=ready, wait=1800, env=environment(src)) as (
        port,
        process,
    ):
        time.sleep(time.monotonic() - started)  # the other workers started at the same time: let them finish too
        for _ in range(4 * workers):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            connection.request("GET", "/api/search?q=graph+neural+networks")
            connection.getresponse().read()
        yield port, process


def workers_memory(process: subprocess.Popen[bytes]) -> list[tuple[float, float, float]]:
    """RSS, PSS and USS (MB) of each worker of a `serve --workers N` process."""
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    pids = [int(p) for p in children.read_text().split()] if children.exists() else []
    found = []
    for pid in pids or [process.pid]:
        try:
            found.append(memory_mb(pid))
        except OSError:
            continue
    return [m for m in found if m[0] > 100] or found  # uvicorn's supervisor is small; workers hold the app


def served(location: str, papers: list, clients: int, seconds: float, src: str | None, label: str) -> None:
    """The load of `clients` clients against `serve --workers 2` (none: only the workers' memory)."""
    ids = [f"{p.id}~{i}" for i in range(3) for p in papers]
    topics = [text for text, where in queries(papers) if where == PaperFilter()]
    keywords = sorted({k for p in papers for k in p.keywords})
    kinds = {  # searches drawn from a few hundred texts (answers cached after their first time), or never asked
        "repeated searches": lambda rng: rng.choice(topics),
        "never-asked searches (two random author keywords)": lambda rng: (
            f"{rng.choice(keywords)} {rng.choice(keywords)}"
        ),
    }
    for kind, next_query in kinds.items() if clients else [("", None)]:
        with serving(location, 2, src) as (port, process):  # a fresh server each: no answer cached
            cpu, wall = time.process_time(), time.perf_counter()
            results = load(port, ids, next_query, clients, seconds) if next_query else []
            generator = (time.process_time() - cpu) / max(time.perf_counter() - wall, 1e-9)  # of the machine's cores
            memory = workers_memory(process)
        figures = ", ".join(f"RSS {rss:.0f} / PSS {pss:.0f} / USS {uss:.0f} MB" for rss, pss, uss in memory)
        if not results:
            print(f"  {label}: serve --workers 2, per worker: {figures}")
            continue
        lat = np.array([t for t, _ in results]) * 1000
        errors = sum(1 for _, ok in results if not ok)
        print(
            f"  {label}: {clients} clients, {kind}, serve --workers 2, {seconds:g} s: {len(results) / seconds:.0f}"
            f" requests/s, p50 {np.percentile(lat, 50):.1f} ms, p99 {np.percentile(lat, 99):.1f} ms, errors {errors};"
            f" the load generator used {generator:.2f} of {os.cpu_count()} cores; {figures}"
        )


def measure(
    backend: str,
    location: str,
    papers: list,
    vectors: list[np.ndarray],
    model: str,
    size: int,
    options: argparse.Namespace,
) -> None:
    with open_store(location, create=True) as store:
        if store.count_papers() >= size:  # --keep: measured before, only the search figures again
            print(f"  (the store of {store.count_papers():,} papers built by an earlier run)")
        else:
            took = fill(store, papers, vectors, model, size)
            print(f"  ingest: {size:,} papers with vectors in {took:.0f} s ({size / took:,.0f} papers/s)")
        start = time.perf_counter()
        hnsw = store.index_vectors(model)
        built = time.perf_counter()
        build_keyword_index(store, rebuild=False)  # as `confnav index` leaves it: what every worker then loads
        if hnsw:
            print(f"  index build: HNSW {built - start:.0f} s, keyword index {time.perf_counter() - built:.0f} s")
    runs = [("baseline", options.baseline), ("this version", None)] if options.baseline else [("this version", None)]
    for label, src in runs:  # the first worker of a store state writes the files all its workers then map
        for which in ("first worker", "next worker"):
            took, rss, whole = worker_start(location, src)
            print(
                f"  {label}: {which} start (what search needs, in a fresh process) {took:.1f} s, RSS {rss:.0f} MB;"
                f" the whole process {whole:.1f} s"
            )
    with open_store(location, settings=Settings().replace(serving=True)) as store:
        searcher = Searcher(store)
        searcher.warm()
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
    for label, src in runs:
        served(location, papers, options.clients, options.seconds, src, label)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500000", help="comma-separated store sizes")
    parser.add_argument("--backends", default="postgres,sqlite")
    parser.add_argument("--db", type=Path, help="an indexed ICLR 2021 store to start from (saves embedding)")
    parser.add_argument("--postgres", help="a PostgreSQL server URL (default: a local pgserver)")
    parser.add_argument("--keep", action="store_true", help="reuse stores an earlier --keep run left (PostgreSQL)")
    parser.add_argument("--folder", type=Path, help="keep the stores in this folder for later runs (default: none)")
    parser.add_argument("--baseline", help="another checkout's src folder, measured on the same stores")
    parser.add_argument("--clients", type=int, default=50, help="0: measure the served workers' memory only")
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with ExitStack() as stack:
        folder = args.folder or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        folder.mkdir(parents=True, exist_ok=True)
        papers, vectors, model = seed(prepare_store(folder, args.db, with_2020=False))
        for size in (int(s) for s in args.sizes.split(",")):
            for backend in args.backends.split(","):
                print(f"\n{backend}, {size:,} papers")
                if backend == "postgres":
                    location = postgres_database(folder, f"scale_{size}", args.postgres, keep=args.keep)
                else:
                    location = str(folder / f"scale_{size}.db")
                measure(backend, location, papers, vectors, model, size, args)


if __name__ == "__main__":
    main()
