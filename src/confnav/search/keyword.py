"""BM25F keyword scoring over several weighted fields, precomputed as one sparse matrix.

Scores follow BM25F (Robertson & Zaragoza, 2009, "The Probabilistic Relevance
Framework"): per-field length-normalised term frequencies are weighted and summed
before saturation. Like bm25s, every (document, term) score is computed once at
build time, so a query is a sum of a few sparse columns.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy import sparse

from confnav.registry import Registry
from confnav.search.text import terms
from confnav.settings import Settings

DEFAULT_FIELD_WEIGHTS: dict[str, float] = {"title": 3.0, "keywords": 2.0, "authors": 1.0, "abstract": 1.0}


class TextIndex(Protocol):
    """A keyword index over documents in row order: a score per document for a query, the documents holding
    every term of a text, and bytes for the store's cache."""

    @property
    def size(self) -> int: ...

    def score(self, query: str | Sequence[str]) -> np.ndarray: ...

    def containing(self, text: str) -> np.ndarray: ...

    def to_bytes(self) -> bytes: ...


@dataclass
class KeywordIndex:
    """Documents × terms matrix of BM25F scores, with the vocabulary to map query terms."""

    vocabulary: dict[str, int]
    scores: sparse.csc_matrix

    @property
    def size(self) -> int:
        return self.scores.shape[0]

    @classmethod
    def build(
        cls,
        documents: Sequence[Mapping[str, str]],
        weights: Mapping[str, float] = DEFAULT_FIELD_WEIGHTS,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> KeywordIndex:
        """Index `documents` (field name → text) with the given field weights."""
        vocabulary: dict[str, int] = {}
        combined: sparse.csr_matrix | None = None
        n_docs = len(documents)
        for field, weight in weights.items():
            rows, cols, lengths = [], [], np.zeros(n_docs)
            for row, doc in enumerate(documents):
                tokens = terms(doc.get(field) or "")
                lengths[row] = len(tokens)
                for token in tokens:
                    rows.append(row)
                    cols.append(vocabulary.setdefault(token, len(vocabulary)))
            counts = sparse.csr_matrix(
                (np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(n_docs, max(len(vocabulary), 1))
            )
            counts.sum_duplicates()
            # Per field, over the documents that have it: title-only records must not shorten the average abstract.
            average = (lengths[lengths > 0].mean() if (lengths > 0).any() else 0.0) or 1.0
            norm = 1.0 / (1.0 - b + b * lengths / average)
            part = sparse.diags(weight * norm.astype(np.float32)) @ counts
            if combined is not None:
                combined.resize(part.shape)
                part = part + combined
            combined = part.tocsr()
        assert combined is not None
        combined.resize((n_docs, len(vocabulary)))
        tf = combined.data
        combined.data = (tf * (k1 + 1.0) / (tf + k1)).astype(np.float32)
        df = np.bincount(combined.indices, minlength=len(vocabulary))
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
        scores = (combined @ sparse.diags(idf)).tocsc()
        return cls(vocabulary, scores)

    def score(self, query: str | Sequence[str]) -> np.ndarray:
        """BM25F score of every document for a query text (or its terms); zeros where nothing matches."""
        query_terms = terms(query) if isinstance(query, str) else list(query)
        counts: dict[int, int] = {}
        for term in query_terms:
            if (column := self.vocabulary.get(term)) is not None:
                counts[column] = counts.get(column, 0) + 1
        if not counts:
            return np.zeros(self.size, dtype=np.float32)
        columns = np.fromiter(counts, dtype=np.int64)
        weights = np.fromiter(counts.values(), dtype=np.float32)
        return np.asarray(self.scores[:, columns] @ weights).ravel()

    def containing(self, text: str) -> np.ndarray:
        """Documents that contain every index term of `text` in some field (a cheap pre-filter for phrases)."""
        mask = np.ones(self.size, dtype=bool)
        for term in set(terms(text)):
            column = self.vocabulary.get(term)
            if column is None:
                return np.zeros(self.size, dtype=bool)
            present = np.zeros(self.size, dtype=bool)
            present[self.scores.indices[self.scores.indptr[column] : self.scores.indptr[column + 1]]] = True
            mask &= present
        return mask

    def to_bytes(self) -> bytes:
        """Serialise (vocabulary and matrix) for the store's cache."""
        buffer = io.BytesIO()
        words = np.array(sorted(self.vocabulary, key=self.vocabulary.__getitem__), dtype=object)
        np.savez(
            buffer,
            words=np.array("\n".join(words)),
            data=self.scores.data,
            indices=self.scores.indices,
            indptr=self.scores.indptr,
            shape=np.array(self.scores.shape),
        )
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, blob: bytes) -> KeywordIndex:
        arrays = np.load(io.BytesIO(blob), allow_pickle=False)  # stores come from anywhere: data only
        words = str(arrays["words"]).split("\n") if str(arrays["words"]) else []
        matrix = sparse.csc_matrix((arrays["data"], arrays["indices"], arrays["indptr"]), shape=tuple(arrays["shape"]))
        return cls({w: i for i, w in enumerate(words)}, matrix)


# Index name → factory called with `documents` (field name → text) and field `weights`.
INDEXES: Registry[TextIndex] = Registry("index", ("score", "containing", "to_bytes"))
INDEXES.register("bm25f", KeywordIndex.build)
DEFAULT_INDEX = "bm25f"


def make_keyword_index(
    settings: Settings, documents: Sequence[Mapping[str, str]], weights: Mapping[str, float] = DEFAULT_FIELD_WEIGHTS
) -> TextIndex:
    """The keyword index the settings choose (`steps.index`, else BM25F) over `documents`; a plugged
    `module:Class` is called with `documents` and `weights`, as BM25F's factory is."""
    return INDEXES.create(settings.steps.index or DEFAULT_INDEX, documents=documents, weights=weights)
