"""Keyword index at scale: a whole rebuild, and how long changed papers take to become searchable.

The ICLR 2021 papers are replicated into synthetic venues (perturbed titles and abstracts, as in scale.py) up
to `--size` papers. For each backend it measures:
  - the whole rebuild (read every paper, tokenize, store the base), and with `--baseline SRC` (a checkout's
    `src` folder of an earlier version) that version's build of the same papers read the same way;
  - for `--changed` papers edited in one write (three rounds): the update of an index a process holds
    (a server's refresh) and of the stored one (a new process: base and delta read, delta written), and the
    first search after the write through a Searcher (its corpus reload included);
  - BM25F query latency over 300 title queries (first use of each term, then again), for both versions.
Run: python benchmarks/keyword_update.py [--size 100000] [--backends sqlite,postgres] [--baseline ../old/src]
     [--keep FOLDER] (the stores are kept there and reused by the next run: the edits of a run stay in them)
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ICLR2021, machine, postgres_database
from confnav.ingest import ingest
from confnav.model import Paper, Venue
from confnav.search.engine import Searcher
from confnav.search.keyword_store import keyword_fields, keyword_index
from confnav.search.stored import build_keyword_index
from confnav.store import SqliteStore, open_store
from confnav.store.sql import SqlStore
from search_speed import perturb


def seed(folder: Path) -> list[Paper]:
    with SqliteStore(folder / "seed.db") as store:
        ingest(store, ICLR2021)
        return [p for _, p in store.paper_rows("iclr2021")]


def fill(store: SqlStore, papers: list[Paper], target: int) -> float:
    """Write `target` papers (perturbed copies of the seed in synthetic venues); return seconds."""
    rng, start, written, copy = random.Random(11), time.perf_counter(), store.count_papers(), 0
    while written < target:
        venue = Venue(f"synth{copy:04d}", f"Synthetic {copy}", f"synth{copy:04d}", 1990 + copy % 36)
        copy += 1
        if store.count_papers(venue.id):
            continue
        made = [
            replace(p, id=f"{p.id}~{copy}", venue=venue.id, venue_name=venue.name, year=venue.year)
            for p in papers[: target - written]
        ]
        made = [replace(p, title=perturb(p.title, rng), abstract=perturb(p.abstract or "", rng) or None) for p in made]
        with store.transaction():
            store.put_venue(venue)
            store.put_papers(made)
        written += len(made)
    return time.perf_counter() - start


def edit(store: SqlStore, count: int, note: str) -> None:
    """Change `count` papers spread over the store in one write (new words in the title and abstract)."""
    pks = store.row_facts()[0]
    chosen = pks[np.linspace(0, pks.size - 1, count).astype(int)]
    papers = store.papers_by_pk([int(pk) for pk in chosen]).values()
    edited = [replace(p, title=f"{p.title} {note}", abstract=f"{p.abstract or ''} {note} zebra") for p in papers]
    with store.transaction():
        store.put_papers(edited)


def load_module(name: str, path: Path) -> Any:
    """A module of another version's source tree, loaded beside this one's."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def old_keyword_module(src: Path) -> Any:
    """The keyword index of another version's source tree, with that version's tokenizer."""
    module = load_module("baseline_keyword", src / "confnav" / "search" / "keyword.py")
    module.terms = load_module("baseline_text", src / "confnav" / "search" / "text.py").terms
    return module


def took_since(start: float, cpu: float) -> str:
    """Wall seconds since `start` and this process's CPU seconds since `cpu` (on a shared machine the second
    is the steadier figure; the database server's own work is not in it)."""
    return f"{time.perf_counter() - start:.2f} s (CPU {time.process_time() - cpu:.2f} s)"


def query_times(index: Any, queries: list[str]) -> str:
    """p50 / p99 of BM25F scoring, ms: each query once, then all again."""
    rounds = []
    for _ in range(2):
        times = []
        for query in queries:
            start = time.perf_counter()
            index.score(query)
            times.append((time.perf_counter() - start) * 1000)
        rounds.append(f"p50 {np.percentile(times, 50):.1f} / p99 {np.percentile(times, 99):.1f} ms")
    return f"first {rounds[0]}, again {rounds[1]}"


def measure(location: str, papers: list[Paper], size: int, changed: int, baseline: Path | None) -> None:
    with open_store(location, create=True) as store:
        took = fill(store, papers, size)
        print(f"  ingest: {store.count_papers():,} papers in {took:.0f} s")
        queries = [p.title for p in papers[:300]]
        if baseline is not None:
            old = old_keyword_module(baseline)
            start, cpu = time.perf_counter(), time.process_time()
            documents = [keyword_fields(p) for _, p in store.paper_rows()]
            index = old.KeywordIndex.build(documents)
            blob = index.to_bytes()
            print(f"  whole rebuild, baseline: {took_since(start, cpu)} ({len(blob) / 1e6:.0f} MB)")
            print(f"  BM25F query, baseline: {query_times(index, queries)}")
            del index, blob, documents
        start, cpu = time.perf_counter(), time.process_time()
        held = build_keyword_index(store, rebuild=True)
        print(f"  whole rebuild, this version: {took_since(start, cpu)} ({len(held.to_bytes()) / 1e6:.0f} MB)")
        print(f"  BM25F query, this version: {query_times(held, queries)}")
        for round_ in range(3):
            edit(store, changed, f"edit{round_}")
            generation, pks = store.generation(), store.row_facts()[0]
            start, cpu = time.perf_counter(), time.process_time()
            held = keyword_index(store, generation, pks, previous=held)
            memory = took_since(start, cpu)
            start, cpu = time.perf_counter(), time.process_time()
            keyword_index(store, generation, pks)
            print(
                f"  {changed} papers changed (round {round_ + 1}): held index updated in {memory}; "
                f"stored index read, updated and written in {took_since(start, cpu)}"
            )
        searcher = Searcher(store)
        searcher.search("graph neural networks", mode="keyword")
        edit(store, changed, "searcher")
        start, cpu = time.perf_counter(), time.process_time()
        hits = searcher.search("searcher zebra", mode="keyword", limit=changed).hits
        print(
            f"  first search after the write, the corpus brought up to date: {took_since(start, cpu)} "
            f"({len(hits)} of the {changed} changed papers found)"
        )
        with open_store(location, settings=store.settings.replace(serving=True)) as served:
            server = Searcher(served)  # a server's worker: maps the rows and the base, refreshes in a thread
            server.search("graph neural networks", mode="keyword")
            edit(store, changed, "server")
            start, cpu = time.perf_counter(), time.process_time()
            server.search("server zebra", mode="keyword")
            server.wait_for_refresh()
            hits = server.search("server zebra", mode="keyword", limit=changed).hits
            print(
                f"  a server's worker after the write, refreshed and searched: {took_since(start, cpu)} "
                f"({len(hits)} of the {changed} changed papers found)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--changed", type=int, default=100)
    parser.add_argument("--baseline", type=Path, help="the src folder of an earlier version, measured beside")
    parser.add_argument("--postgres", help="a PostgreSQL server URL (default: a local pgserver)")
    parser.add_argument("--keep", type=Path, help="a folder to keep the stores in and reuse them from")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        if args.keep is not None:
            args.keep.mkdir(parents=True, exist_ok=True)
            folder = args.keep
        papers = seed(folder)
        for backend in args.backends.split(","):
            print(f"\n{backend}, {args.size:,} papers")
            if backend == "postgres":
                location = postgres_database(folder, f"keyword_{args.size}", args.postgres, keep=args.keep is not None)
            else:
                location = str(folder / f"keyword_{args.size}.db")
            measure(location, papers, args.size, args.changed, args.baseline)


if __name__ == "__main__":
    main()
