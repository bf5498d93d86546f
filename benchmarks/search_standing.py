"""Relevance with accepted papers lifted: what the lift buys on broad queries and costs on known items.

Through confnav's own Searcher (hybrid mode) on ICLR 2021, the same run for each lift (0 = none):
  a. broad topic queries, the venue's 30 most used author keywords ("reinforcement learning",
     "graph neural networks", ...): share of accepted papers and mean rating among the top 10,
     and how many queries put a rejected paper first;
  b. known items, as in search_backends.py: the author keywords of a paper → that paper, and its
     first abstract sentence → that paper (600 each), MRR@10, for accepted and other targets.
Run: python benchmarks/search_standing.py [--db ICLR.db] [--queries N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import machine, prepare_store
from confnav.model import Paper
from confnav.search.engine import ACCEPTED_LIFT, Searcher
from confnav.store import open_store
from search_backends import first_sentence, known_items, mrr_at_10

LIFTS = (0.0, 0.05, ACCEPTED_LIFT, 0.2)


def broad(searcher: Searcher, queries: list[str]) -> str:
    accepted, ratings, rejected_first = [], [], 0
    for query in queries:
        hits = searcher.search(query, limit=10).hits
        accepted.append(np.mean([h.paper.decision.accepted for h in hits]))
        ratings.append(np.mean([h.paper.rating_mean or 0.0 for h in hits]))
        rejected_first += not hits[0].paper.decision.accepted
    return (
        f"accepted in top 10 {np.mean(accepted):6.1%}   mean rating {np.mean(ratings):.2f}   "
        f"not accepted first {rejected_first:>2} of {len(queries)}"
    )


def known_item_mrr(searcher: Searcher, tasks: dict[str, list[tuple[str, Paper]]]) -> str:
    ask = lambda q: [h.paper.id for h in searcher.search(q, limit=10).hits]  # noqa: E731
    parts = []
    for name, items in tasks.items():
        accepted = [(q, p.id) for q, p in items if p.decision.accepted]
        others = [(q, p.id) for q, p in items if not p.decision.accepted]
        parts.append(f"{name} {mrr_at_10(ask, accepted):.3f} / {mrr_at_10(ask, others):.3f}")
    return "   ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="an indexed ICLR 2021 store to start from (saves embedding)")
    parser.add_argument("--queries", type=int, default=600, help="known-item queries per task")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as folder:
        path = prepare_store(Path(folder), args.db, with_2020=False)
        with open_store(path) as store:
            papers = list(store.iter_papers("iclr2021"))
            counts = Counter(k.strip().lower() for p in papers for k in p.keywords)
            topics = [k for k, _ in counts.most_common(40) if k not in ("deep learning", "machine learning")][:30]
            chosen = known_items(papers, args.queries)
            tasks = {
                "keywords": [(", ".join(p.keywords), p) for p in chosen],
                "first sentence": [(first_sentence(p), p) for p in chosen],
            }
            share = np.mean([p.decision.accepted for p in chosen])
            print(
                f"broad queries: {len(topics)} ({', '.join(topics[:5])}, ...); known items: {len(chosen)} per task, "
                f"{share:.0%} of them accepted"
            )
            print(
                "lift   a. broad queries (hybrid)                                            "
                "b. known items MRR@10, accepted / other targets"
            )
            for lift in LIFTS:
                searcher = Searcher(store, accepted_lift=lift)
                searcher.warm()
                print(f"{lift:<5}  {broad(searcher, topics)}   {known_item_mrr(searcher, tasks)}", flush=True)


if __name__ == "__main__":
    main()
