"""Search quality on ICLR 2021 (the 2,966 papers with abstracts): keyword, semantic and hybrid, same run.

1. Known item, title as query, documents = abstracts only (titles excluded): MRR@10, Recall@1, Recall@10.
2. Known item, the author keywords as query, documents = title + abstract (keywords excluded).
3. 10-NN accuracy of the embeddings on keyword-derived labels (González-Márquez & Kobak 2024:
   abstracts, labelled subset, 10-fold CV, k=10, Euclidean) against TF-IDF in the same run.
Hybrid uses confnav's default fusion; other fusions are listed for comparison.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ICLR2021, machine
from confnav.embed import choose_embedder
from confnav.embed.views import paper_text
from confnav.ingest import ingest
from confnav.model import Paper
from confnav.search.fusion import ConvexFusion, ReciprocalRankFusion
from confnav.search.keyword import DEFAULT_FIELD_WEIGHTS, KeywordIndex
from confnav.store import SqliteStore
from labels import keyword_label

Scorer = Callable[[int], np.ndarray]
FUSIONS = {
    "hybrid (default: convex 0.5)": ConvexFusion(0.5),
    "convex 0.3": ConvexFusion(0.3),
    "convex 0.4": ConvexFusion(0.4),
    "convex 0.6": ConvexFusion(0.6),
    "convex 0.7": ConvexFusion(0.7),
    "reciprocal rank fusion (k=60)": ReciprocalRankFusion(60),
}


def load_papers() -> list[Paper]:
    with tempfile.TemporaryDirectory() as folder, SqliteStore(Path(folder) / "eval.db") as store:
        ingest(store, ICLR2021)
        return [p for p in store.iter_papers("iclr2021") if p.abstract]


def known_item(scorer: Scorer, queries: list[int]) -> tuple[float, float, float]:
    """MRR@10, Recall@1, Recall@10 when query i should find document i."""
    ranks = []
    for i in queries:
        scores = scorer(i)
        ranks.append(int((scores > scores[i]).sum()) + 1)
    r = np.array(ranks)
    return float(np.mean(np.where(r <= 10, 1.0 / r, 0.0))), float(np.mean(r == 1)), float(np.mean(r <= 10))


def updated_index(documents: list[dict[str, str]], weights: dict[str, float]) -> KeywordIndex:
    """The index of `documents` reached by updates, as a live store's is: built without every 10th document and
    with every 20th one's text changed, then those added and changed back (scores equal a whole build's)."""
    changed = [i for i in range(len(documents)) if i % 10 == 0 or i % 20 == 5]
    base = [(i, {f: "unrelated words" for f in d} if i % 20 == 5 else d) for i, d in enumerate(documents) if i % 10]
    index = KeywordIndex.build([d for _, d in base], weights, pks=[i for i, _ in base])
    return index.updated(changed, [documents[i] for i in changed])


def run_task(
    name: str,
    keyword: KeywordIndex,
    query_text: list[str],
    docs: np.ndarray,
    qvecs: np.ndarray,
    queries: list[int],
    updated: KeywordIndex,
) -> None:
    keyword_scores = {i: keyword.score(query_text[i]) for i in queries}
    updated_scores = {i: updated.score(query_text[i]) for i in queries}
    semantic_scores = {i: docs @ qvecs[i] for i in queries}
    rows: dict[str, Scorer] = {
        "keyword (BM25F)": keyword_scores.__getitem__,
        "keyword (BM25F), updated index": updated_scores.__getitem__,
        "semantic (MiniLM int8)": semantic_scores.__getitem__,
    }
    for label, fusion in FUSIONS.items():
        rows[label] = lambda i, f=fusion: f(keyword_scores[i], semantic_scores[i])
    print(f"\n{name} ({len(queries)} queries)")
    print(f"  {'':34} MRR@10  R@1    R@10")
    for label, scorer in rows.items():
        mrr, r1, r10 = known_item(scorer, queries)
        print(f"  {label:34} {mrr:.3f}   {r1:.3f}  {r10:.3f}")


def knn_accuracy(vectors: np.ndarray, labels: list[str]) -> float:
    """Mean accuracy of 10-NN over 10 stratified folds (some classes have fewer than 10 papers)."""
    import warnings

    from sklearn.model_selection import cross_validate
    from sklearn.neighbors import KNeighborsClassifier

    classifier = KNeighborsClassifier(n_neighbors=10, algorithm="brute", metric="euclidean")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return float(np.mean(cross_validate(classifier, vectors, labels, cv=10)["test_score"]))


def main() -> None:
    print(f"machine: {machine()}")
    papers = load_papers()
    embedder, notice = choose_embedder()
    if notice:
        print(f"note: {notice}")
    start = time.perf_counter()
    abstracts = embedder.embed([p.abstract or "" for p in papers])
    full = embedder.embed([paper_text(p) for p in papers])
    titles = embedder.embed([p.title for p in papers])
    keyword_queries = [", ".join(p.keywords) for p in papers]
    with_keywords = [i for i, p in enumerate(papers) if p.keywords]
    keyword_vecs = np.zeros_like(titles)
    keyword_vecs[with_keywords] = embedder.embed([keyword_queries[i] for i in with_keywords])
    print(f"embedded {4 * len(papers)} texts with {embedder.name} in {time.perf_counter() - start:.0f} s")

    abstract_docs = [{"abstract": p.abstract or ""} for p in papers]
    run_task(
        "1. title -> abstract-only documents",
        KeywordIndex.build(abstract_docs, {"abstract": 1.0}),
        [p.title for p in papers],
        abstracts,
        titles,
        list(range(len(papers))),
        updated_index(abstract_docs, {"abstract": 1.0}),
    )
    weights = {k: v for k, v in DEFAULT_FIELD_WEIGHTS.items() if k in ("title", "abstract")}
    text_docs = [{"title": p.title, "abstract": p.abstract or ""} for p in papers]
    run_task(
        "2. author keywords -> title + abstract documents",
        KeywordIndex.build(text_docs, weights),
        keyword_queries,
        full,
        keyword_vecs,
        with_keywords,
        updated_index(text_docs, weights),
    )

    labelled = [(i, label) for i, p in enumerate(papers) if (label := keyword_label(p.keywords))]
    rows, labels = [i for i, _ in labelled], [label for _, label in labelled]
    from sklearn.feature_extraction.text import TfidfVectorizer

    tfidf = TfidfVectorizer(sublinear_tf=True).fit_transform([papers[i].abstract or "" for i in rows])
    print(f"\n3. 10-NN accuracy, {len(rows)} labelled papers, {len(set(labels))} classes (abstracts)")
    print(f"  TF-IDF (sublinear, baseline)       {knn_accuracy(tfidf, labels):.1%}")
    print(f"  {embedder.name:34} {knn_accuracy(abstracts[rows], labels):.1%}")
    print(f"  {embedder.name + ' (title. abstract)':34} {knn_accuracy(full[rows], labels):.1%}")


if __name__ == "__main__":
    main()
