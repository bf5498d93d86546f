"""Search quality of each store backend on the same known-item tasks, through confnav's own Searcher.

ICLR 2021 in SQLite and the same store copied to PostgreSQL; every query is asked of both, and
PostgreSQL's built-in ranking (`ts_rank`, `ts_rank_cd` over weighted tsvectors, any query word
matching) is measured on the same tasks as the design not chosen.
  a. the author keywords of a paper → that paper (keyword and hybrid modes);
  b. the first sentence of an abstract → that paper.
Run: python benchmarks/search_backends.py [--postgres URL] [--queries N] [--db ICLR.db]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import machine, postgres_database, prepare_store
from confnav.model import Paper
from confnav.search.engine import Searcher
from confnav.store import open_store
from confnav.store.copy import copy_store
from confnav.store.sql import SqlStore

Ask = Callable[[str], list[str]]
TS_DOCS = """
CREATE TEMP TABLE ts_docs AS
SELECT p.pk, p.id,
       setweight(to_tsvector('english', p.title), 'A')
    || setweight(to_tsvector('english', COALESCE(k.words, '')), 'B')
    || setweight(to_tsvector('english', COALESCE(a.names, '')), 'C')
    || setweight(to_tsvector('english', COALESCE(p.abstract, '')), 'D') AS doc
FROM papers p
LEFT JOIN (SELECT paper_pk, string_agg(keyword, '; ') AS words FROM paper_keywords GROUP BY paper_pk) k
  ON k.paper_pk = p.pk
LEFT JOIN (SELECT paper_pk, string_agg(name, '; ') AS names FROM paper_authors GROUP BY paper_pk) a
  ON a.paper_pk = p.pk
WHERE p.venue = 'iclr2021'
"""


def plain(text: str) -> str:
    """Text as plain query words: no quotes or `field:` syntax of the query language."""
    return " ".join(text.replace('"', " ").replace(":", " ").split())


def known_items(papers: list[Paper], count: int) -> list[Paper]:
    """The same `count` papers with an abstract and keywords for every run (seed 0)."""
    usable = [p for p in papers if p.abstract and p.keywords]
    rng = np.random.default_rng(0)
    return [usable[i] for i in rng.choice(len(usable), size=min(count, len(usable)), replace=False)]


def first_sentence(paper: Paper) -> str:
    return plain((paper.abstract or "").split(". ")[0])


def mrr_at_10(ask: Ask, tasks: list[tuple[str, str]]) -> float:
    total = 0.0
    for query, wanted in tasks:
        found = ask(query)
        total += 1.0 / (found.index(wanted) + 1) if wanted in found else 0.0
    return total / len(tasks)


def ts_ranker(store: SqlStore, function: str) -> Ask:
    """PostgreSQL's own ranking: any query word matching, weights A title, B keywords, C authors, D abstract."""
    raw = store.raw  # type: ignore[attr-defined]

    def ask(query: str) -> list[str]:
        rows = raw.execute(
            f"WITH q AS (SELECT replace(plainto_tsquery('english', %s)::text, '&', '|')::tsquery AS q)"
            f" SELECT id FROM ts_docs, q WHERE doc @@ q.q ORDER BY {function}(doc, q.q) DESC, pk LIMIT 10",
            (query,),
        )
        return [row[0] for row in rows]

    return ask


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="a server URL to create the database on (default: a local pgserver)")
    parser.add_argument("--db", type=Path, help="an indexed ICLR 2021 store to start from (saves embedding)")
    parser.add_argument("--queries", type=int, default=600, help="known-item queries per task")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as folder:
        sqlite_path = prepare_store(Path(folder), args.db, with_2020=False)
        url = postgres_database(Path(folder), "confnav_search_backends", args.postgres)
        with open_store(sqlite_path) as source, open_store(url) as target:
            copy_store(source, target)
        with open_store(sqlite_path) as lite, open_store(url) as pg:
            chosen = known_items(list(lite.iter_papers("iclr2021")), args.queries)
            tasks = {
                "a. author keywords -> paper": [(", ".join(p.keywords), p.id) for p in chosen],
                "b. first abstract sentence -> paper": [(first_sentence(p), p.id) for p in chosen],
            }
            pg.raw.execute(TS_DOCS)  # type: ignore[attr-defined]
            searchers = {"SQLite": Searcher(lite), "PostgreSQL": Searcher(pg)}
            for searcher in searchers.values():
                searcher.warm()
            for task, items in tasks.items():
                print(f"\n{task} ({len(items)} queries)   MRR@10   seconds")
                for mode in ("keyword", "hybrid"):
                    scores = {}
                    for name, searcher in searchers.items():
                        start = time.perf_counter()
                        ask = lambda q, s=searcher, m=mode: [h.paper.id for h in s.search(q, mode=m, limit=10).hits]  # noqa: E731
                        scores[name] = mrr_at_10(ask, items)
                        print(f"  {name + ' ' + mode:34} {scores[name]:.3f}   {time.perf_counter() - start:.1f}")
                    print(f"  {'difference (PostgreSQL - SQLite)':34} {scores['PostgreSQL'] - scores['SQLite']:+.3f}")
                for function in ("ts_rank", "ts_rank_cd"):
                    start = time.perf_counter()
                    score = mrr_at_10(ts_ranker(pg, function), items)
                    seconds = time.perf_counter() - start
                    print(f"  {'PostgreSQL ' + function + ' (not used)':34} {score:.3f}   {seconds:.1f}")


if __name__ == "__main__":
    main()
