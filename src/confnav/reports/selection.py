"""Which papers an export holds: a reading list, a search result, a theme of a venue, or papers by id; and the
name its file takes."""

from __future__ import annotations

from dataclasses import dataclass, field

from confnav.errors import ConfnavError
from confnav.model import Paper
from confnav.search.engine import Searcher
from confnav.search.results import Mode
from confnav.store import PaperFilter
from confnav.store.protocols import Store
from confnav.topics import get_theme

EXPORT_LIMIT = 1000  # the most search hits an export holds


@dataclass(frozen=True)
class Selection:
    """One way of choosing papers; exactly one of `list_name`, `query` (`""` too), `theme` (with `venue`), `ids`.
    `where`, `limit`, `mode` and `sort` shape a search; `venue` tells apart papers that share an id."""

    list_name: str | None = None
    query: str | None = None
    theme: str | None = None
    ids: tuple[str, ...] = ()
    venue: str | None = None
    where: PaperFilter = field(default_factory=PaperFilter)
    limit: int = 100
    mode: Mode = "hybrid"
    sort: str = "relevance"

    def check(self) -> None:
        """A ConfnavError unless exactly one source of papers is given (and a theme names its venue)."""
        given = [bool(self.list_name), self.query is not None, bool(self.theme), bool(self.ids)]  # "": the filters
        if sum(given) != 1:
            raise ConfnavError("export needs exactly one of: a reading list, a search query, a theme, paper ids")
        if self.theme and not self.venue:
            raise ConfnavError(f"theme {self.theme!r}: name its venue too (themes are numbered per venue)")
        if not 1 <= self.limit <= EXPORT_LIMIT:
            raise ConfnavError(f"limit {self.limit}: an export holds 1 to {EXPORT_LIMIT} search hits")

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


def select_papers(store: Store, selection: Selection, searcher: Searcher | None = None) -> list[Paper]:
    """The selected papers in their order: the list's, the search ranking's, the theme's, the ids given.
    NotFoundError for an unknown list, theme or id."""
    selection.check()
    if selection.list_name:
        return store.list_papers(selection.list_name)
    if selection.query is not None:  # "" with filters: the papers that meet them, as `confnav search ""`
        results = (searcher or Searcher(store)).search(
            selection.query, mode=selection.mode, where=selection.where, limit=selection.limit, sort=selection.sort
        )
        return [hit.paper for hit in results.hits]
    if selection.theme and selection.venue:
        venue = store.get_venue(selection.venue).id
        members = set(get_theme(store, venue, selection.theme).paper_ids)
        return [p for p in store.iter_papers(venue) if p.id in members]
    return [store.get_paper(paper_id, selection.venue) for paper_id in selection.ids]
