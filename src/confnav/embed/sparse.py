"""The fallback embedder: TF-IDF + truncated SVD (latent semantic analysis), L2-normalised.

Needs only scikit-learn, fits on the store's own corpus, and stands in when the
semantic extra (a sentence-transformers model) is not installed. Its fitted state is
stored as plain arrays (never pickle), so opening a store from anywhere runs no code.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from typing import Any

import numpy as np

from confnav.embed.base import ProgressFn, normalize
from confnav.errors import ConfnavError

SPARSE_MODEL = "tfidf-svd"
STATE_ARRAYS = ("terms", "idf", "components")


class SparseEmbedder:
    """Latent semantic vectors; `fit` must see the corpus before `embed`."""

    name = SPARSE_MODEL
    fitted_on_corpus = True
    languages: frozenset[str] | None = None  # the words of the corpus it was fitted on, whatever their language

    def __init__(self, dimensions: int = 256, seed: int = 42) -> None:
        self.dimensions = dimensions
        self.seed = seed
        self._tfidf: Any = None
        self._components: np.ndarray | None = None  # (dimensions, terms): rows of the SVD basis

    def fit(self, texts: Sequence[str]) -> None:
        from sklearn.decomposition import TruncatedSVD

        if not any(text.strip() for text in texts):
            raise ConfnavError("no paper text to fit the index on: ingest papers first")
        few = len(texts) < 10  # a tiny venue: every word counts (shared by two papers, or by half, is most of them)
        tfidf = _vectorizer().set_params(min_df=1 if few else 2, max_df=1.0 if few else 0.5)
        try:
            matrix = tfidf.fit_transform(texts)
        except ValueError:  # only stop words: a vocabulary of nothing
            raise ConfnavError("the papers' texts hold no words to index (only stop words)") from None
        components = max(2, min(self.dimensions, len(texts) - 1, len(tfidf.vocabulary_) - 1))
        svd = TruncatedSVD(n_components=components, random_state=self.seed, algorithm="randomized").fit(matrix)
        self._tfidf, self._components = tfidf, svd.components_.astype(np.float32)

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        if self._tfidf is None or self._components is None:
            raise RuntimeError("the sparse embedder must be fitted (or loaded) before it embeds")
        vectors = normalize(self._tfidf.transform(list(texts)) @ self._components.T)
        if progress:
            progress(len(texts))
        return vectors

    def dumps(self) -> bytes | None:
        """The fitted state as an .npz of plain arrays (terms in column order, idf weights, SVD basis)."""
        if self._tfidf is None or self._components is None:
            return None
        vocabulary = self._tfidf.vocabulary_
        terms = np.array(sorted(vocabulary, key=vocabulary.__getitem__), dtype=str)
        buffer = io.BytesIO()
        np.savez(buffer, terms=terms, idf=self._tfidf.idf_.astype(np.float32), components=self._components)
        return buffer.getvalue()

    def loads(self, state: bytes) -> None:
        """Restore a state `dumps` wrote; anything else (an old pickled state, a crafted blob) is refused unread."""
        try:
            with np.load(io.BytesIO(state), allow_pickle=False) as arrays:
                terms, idf, components = (arrays[name] for name in STATE_ARRAYS)
        except (ValueError, OSError, KeyError, zipfile.BadZipFile, EOFError) as exc:
            raise ConfnavError(f"the stored TF-IDF index state is unreadable ({exc}): run 'confnav index'") from None
        consistent = terms.dtype.kind == "U" and idf.shape == terms.shape and components.ndim == 2
        if not consistent or components.shape[1] != len(terms):
            raise ConfnavError("the stored TF-IDF index state has inconsistent arrays: run 'confnav index'")
        tfidf = _vectorizer().set_params(vocabulary={term: i for i, term in enumerate(terms.tolist())})
        tfidf.idf_ = idf
        self._tfidf, self._components = tfidf, components.astype(np.float32)


def _vectorizer() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(sublinear_tf=True, stop_words="english", dtype=np.float32)
