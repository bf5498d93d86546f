"""The search page's results, one page at a time: a search of the words given, or (words left out) the papers
that meet the filters, with the links to the neighbouring pages. Next is offered only when the next page holds
papers (one hit more than a page is asked for), and a page past the end says so with a link back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlencode

from confnav.errors import ConfnavError, NotFoundError
from confnav.reports.selection import EXPORT_LIMIT
from confnav.search.engine import Searcher
from confnav.search.results import as_mode
from confnav.store import PaperFilter

NOTHING_ASKED = "Type some words, or choose a venue, a decision or another filter to list its papers."


@dataclass
class Listing:
    """What the search page shows of one request: hits (as the API gives them), an error (with the status the
    page answers) or a hint, the search's notices, and the paging: shown range, count, links to the neighbours."""

    hits: list[dict[str, object]] = field(default_factory=list)
    error: str | None = None
    status: int = 200  # with an error: 404 for a venue or other name not in the store, else 400
    hint: str | None = None
    notices: list[str] = field(default_factory=list)
    paging: dict[str, object] = field(default_factory=dict)


def search_listing(
    searcher: Searcher,
    q: str,
    mode: str,
    where: PaperFilter,
    sort: str,
    page_number: int,
    limit: int,
    shown: Mapping[str, object],
) -> Listing:
    """The page `page_number` (from 1) of `limit` hits for words `q` and filters `where`; `shown` holds the
    request's non-default parameters, which the page links keep."""
    listing = Listing()
    words = bool(q.strip())

    def link(number: int) -> str:
        return f"/search?{urlencode({**shown, 'page': number})}"

    listing.paging = {"first": (page_number - 1) * limit + 1, "words": words, "mode": mode}
    if not words and where == PaperFilter():
        listing.hint = NOTHING_ASKED
        return listing
    try:
        results = searcher.search(
            q, mode=as_mode(mode), where=where, limit=limit + 1, offset=(page_number - 1) * limit, sort=sort
        )
    except ConfnavError as exc:
        listing.error, listing.status = str(exc), 404 if isinstance(exc, NotFoundError) else 400
        return listing
    listing.hits = [h.to_dict() for h in results.hits[:limit]]
    listing.notices = results.notices
    listing.paging |= {
        "last": (page_number - 1) * limit + len(listing.hits),
        "previous": link(page_number - 1) if page_number > 1 and listing.hits else None,
        "next": link(page_number + 1) if len(results.hits) > limit else None,
        "matching": results.matching,
        "mode": results.mode,
        "order": results.order,  # a search without words: the order it follows, which "relevance" would not say
        "past_end": link(1) if page_number > 1 and not listing.hits else None,  # back to the first page
    }
    return listing


def export_query(shown: Mapping[str, object], q: str, hits: int) -> str:
    """The export of a search page: a search's hits up to this page; filters alone, every paper meeting them."""
    if q.strip():
        return urlencode({**shown, "limit": min(hits, EXPORT_LIMIT)})
    return urlencode({k: v for k, v in shown.items() if k not in ("q", "limit")})
