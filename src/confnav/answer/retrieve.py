"""Finding the papers that bear on a question, and counting papers from the store.

Retrieval is the hybrid search over the question's topic words; a hit is relevant when its own text (title,
abstract, keywords) holds at least RELEVANT of the topic's weight, each topic term weighted by its inverse document
frequency in the keyword index (a term no paper holds still weighs, so a question about something the store lacks
finds nothing relevant). Counts are the papers whose text contains the topic as an exact phrase, as
`confnav search '"TOPIC"'` finds them, under the store's decision filter.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np

from confnav.model import Venue
from confnav.search.engine import Searcher
from confnav.search.query import parse_query
from confnav.search.text import terms, words
from confnav.store import PaperFilter
from confnav.store.base import VenueSummary
from confnav.store.protocols import PaperReader

T = TypeVar("T")
POOL = 60  # hits read per question; fewer are relevant
RELEVANT = 0.5  # share of the topic's weight a paper's text must hold to be cited


_kept: dict[tuple[int, str], tuple[tuple[int, int], Any]] = {}


def per_state(store: PaperReader, key: str, compute: Callable[[], T]) -> T:
    """`compute()` once per store state: what every question reads again (the venues, each venue's TL;DRs)."""
    state = store.versions()
    kept = _kept.get((id(store), key))
    if kept is None or kept[0] != state:
        kept = _kept[(id(store), key)] = (state, compute())
    return cast(T, kept[1])


def venue_summaries(store: PaperReader) -> list[VenueSummary]:
    """The store's venues with their counts by decision (listing them counts their papers, so once per store state)."""
    return per_state(store, "venues", store.venues)


def known_venues(store: PaperReader) -> list[Venue]:
    return [s.venue for s in venue_summaries(store)]


def decision_names(store: PaperReader) -> list[str]:
    """The decisions the store's venues gave, by their own names (Oral, Findings, Workshop, …)."""
    return list(dict.fromkeys(name for s in venue_summaries(store) for name in s.by_decision))


def term_weights(searcher: Searcher, topic_terms: Sequence[str]) -> dict[str, float]:
    """Each topic term's inverse document frequency over the corpus (a term absent from every paper weighs most)."""
    index = searcher.corpus.keyword
    size = max(index.size, 1)
    return {t: math.log((size + 1) / (int(index.containing(t).sum()) + 0.5)) for t in dict.fromkeys(topic_terms)}


def coverage(weights: dict[str, float], title: str, abstract: str, keywords: Sequence[str]) -> float:
    """The share of the topic's weight found among a paper's own index terms."""
    total = sum(weights.values())
    if not total:
        return 0.0
    own = set(terms(" ".join([title, abstract, *keywords])))
    return sum(w for t, w in weights.items() if t in own) / total


def count_papers(searcher: Searcher, venue: str, phrase: str | None, decision: str | None = None) -> int:
    """Papers of `venue` (with `decision`) whose title, abstract or keywords contain `phrase` (None: all papers)."""
    return count_with(searcher, venue, phrase, [decision])[0]


def count_with(searcher: Searcher, venue: str, phrase: str | None, decisions: Sequence[str | None]) -> list[int]:
    """`count_papers` for each of `decisions`, the phrase checked once per paper."""
    corpus = searcher.corpus
    masks = [corpus.mask(searcher.store, PaperFilter(venue=venue, decision=d)) for d in decisions]
    if not phrase:
        return [int(mask.sum()) for mask in masks]
    candidates = np.logical_or.reduce(masks) & corpus.keyword.containing(phrase)
    rows = [int(r) for r in np.flatnonzero(candidates)]
    corpus.prefetch(rows)
    query = parse_query(f'"{phrase}"')
    # The phrase's words in a row as `query.matches` finds them, as one pattern over ASCII text (most papers).
    ascii_phrase = re.compile(r"(?<![a-z0-9])" + r"[^a-z0-9]+".join(map(re.escape, words(phrase))) + r"(?![a-z0-9])")
    papers = corpus.papers
    found = np.zeros(len(candidates), dtype=bool)
    for row in rows:
        paper = papers[row]
        text = " ".join([paper.title, paper.abstract or "", *paper.keywords])
        if text.isascii():
            found[row] = ascii_phrase.search(text.lower()) is not None
        else:
            found[row] = query.matches(paper.title, paper.abstract or "", paper.keywords, [])
    return [int((mask & found).sum()) for mask in masks]
