"""Must-read ranking on ICLR 2021 (with ICLR 2020 loaded for track record, momentum and novelty).

(a) With the decision removed from the signals: ROC AUC of the score separating orals and spotlights
    from posters (accepted papers only), against the mean rating alone.
(b) Stability: Kendall tau between the scores of the top 100 before and after bootstrap resampling of
    each paper's reviews (ratings with their confidences), mean of 20 samples.
(c) Diversity: distinct themes among the top 50, with and without the diversity step, and the AUC
    of (a) measured on the diversified order.
(d) The default order against plain decision tier + mean rating, at 100 papers: orals and spotlights
    among the top 100, mean rating of the top 100, distinct themes, and the stability of (b).
(e) Both modes on the venues with citation counts (ICLR 2018, NeurIPS 2018, ACL 2022; CoRL 2023 loaded too, to
    learn predicted impact from): how many of the 10 most cited papers are in the top 20, and the share of the 50
    most cited in the top 100, for looking back, at the conference, the previous looking-back score (citations
    as one percentile among the signals) and decision tier + mean rating; and ACL 2022's 12 award papers' places
    with the award signal and without it. `--modes` runs only this part.
Speed: ranking all papers, warm; and a 10,000-paper venue (ICLR 2021 replicated, vectors copied), warm.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scipy.stats import kendalltau
from sklearn.metrics import roc_auc_score

from _util import DATA, machine, peak_rss_mb, prepare_store, run_child
from confnav.ingest import ingest
from confnav.model import Paper, Venue
from confnav.rank import DEFAULT_WEIGHTS, RankMode, WeightedRanker, compute_signals
from confnav.rank.ranker import percentiles
from confnav.rank.signals import PaperSignals, VenueSignals, _review_signals
from confnav.store import SqliteStore
from impact_eval import expected_recall

BIG = 10_000


def prominent(paper: Paper) -> bool:
    return paper.decision.kind in ("oral", "spotlight")


def auc_of(scores: dict[str, float], signals: VenueSignals) -> float:
    accepted = [p.paper for p in signals.papers if p.paper.decision.accepted]
    truth = [prominent(p) for p in accepted]
    return float(roc_auc_score(truth, [scores[p.id] for p in accepted]))


def tier_and_rating(signals: VenueSignals) -> list[PaperSignals]:
    """The plain baseline order: decision tier first, then mean rating."""
    return sorted(signals.papers, key=lambda p: (p.paper.decision.tier, -(p.values.get("rating_mean") or 0.0)))


def at_100(papers: list[Any], themes: dict[str, str | None]) -> tuple[int, float, int]:
    """Orals + spotlights, mean rating and distinct themes among the first 100 papers."""
    top = papers[:100]
    ratings = [float(np.mean(p.ratings)) for p in top if p.ratings]
    return sum(map(prominent, top)), float(np.mean(ratings)), len({themes[p.id] for p in top})


def stability(order: list[str], signals: VenueSignals, scorer: Any, samples: int) -> float:
    """Mean Kendall tau of the first 100 papers' scores before and after review bootstrap."""
    rng, before = random.Random(0), scorer(signals)
    taus = []
    for _ in range(samples):
        after = scorer(bootstrap(signals, rng))
        taus.append(kendalltau([before[i] for i in order[:100]], [after[i] for i in order[:100]]).statistic)
    return float(np.mean(taus))


def big_venue(store: SqliteStore, size: int = BIG) -> str:
    """A venue of `size` papers: ICLR 2021 replicated with new ids, each copy with its original's vectors."""
    venue = Venue("iclr2030", "ICLR 2030", "iclr", 2030)  # a later ICLR: every signal applies
    rows = list(store.paper_rows("iclr2021"))
    copies = [(f"{p.id}~{i // len(rows)}", pk, p) for i in range(size) for pk, p in [rows[i % len(rows)]]]
    with store.transaction():
        store.put_venue(venue)
        store.put_papers(
            [replace(p, id=new, venue=venue.id, venue_name=venue.name, year=venue.year) for new, _, p in copies]
        )
    new_pk = {p.id: pk for pk, p in store.paper_rows(venue.id)}
    for model in store.embedding_models():  # every view, with the hashes of the original texts
        pks, blobs = store.embeddings(model, "iclr2021")
        vector_of, hashes = dict(zip(pks, blobs, strict=True)), store.embedding_hashes(model)
        with store.transaction():
            store.put_embeddings(model, [(new_pk[new], hashes[pk], vector_of[pk]) for new, pk, _ in copies])
    return venue.id


def bootstrap(signals: VenueSignals, rng: random.Random) -> VenueSignals:
    """The same venue with each paper's reviews resampled with replacement."""
    papers = []
    for item in signals.papers:
        paper = item.paper
        if paper.ratings:
            picks = [rng.randrange(len(paper.ratings)) for _ in paper.ratings]
            confidences = [paper.confidences[i] for i in picks] if len(paper.confidences) == len(paper.ratings) else []
            paper = replace(paper, ratings=[paper.ratings[i] for i in picks], confidences=confidences)
        values = dict(item.values) | _review_signals(paper)
        papers.append(replace(item, paper=paper, values=values))
    return replace(signals, papers=papers)


def time_ranking(path: Path, venue: str, runs: int = 5) -> None:
    """Print the median and slowest of `runs` rankings of a venue after one warm-up, in this process."""
    with SqliteStore(path) as store:
        WeightedRanker().rank(store, venue)
        took = []
        for _ in range(runs):
            start = time.perf_counter()
            WeightedRanker().rank(store, venue)
            took.append(time.perf_counter() - start)
    print(f"{np.median(took):.2f} {max(took):.2f}")


def previous_looking_back(signals: VenueSignals) -> np.ndarray:
    """The looking-back score before the modes: citations one percentile among the signals, default weights."""
    names = [n for n in signals.names() if DEFAULT_WEIGHTS.get(n, 0) > 0]
    total = sum(DEFAULT_WEIGHTS[n] for n in names)
    score = np.zeros(len(signals.papers))
    for n in names:
        values = [p.values.get(n) for p in signals.papers]
        normal = np.array([v or 0.0 for v in values]) if n == "decision" else percentiles(values)
        score += DEFAULT_WEIGHTS[n] * normal / total
    return score


def modes_on_cited(folder: Path) -> None:
    """(e): both modes and their baselines on the paperlists venues with citation counts."""
    print("\n(e) 10 most cited in the top 20 / recall of the 50 most cited in the top 100")
    names = ["looking back", "at the conference", "previous score", "tier + mean rating"]
    print(f"  {'venue':<14}" + "".join(f"{n:>22}" for n in names))
    with SqliteStore(folder / "cited.db") as store:
        for name in ("iclr2018", "nips2018", "corl2023", "acl2022"):
            ingest(store, [DATA / "paperlists" / f"{name}.json"])
        for venue in ("iclr2018", "neurips2018", "acl2022"):
            signals = compute_signals(store, venue)
            papers = [p.paper for p in signals.papers]
            counts = np.array([p.citations.count if p.citations else -1 for p in papers], dtype=float)
            scores = {"previous score": previous_looking_back(signals)}
            for mode in RankMode:
                ranked = WeightedRanker(mode=mode).rank(store, venue).papers
                position = {r.paper.id: -i for i, r in enumerate(ranked)}
                scores[mode.label] = np.array([position[p.id] for p in papers], dtype=float)
            tier = np.array([-p.decision.tier if p.decision.accepted else -9 for p in papers], dtype=float)
            scores["tier + mean rating"] = tier * 100 + np.array([p.rating_mean or 0.0 for p in papers])
            known = counts >= 0
            most = np.argsort(-counts, kind="stable")[:10]
            cells = []
            for n in names:
                top20 = set(np.argsort(-scores[n], kind="stable")[:20])
                found = sum(int(i in top20) for i in most)
                cells.append(f"{found:>14d} / {expected_recall(scores[n][known], counts[known]):.2f}")
            print(f"  {venue:<14}" + "".join(f"{c:>22}" for c in cells))
        awards(store, "acl2022")


def awards(store: SqliteStore, venue: str) -> None:
    """(e, awards): where the papers the venue's data names an award for are placed, and the 10 most cited in the
    top 20, with the award signal (its weight by the rule of docs/ranking.md) and without it, same run."""
    print(f"\n(e) {venue}: places of its awarded papers / 10 most cited in the top 20, without and with the award")
    for mode in RankMode:
        cells = []
        for exclude in (("award",), ()):
            ranked = WeightedRanker(mode=mode, exclude=exclude).rank(store, venue).papers
            places = [i + 1 for i, r in enumerate(ranked) if r.paper.award]
            counted = sorted((r for r in ranked if r.paper.citations), key=lambda r: -r.paper.citations.count)  # type: ignore[union-attr]
            top20 = {r.paper.id for r in ranked[:20]}
            found = sum(r.paper.id in top20 for r in counted[:10])
            cells.append(f"{'without' if exclude else 'with'}: {places} / {found}")
        print(f"  {mode.label:<18} " + "; ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="An indexed ICLR 2021 store to start from (saves embedding time).")
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--time", nargs=2, metavar=("STORE", "VENUE"), help=argparse.SUPPRESS)
    parser.add_argument("--modes", action="store_true", help="Only (e), the two modes on venues with citations.")
    args = parser.parse_args()
    if args.time:
        return time_ranking(Path(args.time[0]), args.time[1])
    print(f"machine: {machine()}")
    if args.modes:
        with tempfile.TemporaryDirectory() as name:
            return modes_on_cited(Path(name))
    with tempfile.TemporaryDirectory() as name:
        path = prepare_store(Path(name), args.db)
        with SqliteStore(path) as store:
            start = time.perf_counter()
            signals = compute_signals(store, "iclr2021")
            cold = time.perf_counter() - start
            WeightedRanker().rank(store, "iclr2021")
            start = time.perf_counter()
            full = WeightedRanker().rank(store, "iclr2021")
            warm = time.perf_counter() - start
            big = big_venue(store)
            start = time.perf_counter()
            WeightedRanker().rank(store, big)
            big_cold = time.perf_counter() - start
        big_warm = run_child(Path(__file__), "--time", str(path), big).split()  # a process like a server's
    print(f"signals used: {', '.join(full.weights)}; not used: {full.missing or 'none'}")
    print(
        f"speed: ranking all {len(full.papers):,} papers warm {warm:.2f} s (first run with signals {cold:.2f} s); "
        f"{BIG:,}-paper venue warm {big_warm[0]} s (median of 5, max {big_warm[1]} s; "
        f"first run, themes built, {big_cold:.1f} s); peak RSS {peak_rss_mb():.0f} MB"
    )

    no_decision = WeightedRanker(exclude=["decision"], diversify=False).rank_signals(signals)
    ours = auc_of({r.paper.id: r.score for r in no_decision.papers}, signals)
    baseline = auc_of({p.paper.id: p.values.get("rating_mean") or 0.0 for p in signals.papers}, signals)
    diversified = WeightedRanker(exclude=["decision"]).rank_signals(signals).papers
    by_position = {r.paper.id: -i for i, r in enumerate(diversified)}
    print("\n(a) orals + spotlights vs posters, decision removed (ROC AUC)")
    print(f"  mean rating alone (baseline)   {baseline:.4f}")
    print(f"  confnav score                  {ours:.4f}  ({ours - baseline:+.4f})")
    shifted = auc_of(by_position, signals)
    print(f"  confnav, diversified order     {shifted:.4f}  ({shifted - ours:+.4f})")

    rng = random.Random(0)
    top = full.papers[:100]
    taus = []
    for _ in range(args.samples):
        sample = WeightedRanker(diversify=False).rank_signals(bootstrap(signals, rng))
        scores = {r.paper.id: r.score for r in sample.papers}
        taus.append(kendalltau([r.base_score for r in top], [scores[r.paper.id] for r in top]).statistic)
    print(
        f"\n(b) Kendall tau of the top 100 under review bootstrap: mean {np.mean(taus):.3f} "
        f"(min {np.min(taus):.3f}, {args.samples} samples)"
    )

    plain = WeightedRanker(diversify=False).rank_signals(signals).papers
    print("\n(c) distinct themes in the top 50")
    print(f"  without the diversity step     {len({r.theme for r in plain[:50]})}")
    print(f"  with it (default)              {len({r.theme for r in full.papers[:50]})}")

    themes = {r.paper.id: r.theme for r in full.papers}
    baseline_order = [p.paper for p in tier_and_rating(signals)]
    ours_at, base_at = at_100([r.paper for r in full.papers], themes), at_100(baseline_order, themes)

    def default_scores(s: VenueSignals) -> dict[str, float]:
        return {r.paper.id: r.score for r in WeightedRanker().rank_signals(s).papers}

    def baseline_scores(s: VenueSignals) -> dict[str, float]:
        return {p.paper.id: -i for i, p in enumerate(tier_and_rating(s))}

    ours_tau = stability([r.paper.id for r in full.papers], signals, default_scores, args.samples)
    base_tau = stability([p.id for p in baseline_order], signals, baseline_scores, args.samples)
    print("\n(d) at 100 papers: default order vs decision tier + mean rating")
    print(f"  {'':<28}{'default':>10}{'tier+rating':>13}")
    for name, a, b in zip(["orals + spotlights", "mean rating", "distinct themes"], ours_at, base_at, strict=True):
        print(f"  {name:<28}{a:>10.4g}{b:>13.4g}")
    print(f"  {'stability (Kendall tau)':<28}{ours_tau:>10.3f}{base_tau:>13.3f}")
    with tempfile.TemporaryDirectory() as name:
        modes_on_cited(Path(name))


if __name__ == "__main__":
    main()
