"""Experts quality on ICLR 2021: is an author found for a topic they work on, against a keyword-count baseline.

Cases: every person (told apart by profile ids, `people.py`) with at least 3 papers in the store, and the
author keyword they used most (on at least 2 of their papers; ties alphabetical) as the topic; the topic holds
no author name. Figure: the share of cases whose person is in the top 10 of
  - experts: `find_experts` (hybrid search relevance aggregated per person, docs/search.md);
  - baseline: people ranked by their count of papers with a keyword containing the topic word (ties shared
    out: a person tied with others over the last places counts the chance a random order puts them in).
Run: python benchmarks/experts_eval.py [--db ICLR.db] [--model tfidf-svd|all-MiniLM-L6-v2] [--cases N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ICLR2021, machine
from confnav.embed import choose_embedder
from confnav.embed.sparse import SPARSE_MODEL
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.model import Paper
from confnav.people import PeopleIndex
from confnav.search.engine import Searcher
from confnav.search.experts import find_experts
from confnav.store import SqliteStore

TOP = 10


def build(folder: Path, model: str) -> Path:
    """ICLR 2021 in a new SQLite store, indexed by `model`."""
    path = folder / "experts.db"
    with SqliteStore(path) as store:
        ingest(store, ICLR2021)
        build_index(store, choose_embedder(model)[0])
    return path


def cases(papers: list[Paper], people: PeopleIndex) -> list[tuple[str, str]]:
    """(person key, topic) for each person with ≥ 3 papers and a keyword used on ≥ 2 of them."""
    owned: dict[str, list[Paper]] = defaultdict(list)
    for paper in papers:
        for key in dict.fromkeys(people.key(a) for a in paper.authors):
            owned[key].append(paper)
    found = []
    for key, theirs in sorted(owned.items()):
        if len(theirs) < 3:
            continue
        used = Counter(k for p in theirs for k in {k.strip().lower() for k in p.keywords if k.strip()})
        best = sorted((-n, k) for k, n in used.items() if n >= 2)
        if best:
            found.append((key, best[0][1]))
    return found


def baseline_hit(papers: list[Paper], people: PeopleIndex, key: str, topic: str) -> float:
    """The chance `key` is in the top 10 of people ranked by papers with a keyword containing `topic`."""
    counts: Counter[str] = Counter()
    for paper in papers:
        if any(topic in k.lower() for k in paper.keywords):
            counts.update({people.key(a) for a in paper.authors})
    mine = counts[key]
    above = sum(1 for n in counts.values() if n > mine)
    tied = sum(1 for n in counts.values() if n == mine)
    return max(0.0, min(1.0, (TOP - above) / tied))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="an ICLR 2021 store indexed already (else one is built)")
    parser.add_argument("--model", default=SPARSE_MODEL, help="the embedder when building (default: TF-IDF)")
    parser.add_argument("--cases", type=int, default=0, help="every k-th case only, to at most this many")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or build(Path(tmp), args.model)
        with SqliteStore(path) as store:
            papers = list(store.iter_papers("iclr2021"))
            people = PeopleIndex(store.iter_papers())
            chosen = cases(papers, people)
            if args.cases and len(chosen) > args.cases:
                chosen = chosen[:: len(chosen) // args.cases][: args.cases]
            searcher = Searcher(store)
            started = time.perf_counter()
            found = baseline = 0.0
            for key, topic in chosen:
                top = find_experts(searcher, topic, "iclr2021", TOP)
                found += any(e.key == key for e in top.experts)
                baseline += baseline_hit(papers, people, key, topic)
            seconds = time.perf_counter() - started
            model = searcher.vectors()
            name = model.embedder.name if model and model.embedder else "none"
    n = len(chosen)
    print(f"experts on ICLR 2021 ({machine()}), index {name}, {n} cases (person with ≥ 3 papers, their keyword)")
    print(f"  found in top {TOP}: experts {found / n:.1%}, baseline (keyword counts) {baseline / n:.1%}")
    print(f"  {seconds / n * 1000:.0f} ms per topic")


if __name__ == "__main__":
    main()
