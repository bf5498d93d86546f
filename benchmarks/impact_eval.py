"""Impact predictor, leave one venue out, on the real paperlists venues whose citation counts are known.

For each held-out venue the predictor is fitted on the other loaded venues with citations (ICLR 2020
and 2021 are loaded too, for track records and novelty; they have no counts) and ranks the held-out
venue from what was known when it opened. Measures, over its papers with a known count:
  - recall: share of the 50 most-cited papers within the top 100 (expected value where an order ties),
  - Spearman correlation of the order with the citation counts,
against ratings only, decision tier, and decision tier + mean rating, in the same run; for the
predictor alone, for the order `confnav rank --mode at-conference` shows (predictor blended with the
decision and the reviews by the default weights), and for the order `--mode looking-back` shows (led by
the venue's own counts: an upper bound, not a prediction). Speed: features and fit on all six venues.
Run: python benchmarks/impact_eval.py [--db STORE] (a store from an earlier run saves embedding)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import rankdata, spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import DATA, machine, prepare_store
from confnav.embed import choose_embedder
from confnav.embed.views import semantic_model
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.rank import RankedPaper, RankMode, WeightedRanker
from confnav.rank.features import FeatureBuilder, VenueFeatures
from confnav.rank.predictor import cited_venues, fit
from confnav.store import SqliteStore

PAPERLISTS = ["iclr2018", "nips2018", "cvpr2019", "acl2022", "siggraph2022", "corl2023"]
HELD_OUT = ["iclr2018", "neurips2018", "cvpr2019", "acl2022", "corl2023"]
TOP, CITED = 100, 50


def expected_recall(score: np.ndarray, citations: np.ndarray) -> float:
    """Expected share of the CITED most-cited papers among the TOP best scored, ties broken at random."""
    most = np.argsort(-citations, kind="stable")[:CITED]
    order = rankdata(-score, method="min") - 1  # papers strictly better than each
    tied = rankdata(-score, method="max") - order  # size of each paper's tie group
    slots = np.clip(TOP - order, 0, tied)
    return float(np.mean(slots[most] / tied[most]))


def measure(score: np.ndarray, features: VenueFeatures) -> tuple[float, float]:
    known = ~np.isnan(features.target)
    citations = np.array([p.citations.count if p.citations else 0 for p in features.papers], dtype=float)[known]
    return expected_recall(score[known], citations), float(spearmanr(score[known], citations).statistic)


def order_scores(ranked: list[RankedPaper], features: VenueFeatures) -> np.ndarray:
    """A ranking's order as scores in the features' paper order (first: highest)."""
    position = {r.paper.id: -i for i, r in enumerate(ranked)}
    return np.array([position[p.id] for p in features.papers], dtype=float)


def baselines(features: VenueFeatures) -> dict[str, np.ndarray | None]:
    rating = np.array([np.mean(p.ratings) if p.ratings else np.nan for p in features.papers])
    reviewed = bool(np.sum(~np.isnan(rating)) > len(rating) / 2)
    tier = features.column("decision")
    return {
        "ratings only": np.nan_to_num(rating, nan=-1.0) if reviewed else None,
        "decision tier": tier,
        "tier + mean rating": tier * 100 + np.nan_to_num(rating, nan=0.0) if reviewed else None,
    }


def build_store(folder: Path, db: Path | None) -> Path:
    path = prepare_store(folder, db)
    with SqliteStore(path) as store:
        if len(store.venues()) < 2 + len(PAPERLISTS):  # a store saved by an earlier run has them all
            for name in PAPERLISTS:
                ingest(store, [DATA / "paperlists" / f"{name}.json"])
        build_index(store, choose_embedder()[0])
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="a store from an earlier run (saves embedding)")
    parser.add_argument("--save", type=Path, help="keep the built store here")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        path = build_store(Path(name), args.db)
        if args.save:
            args.save.write_bytes(path.read_bytes())
        with SqliteStore(path) as store:
            start = time.perf_counter()
            builder = FeatureBuilder(store, semantic_model(store))
            features = {v: builder.build(v) for v in builder.venues}
            built = time.perf_counter() - start
            start = time.perf_counter()
            fit(cited_venues(list(features.values())))
            fitted = time.perf_counter() - start
            print(
                f"speed: features of {sum(len(f.papers) for f in features.values()):,} papers in "
                f"{len(features)} venues {built:.1f} s, fit {fitted:.2f} s"
            )
            rows, took = [], {}
            for held in HELD_OUT:
                train = cited_venues([f for v, f in features.items() if v != held])
                model = fit(train)
                scores = {"predictor": model.predict(features[held])} | baselines(features[held])
                start = time.perf_counter()
                ranked = WeightedRanker(mode=RankMode.AT_CONFERENCE).rank(store, held).papers
                took[held] = time.perf_counter() - start
                scores["confnav rank"] = order_scores(ranked, features[held])
                back = WeightedRanker(mode=RankMode.LOOKING_BACK).rank(store, held).papers
                scores["looking back"] = order_scores(back, features[held])
                rows.append((held, {k: measure(s, features[held]) for k, s in scores.items() if s is not None}))
    print(f"\nrecall of the {CITED} most-cited papers in the top {TOP} / Spearman, venue held out")
    print("('confnav rank': --mode at-conference; 'looking back': --mode looking-back, which reads the counts)")
    names = ["looking back", "confnav rank", "predictor", "ratings only", "decision tier", "tier + mean rating"]
    print(f"{'venue':<12}" + "".join(f"{n:>22}" for n in names) + f"{'rank / best baseline':>22}")
    for held, found in rows:
        cells = "".join(f"{found[n][0]:>13.2f} / {found[n][1]:>5.2f}" if n in found else f"{'-':>22}" for n in names)
        best = max(v[0] for k, v in found.items() if k not in ("predictor", "confnav rank", "looking back"))
        print(f"{held:<12}{cells}{found['confnav rank'][0] / best:>21.2f}x")
    print(
        "\nranking at conference (features, fit, topics when first built): "
        + ", ".join(f"{v} {t:.1f} s" for v, t in took.items())
    )


if __name__ == "__main__":
    main()
