"""Queries in other languages: 20 ICLR 2021 papers described in Chinese, German and English
(benchmarks/data/multilingual_queries.json) → MRR@10 and share found in the top 10, hybrid search as
`confnav search` runs it, same run, three indexes: the default English MiniLM alone, the multilingual
Universal Sentence Encoder alone (`confnav index --model use-multilingual-v3`), and both stored, each query
sent to the model that reads its language (`confnav index --model use-multilingual-v3 --add`). The routed
index should find Chinese and German as the multilingual one does and English as MiniLM does.
Speed: one query's embedding (goal ≤ 20 ms with the multilingual extra) and indexing the venue.
Run: python benchmarks/multilingual_eval.py [--db STORE] (an indexed ICLR 2021 store saves time)
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import machine, prepare_store
from confnav.embed import MULTILINGUAL_MODEL, load_embedder
from confnav.index import build_index
from confnav.search.engine import Searcher
from confnav.store import SqliteStore

QUERIES = Path(__file__).resolve().parent / "data" / "multilingual_queries.json"
LANGUAGES = {"zh": "Chinese", "de": "German", "en": "English"}


def reciprocal_ranks(
    searcher: Searcher, language: str, items: list[dict[str, str]]
) -> tuple[list[float], Counter[str]]:
    """1/rank of each described paper within the top 10 (0 when absent), and the models that ranked them."""
    found: list[float] = []
    models: Counter[str] = Counter()
    for item in items:
        results = searcher.search(item[language], limit=10)
        models[results.model or "words only"] += 1
        ids = [hit.paper.id for hit in results.hits]
        found.append(1.0 / (ids.index(item["id"]) + 1) if item["id"] in ids else 0.0)
    return found, models


def query_ms(searcher: Searcher, texts: list[str]) -> tuple[float, float]:
    """Median and slowest time to embed one query with the store's main model, in ms, after a warm-up."""
    embedder = searcher.vectors().embedder  # type: ignore[union-attr]
    assert embedder is not None
    embedder.embed(texts[:1])
    took = []
    for text in texts:
        start = time.perf_counter()
        embedder.embed([text])
        took.append((time.perf_counter() - start) * 1000)
    return float(np.median(took)), float(max(took))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="an indexed ICLR 2021 store (MiniLM) to start from")
    parser.add_argument("--both-db", type=Path, help="a store to index with both models and keep")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    items = json.loads(QUERIES.read_text(encoding="utf-8"))["queries"]
    rows: dict[str, dict[str, list[float]]] = {}
    routed: dict[str, dict[str, Counter[str]]] = {}
    speed: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as name:
        english = prepare_store(Path(name), args.db, with_2020=False)
        both = args.both_db or Path(name) / "both.db"
        if not args.both_db or not args.both_db.exists():
            shutil.copy(english, both)
        with SqliteStore(both) as store:
            start = time.perf_counter()
            done = build_index(store, load_embedder(MULTILINGUAL_MODEL), add=True)
            print(
                f"indexing {done.embedded:,} papers (two views) with {MULTILINGUAL_MODEL}: "
                f"{time.perf_counter() - start:.0f} s"
            )
        multilingual = Path(name) / "multilingual.db"
        shutil.copy(both, multilingual)
        with SqliteStore(multilingual) as store:  # the same vectors, MiniLM's dropped: nothing is embedded again
            build_index(store, load_embedder(MULTILINGUAL_MODEL))
        indexes = (("MiniLM (English)", english), (MULTILINGUAL_MODEL, multilingual), ("both, routed", both))
        for label, path in indexes:
            with SqliteStore(path) as store:
                searcher = Searcher(store)
                found = {lang: reciprocal_ranks(searcher, lang, items) for lang in LANGUAGES}
                rows[label] = {lang: ranks for lang, (ranks, _) in found.items()}
                routed[label] = {lang: models for lang, (_, models) in found.items()}
                speed[label] = query_ms(searcher, [item[lang] for item in items for lang in LANGUAGES])
    print(f"\nMRR@10 / found in top 10 of {len(items)} described papers, hybrid search")
    print(f"{'index':<22}" + "".join(f"{name:>18}" for name in LANGUAGES.values()) + f"{'query embedding':>24}")
    for label, found in rows.items():
        cells = "".join(f"{np.mean(r):>10.3f} / {sum(x > 0 for x in r):>2}/{len(r)}" for r in found.values())
        print(f"{label:<22}{cells}{speed[label][0]:>12.1f} ms (max {speed[label][1]:.0f})")
    print("\nthe routed index ranked by meaning with:")
    for lang, models in routed["both, routed"].items():
        print(f"  {LANGUAGES[lang]:<9}" + ", ".join(f"{model} {count}" for model, count in sorted(models.items())))


if __name__ == "__main__":
    main()
