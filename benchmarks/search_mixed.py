"""All-venue search over a store where one venue has full records and another titles only (ICLR 2021 + 2020).

For topic queries, the share of the top-10 hits that carry an abstract, in hybrid, semantic and keyword
mode; the baseline is the same search without aligning the scores of title-only records (same run).
With no preference either way the share would be about the store's share of full records.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import machine, prepare_store
from confnav.search import engine
from confnav.search.engine import Searcher
from confnav.store import SqliteStore

QUERIES = [
    "graph neural networks",
    "reinforcement learning exploration",
    "generative adversarial networks",
    "adversarial robustness",
    "meta-learning few-shot",
    "transformers attention",
    "federated learning",
    "neural architecture search",
    "contrastive self-supervised learning",
    "continual learning catastrophic forgetting",
]


def full_share(store: SqliteStore, mode: engine.Mode) -> float:
    searcher = Searcher(store)
    hits = [h for q in QUERIES for h in searcher.search(q, mode=mode, limit=10).hits]
    return sum(bool(h.paper.abstract) for h in hits) / len(hits)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="An indexed store with ICLR 2020 and 2021 to start from")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, SqliteStore(prepare_store(Path(folder), args.db)) as store:
        papers = list(store.iter_papers())
        print(f"machine: {machine()}")
        print(
            f"{len(papers):,} papers, {sum(bool(p.abstract) for p in papers) / len(papers):.0%} with an abstract;"
            f" {len(QUERIES)} topic queries, top 10 each"
        )
        aligned = {mode: full_share(store, mode) for mode in ("hybrid", "semantic", "keyword")}
        original = engine.align_groups
        engine.align_groups = lambda scores, rows, group: scores  # the baseline: raw scores
        try:
            raw = {mode: full_share(store, mode) for mode in ("hybrid", "semantic", "keyword")}
        finally:
            engine.align_groups = original
    print("| mode | hits with an abstract | without alignment (baseline) |")
    for mode in aligned:
        print(f"| {mode} | {aligned[mode]:.0%} | {raw[mode]:.0%} |")


if __name__ == "__main__":
    main()
