"""Topic quality and speed on ICLR 2021, same run, same embeddings.

- confnav's themes (text + keyword vectors, Leiden): NMI and ARI against the keyword-derived
  labels of the search evaluation (labelled subset), themes, distinct labels, low-confidence share;
- the same clustering with five Leiden seeds: how much NMI/ARI move by chance alone;
- the same pipeline on text vectors only, and k-means (k=30) on the text vectors;
- BERTopic with its defaults on the same papers and text embeddings (install it for this
  benchmark only: pip install bertopic): wall time, NMI/ARI, outlier share;
- placement of title-only records: ICLR 2021 papers re-embedded from their titles alone,
  assigned to the nearest theme centre, compared with their real theme;
- label fidelity: the share of each theme's papers whose own keywords or title contain its label
  or its synonym (topics/fidelity.py), size-weighted over themes and sub-themes; the largest and the
  least faithful themes with their members' own top keywords, to check the labels against; labels
  and keywords shown beside them that are cut phrases or modifiers ("shot learning", "adversarial");
- speed: themes + labels + map for all papers, and peak memory.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from _util import machine, peak_rss_mb, prepare_store
from confnav.embed import choose_embedder
from confnav.embed.base import normalize
from confnav.embed.views import paper_text
from confnav.store import SqliteStore
from confnav.topics import TopicBuilder, theme_facts
from confnav.topics.build import theme_range, topic_vectors
from confnav.topics.cluster import LeidenClusterer
from confnav.topics.fidelity import PAIR, coverage, is_cut
from confnav.topics.label import TOO_GENERIC as GENERIC
from labels import keyword_label


def scores(truth: list[str], predicted: np.ndarray) -> str:
    nmi = normalized_mutual_info_score(truth, predicted)
    ari = adjusted_rand_score(truth, predicted)
    return f"NMI {nmi:.3f}  ARI {ari:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="An indexed ICLR 2021 store to start from (saves embedding time).")
    parser.add_argument("--skip-bertopic", action="store_true")
    parser.add_argument("--model", help="The embedder, as `confnav index --model` (tfidf-svd: offline, no download).")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        path = prepare_store(Path(name), args.db, with_2020=False, model=args.model)
        with SqliteStore(path) as store:
            data = topic_vectors(store, "iclr2021")
            start = time.perf_counter()
            build = TopicBuilder().build(store, "iclr2021")
            wall = time.perf_counter() - start
            facts = theme_facts(store, "iclr2021")
            assigned = store.assignments("iclr2021")
        print(
            f"themes + labels + map for {build.papers:,} papers: {wall:.1f} s "
            f"(cluster {build.seconds['cluster']:.1f}, label {build.seconds['label']:.1f}, "
            f"layout {build.seconds['layout']:.1f}); peak RSS {peak_rss_mb():.0f} MB"
        )
        top = [f for f in facts if f.level == 1]
        labels = [f.label for f in facts]
        papers = {p.id: p for p in data.papers}
        print(
            f"{len(top)} themes, {build.subthemes} sub-themes, {len(set(labels))} distinct labels of {len(labels)}; "
            f"low confidence {build.low_confidence} ({build.low_confidence / build.papers:.1%})"
        )

        rows = [i for i, p in enumerate(data.papers) if p.abstract and keyword_label(p.keywords)]
        truth = [keyword_label(data.papers[i].keywords) or "" for i in rows]
        ours = np.array([int(assigned[data.pks[i]].theme[1:]) for i in rows])
        print(f"\nagainst keyword-derived labels ({len(rows)} labelled papers, {len(set(truth))} classes):")
        print(f"  confnav (text + keywords, Leiden)     {scores(truth, ours)}")
        seed_spread(data.vectors, rows, truth)
        half = data.vectors.shape[1] // 2
        text = normalize(data.vectors[:, :half])
        start = time.perf_counter()
        text_only = LeidenClusterer().fit_predict(text, 15, 40)
        print(
            f"  same, text vectors only               {scores(truth, text_only[rows])}  "
            f"({text_only.max() + 1} themes, {time.perf_counter() - start:.1f} s)"
        )
        from sklearn.cluster import KMeans

        start = time.perf_counter()
        kmeans = KMeans(30, n_init=10, random_state=0).fit_predict(text)
        seconds = time.perf_counter() - start
        print(f"  k-means k=30, text vectors            {scores(truth, kmeans[rows])}  ({seconds:.1f} s)")
        label_fidelity(facts, papers)
        if not args.skip_bertopic:
            run_bertopic(data, text, rows, truth)
        title_placement(data, assigned, args.model)


def seed_spread(vectors: np.ndarray, rows: list[int], truth: list[str], seeds: int = 5) -> None:
    """The same clustering from five first seeds (each run tries its own five: 0-4, 5-9, …): how far NMI/ARI move
    with nothing but the seed."""
    low, high = theme_range(len(vectors))
    tries = LeidenClusterer().tries
    found = [LeidenClusterer(seed=seed * tries).fit_predict(vectors, low, high)[rows] for seed in range(seeds)]
    nmi = [normalized_mutual_info_score(truth, labels) for labels in found]
    ari = [adjusted_rand_score(truth, labels) for labels in found]
    print(
        f"  same, {seeds} sets of Leiden seeds          NMI {np.mean(nmi):.3f} ({min(nmi):.3f}-{max(nmi):.3f})  "
        f"ARI {np.mean(ari):.3f} ({min(ari):.3f}-{max(ari):.3f})"
    )


def label_fidelity(themes, papers) -> None:  # type: ignore[no-untyped-def]
    """How well each label names its members, which labels are incomplete, and the largest and worst themes
    next to their members' own keywords."""
    print("\nlabel fidelity (share of a theme's papers whose keywords or title contain its label or its synonym)")
    rows = []
    for theme in themes:
        members = [papers[i] for i in theme.paper_ids]
        rows.append((theme.level, len(members), coverage(theme.label, members), theme.label, members))
    for level, name in ((1, "themes"), (2, "sub-themes")):
        chosen = [r for r in rows if r[0] == level]
        sizes = np.array([r[1] for r in chosen])
        shares = np.array([r[2] for r in chosen])
        cut = ", ".join(r[3] for r in chosen if is_cut(r[3], r[4])) or "none"
        pairs = sum(PAIR in r[3] for r in chosen)
        print(
            f"  {name}: size-weighted mean {np.sum(sizes * shares) / sizes.sum():.1%}, "
            f"median {np.median(shares):.1%}, under 20%: {int(np.sum(shares < 0.2))} of {len(chosen)}, "
            f"two-part labels: {pairs}; cut phrases or modifiers: {cut}"
        )
    shown = [(k, theme) for theme in themes for k in theme.keywords]
    cut_keywords = [k for k, theme in shown if is_cut(k, [papers[i] for i in theme.paper_ids])]
    print(
        f"  keywords shown beside the labels: {len(shown)}, cut phrases or modifiers among them: {len(cut_keywords)}"
        f"{' (' + ', '.join(cut_keywords[:8]) + ')' if cut_keywords else ''}"
    )
    top = [r for r in rows if r[0] == 1]
    largest, worst = sorted(top, key=lambda r: -r[1])[:10], sorted(top, key=lambda r: r[2])[:10]
    for title, chosen in (("largest", largest), ("least faithful", worst)):
        print(f"  {title} themes: papers, fidelity, label — the members' own top keywords")
        for _, size, share, label, members in chosen:
            common = Counter(k.strip().lower() for p in members for k in p.keywords if k.strip().lower() not in GENERIC)
            print(f"    {size:>5}  {share:>6.1%}  {label} — {', '.join(k for k, _ in common.most_common(4))}")


def run_bertopic(data, text: np.ndarray, rows: list[int], truth: list[str]) -> None:  # type: ignore[no-untyped-def]
    try:
        from bertopic import BERTopic
    except ImportError:
        print("  BERTopic: not installed (pip install bertopic to include it)")
        return
    docs = [f"{p.title}. {p.abstract}" if p.abstract else p.title for p in data.papers]
    start = time.perf_counter()
    topics, _ = BERTopic().fit_transform(docs, embeddings=text)
    wall = time.perf_counter() - start
    topics = np.array(topics)
    outliers = float(np.mean(topics == -1))
    print(
        f"  BERTopic defaults, text vectors       {scores(truth, topics[rows])}  ({topics.max() + 1} topics, "
        f"{outliers:.1%} outliers, {wall:.1f} s)"
    )


def title_placement(data, assigned, model: str | None) -> None:  # type: ignore[no-untyped-def]
    """Re-embed 2021 papers from titles only and place them by nearest theme centre."""
    embedder = choose_embedder(model)[0]
    if embedder.fitted_on_corpus:  # fitted as the index was, on the store's papers (ICLR 2021 alone)
        embedder.fit([paper_text(p) for p in data.papers])
    titles = embedder.embed([p.title for p in data.papers])
    half = data.vectors.shape[1] // 2
    keywords = data.vectors[:, half:] * np.sqrt(2)  # undo the joint normalisation (views were unit length)
    placed = normalize(np.hstack([titles, keywords]))
    themes = sorted({a.theme for a in assigned.values()})
    truth = np.array([themes.index(assigned[pk].theme) for pk in data.pks])
    centres = normalize(np.vstack([data.vectors[truth == t].mean(axis=0) for t in range(len(themes))]))
    guess = np.argmax(placed @ centres.T, axis=1)
    print(
        f"\ntitle-only placement: {np.mean(guess == truth):.1%} of papers land in their own theme "
        f"when only title + keywords are known (chance {1 / len(themes):.1%})"
    )


if __name__ == "__main__":
    main()
