"""Segments of the keyword index: the raw statistics of a set of documents (each field's term counts and
lengths), from which BM25F scores are computed at query time with statistics over every live document.

As in Lucene and tantivy, an index is a base segment plus small segments for documents added or changed since;
a segment never changes once made, so an update tokenizes only the changed documents and a merge only stacks
arrays (no document is read or tokenized again).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING

import numpy as np

from confnav.search.text import TermColumns, term_columns

if TYPE_CHECKING:  # scipy is imported where used: importing it costs every command a third of a second
    from scipy import sparse

BITS = 8  # a term's count in one field of one document is capped at 255 (saturation makes more no different)
MAX_FIELDS = 8
CHUNK = 4096  # documents split at once while tokenizing


def _packed(fields: int) -> type[np.unsignedinteger]:
    """The integer type holding one 8-bit count per field."""
    if fields > MAX_FIELDS:
        raise ValueError(f"a keyword index holds at most {MAX_FIELDS} fields, not {fields}")
    return np.uint32 if fields <= 4 else np.uint64


@dataclass(frozen=True)
class Segment:
    """Documents of one build: their row keys (any order), their term counts (documents × terms, columns in the
    index's shared vocabulary, possibly fewer than it holds now; each value packs one 8-bit count per field)
    and each field's length in terms."""

    pks: np.ndarray  # int64
    counts: sparse.csc_matrix
    lengths: np.ndarray  # documents × fields, float32

    def __len__(self) -> int:
        return int(self.pks.size)

    @property
    def fields(self) -> int:
        return int(self.lengths.shape[1])

    @property
    def width(self) -> int:
        """Vocabulary columns this segment has (terms added to the vocabulary later have none here)."""
        return int(self.counts.shape[1])

    @classmethod
    def tokenize(
        cls,
        pks: Sequence[int] | np.ndarray,
        documents: Iterable[Mapping[str, str]],
        fields: Sequence[str],
        vocabulary: dict[str, int],
    ) -> Segment:
        """Count each field's terms of `documents` (field name → text); new terms are added to `vocabulary`."""
        return cls.tokenize_rows(zip(pks, documents, strict=True), fields, vocabulary)

    @classmethod
    def tokenize_rows(
        cls, rows: Iterable[tuple[int, Mapping[str, str]]], fields: Sequence[str], vocabulary: dict[str, int]
    ) -> Segment:
        """Count each field's terms of documents (row key, field name → text) as they are read, CHUNK at a time: a
        field's texts of a chunk are split at once and their terms counted in arrays (text.term_columns)."""
        from scipy import sparse

        packed = _packed(len(fields))
        columns = TermColumns(vocabulary)
        keys: list[int] = []
        found: list[list[np.ndarray]] = [[] for _ in fields]
        sizes: list[list[np.ndarray]] = [[] for _ in fields]
        rows = iter(rows)
        while chunk := list(islice(rows, CHUNK)):
            keys.extend(pk for pk, _ in chunk)
            for f, name in enumerate(fields):
                ids, counts = term_columns([doc.get(name) or "" for _, doc in chunk], columns)
                found[f].append(ids)
                sizes[f].append(counts)
        n = len(keys)
        shape = (n, max(len(vocabulary), 1))
        counts = sparse.csc_matrix(shape, dtype=packed)
        lengths = np.zeros((n, len(fields)), dtype=np.float32)
        for f in range(len(fields)):
            size = np.concatenate(sizes[f]) if n else np.zeros(0, dtype=np.int64)
            lengths[:, f] = size
            rows_of = np.repeat(np.arange(n, dtype=np.int32), size)
            ids = np.concatenate(found[f]).astype(np.int32) if n else np.zeros(0, dtype=np.int32)
            part = sparse.csc_matrix((np.ones(rows_of.size, dtype=packed), (rows_of, ids)), shape)
            part.sum_duplicates()
            part.data = np.minimum(part.data, (1 << BITS) - 1).astype(packed) << packed(BITS * f)
            counts = counts + part  # fields in separate bits: a sum packs them
        return cls(np.array(keys, dtype=np.int64), counts.tocsc(), lengths)

    @classmethod
    def empty(cls, fields: int, width: int) -> Segment:
        from scipy import sparse

        return cls(
            np.zeros(0, dtype=np.int64),
            sparse.csc_matrix((0, width), dtype=_packed(fields)),
            np.zeros((0, fields), dtype=np.float32),
        )

    def postings(self, column: int) -> tuple[np.ndarray, np.ndarray]:
        """Documents holding a term (ascending) and its count in each field (fields × documents); nothing for
        a column past this segment's width."""
        if column >= self.width:
            return np.zeros(0, dtype=np.int32), np.zeros((self.fields, 0), dtype=np.uint8)
        start, end = self.counts.indptr[column], self.counts.indptr[column + 1]
        packed = self.counts.data[start:end]
        shifts = (BITS * np.arange(self.fields)).astype(packed.dtype)
        return self.counts.indices[start:end], ((packed[None, :] >> shifts[:, None]) & 0xFF).astype(np.float32)

    def select(self, keep: np.ndarray) -> Segment:
        """The documents at these positions (a boolean mask or positions), in that order."""
        return Segment(self.pks[keep], self.counts[keep], self.lengths[keep])

    def widened(self, width: int) -> sparse.csc_matrix:
        """The counts with `width` columns (a CSC matrix gains empty columns by extending its indptr)."""
        from scipy import sparse

        matrix = self.counts
        extra = np.full(max(width - matrix.shape[1], 0), matrix.indptr[-1], matrix.indptr.dtype)
        return sparse.csc_matrix(
            (matrix.data, matrix.indices, np.concatenate([matrix.indptr, extra])), shape=(matrix.shape[0], width)
        )

    @staticmethod
    def stack(segments: Sequence[Segment], width: int) -> Segment:
        """One segment holding the documents of several, in order, with `width` vocabulary columns."""
        from scipy import sparse

        counts = sparse.vstack([s.widened(width) for s in segments], format="csc", dtype=segments[0].counts.dtype)
        return Segment(np.concatenate([s.pks for s in segments]), counts, np.concatenate([s.lengths for s in segments]))

    def document_frequency(self, rows: np.ndarray | None = None) -> np.ndarray:
        """How many of this segment's documents (of `rows`, positions, when given) hold each term in some field:
        for a few rows, one pass over the postings instead of a copy of their matrix rows."""
        if rows is None:
            return np.diff(self.counts.indptr).astype(np.int64)
        chosen = np.zeros(len(self), dtype=bool)
        chosen[rows] = True
        entries = np.flatnonzero(chosen[self.counts.indices])
        columns = np.searchsorted(self.counts.indptr, entries, side="right") - 1
        return np.bincount(columns, minlength=self.width).astype(np.int64)

    def to_arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """The segment as named arrays (for np.savez)."""
        return {
            f"{prefix}pks": self.pks,
            f"{prefix}lengths": self.lengths,
            f"{prefix}data": self.counts.data,
            f"{prefix}indices": self.counts.indices,
            f"{prefix}indptr": self.counts.indptr,
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], prefix: str, fields: int) -> Segment:
        """A segment read back from `to_arrays`, checked enough that a damaged one fails here, not in a query."""
        from scipy import sparse

        pks = np.asarray(arrays[f"{prefix}pks"], dtype=np.int64)
        lengths = np.asarray(arrays[f"{prefix}lengths"], dtype=np.float32).reshape(pks.size, fields)
        indptr, indices = np.asarray(arrays[f"{prefix}indptr"]), np.asarray(arrays[f"{prefix}indices"])
        data = np.asarray(arrays[f"{prefix}data"], dtype=_packed(fields))
        if indptr.size < 1 or indptr[0] != 0 or indptr[-1] != data.size or data.size != indices.size:
            raise ValueError("inconsistent keyword segment")
        if np.any(np.diff(indptr) < 0) or (indices.size and (indices.min() < 0 or indices.max() >= pks.size)):
            raise ValueError("keyword segment out of range")
        return cls(pks, sparse.csc_matrix((data, indices, indptr), shape=(pks.size, indptr.size - 1)), lengths)
