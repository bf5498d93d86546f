"""Must-read ranking on ICLR 2021 (with ICLR 2020 loaded for track record, momentum and novelty).

(a) With the decision removed from the signals: ROC AUC of the score separating orals and spotlights
    from posters (accepted papers only), against the mean rating alone.
(b) Stability: Kendall tau between the scores of the top 100 before and after bootstrap resampling of
    each paper's reviews (ratings with their confidences), mean of 20 samples.
(c) Diversity: distinct themes among the top 50, with and without the diversity step, and the AUC
    of (a) measured on the diversified order.
Speed: ranking all papers, warm.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scipy.stats import kendalltau
from sklearn.metrics import roc_auc_score

from _util import machine, peak_rss_mb, prepare_store
from confnav.model import Decision
from confnav.rank import WeightedRanker, compute_signals
from confnav.rank.signals import PaperSignals, VenueSignals, _review_signals
from confnav.store import SqliteStore


def auc_of(scores: dict[str, float], signals: VenueSignals) -> float:
    accepted = [p.paper for p in signals.papers if p.paper.decision.accepted]
    truth = [p.decision in (Decision.ORAL, Decision.SPOTLIGHT) for p in accepted]
    return float(roc_auc_score(truth, [scores[p.id] for p in accepted]))


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
        papers.append(PaperSignals(paper, values, item.authors, item.theme, item.subtheme, item.theme_share_before))
    return replace(signals, papers=papers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="An indexed ICLR 2021 store to start from (saves embedding time).")
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    print(f"machine: {machine()}")
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
    print(f"signals used: {', '.join(full.weights)}; not used: {full.missing or 'none'}")
    print(f"speed: ranking all {len(full.papers):,} papers warm {warm:.2f} s (first run with signals {cold:.2f} s); "
          f"peak RSS {peak_rss_mb():.0f} MB")  # fmt: skip

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
        taus.append(kendalltau([r.score for r in top], [scores[r.paper.id] for r in top]).statistic)
    print(f"\n(b) Kendall tau of the top 100 under review bootstrap: mean {np.mean(taus):.3f} "
          f"(min {np.min(taus):.3f}, {args.samples} samples)")  # fmt: skip

    plain = WeightedRanker(diversify=False).rank_signals(signals).papers
    print("\n(c) distinct themes in the top 50")
    print(f"  without the diversity step     {len({r.theme for r in plain[:50]})}")
    print(f"  with it (default)              {len({r.theme for r in full.papers[:50]})}")


if __name__ == "__main__":
    main()
