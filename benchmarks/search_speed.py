"""Search speed: embedding throughput, warm and cold query latency, and a 100,000-paper synthetic store.

Sections (run all, or name some): `embed` — sentence-transformers (torch) vs the ONNX int8 export on
the 2,966 abstracts, with 10-NN accuracy of each; `warm` — 200 varied queries through the library;
`cold` — whole `confnav search` processes; `large` — hybrid latency and peak memory on 100,000 papers.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ROOT, machine, peak_rss_mb, prepare_store
from confnav.embed import choose_embedder
from confnav.embed.sentence import SentenceTransformerEmbedder
from confnav.model import Paper, Venue
from confnav.search.engine import Searcher
from confnav.store import PaperFilter, SqliteStore
from labels import keyword_label
from search_eval import knn_accuracy, load_papers


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


def bench_embed() -> None:
    papers = load_papers()
    texts = [p.abstract or "" for p in papers]
    labelled = [(i, lab) for i, p in enumerate(papers) if (lab := keyword_label(p.keywords))]
    rows, labels = [i for i, _ in labelled], [lab for _, lab in labelled]
    results = {}
    for name, embedder in (
        ("sentence-transformers (torch, fp32)", SentenceTransformerEmbedder()),
        ("ONNX Runtime int8 (confnav default)", choose_embedder()[0]),
    ):
        embedder.embed(["warm up the model"])
        start = time.perf_counter()
        vectors = embedder.embed(texts)
        seconds = time.perf_counter() - start
        results[name] = (seconds, vectors)
        print(
            f"  {name:36} {seconds:6.1f} s  {len(texts) / seconds:5.1f} papers/s  "
            f"10-NN {knn_accuracy(vectors[rows], labels):.1%}"
        )
    (base_s, base_v), (fast_s, fast_v) = results.values()
    agreement = float(np.mean(np.sum(base_v * fast_v, axis=1)))
    print(f"  speed-up {base_s / fast_s:.2f}x; mean cosine between the two embeddings of a paper {agreement:.4f}")


def queries(papers: list[Paper], count: int = 200, seed: int = 7) -> list[tuple[str, PaperFilter]]:
    """Varied queries: titles, keyword lists, short topics, phrases, authors, with and without filters."""
    rng = random.Random(seed)
    topics = [
        "graph neural networks",
        "offline reinforcement learning",
        "adversarial robustness",
        "contrastive self-supervised learning",
        "neural architecture search",
        "federated learning privacy",
        "normalizing flows",
        "linear attention with random features",
        "meta-learning few-shot",
        "knowledge distillation",
        "implicit bias of gradient descent",
        "protein structure",
    ]
    made: list[tuple[str, PaperFilter]] = []
    for i in range(count):
        paper = rng.choice(papers)
        kind = i % 6
        if kind == 0:
            made.append((paper.title, PaperFilter()))
        elif kind == 1 and paper.keywords:
            made.append((", ".join(paper.keywords), PaperFilter()))
        elif kind == 2:
            made.append((rng.choice(topics), PaperFilter(decision="accepted")))
        elif kind == 3 and paper.authors:
            made.append((f'author:"{paper.authors[0].name}"', PaperFilter()))
        elif kind == 4:
            made.append((f'"{rng.choice(topics).split()[0]}" {rng.choice(topics)}', PaperFilter(min_rating=6)))
        else:
            made.append((rng.choice(topics), PaperFilter()))
    return made


def latency(searcher: Searcher, workload: list[tuple[str, PaperFilter]], mode: str = "hybrid") -> list[float]:
    searcher.search("warm up", mode=mode)  # type: ignore[arg-type]
    times = []
    for text, where in workload:
        start = time.perf_counter()
        searcher.search(text, mode=mode, where=where)  # type: ignore[arg-type]
        times.append((time.perf_counter() - start) * 1000)
    return times


def bench_warm(db: Path) -> None:
    with SqliteStore(db) as store:
        searcher = Searcher(store)
        workload = queries(searcher.corpus.papers)
        for mode in ("keyword", "semantic", "hybrid"):
            t = latency(searcher, workload, mode)
            print(f"  {mode:8} p50 {percentile(t, 50):5.1f} ms  p99 {percentile(t, 99):5.1f} ms  ({len(t)} queries)")


def bench_cold(db: Path) -> None:
    confnav = shutil.which("confnav", path=str(Path(sys.executable).parent)) or "confnav"
    command = [confnav, "search", "--db", str(db), "linear attention with random features", "--limit", "5"]
    subprocess.run(command, capture_output=True, check=True)  # model export and caches exist after this
    walls = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        walls.append(time.perf_counter() - start)
    print(
        f"  confnav search (whole process): median {statistics.median(walls):.2f} s, "
        f"runs {', '.join(f'{w:.2f}' for w in walls)}"
    )


def perturb(text: str, rng: random.Random) -> str:
    words = text.split()
    if len(words) > 4:
        for _ in range(max(1, len(words) // 10)):
            words.pop(rng.randrange(len(words)))
    return " ".join(words)


def bench_large(db: Path, folder: Path, target: int = 100_000) -> None:
    """Replicate the corpus with new ids, perturbed text and perturbed vectors up to `target` papers."""
    large = folder / "large.db"
    rng = random.Random(11)
    with SqliteStore(db) as store:
        papers = list(store.iter_papers())
        model = next(iter(store.embedding_models()))
        pks, blobs = store.embeddings(model)
        by_pk = dict(zip(pks, blobs, strict=True))
        vectors = [np.frombuffer(by_pk[pk], dtype=np.float32) for pk, _ in store.paper_rows()]
    start = time.perf_counter()
    noise = np.random.default_rng(11)
    synthetic: list[np.ndarray] = []
    with SqliteStore(large) as store, store.transaction():
        for venue in sorted({p.venue for p in papers}):
            store.put_venue(Venue.parse(venue))
        for copy in range(math.ceil(target / len(papers))):
            for paper, vector in zip(papers, vectors, strict=True):
                if len(synthetic) == target:
                    break
                abstract = perturb(paper.abstract, rng) if paper.abstract else None
                store.put_paper(
                    replace(paper, id=f"{paper.id}~{copy}", title=perturb(paper.title, rng), abstract=abstract)
                )
                noisy = vector + noise.normal(0, 0.02, vector.shape).astype(np.float32)
                synthetic.append(noisy / np.linalg.norm(noisy))
        all_pks = [pk for pk, _ in store.paper_rows()]
        store.put_embeddings(model, [(pk, "synthetic", v.tobytes()) for pk, v in zip(all_pks, synthetic, strict=True)])
    print(f"  built a store of {len(all_pks):,} papers in {time.perf_counter() - start:.0f} s")
    with SqliteStore(large) as store:
        searcher = Searcher(store)
        start = time.perf_counter()
        corpus_size = len(searcher.corpus)
        searcher.vectors()
        print(f"  first load (keyword index build, vectors): {time.perf_counter() - start:.1f} s for {corpus_size:,}")
        t = latency(searcher, queries(searcher.corpus.papers))
        print(
            f"  hybrid p50 {percentile(t, 50):.1f} ms  p99 {percentile(t, 99):.1f} ms; peak RSS {peak_rss_mb():.0f} MB"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sections", nargs="*", default=["embed", "warm", "cold", "large"])
    args = parser.parse_args()
    os.chdir(ROOT)
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        if "embed" in args.sections:
            print("embedding the 2,966 abstracts")
            bench_embed()
        if {"warm", "cold", "large"} & set(args.sections):
            db = prepare_store(folder, with_2020=False)
            if "warm" in args.sections:
                print("warm query latency through the library (ICLR 2021, 3,014 papers)")
                bench_warm(db)
            if "cold" in args.sections:
                print("cold query")
                bench_cold(db)
            if "large" in args.sections:
                print("synthetic store")
                bench_large(db, folder)


if __name__ == "__main__":
    main()
