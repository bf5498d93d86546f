"""Finding the papers that bear on a question, and counting papers from the store.

Retrieval is the hybrid search over the question's topic words; a hit is relevant when its own text (title,
abstract, keywords) holds at least RELEVANT of the topic's weight, each topic term weighted by its inverse document
frequency in the keyword index (a term no paper holds still weighs, so a question about something the store lacks
finds nothing relevant). Counts are the papers whose text contains the topic as an exact phrase, as
`confnav search '"TOPIC"'` finds them, under the store's decision filter.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from confnav.search.engine import Searcher
from confnav.search.query import parse_query
from confnav.search.text import terms
from confnav.store import PaperFilter

POOL = 60  # hits read per question; fewer are relevant
RELEVANT = 0.5  # share of the topic's weight a paper's text must hold to be cited


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
    corpus = searcher.corpus
    mask = corpus.mask(searcher.store, PaperFilter(venue=venue, decision=decision))
    if not phrase:
        return int(mask.sum())
    mask &= corpus.keyword.containing(phrase)
    rows = [int(r) for r in np.flatnonzero(mask)]
    corpus.prefetch(rows)
    query = parse_query(f'"{phrase}"')
    papers = corpus.papers
    return sum(query.matches(p.title, p.abstract or "", p.keywords, []) for p in (papers[r] for r in rows))
