"""What a search answers: hits with their scores and snippets, the notices a user should see, and the sorts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from confnav.errors import ConfnavError, excerpt, whole_number
from confnav.model import Paper

Mode = Literal["keyword", "semantic", "hybrid"]
MODES: tuple[Mode, ...] = ("keyword", "semantic", "hybrid")


def as_mode(text: object) -> Mode:
    """The search mode named `text` (a user's input); ConfnavError naming the modes for any other."""
    for mode in MODES:
        if text == mode:
            return mode
    raise ConfnavError(f"unknown mode {excerpt(text)} (modes: {', '.join(MODES)})")


@dataclass
class Hit:
    """One result: the paper, its fused score, the parts it came from, and a marked snippet. A hit of a search
    without words (`scored` False) has no relevance: its score only orders it, and is never shown."""

    paper: Paper
    score: float
    keyword_score: float | None
    semantic_score: float | None
    snippet: str
    rating_scale: str | None = None
    scored: bool = True

    def to_dict(self) -> dict[str, object]:
        p = self.paper
        return {
            "id": p.id,
            "title": p.title,
            "venue": p.venue,
            "venue_name": p.venue_name,
            "year": p.year,
            "decision": p.decision.name,
            "outcome": p.decision.outcome.value,
            "authors": [a.name for a in p.authors],
            "rating_mean": p.rating_mean,
            "rating_scale": self.rating_scale,
            "fields": p.fields_present(),
            "resources": p.resources,
            "score": round(self.score, 6) if self.scored else None,
            "keyword_score": None if self.keyword_score is None else round(self.keyword_score, 6),
            "semantic_score": None if self.semantic_score is None else round(self.semantic_score, 6),
            "snippet": self.snippet,
        }


@dataclass
class Results:
    """Hits plus notices the user should see (e.g. a fallback from semantic to keyword), how many papers
    contain the query's words (`matching`; hybrid and semantic search also rank papers close in meaning; without
    words, how many meet the filters), how many meet the filters whatever the words (`meeting_filters`), and
    the model whose vectors ranked them by meaning (`model`: the one that reads the query's language), and the
    order of the hits in words where the sort's name does not say it (`order`: a search without words)."""

    hits: list[Hit]
    mode: Mode
    notices: list[str] = field(default_factory=list)
    matching: int | None = None
    offset: int = 0
    sort: str = "relevance"
    model: str | None = None
    order: str | None = None
    limit: int | None = None
    meeting_filters: int | None = None

    @property
    def order_shown(self) -> str:
        """The order of the hits as a reader is told it."""
        return self.order or self.sort

    def to_dict(self) -> dict[str, object]:
        return {
            "hits": [h.to_dict() for h in self.hits],
            "mode": self.mode,
            "notices": self.notices,
            "matching": self.matching,
            "meeting_filters": self.meeting_filters,
            "offset": self.offset,
            "limit": self.limit,
            "sort": self.sort,
            "model": self.model,
            "order": self.order_shown,
        }


# Sorts other than relevance and match order the most relevant matches (at most SORT_POOL) by a field.
SORT_POOL = 500
BY_SCORE = ("relevance", "match")
SORTS: dict[str, Callable[[Hit], tuple[float, ...]]] = {
    **dict.fromkeys(BY_SCORE, lambda h: (-h.score,)),
    "rating": lambda h: (-(h.paper.rating_mean or 0.0), -h.score),
    "decision": lambda h: (h.paper.decision.tier, -(h.paper.rating_mean or 0.0), -h.score),
    "year": lambda h: (-h.paper.year, -h.score),
}


def page_of(hits: list[Hit], sort: str, offset: int, limit: int) -> list[Hit]:
    """The hits shown from `offset`: of the best first by score, or of the pool ordered by another sort."""
    return hits[offset:] if sort in BY_SCORE else sorted(hits, key=SORTS[sort])[offset : offset + limit]


def check_request(mode: object, limit: object, offset: object, sort: object) -> None:
    """A search's mode, page and sort as given, else a ConfnavError naming the argument: never a page quietly made
    of something else (an unknown mode searched by keyword, a limit of 0 or -1 giving a hit)."""
    as_mode(mode)
    whole_number("limit", limit)
    whole_number("offset", offset, least=0)
    as_sort(sort)


def as_sort(sort: object) -> str:
    """`sort` when it is one of SORTS; else a ConfnavError listing them."""
    if not isinstance(sort, str) or sort not in SORTS:
        raise ConfnavError(f"unknown sort {excerpt(sort)} (sorts: {', '.join(SORTS)})")
    return sort
