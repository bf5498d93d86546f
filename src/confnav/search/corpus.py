"""An in-memory view of the store for search: papers in row order, the keyword index, the vectors."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from confnav.embed.base import Embedder
from confnav.model import Outcome, Paper, RatingScale
from confnav.search import mapped
from confnav.search.authors import AuthorIndex
from confnav.search.keyword import TextIndex
from confnav.search.keyword_store import base_id, keyword_fields, keyword_index
from confnav.search.query import Query
from confnav.store import PaperFilter
from confnav.store.protocols import SearchStore

# How a paper's outcome lifts its relevance (fusion.lift_accepted): unknown, pending and other outcomes ½.
STANDING = {Outcome.ACCEPTED.value: 1.0, Outcome.NOT_ACCEPTED.value: 0.0}
MASK_CACHE_BYTES = 32 << 20  # filter masks kept (one byte per row each): 256 at 130,000 papers, 64 at 500,000


def standing_of(outcomes: Iterable[str]) -> np.ndarray:
    """Each outcome's standing, 0-1 (STANDING)."""
    return np.array([STANDING.get(outcome, 0.5) for outcome in outcomes], dtype=np.float64)


@dataclass
class Vectors:
    """Stored embeddings of one model, aligned with the corpus rows (zero rows where missing)."""

    matrix: np.ndarray
    present: np.ndarray
    embedder: Embedder | None = None

    @property
    def dimension(self) -> int:
        return int(self.matrix.shape[1])

    def row_vectors(self, rows: list[int]) -> list[np.ndarray]:
        """The vectors of these rows (rows without one left out)."""
        return [self.matrix[r] for r in rows if self.present[r]]

    def scores(
        self, query: np.ndarray, mask: np.ndarray, keyword: np.ndarray | None, where: PaperFilter
    ) -> tuple[np.ndarray, np.ndarray]:
        """Similarity of every row to `query`, and the mask narrowed to rows that have a vector."""
        return self.matrix @ query, mask & self.present


@dataclass
class Corpus:
    """Everything search needs in memory, valid for one store generation."""

    papers: list[Paper]
    keyword: TextIndex
    pks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # row keys, ascending
    ratings: np.ndarray = field(default_factory=lambda: np.zeros(0))
    standing: np.ndarray = field(default_factory=lambda: np.zeros(0))  # of each row's outcome, 0-1
    masks: dict[PaperFilter, np.ndarray] = field(default_factory=dict)
    rows_of_id: dict[str, list[int]] = field(default_factory=dict)
    short: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    hidden: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # placeholders, never a hit
    _authors: AuthorIndex | None = None
    _scales: dict[str, str] = field(default_factory=dict)
    _stale: set[str] = field(default_factory=set)  # venues whose papers changed since _scales was counted
    _masks_lock: threading.Lock = field(default_factory=threading.Lock)
    generation: int = -1  # the store state its papers were read at (each is as of then or later)
    extends: int = -1  # the leading rows it has of the corpus it was changed from, the same papers' (-1: read whole)

    @classmethod
    def load(cls, store: SearchStore, previous: Corpus | None = None) -> Corpus:
        """Read the papers and the keyword index: the stored one (or `previous`'s, the corpus this one replaces)
        brought up to date with the papers changed since; with `previous`, only the papers written since are read
        and applied to what it holds, unless some were removed."""
        generation = store.generation()
        changes = changes_since(store, previous) if previous is not None and type(previous) is Corpus else None
        if previous is not None and changes is not None:
            return previous.changed(store, generation, changes)
        rows = list(store.paper_rows())
        pks = np.array([pk for pk, _ in rows], dtype=np.int64)
        papers = [paper for _, paper in rows]
        documents = lambda: ((pk, keyword_fields(p)) for pk, p in rows)  # noqa: E731
        keyword = keyword_index(store, generation, pks, documents, previous.keyword if previous else None)
        return cls.made(papers, keyword, pks, paper_facts(papers), generation)

    @classmethod
    def made(
        cls, papers: list[Paper], keyword: TextIndex, pks: np.ndarray, facts: dict[str, np.ndarray], generation: int
    ) -> Corpus:
        """A corpus of these rows and their FACTS, as of `generation`."""
        short, hidden = facts["short"], facts["hidden"]
        corpus = cls(papers, keyword, pks, facts["ratings"], facts["standing"], short=short, hidden=hidden)
        corpus.generation = generation
        return corpus

    def changed(self, store: SearchStore, generation: int, changes: Changes) -> Corpus:
        """A new corpus: this one with the changed papers in their rows and the added ones after (this one is left
        as it was: request threads may hold it); what is derived from every paper is carried over where it can."""
        papers = list(self.papers)
        old = {row: papers[row] for row in changes.rows.tolist() if row >= 0}
        for (_, paper), row in zip(changes.written, changes.rows.tolist(), strict=True):
            if row >= 0:
                papers[row] = paper
        papers += [paper for (_, paper), row in zip(changes.written, changes.rows.tolist(), strict=True) if row < 0]
        facts = {name: getattr(self, name) for name in FACTS}
        facts = applied(facts, changes.rows, paper_facts([paper for _, paper in changes.written]))
        keyword = keyword_index(store, generation, changes.pks, previous=self.keyword, written=changes.written)
        corpus = Corpus.made(papers, keyword, changes.pks, facts, generation)
        corpus.extends = len(self)
        touched = {p.venue for _, p in changes.written} | {p.venue for p in old.values()}
        corpus._scales, corpus._stale = dict(self._scales), self._stale | touched
        renamed = any(papers[row].id != paper.id for row, paper in old.items())
        if self.rows_of_id and not renamed:
            corpus.rows_of_id = dict(self.rows_of_id)
            for row in range(len(self), len(papers)):
                corpus.rows_of_id[papers[row].id] = [*corpus.rows_of_id.get(papers[row].id, []), row]
        return corpus

    def warm(self) -> None:
        """Count every venue's rating scale now, before requests arrive (the first hits would)."""
        self._count_scales()

    def rating_scale(self, venue: str) -> str | None:
        """The venue's rating scale in words (`1–10`), so that hits from several venues never compare silently;
        after a change, only the venues of changed papers are counted again."""
        if not self._scales or venue in self._stale:
            self._count_scales()
        return self._scales.get(venue)

    def _count_scales(self) -> None:
        """The scales of the venues changed since they were counted (every venue the first time)."""
        stale = self._stale if self._scales else None
        ratings: dict[str, list[float]] = {}
        for paper in self.papers:
            if stale is None or paper.venue in stale:
                ratings.setdefault(paper.venue, []).extend(paper.ratings)
        scales = {v: s for v, s in self._scales.items() if stale is not None and v not in stale}
        self._scales = scales | {v: RatingScale.of(r).describe() for v, r in ratings.items() if r}
        self._stale = set()

    def __len__(self) -> int:
        return len(self.papers)

    def rows_of(self, pks: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
        """The rows of these row keys, and which keys have one (papers added since the load have none)."""
        wanted = np.fromiter(pks, dtype=np.int64)
        if not self.pks.size or not wanted.size:
            return np.zeros(0, dtype=np.int64), np.zeros(wanted.size, dtype=bool)
        at = np.minimum(np.searchsorted(self.pks, wanted), self.pks.size - 1)
        found = self.pks[at] == wanted
        return at[found], found

    def author_rows(self, name: str) -> np.ndarray | None:
        """Rows with an author of this name, matched in memory (None: leave it to the store's filter)."""
        if self._authors is None:
            self._authors = AuthorIndex(self.papers)
        return self._authors.mask(name)

    def mask(self, store: SearchStore, where: PaperFilter) -> np.ndarray:
        """Rows a filter admits (all rows for an empty filter); never a placeholder (`withdraw`, `title`), so that
        no search, similar or recommend list shows one."""
        if where.author and (authors := self.author_rows(where.author)) is not None:
            return self.mask(store, replace(where, author=None)) & authors
        if where == PaperFilter():
            return ~self.hidden if self.hidden.size == len(self) else np.ones(len(self), dtype=bool)
        with self._masks_lock:  # request threads share the masks, least recently used first
            selected = self.masks.pop(where, None)
        if selected is None:
            selected = np.zeros(len(self), dtype=bool)
            selected[self.rows_of(store.filter_pks(where))[0]] = True
            if self.hidden.size == len(self):
                selected &= ~self.hidden
        with self._masks_lock:
            while self.masks and (len(self.masks) + 1) * len(self) > MASK_CACHE_BYTES:
                del self.masks[next(iter(self.masks))]
            self.masks[where] = selected
        return selected.copy()

    def load_vectors(self, store: SearchStore, model: str, previous: Vectors | None = None) -> Vectors:
        """The stored vectors of `model`, aligned with the rows (the Searcher decides when to reload): mapped from
        the file every process of this store shares, which the first one writes; `previous`'s rows extended with
        empty ones for the papers added since, when they are the vectors of the corpus this one extends and no
        vector was stored since (a paper changed keeps its vector until it is embedded again)."""

        def make() -> dict[str, np.ndarray]:
            if previous is not None and previous.present.size == self.extends:
                return grown({"matrix": previous.matrix, "present": previous.present}, len(self))
            pks, blobs = store.embeddings(model)
            dimension = len(blobs[0]) // 4 if blobs else 0
            matrix = np.zeros((len(self), dimension), dtype=np.float32)
            present = np.zeros(len(self), dtype=bool)
            if blobs:
                stacked = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dimension)
                rows, found = self.rows_of(pks)
                matrix[rows] = stacked[found]
                present[rows] = True
            return {"matrix": matrix, "present": present}

        state = (model, self.generation, len(self), store.versions()[1])
        name = base_id(store) if self.generation >= 0 else None  # rows not read from the store: nothing to share
        held = mapped.arrays(store, name, "vectors", state, ("matrix", "present"), make)
        return Vectors(held["matrix"], held["present"])

    def meeting(self, query: Query, rows: list[int]) -> list[bool]:
        """Whether each row's paper meets every condition of `query` exactly (its phrases in order, ...)."""
        return [query.matches(*texts) for texts in self.texts(rows)]

    def texts(self, rows: list[int]) -> list[tuple[str, str, list[str], list[str]]]:
        """Title, abstract, keywords and author names of these rows: what a query's exact conditions check."""
        papers = [self.papers[r] for r in rows]
        return [(p.title, p.abstract or "", p.keywords, [a.name for a in p.authors]) for p in papers]

    def prefetch(self, rows: list[int]) -> None:
        """Papers are all in memory here; a corpus that reads them from the store fetches these at once."""

    def find(self, paper_id: str, venue: str | None = None) -> int | None:
        """The row of a paper id (first match unless a venue is given)."""
        if not self.rows_of_id:
            for row, paper in enumerate(self.papers):
                self.rows_of_id.setdefault(paper.id, []).append(row)
        rows = [r for r in self.rows_of_id.get(paper_id, []) if venue is None or self.papers[r].venue == venue]
        return rows[0] if rows else None


def grown(arrays: dict[str, np.ndarray], rows: int) -> dict[str, np.ndarray]:
    """Per-row arrays extended with zero rows (rows of papers added since) to `rows` rows."""
    return {
        name: np.concatenate([array, np.zeros((rows - array.shape[0], *array.shape[1:]), dtype=array.dtype)])
        for name, array in arrays.items()
    }


FACTS = ("ratings", "standing", "short", "hidden")  # what search knows of each row without reading its paper


def paper_facts(papers: list[Paper]) -> dict[str, np.ndarray]:
    """Each paper's FACTS: its mean rating (0 without), its outcome's standing, no abstract, a placeholder."""
    return {
        "ratings": np.array([p.rating_mean or 0.0 for p in papers], dtype=np.float64),
        "standing": standing_of(p.decision.outcome.value for p in papers),
        "short": np.array([not p.abstract for p in papers], dtype=bool),
        "hidden": np.array([p.placeholder for p in papers], dtype=bool),
    }


@dataclass(frozen=True)
class Changes:
    """What was written to the store since a corpus's state: the papers added or changed (row key and paper, in key
    order), the row each had in that corpus (-1: added after its last row), and the store's row keys now."""

    written: list[tuple[int, Paper]]
    rows: np.ndarray
    pks: np.ndarray


def changes_since(store: SearchStore, previous: Corpus) -> Changes | None:
    """The papers written since `previous`'s state, read alone; None when that does not give the store's rows
    (papers removed, or added before its last row key, or written meanwhile): then every row is read again."""
    if previous.generation < 0:
        return None
    generation = store.generation()
    written = store.papers_changed_since(previous.generation)
    keys = np.array([pk for pk, _ in written], dtype=np.int64)
    rows, found = previous.rows_of(keys)
    at = np.full(keys.size, -1, dtype=np.int64)
    at[found] = rows
    added = keys[~found]
    if added.size and previous.pks.size and added[0] <= previous.pks[-1]:
        return None
    # Every paper added since is among those written: the count says whether any was removed.
    if store.count_papers() != previous.pks.size + added.size or store.generation() != generation:
        return None
    return Changes(written, at, np.concatenate([previous.pks, added]))


def applied(arrays: dict[str, np.ndarray], rows: np.ndarray, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per-row arrays with the changed rows' `values` written in (`rows`: each one's row, -1 for a row added after
    the last, in order): new arrays, the given ones untouched (other processes may map them)."""
    known = rows >= 0
    changed = {}
    for name, array in arrays.items():
        made = np.concatenate([np.asarray(array), values[name][~known].astype(array.dtype)])
        made[rows[known]] = values[name][known]
        changed[name] = made
    return changed
