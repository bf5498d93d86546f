"""Which papers an export holds: a reading list, a search result, a theme of a venue, or papers by id; and the
name its file takes."""

from __future__ import annotations

from dataclasses import dataclass, field

from confnav.errors import ConfnavError, whole_number
from confnav.model import Paper
from confnav.search.engine import Searcher
from confnav.search.results import BY_SCORE, SORTS, Mode, Results, as_sort
from confnav.store import PaperFilter
from confnav.store.protocols import Store
from confnav.topics import get_theme

EXPORT_LIMIT = 1000  # the most hits of a search with words an export holds (a filter set has no bound)
SEARCH_EXPORT = 100  # the hits of a search with words exported when no limit is given


@dataclass(frozen=True)
class Selection:
    """One way of choosing papers; exactly one of `list_name`, `query` (`""` too), `theme` (with `venue`), `ids`.
    `where`, `limit`, `mode` and `sort` shape a search; `venue` tells apart papers that share an id. Without a
    `limit`, a search with words gives its best `SEARCH_EXPORT` hits and one without words (`""` with filters)
    every paper meeting the filters: a reading list of a filter set is the whole set."""

    list_name: str | None = None
    query: str | None = None
    theme: str | None = None
    ids: tuple[str, ...] = ()
    venue: str | None = None
    where: PaperFilter = field(default_factory=PaperFilter)
    limit: int | None = None
    mode: Mode = "hybrid"
    sort: str = "relevance"

    def check(self) -> None:
        """A ConfnavError unless exactly one source of papers is given (and a theme names its venue)."""
        given = [bool(self.list_name), self.query is not None, bool(self.theme), bool(self.ids)]  # "": the filters
        if sum(given) != 1:
            raise ConfnavError("export needs exactly one of: a reading list, a search query, a theme, paper ids")
        if self.theme and not self.venue:
            raise ConfnavError(f"theme {self.theme!r}: name its venue too (themes are numbered per venue)")
        if self.limit is not None and whole_number("limit", self.limit) > EXPORT_LIMIT and self.query:
            raise ConfnavError(
                f"limit {self.limit}: an export holds 1 to {EXPORT_LIMIT:,} hits of a search with words"
                ' (a search without words, "" with filters, exports every paper meeting them)'
            )

    @property
    def name(self) -> str:
        """A file name (without extension) that says what was exported."""
        if self.list_name:
            return self.list_name
        if self.query is not None:
            return f"search {self.query}".strip()
        if self.theme:
            return f"{self.venue} {self.theme}"
        return self.ids[0] if len(self.ids) == 1 else "papers"


@dataclass(frozen=True)
class Selected:
    """The papers selected, and for a search how many matched it (its words, or without words its filters; None
    when the search does not count them), so that an export cut by its limit can say so."""

    papers: list[Paper]
    matching: int | None = None


def select_papers(store: Store, selection: Selection, searcher: Searcher | None = None) -> list[Paper]:
    """The selected papers in their order: the list's, the search ranking's, the theme's, the ids given.
    NotFoundError for an unknown list, theme or id."""
    return select(store, selection, searcher).papers


def select(store: Store, selection: Selection, searcher: Searcher | None = None) -> Selected:
    """`select_papers` with how many papers a search matched."""
    selection.check()
    if selection.list_name:
        return Selected(store.list_papers(selection.list_name))
    if selection.query is not None:  # "" with filters: the papers that meet them, as `confnav search ""`
        searcher = searcher or Searcher(store)
        words = bool(selection.query.strip())
        limit = selection.limit or (SEARCH_EXPORT if words else EXPORT_LIMIT)
        results = _search(searcher, selection, limit)
        if not words and selection.limit is None and (results.matching or 0) > limit:  # the whole filter set
            results = _search(searcher, selection, results.matching or limit)
        return Selected([hit.paper for hit in results.hits], results.matching)
    if selection.theme and selection.venue:
        venue = store.get_venue(selection.venue).id
        members = set(get_theme(store, venue, selection.theme).paper_ids)
        return Selected([p for p in store.iter_papers(venue) if p.id in members])
    return Selected([store.get_paper(paper_id, selection.venue) for paper_id in selection.ids])


def _search(searcher: Searcher, selection: Selection, limit: int) -> Results:
    """A search's page of `limit` hits; without words, the filter set in browsing order, then sorted here, since a
    search ordered by a field looks only at its `SORT_POOL` best matches."""
    query, sort = selection.query or "", as_sort(selection.sort)
    pooled = not query.strip() and sort not in BY_SCORE
    results = searcher.search(
        query, mode=selection.mode, where=selection.where, limit=limit, sort="relevance" if pooled else sort
    )
    if pooled:
        results.hits.sort(key=SORTS[sort])
    return results
