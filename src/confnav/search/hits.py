"""The hits of a search: the rows a score puts first, read as papers, checked against the query's exact
conditions, with their snippets; and which rows meet those conditions (what a count of matches counts)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from itertools import islice

import numpy as np

from confnav.model import Paper
from confnav.search.corpus import Corpus
from confnav.search.first_cut import best_first
from confnav.search.query import Query
from confnav.search.results import Hit
from confnav.search.snippet import make_snippet
from confnav.search.text import terms


def collect_hits(
    corpus: Corpus,
    score: np.ndarray | Mapping[int, float],
    mask: np.ndarray,
    keyword: np.ndarray | None,
    semantic: np.ndarray | Mapping[int, float] | None,
    limit: int,
    query: Query | None,
    rows: list[int] | None = None,
    keep: Callable[[Paper], bool] | None = None,
) -> list[Hit]:
    """The first `limit` hits: the `mask` rows best first by `score`, or the `rows` given in their order."""
    if rows is None:
        admitted = np.flatnonzero(mask)
        if not admitted.size:
            return []
        order: Iterator[int] = best_first(admitted, np.asarray(score), max(4 * limit, 50))
    else:
        order = iter(rows)
    papers = corpus.papers
    wanted = set(terms(query.text)) if query else set()
    hits: list[Hit] = []
    chunk_size = max(2 * limit, 10) * (4 if query is not None and query.narrows else 1)
    for chunk in iter(lambda: list(islice(order, chunk_size)), []):
        corpus.prefetch(chunk)  # a corpus kept in the store reads the next papers in one query
        for row in chunk:
            paper = papers[row]
            if keep is not None and not keep(paper):
                continue
            if query is not None and not query.matches(
                paper.title, paper.abstract or "", paper.keywords, [a.name for a in paper.authors]
            ):
                continue
            snippet = make_snippet(paper.abstract or paper.title, wanted)
            hits.append(
                Hit(
                    paper,
                    float(score[row]),
                    None if keyword is None else float(keyword[row]),
                    None if semantic is None else float(semantic[row]),
                    snippet,
                    corpus.rating_scale(paper.venue),
                )
            )
            if len(hits) >= limit:
                return hits
    return hits


def meeting_rows(corpus: Corpus, mask: np.ndarray, query: Query, chunk: int = 1000) -> np.ndarray:
    """The rows of `mask` whose papers meet every condition of the query exactly (the index only says which
    papers hold a phrase's or a `title:`'s words anywhere), so that a count of matches never counts a paper
    the hits would leave out."""
    rows = np.flatnonzero(mask).tolist()
    meeting = np.zeros_like(mask)
    for start in range(0, len(rows), chunk):
        part = rows[start : start + chunk]
        meeting[part] = corpus.meeting(query, part)
    return meeting
