"""The JSON API under /api/: a thin layer over the library, used by the pages themselves."""

from __future__ import annotations

import gzip
import json
from typing import Any

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from confnav.errors import ConfnavError
from confnav.export import EXPORT_FORMATS, bibtex_entry, export_format
from confnav.model import Outcome
from confnav.rank import Ranking, RankMode, default_mode, parse_mode
from confnav.rank.impact import estimates_made, known_impact
from confnav.reports.history import NOT_A_FORECAST
from confnav.reports.institutions import Institution, institution_index, institution_key, institution_profile
from confnav.reports.selection import EXPORT_LIMIT, Selection, select_papers
from confnav.reports.stats import stats_json
from confnav.search.experts import find_experts
from confnav.search.results import as_mode
from confnav.store import PaperFilter, Store
from confnav.summarize.llm import ChatClient, LLMConfig
from confnav.summarize.reviews import PaperReviews, paper_reviews
from confnav.topics import ensure_topics, theme_facts
from confnav.topics.facts import lists_rejections
from confnav.web.answers import WRITE, answers, download_answers, failures
from confnav.web.bodies import (
    ExpertsAnswer,
    Hits,
    Job,
    ListAdded,
    ListCreated,
    ListDeleted,
    ListRemoved,
    ListSummary,
    Map,
    Ranked,
    ReadingList,
    SearchAnswer,
    Stats,
    Theme,
)
from confnav.web.bodies import Institution as InstitutionBody
from confnav.web.bodies import Paper as PaperBody
from confnav.web.downloads import download
from confnav.web.history import history_of
from confnav.web.refresh import REFRESHING_HEADER
from confnav.web.state import AppState, state_of

router = APIRouter(prefix="/api")
MAX_LIMIT = 100
MAP_GRID = 10_000
EXPORT_MEDIA_TYPES = [f.media_type for f in EXPORT_FORMATS.values()]


def _filter(
    venue: str | None,
    decision: str | None,
    author: str | None,
    keyword: str | None,
    min_rating: float | None,
    has_code: bool = False,
) -> PaperFilter:
    """Empty form fields mean no condition."""
    return PaperFilter(venue or None, decision or None, author or None, keyword or None, None, min_rating, has_code)


def paper_json(state: AppState, paper_id: str, venue: str | None = None) -> dict[str, object]:
    """A paper with its TL;DR and theme (and its reviews, where their texts are public), as the paper page and API
    show it."""
    paper = state.store.get_paper(paper_id, venue)
    data = paper.to_dict()
    tldr = state.summarizer(paper.venue).tldr(paper)
    data["tldr_text"], data["tldr_source"] = tldr.tldr, tldr.source
    data["theme"] = state.theme_of(paper.venue, paper.id)
    if paper.decision.outcome is Outcome.PENDING:  # history of earlier editions, never a forecast of this paper
        history = history_of(state, paper.venue)
        data["history"] = {"sentences": history.for_mean(paper.rating_mean), "note": NOT_A_FORECAST}
    if (impact := known_impact(state.store, paper.venue)) and paper.id in impact.percentile:
        data["impact"] = {
            "top_percent": max(1, round(100 * (1 - impact.percentile[paper.id]))),
            "source": impact.source(),
            "parts": [str(c) for c in impact.contributions.get(paper.id, [])],
        }
    if reviews := reviews_of(state, paper.venue, paper.id):
        data["reviews"] = reviews.to_dict()
    return data


def reviews_of(state: AppState, venue: str, paper_id: str) -> PaperReviews:
    """A paper's reviews and what they agreed and disagreed on (milliseconds), phrased by the LLM when one is
    configured (then kept per store state, so that the model is asked once)."""
    if (config := LLMConfig.from_settings(state.store.settings)) is None:
        return paper_reviews(state.store, venue, paper_id)
    client = ChatClient(config)
    return state.cached(("reviews", venue, paper_id), lambda: paper_reviews(state.store, venue, paper_id, client))


def rated_venues(store: Store) -> list[str]:
    """The venues whose data lists rejections, so that an acceptance rate means something there."""
    venues = (v.venue.id for v in store.venues())
    return [v for v in venues if lists_rejections([decision for decision, _ in store.decision_counts(v)])]


def institution_of(state: AppState, name: str) -> Institution:
    """An institution (any spelling the data uses) with its papers, venues and authors; NotFoundError if none.
    Which papers name which institution, and each institution asked for, are worked out once per store state."""
    store = state.store

    def profile() -> Institution:
        index = state.cached(("institutions",), lambda: institution_index(store.paper_places()))
        papers = store.papers_by_pk(index.get(institution_key(name), [])).values()
        return institution_profile(name, papers, state.cached(("rated venues",), lambda: rated_venues(store)))

    return state.cached(("institution", institution_key(name)), profile)


class JSONBytes(JSONResponse):
    """A JSON body encoded once and cached: hot answers skip re-serialisation (sent as given)."""

    def render(self, content: Any) -> bytes:
        return bytes(content)


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@router.get("/search", response_class=JSONBytes, **answers(SearchAnswer, 400, 404))
async def search(
    request: Request,
    q: str = Query(..., max_length=4000),
    limit: int = Query(10, ge=1, le=MAX_LIMIT),
    offset: int = Query(0, ge=0, le=10_000),
    sort: str = Query("relevance"),
    mode: str = Query("hybrid"),
    venue: str | None = None,
    decision: str | None = None,
    author: str | None = None,
    keyword: str | None = None,
    min_rating: float | None = Query(None, ge=0, le=10),
    has_code: bool = False,
) -> JSONBytes:
    """Hybrid, keyword or semantic search, a page at a time (`offset`, `limit`), by relevance or another `sort`;
    hits carry id, title, authors, venue, decision, score and a marked snippet; `matching` counts word matches."""
    mode = as_mode(mode)
    state = state_of(request)
    where = _filter(venue, decision, author, keyword, min_rating, has_code)

    def answer() -> bytes:
        results = state.searcher.search(q, mode=mode, where=where, limit=limit, offset=offset, sort=sort)
        return _json(results.to_dict())

    return JSONBytes(await state.answer(("search", q, mode, where, limit, offset, sort), answer, searched=True))


@router.get("/experts", response_class=JSONBytes, **answers(ExpertsAnswer, 400, 404))
async def experts(
    request: Request,
    q: str = Query("", max_length=4000),
    venue: str | None = None,
    limit: int = Query(10, ge=1, le=MAX_LIMIT),
) -> JSONBytes:
    """The authors whose papers best match the topic `q`, each with those papers, counts and institutions;
    400 for an empty topic, 404 for an unknown venue."""
    state = state_of(request)

    def answer() -> bytes:
        return _json(find_experts(state.searcher, q, venue or None, limit).to_dict())

    return JSONBytes(await state.answer(("experts", q, venue or None, limit), answer, searched=True))


@router.get("/paper/{paper_id:path}/bibtex", response_class=PlainTextResponse, responses=failures(400, 404))
def paper_bibtex(request: Request, paper_id: str, venue: str | None = None) -> PlainTextResponse:
    """One paper as BibTeX (the proceedings' title for accepted papers; @misc for others)."""
    return PlainTextResponse(bibtex_entry(state_of(request).store.get_paper(paper_id, venue)) + "\n")


@router.get("/paper/{paper_id:path}", response_class=JSONBytes, **answers(PaperBody, 400, 404))
async def paper(request: Request, paper_id: str, venue: str | None = None) -> JSONBytes:
    """One paper with every field, its TL;DR and theme; 404 for an unknown id."""
    state = state_of(request)
    key = ("paper", paper_id, venue, estimates_made())  # a ranking may have estimated its impact since
    return JSONBytes(await state.answer(key, lambda: _json(paper_json(state, paper_id, venue))))


@router.get("/institution/{name:path}", response_class=JSONBytes, **answers(InstitutionBody, 404))
async def institution(request: Request, name: str) -> JSONBytes:
    """An institution's papers (newest first), per-venue counts and acceptance, and its authors; 404 if unknown."""
    state = state_of(request)
    key = ("institution.json", institution_key(name))
    return JSONBytes(await state.answer(key, lambda: _json(institution_of(state, name).to_dict())))


@router.get("/similar/{paper_id:path}", **answers(Hits, 400, 404))
def similar(
    request: Request, paper_id: str, limit: int = Query(10, ge=1, le=MAX_LIMIT), include_rejected: bool = False
) -> dict[str, object]:
    """Papers like this one; rejected and withdrawn papers only with `include_rejected`."""
    results = state_of(request).searcher.similar(paper_id, limit=limit, include_rejected=include_rejected)
    return {"hits": [h.to_dict() for h in results.hits], "notices": results.notices}


@router.get("/recommend", **answers(Hits, 400, 404))
def recommend(
    request: Request,
    like: list[str] = Query(default=[]),
    unlike: list[str] = Query(default=[]),
    text: str | None = Query(None, max_length=8000),
    limit: int = Query(10, ge=1, le=MAX_LIMIT),
    include_rejected: bool = False,
) -> dict[str, object]:
    """A reading list from liked papers; rejected and withdrawn papers only with `include_rejected`."""
    results = state_of(request).searcher.recommend(like, unlike, text, limit=limit, include_rejected=include_rejected)
    return {"hits": [h.to_dict() for h in results.hits], "notices": results.notices}


@router.get("/topics", **answers(list[Theme], 404, 409))
def topics(request: Request, venue: str, level: int = Query(1, ge=1, le=2)) -> list[dict[str, object]]:
    state = state_of(request)
    ensure_topics(state.store, venue)
    return [t.to_dict() for t in theme_facts(state.store, venue, level)]


@router.get("/map", response_class=JSONBytes, **answers(Map, 404, 409))
def map_points(request: Request, venue: str) -> JSONBytes:
    """Every paper of a venue, column by column: ids, titles, theme index, and x, y pairs as integers on a
    0..MAP_GRID grid (compact to send, finer than any screen); the themes with their label positions."""
    state = state_of(request)
    body = state.cached(("map", venue), lambda: _json(_map_answer(state, venue)))
    if "gzip" not in request.headers.get("accept-encoding", ""):
        return JSONBytes(body)
    packed = state.cached(("map.gz", venue), lambda: gzip.compress(body, 6))  # about a third of the size
    return JSONBytes(packed, headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})


def _map_answer(state: AppState, venue: str) -> dict[str, object]:
    ensure_topics(state.store, venue)
    themes = theme_facts(state.store, venue, 1)
    index = {t.id: i for i, t in enumerate(themes)}
    papers = dict(state.store.paper_rows(venue))
    assigned = sorted(state.store.assignments(venue).items())
    xs = [a.x for _, a in assigned] or [0.0]
    ys = [a.y for _, a in assigned] or [0.0]
    left, bottom = min(xs), min(ys)
    unit = max(max(xs) - left, max(ys) - bottom) / MAP_GRID or 1.0

    def grid(x: float, y: float) -> list[int]:
        return [round((x - left) / unit), round((y - bottom) / unit)]

    return {
        "venue": venue,
        "ids": [papers[pk].id for pk, _ in assigned],
        "titles": [papers[pk].title for pk, _ in assigned],
        "theme": [index[a.theme] for _, a in assigned],
        "accepted": [int(papers[pk].decision.accepted) for pk, _ in assigned],  # the decision filter
        "decided": any(papers[pk].decision.decided for pk, _ in assigned),
        "xy": [v for _, a in assigned for v in grid(a.x, a.y)],
        "themes": [{"id": t.id, "label": t.label, "xy": grid(t.x, t.y), "size": t.size} for t in themes],
    }


def ranking_mode(state: AppState, venue: str, mode: str | None, at_conference: bool = False) -> RankMode:
    """The mode a request asks for (`?mode=`, or the older `at_conference=true`), else the venue's default."""
    asked = parse_mode(mode, at_conference)
    return asked or state.cached(("rank-mode", venue), lambda: default_mode(state.store, venue))


def ranking_of(state: AppState, venue: str, mode: RankMode, theme: str | None = None) -> tuple[Ranking, bool]:
    """The venue's ranking in a mode, and whether it is the one made before the last write (being refreshed off
    the request path: it computes every signal)."""
    ranker = state.navigator.ranker(mode=mode)
    return state.refreshed(("rank", venue, theme, mode.value), lambda: ranker.rank(state.store, venue, theme=theme))


def mark_refreshing(response: Response, refreshing: bool) -> None:
    """Say on an answer that it was made before the store's last write and a new one is being made."""
    if refreshing:
        response.headers[REFRESHING_HEADER] = "1"


@router.get("/rank", **answers(list[Ranked], 400, 404, 409))
def rank(
    request: Request,
    response: Response,
    venue: str,
    top: int = Query(20, ge=1, le=MAX_LIMIT),
    theme: str | None = None,
    mode: str | None = Query(None, max_length=40),
    at_conference: bool = False,
):
    """The must-read ranking in a mode: at-conference (what was known when the venue opened) or looking-back
    (led by citations); each paper says the mode it was ranked in."""
    state = state_of(request)
    state.store.get_venue(venue)  # an unknown venue: 404
    ranking, refreshing = ranking_of(state, venue, ranking_mode(state, venue, mode, at_conference), theme)
    mark_refreshing(response, refreshing)
    return [r.to_dict() for r in ranking.papers[:top]]


@router.get("/stats", **answers(Stats, 404))
def stats(request: Request, response: Response, venue: str) -> dict[str, object]:
    state = state_of(request)
    state.store.get_venue(venue)  # an unknown venue: 404
    answer, refreshing = state.refreshed(("stats", venue), lambda: stats_json(state.store, venue))
    mark_refreshing(response, refreshing)
    return answer


@router.get("/lists", **answers(list[ListSummary]))
def lists(request: Request) -> list[dict[str, object]]:
    return [{"name": name, "papers": n} for name, n in state_of(request).store.reading_lists()]


@router.post("/lists", **answers(ListCreated, 400, *WRITE, status=201))
def create_list(request: Request, name: str = Body(..., embed=True, max_length=60)) -> dict[str, object]:
    with state_of(request).writing(request) as store:
        store.create_list(name)
    return {"name": name.strip()}


@router.delete("/lists/{name}", **answers(ListDeleted, 404, *WRITE))
def delete_list(request: Request, name: str) -> dict[str, object]:
    with state_of(request).writing(request) as store:
        store.delete_list(name)
    return {"deleted": name}


@router.get("/lists/{name}", **answers(ReadingList, 404))
def list_papers(request: Request, name: str) -> dict[str, object]:
    papers = state_of(request).store.list_papers(name)
    return {"name": name, "papers": [{"id": p.id, "title": p.title, "venue": p.venue} for p in papers]}


@router.post("/lists/{name}/papers", **answers(ListAdded, 400, 404, *WRITE, status=201))
def add_paper(
    request: Request,
    name: str,
    id: str = Body(..., embed=True, max_length=100),
    venue: str | None = Body(None, embed=True, max_length=100),
) -> dict[str, object]:
    """Add a paper (its venue tells apart papers that share an id) to a reading list."""
    with state_of(request).writing(request) as store:
        paper = store.add_to_list(name, id, venue)
    return {"list": name, "id": paper.id}


@router.delete("/lists/{name}/papers/{paper_id:path}", **answers(ListRemoved, 400, 404, *WRITE))
def remove_paper(request: Request, name: str, paper_id: str, venue: str | None = None) -> dict[str, object]:
    with state_of(request).writing(request) as store:
        store.remove_from_list(name, paper_id, venue)
    return {"list": name, "removed": paper_id}


@router.get("/lists/{name}/export.bib", **download_answers(EXPORT_FORMATS["bibtex"].media_type, codes=[404]))
def export_bibtex(request: Request, name: str) -> Response:
    return _export(request, "bibtex", Selection(list_name=name))


@router.get("/lists/{name}/export.csv", **download_answers(EXPORT_FORMATS["csv"].media_type, codes=[404]))
def export_csv(request: Request, name: str) -> Response:
    return _export(request, "csv", Selection(list_name=name))


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
    min_rating: float | None = Query(None, ge=0, le=10),
    has_code: bool = False,
    mode: str = Query("hybrid"),
    sort: str = Query("relevance"),
    limit: int = Query(100, ge=1, le=EXPORT_LIMIT),
) -> Response:
    """Papers to download for a reference manager, as `format` bibtex, ris, csl-json or csv: a reading list
    (`list`), a search's hits (`q`, its filters, `mode`, `sort`, `limit`), a theme (`theme` with `venue`) or papers
    (`ids`, repeated, with `venue` when an id is shared)."""
    where = _filter(venue, decision, author, keyword, min_rating, has_code) if q else PaperFilter()
    selection = Selection(list_name, q, theme, tuple(ids), venue or None, where, limit, as_mode(mode), sort)
    if theme and venue:
        store = state_of(request).store
        ensure_topics(store, store.get_venue(venue).id)
    return _export(request, fmt, selection)


def _export(request: Request, fmt: str, selection: Selection) -> Response:
    state = state_of(request)
    chosen = export_format(fmt)
    text = chosen.write(select_papers(state.store, selection, state.searcher))
    return download(text, f"{selection.name}.{chosen.extension}", chosen.media_type)


@router.get("/lists/{name}/recommend", **answers(Hits, 400, 404))
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
    liked = [p.id for p in state.store.list_papers(name)]
    if not liked:
        return {"hits": [], "notices": ["the list is empty: add papers to get recommendations"]}
    where = PaperFilter(decision=decision or None)
    results = state.searcher.recommend(liked, where=where, limit=limit, include_rejected=include_rejected)
    return {"hits": [h.to_dict() for h in results.hits], "notices": results.notices}


@router.post("/jobs", **answers(Job, 400, 404, *WRITE, status=202))
def start_job(
    request: Request,
    kind: str = Body(..., embed=True, max_length=20),
    venue: str = Body(..., embed=True, max_length=100),
    rebuild: bool = Body(False, embed=True),
) -> dict[str, str]:
    """Start a background job (`topics`: build a venue's themes); its status is at /api/jobs/{id}."""
    if kind != "topics":
        raise ConfnavError(f"unknown job kind {kind!r} (known: topics)")
    state = state_of(request)
    with state.writing(request):
        return state.start_topics_job(venue, rebuild)


@router.get("/jobs/{job_id}", **answers(Job, 404))
def job_status(request: Request, job_id: str) -> dict[str, str]:
    return state_of(request).store.job(job_id)


@router.get("/jobs", **answers(list[Job]))
def job_list(request: Request) -> list[dict[str, str]]:
    return state_of(request).store.jobs()
