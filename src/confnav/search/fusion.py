"""Fusion of keyword and semantic scores into one ranking.

The default is a convex combination of normalised scores, which beat reciprocal
rank fusion on the ICLR 2021 known-item tasks (see BENCHMARKS.md): BM25F is
divided by its maximum, cosine is rescaled so the candidates' mean maps to 0 and
the best to 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RUN_INDEX = "run 'confnav index'"


def normalize_keyword(scores: np.ndarray, top: float | None = None) -> np.ndarray:
    """BM25F divided by the best score (`top`: the best over more rows than these)."""
    if top is None:
        top = float(scores.max()) if scores.size else 0.0
    return scores / top if top > 0 else np.zeros_like(scores)


def normalize_semantic(scores: np.ndarray, mean: float | None = None, top: float | None = None) -> np.ndarray:
    """Cosine rescaled so the mean maps to 0 and the best to 1, below the mean 0 (`mean`, `top`: over more rows)."""
    if not scores.size:
        return scores
    mean = float(scores.mean()) if mean is None else mean
    top = float(scores.max()) if top is None else top
    return np.clip((scores - mean) / (top - mean), 0.0, None) if top > mean else np.zeros_like(scores)


def lift_accepted(scores: np.ndarray, standing: np.ndarray, lift: float) -> np.ndarray:
    """Relevance with each positive score raised by `lift` × its paper's standing (accepted 1, not accepted 0,
    others ½; corpus.py): among near-equal matches accepted papers come first, a clearly better match stays."""
    if not lift:
        return scores
    lifted = scores * (1.0 + lift * standing)
    if lift < 0:
        return np.where(scores > 0, lifted, scores)
    # The factor is at least 1, so the larger of the two is the lifted score where positive and the score elsewhere:
    # the same answer without a comparison and a selection over every row (3.7 -> 1.4 ms at 500,000 rows).
    return np.maximum(lifted, scores, out=lifted)


def align_groups(scores: np.ndarray, rows: np.ndarray, group: np.ndarray, minimum: int = 20) -> np.ndarray:
    """Scores of the `group` rows (e.g. records without an abstract) mapped onto the other rows' distribution.

    A short text sits closer to any query than a long one, so cosine favours
    title-only records. Each `group` score is replaced by the score at the same
    quantile among the other admitted rows, so that a record ranks by how well it
    matches compared with records of its own shape, whatever fields it carries.
    """
    inside, outside = rows & group, rows & ~group
    if inside.sum() < minimum or outside.sum() < minimum:
        return scores
    values = scores[inside]
    own = _sorted_sample(values)
    quantiles = (np.searchsorted(own, values, side="left") + np.searchsorted(own, values, side="right")) / 2 / own.size
    reference = _sorted_sample(scores[outside])
    aligned = scores.copy()
    aligned[inside] = np.interp(quantiles * (reference.size - 1), np.arange(reference.size), reference)
    return aligned


def _sorted_sample(values: np.ndarray, size: int = 4096) -> np.ndarray:
    """The values sorted, or an evenly spaced sample of them when there are many (quantiles barely move)."""
    step = max(1, values.size // size)
    return np.sort(values[::step])


def with_unindexed(
    semantic: np.ndarray, mask: np.ndarray, covered: np.ndarray, keyword: np.ndarray | None, notices: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Scores and mask once admitted papers without a vector are accounted for: with `keyword` (hybrid search)
    those matching a word stay, given the meaning score found at their words' quantile (the best-matching
    words, the best meaning); either way a notice says how many are unindexed."""
    unindexed = mask & ~covered
    missing = int(unindexed.sum())
    if not missing:
        return semantic, covered
    papers = f"{missing:,} paper{'s' * (missing > 1)}"
    if keyword is None:
        notices.append(f"{papers} not in the semantic index yet cannot be found by meaning: {RUN_INDEX}")
        return semantic, covered
    notices.append(f"{papers} not in the semantic index yet are matched by their words only: {RUN_INDEX}")
    semantic = semantic.copy()
    if covered.any():
        words = np.sort(keyword[mask])
        quantile = np.searchsorted(words, keyword[unindexed], side="right") / words.size
        semantic[unindexed] = np.quantile(semantic[covered], quantile)
    return semantic, covered | (unindexed & (keyword > 0))


@dataclass(frozen=True)
class ConvexFusion:
    """`keyword_weight` × normalised BM25F + (1 − `keyword_weight`) × normalised cosine."""

    keyword_weight: float = 0.5

    def __call__(self, keyword: np.ndarray, semantic: np.ndarray) -> np.ndarray:
        w = self.keyword_weight
        return w * normalize_keyword(keyword) + (1.0 - w) * normalize_semantic(semantic)


@dataclass(frozen=True)
class ReciprocalRankFusion:
    """Cormack et al. (2009): sum of 1 / (k + rank) over the two rankings."""

    k: int = 60

    def __call__(self, keyword: np.ndarray, semantic: np.ndarray) -> np.ndarray:
        fused = np.zeros(keyword.shape, dtype=np.float64)
        for scores in (keyword, semantic):
            ranks = np.empty(scores.size, dtype=np.float64)
            ranks[np.argsort(-scores, kind="stable")] = np.arange(1, scores.size + 1)
            fused += 1.0 / (self.k + ranks)
        return fused
