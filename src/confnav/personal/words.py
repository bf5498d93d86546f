"""The words view of the taste model: TF-IDF vectors of papers' own words and word pairs, beside the meaning.

A researcher's later papers reuse the rarer words and word pairs of their earlier ones and of their
collaborators' (a method's name, a dataset, a kind of data), which a general sentence embedding blurs. Words
and adjacent pairs (English stop words dropped) are hashed into a fixed number of columns, so no vocabulary is
held however many papers there are; a term weighs its sublinear frequency times its inverse document
frequency over the venue's papers, and terms in one paper only or in over half of them are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from confnav.model import Paper

if TYPE_CHECKING:  # scipy and scikit-learn are imported where used: importing them costs every command a second
    from scipy import sparse
    from sklearn.feature_extraction.text import HashingVectorizer

COLUMNS = 2**20
COMMON = 0.5  # terms in more than this share of a venue's papers (of at least SMALL) say nothing of a taste
SMALL = 20
KEPT = 5000  # texts' rows kept per space


@cache
def _hasher() -> HashingVectorizer:
    """The hashing of words and pairs, made on first use: importing scikit-learn costs a second at start."""
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(
        n_features=COLUMNS, ngram_range=(1, 2), stop_words="english", alternate_sign=False, norm=None, dtype=np.float32
    )


def words_of(title: str, abstract: str | None, keywords: Sequence[str]) -> str:
    """The text a paper is known by in the words view: title, abstract and author keywords."""
    return f"{title}. {abstract or ''} {'; '.join(keywords)}"


def paper_words(paper: Paper) -> str:
    return words_of(paper.title, paper.abstract, paper.keywords)


@dataclass
class WordSpace:
    """The term weights of one set of papers (a venue's candidates) and their unit rows; other texts are
    weighed alike, and the rows of the last KEPT of them kept (a profile's texts come back with every refit)."""

    idf: np.ndarray  # per hashed column; 0 for dropped terms
    matrix: sparse.csr_matrix  # the papers' rows
    kept: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)  # text -> (columns, weights)

    @classmethod
    def of(cls, texts: Sequence[str]) -> WordSpace:
        from scipy import sparse

        counts = _counts(texts)
        n = len(texts)
        df = np.bincount(counts.indices, minlength=COLUMNS)
        large = n >= SMALL
        kept = (df >= (2 if large else 1)) & (df <= (COMMON * n if large else n))
        idf = np.where(kept, np.log((1 + n) / (1 + df)) + 1, 0).astype(np.float32)
        space = cls(idf, sparse.csr_matrix((0, COLUMNS), dtype=np.float32))
        space.matrix = space._weighed(counts)
        return space

    def vectors(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """Unit rows of other texts in this space (terms the papers lack weigh nothing)."""
        kept = self.kept
        missing = [text for text in dict.fromkeys(texts) if text not in kept]
        if missing:
            if len(kept) + len(missing) > KEPT:  # a new dict: request threads may be reading the old one
                kept, missing = {}, list(dict.fromkeys(texts))
            made = self._weighed(_counts(missing))
            for n, text in enumerate(missing):
                start, end = made.indptr[n], made.indptr[n + 1]
                kept[text] = (made.indices[start:end], made.data[start:end])
            self.kept = kept
        return _stacked([kept[text] for text in texts])

    def _weighed(self, counts: sparse.csr_matrix) -> sparse.csr_matrix:
        from scipy import sparse

        counts = counts.copy()
        counts.data = (1 + np.log(counts.data)) * self.idf[counts.indices]
        counts.eliminate_zeros()
        norms = np.sqrt(np.asarray(counts.multiply(counts).sum(axis=1)).ravel())
        return sparse.csr_matrix(sparse.diags(1 / np.where(norms > 0, norms, 1)) @ counts, dtype=np.float32)


def _stacked(rows: list[tuple[np.ndarray, np.ndarray]]) -> sparse.csr_matrix:
    """One sparse matrix of rows given as (columns, weights)."""
    from scipy import sparse

    indptr = np.r_[0, np.cumsum([len(columns) for columns, _ in rows])]
    columns = np.concatenate([c for c, _ in rows]) if rows else np.zeros(0, dtype=np.int32)
    weights = np.concatenate([w for _, w in rows]) if rows else np.zeros(0, dtype=np.float32)
    return sparse.csr_matrix((weights, columns, indptr), shape=(len(rows), COLUMNS), dtype=np.float32)


def _counts(texts: Sequence[str]) -> sparse.csr_matrix:
    """Each text's hashed term counts (no texts: no rows)."""
    from scipy import sparse

    if not texts:
        return sparse.csr_matrix((0, COLUMNS), dtype=np.float32)
    return sparse.csr_matrix(_hasher().transform(texts), dtype=np.float32)
