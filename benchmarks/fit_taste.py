"""Fits the taste model's weights (src/confnav/personal/taste_weights.json) on public data held out from the
evaluation: researchers' accepted ICLR 2020 papers, from profiles of their ICLR 2018 and NeurIPS 2018 papers,
with ICLR 2020 stored without authors (benchmarks/recommend_eval.py then measures on ICLR 2021, unseen here).

A logistic regression over the features, each standardised over a profile's candidates as the library does:
each person's later papers against 200 of the venue's other accepted papers. Prints each feature's recall@50
on the fitting venue alone and the fitted blend's (in-sample). The store is kept under artifacts/fit-taste/.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _people import FITTED, build_store, people
from _util import ROOT, machine
from confnav.personal.recommend import taste_matrix, venue_vectors
from confnav.personal.taste import FEATURES, WEIGHTS_FILE
from confnav.store import SqliteStore
from recommend_eval import TOP, load_cases

CACHE = ROOT / "artifacts" / "fit-taste"
NEGATIVES = 200  # other accepted papers per person


def standard(features: np.ndarray) -> np.ndarray:
    spread = features.std(axis=0)
    return (features - features.mean(axis=0)) / np.where(spread > 1e-9, spread, 1.0)


def main() -> None:
    started = time.perf_counter()
    cached = build_store(CACHE, FITTED)
    path = CACHE / "profiles.db"
    everyone = people(FITTED)
    if not path.exists():
        shutil.copy(cached, CACHE / "profiles.tmp")
        with SqliteStore(CACHE / "profiles.tmp") as store:
            load_cases(store, everyone, next(iter(store.embedding_models())))
        (CACHE / "profiles.tmp").rename(path)
    rng = np.random.default_rng(0)
    x, y, cases = [], [], []
    with SqliteStore(path) as store:
        model = next(iter(store.embedding_models()))
        stored = venue_vectors(store, model, FITTED.later)
        for case in load_cases(store, everyone, model):
            matrix = taste_matrix(case.profile, stored)
            ids = [stored.papers[r].id for r in matrix.rows]
            target = np.array([i in case.targets for i in ids])
            if not target.any():
                continue
            features = standard(matrix.features)
            others = rng.choice(np.flatnonzero(~target), size=min(NEGATIVES, int((~target).sum())), replace=False)
            chosen = np.r_[np.flatnonzero(target), others]
            x.append(features[chosen])
            y.append(target[chosen])
            cases.append((features, target))
    classifier = LogisticRegression(C=1.0, max_iter=2000).fit(np.vstack(x), np.concatenate(y))
    weights = classifier.coef_[0]

    def recall(scores: np.ndarray, target: np.ndarray) -> float:
        return float(target[np.argsort(-scores, kind="stable")[:TOP]].sum() / target.sum())

    print(f"# the taste model's weights, fitted on {FITTED.later} from {', '.join(FITTED.earlier)} ({machine()})")
    print(f"{len(cases)} people; recall@{TOP} on the fitting venue (in-sample):")
    for j, name in enumerate(FEATURES):
        alone = np.mean([recall(f[:, j], t) for f, t in cases])
        print(f"  {name:<24} weight {weights[j]:+.3f}   alone {alone:.3f}")
    fitted = float(np.mean([recall(f @ weights, t) for f, t in cases]))
    print(f"  {'fitted':<24} {'':>13}   {fitted:.3f}")
    WEIGHTS_FILE.write_text(
        json.dumps(
            {
                "fitted_on": f"{FITTED.later} from {', '.join(FITTED.earlier)} (benchmarks/fit_taste.py)",
                "people": len(cases),
                "weights": {name: round(float(w), 4) for name, w in zip(FEATURES, weights, strict=True)},
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"written to {WEIGHTS_FILE.relative_to(ROOT)} ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
