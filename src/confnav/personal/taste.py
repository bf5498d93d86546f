"""The per-profile model: how close each candidate paper is to a profile's taste, from unit vectors.

Vectors are first centred on the venue's mean, so that what every paper of the venue shares (it is about
machine learning, say) does not count as closeness. The score then blends two views of the profile, each
standardised over the candidates: the cosine to the weighted centroid of the positives (the profile's broad
direction) and the mean cosine to the `neighbours` nearest positives (a researcher with several topics is
close to a paper that matches one of them well). Dislikes subtract the same nearest-items closeness to them.
Items can lose weight with age (`half_life` in years). `method="linear"` instead fits a logistic regression of
the positives against the dislikes and the venue's papers as background (arxiv-sanity's per-tag classifier).
There is nothing iterative in the default method, so refitting after a mark is a few matrix products.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BACKGROUND = 1000  # venue papers sampled as weak negatives for the linear method


@dataclass(frozen=True)
class TasteParams:
    """The model's settings (chosen on half of the researchers of benchmarks/recommend_eval.py)."""

    method: str = "blend"  # "blend" (centroid + nearest items) or "linear" (logistic regression)
    centroid: float = 0.25  # share of the centroid view; the rest is the nearest-items view
    neighbours: int = 3
    center: bool = True
    half_life: float | None = None  # years after which an item counts half; None: all alike
    dislike: float = 0.5  # weight of the closeness to dislikes, subtracted
    regularization: float = 1.0  # the linear method's C


DEFAULT_PARAMS = TasteParams()


def unit(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (zero rows kept)."""
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _standard(values: np.ndarray) -> np.ndarray:
    spread = float(values.std())
    return (values - values.mean()) / (spread if spread > 1e-9 else 1.0)


def _nearest_mean(similarity: np.ndarray, k: int, weights: np.ndarray) -> np.ndarray:
    """Per candidate (row), the weighted mean of its k highest similarities to the items (columns)."""
    k = max(1, min(k, similarity.shape[1]))
    if k == similarity.shape[1]:
        top = np.arange(similarity.shape[1])[None, :].repeat(similarity.shape[0], axis=0)
    else:
        top = np.argpartition(-similarity, k - 1, axis=1)[:, :k]
    picked = np.take_along_axis(similarity, top, axis=1)
    w = weights[top]
    return np.asarray((picked * w).sum(axis=1) / w.sum(axis=1))


def item_weights(years: list[int | None], params: TasteParams) -> np.ndarray:
    """Each positive's weight: 1, or halved every `half_life` years before the newest dated item."""
    if params.half_life is None or not any(years):
        return np.ones(len(years))
    newest = max(y for y in years if y)
    return np.array([0.5 ** ((newest - y) / params.half_life) if y else 1.0 for y in years])


def taste_scores(
    positives: np.ndarray,
    weights: np.ndarray,
    negatives: np.ndarray,
    candidates: np.ndarray,
    venue_mean: np.ndarray,
    params: TasteParams = DEFAULT_PARAMS,
) -> np.ndarray:
    """Each candidate's closeness to the profile (higher is closer; standardised, so comparable across
    profiles only in rank). All inputs are unit rows; `venue_mean` is the mean of the venue's vectors."""
    shift = venue_mean if params.center else np.zeros_like(venue_mean)
    return centred_scores(positives, weights, negatives, unit(candidates - shift), shift, params)


def centred_scores(
    positives: np.ndarray,
    weights: np.ndarray,
    negatives: np.ndarray,
    centred: np.ndarray,
    shift: np.ndarray,
    params: TasteParams = DEFAULT_PARAMS,
) -> np.ndarray:
    """`taste_scores` with the candidates already shifted by `shift` and scaled to unit rows: a venue's
    candidates are centred once and kept, so a refit after a mark only centres the profile's few items."""
    pos = unit(positives - shift).astype(centred.dtype)
    neg = unit(negatives - shift).astype(centred.dtype) if len(negatives) else negatives
    if params.method == "linear":
        return _linear(pos, neg, centred, params)
    centroid = centred @ unit((pos * weights[:, None]).sum(axis=0)).astype(centred.dtype)
    similarity = centred @ pos.T
    score = params.centroid * _standard(centroid)
    score = score + (1 - params.centroid) * _standard(_nearest_mean(similarity, params.neighbours, weights))
    if len(neg):
        against = _nearest_mean(centred @ neg.T, params.neighbours, np.ones(len(neg)))
        score = score - params.dislike * _standard(against)
    return np.asarray(score, dtype=np.float64)


def _linear(pos: np.ndarray, neg: np.ndarray, cand: np.ndarray, params: TasteParams) -> np.ndarray:
    """A logistic regression of the positives against the dislikes and a sample of the candidates, each
    negative group weighing as much as the positives."""
    from sklearn.linear_model import LogisticRegression

    background = cand[np.random.default_rng(0).permutation(len(cand))[:BACKGROUND]]
    x = np.vstack([pos, *([neg] if len(neg) else []), background])
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg) + len(background))]
    weight = np.r_[
        np.ones(len(pos)),
        np.full(len(neg), len(pos) / max(1, len(neg))),
        np.full(len(background), len(pos) / max(1, len(background))),
    ]
    classifier = LogisticRegression(C=params.regularization, max_iter=1000)
    classifier.fit(x, y, sample_weight=weight)
    return np.asarray(classifier.decision_function(cand), dtype=np.float64)


def farthest_first(vectors: np.ndarray, count: int, start: int) -> list[int]:
    """`count` rows spread over the vectors: from `start`, each next the one farthest from all picked."""
    picked = [start]
    closest = vectors @ vectors[start]
    while len(picked) < min(count, len(vectors)):
        choice = int(np.argmin(closest))
        picked.append(choice)
        closest = np.maximum(closest, vectors @ vectors[choice])
    return picked
