"""The fallback embedder: TF-IDF + truncated SVD (latent semantic analysis), L2-normalised.

Needs only scikit-learn, fits on the store's own corpus, and stands in when the
semantic extra (a sentence-transformers model) is not installed.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Sequence

import numpy as np

from confnav.embed.base import ProgressFn, normalize

SPARSE_MODEL = "tfidf-svd"


class SparseEmbedder:
    """Latent semantic vectors; `fit` must see the corpus before `embed`."""

    name = SPARSE_MODEL
    fitted_on_corpus = True

    def __init__(self, dimensions: int = 256, seed: int = 42) -> None:
        self.dimensions = dimensions
        self.seed = seed
        self._pipeline: object | None = None

    def fit(self, texts: Sequence[str]) -> None:
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.pipeline import make_pipeline

        tfidf = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2, max_df=0.5, dtype=np.float32)
        n_terms = len(tfidf.fit(texts).vocabulary_)
        components = max(2, min(self.dimensions, len(texts) - 1, n_terms - 1))
        svd = TruncatedSVD(n_components=components, random_state=self.seed, algorithm="randomized")
        self._pipeline = make_pipeline(tfidf, svd).fit(texts)

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        if self._pipeline is None:
            raise RuntimeError("the sparse embedder must be fitted (or loaded) before it embeds")
        vectors = normalize(self._pipeline.transform(list(texts)))  # type: ignore[attr-defined]
        if progress:
            progress(len(texts))
        return vectors

    def dumps(self) -> bytes | None:
        buffer = io.BytesIO()
        pickle.dump(self._pipeline, buffer)
        return buffer.getvalue()

    def loads(self, state: bytes) -> None:
        # The state is one this store wrote itself in `confnav index`.
        self._pipeline = pickle.loads(state)
