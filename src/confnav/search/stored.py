"""Search over a store that keeps papers (and with PostgreSQL, nearest neighbours) itself: a worker maps the row
facts, the keyword index and a small sample of vectors from files shared by every worker (mapped.py), and asks the
database for papers and neighbours."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from confnav.model import Paper
from confnav.search import mapped
from confnav.search.authors import AUTHOR_ARRAYS, MappedAuthors, author_arrays
from confnav.search.corpus import FACTS, Changes, Corpus, applied, changes_since, grown, paper_facts, standing_of
from confnav.search.first_cut import Exact, best_keyword_rows
from confnav.search.keyword import TextIndex
from confnav.search.keyword_store import base_id, keyword_index, text_fields
from confnav.search.mapped_texts import MappedTexts, TextArrays
from confnav.search.query import Query
from confnav.store import PaperFilter
from confnav.store.protocols import NearestNeighbours, SearchStore

CANDIDATES = 100  # nearest neighbours and best keyword rows scored exactly per query
EXACT_ALL = 1000  # a search admitting at most this many papers scores them all, as SQLite does (same answers)
SAMPLE = 2048  # vectors kept to estimate how an unscored paper compares with a query
PAPER_CACHE = 4096
ROW_ARRAYS = ("pks", "short", "ratings", "standing", "hidden")


class LazyPapers:
    """Papers by corpus row, read from the store in batches and kept in a small LRU cache."""

    def __init__(self, store: SearchStore, pks: np.ndarray) -> None:
        self.store, self.pks = store, pks
        self._cache: OrderedDict[int, Paper] = OrderedDict()
        self._lock = threading.Lock()  # request threads share it

    def __len__(self) -> int:
        return int(self.pks.size)

    def __getitem__(self, row: int) -> Paper:
        row = int(row)
        with self._lock:
            paper = self._cache.get(row)
        if paper is None:
            return self.prefetch([row])[row]
        return paper

    def prefetch(self, rows: list[int]) -> dict[int, Paper]:
        """Read the papers of these rows that are not cached yet, in one query; return those asked for."""
        with self._lock:
            have = {int(r): self._cache[int(r)] for r in rows if int(r) in self._cache}
        missing = [int(r) for r in rows if int(r) not in have]
        if missing:
            found = self.store.papers_by_pk([int(self.pks[r]) for r in missing])
            have.update({row: found[int(self.pks[row])] for row in missing})
        with self._lock:
            self._cache.update(have)
            while len(self._cache) > PAPER_CACHE:
                self._cache.popitem(last=False)
        return have


def build_keyword_index(store: SearchStore, rebuild: bool = True) -> TextIndex:
    """The BM25F index of every paper, kept in the store: built whole from the papers as they are read when
    `rebuild` or when none is stored, else brought up to date with the papers changed since; and the files of
    its base that servers check phrases on (mapped_texts.py)."""
    generation, pks = store.generation(), store.row_facts()[0]
    texts = TextArrays()

    def rows() -> Iterator[tuple[int, dict[str, str]]]:  # one read of the papers for both
        for row in store.paper_texts():
            texts.add(*row)
            yield row[0], text_fields(*row[1:])

    index = keyword_index(store, generation, pks, rows, rebuild=rebuild)
    made = texts.arrays() if texts.pks else None
    MappedTexts.of(store, index, pks, write=True, made=made)  # what servers check phrases on: not at their start
    return index


@dataclass
class LeanCorpus(Corpus):
    """A Corpus whose papers stay in the store: rows map to row keys, papers are read when shown."""

    store: Any = None
    checks: MappedTexts | None = None  # what exact conditions check of papers unchanged since the keyword base

    @classmethod
    def load(cls, store: SearchStore, previous: Corpus | None = None) -> LeanCorpus:
        """The row facts and keyword index of the store's papers; with `previous` (the corpus this one replaces),
        only the papers written since are read and applied to its arrays, unless some were removed."""
        generation = store.generation()
        held = previous if isinstance(previous, LeanCorpus) else None
        changes = changes_since(store, held) if held is not None else None
        make = lambda: row_arrays(store) if held is None or changes is None else changed_rows(held, changes)  # noqa: E731
        count = store.count_papers() if changes is None else changes.pks.size
        rows = mapped.arrays(store, base_id(store), "rows", (generation, count), ROW_ARRAYS, make)
        pks = rows["pks"]
        written = None if changes is None else changes.written
        keyword = keyword_index(
            store, generation, pks, previous=previous.keyword if previous else None, written=written
        )
        facts = {"ratings": rows["ratings"], "standing": rows["standing"], "short": rows["short"]}
        corpus = cls(LazyPapers(store, pks), keyword, pks, hidden=rows["hidden"], **facts)  # type: ignore[arg-type]
        corpus.store, corpus.generation = store, generation
        corpus.extends = -1 if held is None or changes is None else len(held)
        corpus.checks = MappedTexts.of(store, keyword, pks)
        return corpus

    def author_rows(self, name: str) -> np.ndarray | None:
        """Rows with an author of this name, from the author index every process maps."""
        if self._authors is None:
            state = (self.generation, len(self))
            make = lambda: author_arrays(self.store.author_keys(), self.pks)  # noqa: E731
            arrays = mapped.arrays(self.store, base_id(self.store), "authors", state, AUTHOR_ARRAYS, make)
            self._authors = MappedAuthors(arrays, len(self))
        return self._authors.mask(name)

    def warm(self) -> None:
        """Every venue's rating scale in one read now: concurrent first searches would each count the venues of
        their hits (about 3 ms a venue at 500,000 papers), all of them at once on a server's start."""
        self._learn_scales({venue.id for venue in self.store.venue_list()})

    def rating_scale(self, venue: str) -> str | None:
        if venue not in self._scales:  # once per venue and corpus, from the store's memo of the venue's papers' state
            self._learn_scales({venue})
        return self._scales[venue] or None

    def _learn_scales(self, venues: set[str]) -> None:
        scales = self.store.rating_scales(venues)
        for venue in venues:
            self._scales[venue] = scale.describe() if (scale := scales.get(venue)) is not None else ""

    def find(self, paper_id: str, venue: str | None = None) -> int | None:
        rows = self.rows_of(self.store.pks_of(paper_id, venue))[0]
        return int(rows[0]) if rows.size else None

    def prefetch(self, rows: list[int]) -> None:
        """The rows' papers in one query, and the rating scales of their venues not seen yet in one more (hits
        show them: a first search over many venues asked once per venue)."""
        papers = self.papers.prefetch(rows)  # type: ignore[attr-defined]
        if unseen := {p.venue for p in papers.values()} - self._scales.keys():
            self._learn_scales(unseen)

    def meeting(self, query: Query, rows: list[int]) -> list[bool]:
        """As Corpus.meeting, from the mapped files for papers unchanged since the keyword base: no store read."""
        checked = self.checks.meeting(query, rows) if self.checks is not None else [None] * len(rows)
        found = {row: met for row, met in zip(rows, checked, strict=True) if met is not None}
        if len(found) < len(rows):
            missing = [row for row in rows if row not in found]
            found.update(zip(missing, super().meeting(query, missing), strict=True))
        return [found[row] for row in rows]

    def texts(self, rows: list[int]) -> list[tuple[str, str, list[str], list[str]]]:
        """The rows' fields read from the store's columns: no whole paper is read or kept for an exact check."""
        keys = [int(self.pks[r]) for r in rows]
        found = self.store.texts_by_pk(keys)
        return [
            (title, abstract or "", keywords, authors) for title, abstract, keywords, authors in map(found.get, keys)
        ]


def changed_rows(previous: Corpus, changes: Changes) -> dict[str, np.ndarray]:
    """The row arrays of `previous` with the papers written since applied (ROW_ARRAYS)."""
    arrays = {name: getattr(previous, name) for name in FACTS}
    return applied(arrays, changes.rows, paper_facts([paper for _, paper in changes.written])) | {"pks": changes.pks}


def row_arrays(store: SearchStore) -> dict[str, np.ndarray]:
    """What search knows of every paper without reading it: row keys, no abstract, mean rating, the standing of
    its outcome, a placeholder (never a hit)."""
    pks, short, ratings, outcomes = store.row_facts()
    hidden = np.isin(pks, np.array(store.placeholder_pks(), dtype=np.int64))
    return {"pks": pks, "short": short, "ratings": ratings, "standing": standing_of(outcomes), "hidden": hidden}


class VectorSearchStore(SearchStore, NearestNeighbours, Protocol):
    """A store that reads papers and finds their nearest neighbours itself (PostgreSQL with pgvector)."""


class StoredVectors:
    """The semantic index inside the database: nearest neighbours come from its HNSW index, filters applied there."""

    embedder: Any = None

    def __init__(
        self, store: VectorSearchStore, model: str, corpus: LeanCorpus, previous: StoredVectors | None = None
    ) -> None:
        """The rows with a vector and a sample of vectors; `previous`'s, extended with rows of the papers added since,
        when they are of the corpus this one extends and no vector was stored since (as Corpus.load_vectors)."""
        self.store, self.model, self.corpus = store, model, corpus
        self.pks: np.ndarray = corpus.pks

        def make() -> dict[str, np.ndarray]:
            if previous is not None and previous.present.size == corpus.extends:
                return grown({"present": previous.present}, len(corpus)) | {"sample": previous.sample}
            embedded = list(store.embedding_hashes(model))
            present = np.zeros(len(corpus), dtype=bool)
            present[corpus.rows_of(embedded)[0]] = True
            rng = np.random.default_rng(0)
            chosen: np.ndarray | list[int] = (
                rng.choice(embedded, size=min(SAMPLE, len(embedded)), replace=False) if embedded else []
            )
            found = store.vectors_of(model, [int(pk) for pk in chosen])
            sample = np.vstack(list(found.values())) if found else np.zeros((0, 0), dtype=np.float32)
            return {"present": present, "sample": sample}

        state = (model, corpus.generation, len(corpus), store.versions()[1])
        held = mapped.arrays(store, base_id(store), "neighbours", state, ("present", "sample"), make)
        self.present, self.sample = held["present"], held["sample"]

    @property
    def dimension(self) -> int:
        return int(self.sample.shape[1]) if self.sample.size else 0

    def row_vectors(self, rows: list[int]) -> list[np.ndarray]:
        """The vectors of these rows (rows without one left out)."""
        pks = [int(self.pks[r]) for r in rows]
        found = self.store.vectors_of(self.model, pks)
        return [found[pk] for pk in pks if pk in found]

    def scores(
        self, query: np.ndarray, mask: np.ndarray, keyword: np.ndarray | None, where: PaperFilter
    ) -> tuple[np.ndarray, np.ndarray]:
        """Similarity of every row to `query`: exact for the nearest rows and the best keyword rows, the
        sample's mean elsewhere (a neutral value the fusion maps to about zero); and the mask of rows with vectors."""
        exact, mask = self.exact(query, mask, keyword, where)
        return exact.dense(len(self.corpus)), mask

    def exact(
        self,
        query: np.ndarray,
        mask: np.ndarray,
        keyword: np.ndarray | None,
        where: PaperFilter,
        best: int = CANDIDATES,
    ) -> tuple[Exact, np.ndarray]:
        """As `scores`, the exact similarities alone, with the neutral value of every other row and the `best`
        keyword rows (the first CANDIDATES of them scored exactly)."""
        mask = mask & self.present
        neutral = float((self.sample @ query).mean()) if self.sample.size else 0.0
        none = np.zeros(0, dtype=np.int64)
        matching, kept = (
            best_keyword_rows(keyword, mask, max(best, CANDIDATES)) if keyword is not None else (none, none)
        )
        if mask.sum() <= EXACT_ALL:  # few admitted rows (a small venue): score them all
            exact = self.store.vector_scores(self.model, query, self.pks[mask].tolist())
        else:
            admitted = self.corpus.mask(self.store, where) & self.present  # what the query's SQL filter admits
            share = float(admitted.sum()) / max(1, int(self.present.sum()))
            exact = dict(self.store.nearest(self.model, query, where, CANDIDATES, share))
            if keyword is not None and kept.size:
                top = kept
                if kept.size > CANDIDATES:
                    top = kept[np.argpartition(-keyword[kept], CANDIDATES - 1)[:CANDIDATES]]
                pks = self.pks[top].tolist()
                exact.update(self.store.vector_scores(self.model, query, [pk for pk in pks if pk not in exact]))
        rows, found = self.corpus.rows_of(exact)
        values = np.fromiter(exact.values(), dtype=np.float32)[found]
        order = np.argsort(rows, kind="stable")
        return Exact(rows[order], values[order], neutral, matching, kept), mask
