"""The per-profile model: how close each candidate paper is to a profile's taste.

The default (`method="fitted"`) weighs six closeness features, each standardised over the candidates: to the
profile's papers in meaning (the embedding: to their centroid, and the mean of the 3 nearest) and in words
(words.py: the same two), and in words to the papers of the profile's collaborators (other papers by the authors
of its papers). The weights were fitted on public data, not on the evaluation's venue: researchers' ICLR 2020
papers from their ICLR 2018 and NeurIPS 2018 ones (benchmarks/fit_taste.py writes taste_weights.json).

The earlier `blend` method reads meaning alone: vectors are first centred on the venue's mean, so that what
every paper of the venue shares (it is about machine learning, say) does not count as closeness; the score
blends the cosine to the weighted centroid of the positives (the profile's broad direction) and the mean
cosine to the `neighbours` nearest positives (a researcher with several topics is close to a paper that
matches one of them well), each standardised over the candidates. In every method but `linear`, dislikes
subtract the nearest-items closeness to them. Items can lose weight with age (`half_life` in years).
`method="linear"` fits a logistic regression of the positives against the dislikes and the venue's papers as
background (arxiv-sanity's per-tag classifier). Nothing in the default method is iterative, so refitting
after a mark is a few matrix products.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # scipy is imported where used: importing it costs every command a third of a second
    from scipy import sparse

BACKGROUND = 1000  # venue papers sampled as weak negatives for the linear method
FEATURES = (
    "meaning_centroid",
    "meaning_nearest",
    "words_centroid",
    "words_nearest",
    "collaborators_centroid",
    "collaborators_nearest",
)
WEIGHTS_FILE = Path(__file__).with_name("taste_weights.json")


@dataclass(frozen=True)
class TasteParams:
    """The model's settings: its method, and the blend's (chosen on half of the researchers of
    benchmarks/recommend_eval.py; the fitted method's weights come from benchmarks/fit_taste.py)."""

    method: str = "fitted"  # "fitted" (meaning, words, collaborators), "blend" (meaning only) or "linear"
    centroid: float = 0.25  # share of the centroid view; the rest is the nearest-items view
    neighbours: int = 3
    center: bool = True
    half_life: float | None = None  # years after which an item counts half; None: all alike
    dislike: float = 0.5  # weight of the closeness to dislikes, subtracted
    regularization: float = 1.0  # the linear method's C


DEFAULT_PARAMS = TasteParams()


@dataclass(frozen=True)
class Words:
    """The words view of one scoring (unit sparse rows): the candidates, the positives in their order, and the
    collaborators' papers (possibly none)."""

    candidates: sparse.csr_matrix
    positives: sparse.csr_matrix
    collaborators: sparse.csr_matrix


@cache
def fitted_weights() -> np.ndarray:
    """The fitted method's weights in FEATURES order, scaled to sum to 1 (as the blend's do)."""
    weights = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))["weights"]
    found = np.array([float(weights[name]) for name in FEATURES])
    return found / found.sum()


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
    words: Words | None = None,
) -> np.ndarray:
    """Each candidate's closeness to the profile (higher is closer; standardised, so comparable across
    profiles only in rank). All inputs are unit rows; `venue_mean` is the mean of the venue's vectors."""
    shift = venue_mean if params.center else np.zeros_like(venue_mean)
    return centred_scores(positives, weights, negatives, unit(candidates - shift), shift, params, words)


def centred_scores(
    positives: np.ndarray,
    weights: np.ndarray,
    negatives: np.ndarray,
    centred: np.ndarray,
    shift: np.ndarray,
    params: TasteParams = DEFAULT_PARAMS,
    words: Words | None = None,
) -> np.ndarray:
    """`taste_scores` with the candidates already shifted by `shift` and scaled to unit rows: a venue's
    candidates are centred once and kept, so a refit after a mark only centres the profile's few items.
    `words` feeds the fitted method's word features (without it they count as zero)."""
    pos = unit(positives - shift).astype(centred.dtype)
    neg = unit(negatives - shift).astype(centred.dtype) if len(negatives) else negatives
    if params.method == "linear":
        return _linear(pos, neg, centred, params)
    if params.method == "fitted":
        features = taste_features(pos, weights, centred, words, params.neighbours)
        score = np.column_stack([_standard(column) for column in features.T]) @ fitted_weights()
    else:
        centroid, nearest = _closeness(centred @ pos.T, centred @ _towards(pos, weights), params.neighbours, weights)
        score = params.centroid * _standard(centroid) + (1 - params.centroid) * _standard(nearest)
    if len(neg):
        against = _nearest_mean(centred @ neg.T, params.neighbours, np.ones(len(neg)))
        score = score - params.dislike * _standard(against)
    return np.asarray(score, dtype=np.float64)


def taste_features(
    positives: np.ndarray, weights: np.ndarray, centred: np.ndarray, words: Words | None, neighbours: int
) -> np.ndarray:
    """The fitted method's features (FEATURES order, a column each) of every candidate, from centred unit rows
    of the positives and candidates and the words view (without it, the word features are zero)."""
    found = list(_closeness(centred @ positives.T, centred @ _towards(positives, weights), neighbours, weights))
    views = [(words.positives, weights), (words.collaborators, np.ones(words.collaborators.shape[0]))] if words else []
    for items, item_weights in views:
        if words is not None and items.shape[0]:
            towards = unit(np.asarray(items.T @ item_weights, dtype=np.float64).ravel())
            found += _closeness(
                (words.candidates @ items.T).toarray(), words.candidates @ towards, neighbours, item_weights
            )
    found += [np.zeros(len(centred))] * (len(FEATURES) - len(found))
    return np.column_stack(found).astype(np.float64)


def _towards(items: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The unit direction of the items' weighted sum (their centroid)."""
    return unit((items * weights[:, None]).sum(axis=0)).astype(items.dtype)


def _closeness(similarity: np.ndarray, centroid: np.ndarray, neighbours: int, weights: np.ndarray) -> list[np.ndarray]:
    """[closeness to the centroid, mean closeness to the `neighbours` nearest items], per candidate."""
    return [np.asarray(centroid, dtype=np.float64).ravel(), _nearest_mean(similarity, neighbours, weights)]


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
