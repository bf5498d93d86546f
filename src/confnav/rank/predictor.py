"""An impact predictor for conference time: learned from the loaded venues whose citation counts are known.

Two ridge regressions, both linear so every prediction splits into per-feature contributions:
the text model maps a paper's vector to its venue's citation percentile; the paper model
weighs that text score with the features of features.py. Training rows get text scores from
models that never saw their venue (or their fold), so the paper model learns how far to
trust the text on unseen venues. The model is plain numbers (JSON), fitted on the user's store
and cached in it; `confnav rank --refit` (or any change of papers or vectors) fits it again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from confnav.rank.features import FEATURES, VenueFeatures

TEXT_ALPHA = 30.0  # ridge strength of the text model (vectors are unit length)
PAPER_ALPHA = 1.0
MIN_CITED = 30  # papers with a known count a venue needs to teach the predictor
FOLDS = 5


@dataclass
class ImpactModel:
    """Fitted weights: text model, feature means (imputation), scales, and the paper model."""

    venues: list[str]
    text_weights: list[float]
    text_bias: float
    means: list[float]
    scales: list[float]
    weights: list[float]
    bias: float
    names: list[str] = field(default_factory=lambda: [*FEATURES, "text"])

    def to_json(self) -> str:
        return json.dumps(self.__dict__)

    @classmethod
    def from_json(cls, text: str) -> ImpactModel:
        data = json.loads(text)
        return cls(**{k: data[k] for k in cls.__dataclass_fields__})

    def rows(self, features: VenueFeatures) -> np.ndarray:
        """Standardised inputs (missing values at the training mean, so they add nothing)."""
        text = self.text_score(features)
        values = np.column_stack([features.values, text])
        means, scales = np.array(self.means), np.array(self.scales)
        values = np.where(np.isnan(values), means, values)
        return (values - means) / scales

    def text_score(self, features: VenueFeatures) -> np.ndarray:
        if features.vectors is None or not self.text_weights or features.vectors.shape[1] != len(self.text_weights):
            return np.full(len(features.papers), np.nan)
        score = features.vectors @ np.array(self.text_weights) + self.text_bias
        missing = np.abs(features.vectors).sum(axis=1) == 0
        return np.where(missing, np.nan, score)

    def contributions(self, features: VenueFeatures) -> np.ndarray:
        """papers × inputs: how much each input moved each prediction away from the average paper."""
        return self.rows(features) * np.array(self.weights)

    def predict(self, features: VenueFeatures) -> np.ndarray:
        return self.contributions(features).sum(axis=1) + self.bias


def cited_venues(venues: list[VenueFeatures]) -> list[VenueFeatures]:
    """The venues with enough known citation counts to learn from."""
    return [v for v in venues if int(np.sum(~np.isnan(v.target))) >= MIN_CITED]


def fit(venues: list[VenueFeatures]) -> ImpactModel:
    """Fit on the papers with a known citation count of these venues."""
    known = [~np.isnan(v.target) for v in venues]
    target = np.concatenate([v.target[k] for v, k in zip(venues, known, strict=True)])
    text_weights, text_bias = _fit_text(venues, known)
    text = _held_out_text(venues, known)
    values = np.vstack([np.column_stack([v.values[k], t]) for v, k, t in zip(venues, known, text, strict=True)])
    present = ~np.isnan(values)
    counts = present.sum(axis=0)
    means = np.where(counts > 0, np.where(present, values, 0.0).sum(axis=0) / np.maximum(counts, 1), 0.0)
    filled = np.where(np.isnan(values), means, values)
    scales = filled.std(axis=0)
    scales = np.where(scales > 1e-9, scales, 1.0)
    standard = (filled - means) / scales
    weights, bias = _ridge(standard, target, PAPER_ALPHA)
    return ImpactModel(
        [v.venue.id for v in venues],
        text_weights.tolist(),
        text_bias,
        means.tolist(),
        scales.tolist(),
        weights.tolist(),
        bias,
    )


def _ridge(x: np.ndarray, y: np.ndarray, alpha: float) -> tuple[np.ndarray, float]:
    """Ridge regression with an unpenalised intercept."""
    mx, my = x.mean(axis=0), float(y.mean())
    centred = x - mx
    weights = np.linalg.solve(centred.T @ centred + alpha * np.eye(x.shape[1]), centred.T @ (y - my))
    return weights, my - float(mx @ weights)


def _with_vectors(venues: list[VenueFeatures], known: list[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(vectors, target) of the known papers that have a vector, per venue (empty where the venue has none)."""
    parts = []
    for v, k in zip(venues, known, strict=True):
        if v.vectors is None:
            parts.append((np.zeros((0, 0)), np.zeros(0)))
            continue
        keep = k & (np.abs(v.vectors).sum(axis=1) > 0)
        parts.append((v.vectors[keep], v.target[keep]))
    return parts


def _fit_text(venues: list[VenueFeatures], known: list[np.ndarray]) -> tuple[np.ndarray, float]:
    parts = [p for p in _with_vectors(venues, known) if len(p[1])]
    dims = {p[0].shape[1] for p in parts}
    if not parts or len(dims) != 1:
        return np.zeros(0), 0.0
    return _ridge(np.vstack([p[0] for p in parts]), np.concatenate([p[1] for p in parts]), TEXT_ALPHA)


def _held_out_text(venues: list[VenueFeatures], known: list[np.ndarray]) -> list[np.ndarray]:
    """Each training paper's text score from a text model fitted without its venue (or its fold, with one venue)."""
    scores = [np.full(int(k.sum()), np.nan) for k in known]
    parts = _with_vectors(venues, known)
    usable = [i for i, p in enumerate(parts) if len(p[1])]
    if len({parts[i][0].shape[1] for i in usable}) != 1:
        return scores
    if len(usable) >= 2:
        for i in usable:
            others = [parts[j] for j in usable if j != i]
            w, b = _ridge(np.vstack([p[0] for p in others]), np.concatenate([p[1] for p in others]), TEXT_ALPHA)
            scores[i] = _scores_of(venues[i], known[i], w, b)
        return scores
    i = usable[0]
    x, y = parts[i]
    fold = np.arange(len(y)) % FOLDS
    predicted = np.zeros(len(y))
    for f in range(FOLDS):
        w, b = _ridge(x[fold != f], y[fold != f], TEXT_ALPHA)
        predicted[fold == f] = x[fold == f] @ w + b
    vectors = venues[i].vectors
    assert vectors is not None  # a venue with usable parts has vectors
    has = (np.abs(vectors).sum(axis=1) > 0)[known[i]]
    scores[i][has] = predicted
    return scores


def _scores_of(venue: VenueFeatures, known: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    assert venue.vectors is not None
    vectors = venue.vectors[known]
    return np.where(np.abs(vectors).sum(axis=1) > 0, vectors @ w + b, np.nan)


def training_key(venues: list[VenueFeatures]) -> str:
    """A short name for a set of training venues and their citation counts (changes refit the model)."""
    digest = hashlib.sha1()
    for v in sorted(venues, key=lambda v: v.venue.id):
        digest.update(v.venue.id.encode())
        digest.update(np.nan_to_num(v.target, nan=-1).tobytes())
    return digest.hexdigest()[:12]
