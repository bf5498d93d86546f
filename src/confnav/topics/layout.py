"""Layouts: a deterministic 2D position for every paper, for the map.

The default is t-SNE (van der Maaten & Hinton, 2008) by openTSNE (Poličar et al., 2024):
Barnes-Hut gradients below 10,000 papers and FFT-accelerated ones above (openTSNE's own
choice), PCA initialisation and a fixed seed; the ICLR dataset paper found t-SNE maps of
these embeddings keep topics well apart.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from confnav.registry import Registry


class Layout(Protocol):
    """Rows of `vectors` to 2D points."""

    def fit_transform(self, vectors: np.ndarray) -> np.ndarray: ...


class TsneLayout:
    """openTSNE with cosine distances and exact neighbours (small corpora) for repeatable maps."""

    def __init__(self, perplexity: float = 30.0, exaggeration: float = 2.0, seed: int = 42) -> None:
        self.perplexity = perplexity
        self.exaggeration = exaggeration  # > 1 pulls themes into tighter islands (Böhm et al., 2022)
        self.seed = seed

    def fit_transform(self, vectors: np.ndarray) -> np.ndarray:
        n = len(vectors)
        if n < 4:
            return np.column_stack([np.arange(n, dtype=np.float64), np.zeros(n)])
        from openTSNE import TSNE

        tsne = TSNE(
            n_components=2,
            perplexity=min(self.perplexity, (n - 1) / 3),
            metric="cosine",
            neighbors="exact" if n <= 20_000 else "pynndescent",
            initialization="pca",
            exaggeration=self.exaggeration,
            random_state=self.seed,
            n_jobs=1,
            verbose=False,
        )
        points = np.asarray(tsne.fit(_no_zero_rows(vectors.astype(np.float64))))
        return points - points.mean(axis=0)


def _no_zero_rows(vectors: np.ndarray) -> np.ndarray:
    """Cosine distance is undefined for a zero vector (a title of words the index does not know): give such
    rows one shared direction, so they sit together instead of breaking the layout."""
    empty = ~np.any(vectors, axis=1)
    if empty.any():
        vectors = vectors.copy()
        vectors[empty] = 1.0 / np.sqrt(vectors.shape[1])
    return vectors


LAYOUTS: Registry[Layout] = Registry("layout", ("fit_transform",), arguments=("seed",))
LAYOUTS.register("tsne", TsneLayout)
