"""A venue's papers with their stored vectors, kept in memory per state of that venue: what the taste model
scores, with the views made of them once (centred rows, the words view)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from confnav.errors import ConfnavError
from confnav.latest import LatestPerKey
from confnav.model import Outcome, Paper, is_placeholder_title, title_key
from confnav.personal.taste import unit
from confnav.personal.words import WordSpace, paper_words
from confnav.store.protocols import SearchStore

KEPT = 8  # venues' vectors kept in memory (each for its newest state only)


@dataclass
class VenueVectors:
    """One venue's (or the whole store's) papers with a vector: unit rows, and what filters need per row."""

    pks: list[int]
    matrix: np.ndarray
    papers: list[Paper]
    rows_of: dict[tuple[str, str] | str, list[int]]  # rows by (venue, paper id) and by title_key
    eligible: np.ndarray  # not a placeholder title
    accepted: np.ndarray  # not a rejection or withdrawal
    row_of: dict[int, int]

    @cached_property
    def mean(self) -> np.ndarray:
        return np.asarray(self.matrix.mean(axis=0), dtype=np.float32)

    @cached_property
    def centred(self) -> np.ndarray:
        """Unit rows of the vectors minus the venue's mean, made once per venue state (the taste model's input)."""
        return unit(self.matrix - self.mean).astype(np.float32)

    @cached_property
    def words(self) -> WordSpace:
        """The papers' words view (the fitted taste model's other input), made once per venue state."""
        return WordSpace.of([paper_words(paper) for paper in self.papers])


_kept: LatestPerKey[tuple[int, int], VenueVectors] = LatestPerKey(KEPT)  # state: (papers, vectors) counters


def venue_vectors(store: SearchStore, model: str, venue: str | None) -> VenueVectors:
    """The venue's vectors under `model`, read once per state of that venue's papers and vectors (marks, and
    papers of other venues arriving or being indexed, do not change them)."""
    state = (
        store.versions() if venue is None else (store.venue_generation(venue), store.venue_vectors_generation(venue))
    )
    key = (getattr(store, "location", id(store)), model, venue)
    if (kept := _kept.get(key, state)) is not None:
        return kept
    pks, blobs = store.embeddings(model, venue)
    if not blobs:
        raise ConfnavError(
            "the store has no semantic index" + (f" for {venue}" if venue else "") + ": run 'confnav index'"
        )
    matrix = unit(np.vstack([np.frombuffer(b, dtype=np.float32) for b in blobs]))
    before = _kept.latest(key)
    if before is not None and before[0][0] == state[0] and before[1].pks == pks:
        found = replace(before[1], matrix=matrix)  # only the vectors changed: the papers read before still hold
        if "words" in before[1].__dict__:
            found.words = before[1].words  # made of the papers alone
        _kept.put(key, state, found)
        return found
    by_pk = store.papers_by_pk(pks)
    papers = [by_pk[pk] for pk in pks]
    found = VenueVectors(
        pks,
        matrix,
        papers,
        _rows_by_key(papers),
        np.array([not is_placeholder_title(p.title) for p in papers]),
        np.array([p.decision.outcome is not Outcome.NOT_ACCEPTED for p in papers]),
        {pk: row for row, pk in enumerate(pks)},
    )
    _kept.put(key, state, found)
    return found


def _rows_by_key(papers: list[Paper]) -> dict[tuple[str, str] | str, list[int]]:
    found: dict[tuple[str, str] | str, list[int]] = {}
    for row, paper in enumerate(papers):
        found.setdefault((paper.venue, paper.id), []).append(row)
        found.setdefault(title_key(paper.title), []).append(row)
    return found
