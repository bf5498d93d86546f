"""The JSON API of reading lists (made, filled, emptied, recommended from) and of exports for reference
managers."""

from __future__ import annotations

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import Response

from confnav.export import EXPORT_FORMATS, export_format
from confnav.reports.selection import EXPORT_LIMIT, SEARCH_EXPORT, Selection, select_papers
from confnav.search.results import as_mode
from confnav.store import PaperFilter
from confnav.topics import ensure_topics
from confnav.web.access import list_access, new_list_owner, visible_lists
from confnav.web.answers import WRITE, answers, download_answers
from confnav.web.api_base import MAX_LIMIT, YEAR_QUERY, _filter
from confnav.web.bodies import Hits, ListAdded, ListCreated, ListDeleted, ListRemoved, ListSummary, ReadingList
from confnav.web.downloads import download
from confnav.web.state import state_of

router = APIRouter(prefix="/api")
EXPORT_MEDIA_TYPES = [f.media_type for f in EXPORT_FORMATS.values()]


@router.get("/lists", **answers(list[ListSummary]))
def lists(request: Request) -> list[dict[str, object]]:
    return [{"name": name, "papers": n} for name, n in visible_lists(request)]


@router.post("/lists", **answers(ListCreated, 400, *WRITE, status=201))
def create_list(request: Request, name: str = Body(..., embed=True, max_length=60)) -> dict[str, object]:
    with state_of(request).writing(request) as store:
        owner = new_list_owner(request, name)
        store.create_list(name)
        if owner is not None:
            store.give_list(name.strip(), owner)
    return {"name": name.strip()}


@router.delete("/lists/{name:text}", **answers(ListDeleted, 404, *WRITE))
def delete_list(request: Request, name: str) -> dict[str, object]:
    list_access(request, name)
    with state_of(request).writing(request) as store:
        store.delete_list(name)
    return {"deleted": name}


@router.get("/lists/{name:text}", **answers(ReadingList, 404))
def list_papers(request: Request, name: str) -> dict[str, object]:
    list_access(request, name)
    papers = state_of(request).store.list_papers(name)
    return {"name": name, "papers": [{"id": p.id, "title": p.title, "venue": p.venue} for p in papers]}


@router.post("/lists/{name:text}/papers", **answers(ListAdded, 400, 404, *WRITE, status=201))
def add_paper(
    request: Request,
    name: str,
    id: str = Body(..., embed=True, max_length=100),
    venue: str | None = Body(None, embed=True, max_length=100),
) -> dict[str, object]:
    """Add a paper (its venue tells apart papers that share an id) to a reading list."""
    list_access(request, name)
    with state_of(request).writing(request) as store:
        paper = store.add_to_list(name, id, venue)
    return {"list": name, "id": paper.id}


@router.delete("/lists/{name:text}/papers/{paper_id:textpath}", **answers(ListRemoved, 400, 404, *WRITE))
def remove_paper(request: Request, name: str, paper_id: str, venue: str | None = None) -> dict[str, object]:
    list_access(request, name)
    with state_of(request).writing(request) as store:
        store.remove_from_list(name, paper_id, venue)
    return {"list": name, "removed": paper_id}


@router.get("/lists/{name:text}/export.bib", **download_answers(EXPORT_FORMATS["bibtex"].media_type, codes=[404]))
def export_bibtex(request: Request, name: str) -> Response:
    return _export(request, "bibtex", Selection(list_name=name))


@router.get("/lists/{name:text}/export.csv", **download_answers(EXPORT_FORMATS["csv"].media_type, codes=[404]))
def export_csv(request: Request, name: str) -> Response:
    return _export(request, "csv", Selection(list_name=name))


LIMIT_QUERY = (
    f"At most this many papers of a search: its best {SEARCH_EXPORT} hits unless given; without words, every paper"
    " meeting the filters unless given."
)


@router.get("/export", **download_answers(*EXPORT_MEDIA_TYPES, codes=[400, 404, 409]))
def export(
    request: Request,
    fmt: str = Query("bibtex", max_length=20, alias="format"),
    list_name: str | None = Query(None, max_length=60, alias="list"),
    q: str | None = Query(None, max_length=4000),
    theme: str | None = Query(None, max_length=40),
    ids: list[str] = Query(default=[]),
    venue: str | None = None,
    decision: str | None = None,
    author: str | None = None,
    keyword: str | None = None,
    min_rating: float | None = Query(None, ge=0, le=10, allow_inf_nan=False),  # NaN is no number
    has_code: bool = False,
    year: int | None = Query(None, description=YEAR_QUERY),
    mode: str = Query("hybrid"),
    sort: str = Query("relevance"),
    limit: int | None = Query(None, ge=1, le=EXPORT_LIMIT, description=LIMIT_QUERY),
) -> Response:
    """Papers to download for a reference manager, as `format` bibtex, ris, csl-json or csv: a reading list
    (`list`), a search's hits (`q`, its filters as /api/search's, `year` among them, `mode`, `sort`, `limit`) or,
    without words, every paper meeting the filters (as `confnav export --search ""`), a theme (`theme` with
    `venue`) or papers (`ids`, repeated, with `venue` when an id is shared)."""
    where = _filter(venue, decision, author, keyword, min_rating, has_code, year)
    other = list_name or theme or ids
    searched = (q or "") if not other and (q or where != PaperFilter()) else None  # filters alone: a search of ""
    if searched is None:
        where = PaperFilter()
    selection = Selection(list_name, searched, theme, tuple(ids), venue or None, where, limit, as_mode(mode), sort)
    if theme and venue:
        store = state_of(request).store
        ensure_topics(store, venue)
    return _export(request, fmt, selection)


def _export(request: Request, fmt: str, selection: Selection) -> Response:
    state = state_of(request)
    if selection.list_name:
        list_access(request, selection.list_name)
    chosen = export_format(fmt)
    text = chosen.write(select_papers(state.store, selection, state.searcher), None)
    return download(text, f"{selection.name}.{chosen.extension}", chosen.media_type)


@router.get("/lists/{name:text}/recommend", **answers(Hits, 400, 404))
def list_recommend(
    request: Request,
    name: str,
    limit: int = Query(10, ge=1, le=MAX_LIMIT),
    decision: str | None = None,
    include_rejected: bool = False,
) -> dict[str, object]:
    """Papers like the list's (never those), optionally only of one decision or `accepted`; rejected and withdrawn
    papers only with `include_rejected`."""
    state = state_of(request)
    liked = [p.id for p in state.store.list_papers(list_access(request, name))]
    if not liked:
        return {"hits": [], "notices": ["the list is empty: add papers to get recommendations"]}
    where = PaperFilter(decision=decision or None)
    results = state.searcher.recommend(liked, where=where, limit=limit, include_rejected=include_rejected)
    return {"hits": [h.to_dict() for h in results.hits], "notices": results.notices}
