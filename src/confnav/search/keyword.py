"""BM25F keyword scoring over several weighted fields, kept in segments that an update adds to.

Scores follow BM25F (Robertson & Zaragoza, 2009, "The Probabilistic Relevance
Framework"): per-field length-normalised term frequencies are weighted and summed
before saturation. Per-field term counts are stored and scored at query time (a
query reads only its terms' postings), so adding or changing documents never
recomputes the others' scores while statistics stay those of the whole index.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from confnav.registry import Registry
from confnav.search.segments import Segment
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

    def warm(self, share: float = ...) -> int: ...


MERGE_SHARE = 0.1  # segments past the base are merged into it once they hold this share of its documents
MAX_SEGMENTS = 4  # small segments past the base are stacked into one beyond this many
# (row, score) pairs of recently used terms kept: 96 MB. At 500,000 papers a never-asked search's terms hold about
# 280,000 pairs: 48 MB kept 86 terms, 96 MB about 220, and served 1.2-1.3x the searches under 50 clients (144 MB no
# more; USS 380 -> 418 MB a worker).
TERM_CACHE = 8_000_000
WARM_SHARE = 0.5  # of TERM_CACHE filled at a server's start with the terms most documents hold,
WARM_TERMS = 200  # at most this many


@dataclass
class KeywordIndex:
    """BM25F over weighted fields, kept as segments of term counts (segments.py): a base and small segments
    for documents added or changed since, older copies masked out. Scores are computed at query time from the
    counts and the statistics (document frequencies, average field lengths) of the live documents, so an
    updated index scores as one built whole from the same documents. Rows are the live documents by row key."""

    vocabulary: dict[str, int]
    fields: tuple[str, ...]
    weights: np.ndarray  # float64, one per field
    segments: tuple[Segment, ...]
    live: tuple[np.ndarray, ...]  # per segment: which of its documents count
    df: np.ndarray  # live documents holding each term in some field
    k1: float = 1.2
    b: float = 0.75
    generation: int = -1  # the store state its documents are as of (-1: not read from a store)
    base_generation: int = -1  # the state of the stored base segment it extends
    rows: tuple[np.ndarray, ...] = field(init=False)  # per segment: each document's row (-1: masked out)
    pks: np.ndarray = field(init=False)  # the row keys of the rows, ascending
    idf: np.ndarray = field(init=False)
    average: np.ndarray = field(init=False)  # per field: mean length over live documents that have the field
    factors: tuple[np.ndarray, ...] = field(init=False)  # per segment, fields × documents: weight / length norm
    _terms: OrderedDict[int, tuple[np.ndarray, np.ndarray]] = field(init=False)  # term scores, least recent first
    _kept: int = field(init=False)  # rows held by _terms
    _lock: threading.Lock = field(init=False)  # request threads share the index

    def __post_init__(self) -> None:
        keys = [s.pks[lv] for s, lv in zip(self.segments, self.live, strict=True)]
        order = np.argsort(np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64), kind="stable")
        ranks = np.empty(order.size, dtype=np.int64)
        ranks[order] = np.arange(order.size)
        self.pks = (np.concatenate(keys)[order] if keys else order).astype(np.int64)
        rows, at = [], 0
        for segment, live in zip(self.segments, self.live, strict=True):
            row = np.full(len(segment), -1, dtype=np.int64)
            row[live] = ranks[at : at + int(live.sum())]
            at += int(live.sum())
            rows.append(row)
        self.rows = tuple(rows)
        n = self.size
        self.idf = np.log1p((n - self.df + 0.5) / (self.df + 0.5))
        totals, having = np.zeros(len(self.fields)), np.zeros(len(self.fields))
        for segment, live in zip(self.segments, self.live, strict=True):
            lengths = segment.lengths[live]
            totals += lengths.sum(axis=0)
            having += (lengths > 0).sum(axis=0)
        # Per field, over the documents that have it: title-only records must not shorten the average abstract.
        self.average = np.where(having > 0, totals / np.maximum(having, 1), 1.0)
        self._terms, self._kept, self._lock = OrderedDict(), 0, threading.Lock()
        self.factors = tuple(
            (self.weights / (1.0 - self.b + self.b * s.lengths / self.average)).T.astype(np.float32)
            for s in self.segments
        )

    @property
    def size(self) -> int:
        return int(self.pks.size)

    @classmethod
    def build(
        cls,
        documents: Sequence[Mapping[str, str]],
        weights: Mapping[str, float] = DEFAULT_FIELD_WEIGHTS,
        k1: float = 1.2,
        b: float = 0.75,
        pks: Sequence[int] | np.ndarray | None = None,
    ) -> KeywordIndex:
        """Index `documents` (field name → text) with the given field weights; rows in the order of `pks`
        (ascending row keys), else of the documents."""
        keys = np.arange(len(documents)) if pks is None else np.asarray(pks, dtype=np.int64)
        return cls.build_rows(zip(keys.tolist(), documents, strict=True), weights, k1=k1, b=b)

    @classmethod
    def build_rows(
        cls,
        rows: Iterable[tuple[int, Mapping[str, str]]],
        weights: Mapping[str, float] = DEFAULT_FIELD_WEIGHTS,
        **options: Any,
    ) -> KeywordIndex:
        """Index documents as they are read (row key, field name → text; ascending keys), none held whole."""
        vocabulary: dict[str, int] = {}
        segment = Segment.tokenize_rows(rows, tuple(weights), vocabulary)
        return cls.of(vocabulary, tuple(weights), np.array(list(weights.values())), [segment], **options)

    @classmethod
    def of(
        cls,
        vocabulary: dict[str, int],
        fields: tuple[str, ...],
        weights: np.ndarray,
        segments: Sequence[Segment],
        live: Sequence[np.ndarray] | None = None,
        **options: Any,
    ) -> KeywordIndex:
        """An index of these segments (every document live unless told), its frequencies counted from them."""
        lives = list(live) if live is not None else [np.ones(len(s), dtype=bool) for s in segments]
        df = np.zeros(len(vocabulary), dtype=np.int64)
        for segment, alive in zip(segments, lives, strict=True):  # masked rows subtracted: no copy of the segment
            df[: segment.width] += segment.document_frequency()
            if not alive.all():
                df[: segment.width] -= segment.document_frequency(np.flatnonzero(~alive))
        return cls(vocabulary, fields, weights, tuple(segments), tuple(lives), df, **options)

    def _options(self) -> dict[str, Any]:
        return {"k1": self.k1, "b": self.b, "generation": self.generation, "base_generation": self.base_generation}

    def updated(
        self,
        pks: Sequence[int] | np.ndarray,
        documents: Sequence[Mapping[str, str]],
        removed: Sequence[int] | np.ndarray = (),
        generation: int | None = None,
    ) -> KeywordIndex:
        """A new index with these documents added or replacing the same row keys' and the `removed` row keys
        masked out, in time proportional to the change (this index is left as it was: readers may hold it)."""
        vocabulary = dict(self.vocabulary)
        added = Segment.tokenize(pks, documents, self.fields, vocabulary)
        gone = np.union1d(np.asarray(removed, dtype=np.int64), added.pks)
        df = np.zeros(len(vocabulary), dtype=np.int64)
        df[: self.df.size] = self.df
        lives = []
        for segment, live in zip(self.segments, self.live, strict=True):
            hit = live & np.isin(segment.pks, gone)
            if hit.any():
                df[: segment.width] -= segment.document_frequency(np.flatnonzero(hit))
                live = live & ~hit
            lives.append(live)
        df[: added.width] += added.document_frequency()
        options = self._options() | ({} if generation is None else {"generation": generation})
        segments, lives = (*self.segments, added), [*lives, np.ones(len(added), dtype=bool)]
        if not len(added):
            segments, lives = segments[:-1], lives[:-1]
        return KeywordIndex(vocabulary, self.fields, self.weights, segments, tuple(lives), df, **options).compacted()

    def compacted(self) -> KeywordIndex:
        """Small segments stacked into one past MAX_SEGMENTS; everything merged into one base segment once the
        segments past the base (and the base's masked documents) reach MERGE_SHARE of it."""
        if len(self.segments) < 2:
            return self
        base, rest = self.segments[0], self.segments[1:]
        changed = sum(len(s) for s in rest) + int((~self.live[0]).sum())
        merge = changed > MERGE_SHARE * max(len(base), 1)
        if not merge and len(rest) <= MAX_SEGMENTS:
            return self
        pairs = zip(self.segments if merge else rest, self.live if merge else self.live[1:], strict=True)
        stacked = Segment.stack([s.select(lv) for s, lv in pairs], len(self.vocabulary))
        if merge:  # the new base: the store writes it whole
            options = self._options() | {"base_generation": self.generation}
            return KeywordIndex.of(self.vocabulary, self.fields, self.weights, [stacked], **options)
        small = stacked
        segments, lives = (base, small), (self.live[0], np.ones(len(small), dtype=bool))
        return KeywordIndex(self.vocabulary, self.fields, self.weights, segments, lives, self.df, **self._options())

    def _columns(self, query: str | Sequence[str]) -> dict[int, int]:
        """Vocabulary columns of a query's terms and how often each occurs in it."""
        counts: dict[int, int] = {}
        for term in terms(query) if isinstance(query, str) else query:
            if (column := self.vocabulary.get(term)) is not None and column < self.df.size:
                counts[column] = counts.get(column, 0) + 1
        return counts

    def term_scores(self, column: int) -> tuple[np.ndarray, np.ndarray]:
        """The rows holding a term and its BM25F score in each (without the query's count of it): per-field
        counts normalised by the field's length against the average, weighted and summed over the fields,
        saturated (k1) and weighted by the term's idf. The most recently used terms' scores are kept."""
        with self._lock:
            if (found := self._terms.pop(column, None)) is not None:
                self._terms[column] = found
                return found
        rows_found, scores_found, idf = [], [], np.float32(self.idf[column])
        for segment, rows, factors in zip(self.segments, self.rows, self.factors, strict=True):
            docs, counts = segment.postings(column)
            at = rows[docs]
            live = at >= 0
            if not live.all():
                docs, counts, at = docs[live], counts[:, live], at[live]
            tf = (counts * factors[:, docs]).sum(axis=0)
            rows_found.append(at)
            scores_found.append(idf * (tf * np.float32(self.k1 + 1.0) / (tf + np.float32(self.k1))))
        found = (np.concatenate(rows_found), np.concatenate(scores_found).astype(np.float32))
        with self._lock:
            self._terms[column] = found
            self._kept += found[0].size
            while self._kept > TERM_CACHE and len(self._terms) > 1:
                self._kept -= next(iter(self._terms.values()))[0].size
                del self._terms[next(iter(self._terms))]
        return found

    def warm(self, share: float = WARM_SHARE) -> int:
        """Score the terms most documents hold, most first, until `share` of the kept pairs is filled: the costliest
        terms to score, and the likeliest in a query, so that a server's first queries are as fast as its later
        ones. Returns how many terms."""
        budget, done = int(share * TERM_CACHE), 0
        for column in np.argsort(-self.df, kind="stable")[:WARM_TERMS].tolist():
            if self.df[column] == 0 or self.df[column] > budget:
                break
            budget -= int(self.df[column])
            self.term_scores(column)
            done += 1
        return done

    def score(self, query: str | Sequence[str]) -> np.ndarray:
        """BM25F score of every row for a query text (or its terms); zeros where nothing matches."""
        scores = np.zeros(self.size, dtype=np.float32)
        for column, times in self._columns(query).items():
            rows, values = self.term_scores(column)
            scores[rows] += values if times == 1 else times * values
        return scores

    def containing(self, text: str) -> np.ndarray:
        """Rows that contain every index term of `text` in some field (a cheap pre-filter for phrases)."""
        mask = np.ones(self.size, dtype=bool)
        for term in set(terms(text)):
            column = self.vocabulary.get(term)
            if column is None or column >= self.df.size:
                return np.zeros(self.size, dtype=bool)
            present = np.zeros(self.size, dtype=bool)
            for segment, rows in zip(self.segments, self.rows, strict=True):
                at = rows[segment.postings(column)[0]]
                present[at[at >= 0]] = True
            mask &= present
        return mask

    def to_bytes(self) -> bytes:
        """Serialise (vocabulary, segments, masks, frequencies and settings) for the store's cache."""
        buffer = io.BytesIO()
        words = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        arrays: dict[str, np.ndarray] = {
            "words": np.array("\n".join(words)),
            "fields": np.array("\n".join(self.fields)),
            "weights": self.weights,
            "settings": np.array([self.k1, self.b]),
            "generations": np.array([self.generation, self.base_generation], dtype=np.int64),
            "count": np.array(len(self.segments)),
        }
        for i, (segment, live) in enumerate(zip(self.segments, self.live, strict=True)):
            arrays |= segment.to_arrays(f"s{i}.") | {f"s{i}.live": live}
        np.savez(buffer, allow_pickle=False, **arrays)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, blob: bytes) -> KeywordIndex:
        arrays = np.load(io.BytesIO(blob), allow_pickle=False)  # stores come from anywhere: data only
        words = str(arrays["words"]).split("\n") if str(arrays["words"]) else []
        fields = tuple(str(arrays["fields"]).split("\n"))
        segments = [Segment.from_arrays(arrays, f"s{i}.", len(fields)) for i in range(int(arrays["count"]))]
        live = [np.asarray(arrays[f"s{i}.live"], dtype=bool) for i in range(len(segments))]
        if any(s.width > len(words) or lv.size != len(s) for s, lv in zip(segments, live, strict=True)):
            raise ValueError("inconsistent keyword index")
        k1, b = (float(x) for x in arrays["settings"])
        generation, base_generation = (int(x) for x in arrays["generations"])
        vocabulary = {w: i for i, w in enumerate(words)}
        weights = np.asarray(arrays["weights"], dtype=np.float64)
        options = {"k1": k1, "b": b, "generation": generation, "base_generation": base_generation}
        return cls.of(vocabulary, fields, weights, segments, live, **options)


# Index name → factory called with `documents` (field name → text) and field `weights`.
INDEXES: Registry[TextIndex] = Registry(
    "index", ("score", "containing", "to_bytes"), arguments=("documents", "weights")
)
INDEXES.register("bm25f", KeywordIndex.build)
DEFAULT_INDEX = "bm25f"


def make_keyword_index(
    settings: Settings, documents: Sequence[Mapping[str, str]], weights: Mapping[str, float] = DEFAULT_FIELD_WEIGHTS
) -> TextIndex:
    """The keyword index the settings choose (`steps.index`, else BM25F) over `documents`; a plugged
    `module:Class` is called with `documents` and `weights`, as BM25F's factory is."""
    return INDEXES.create(settings.steps.index or DEFAULT_INDEX, documents=documents, weights=weights)
