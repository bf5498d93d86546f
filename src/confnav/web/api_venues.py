"""The JSON API of a venue: its themes and map, its must-read ranking and its statistics."""

from __future__ import annotations

import gzip

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from confnav.rank import Ranking, RankMode, default_mode, parse_mode
from confnav.reports.stats import stats_json
from confnav.store import venue_signals_in
from confnav.topics import ensure_topics, theme_facts
from confnav.web.answers import answers
from confnav.web.api_base import MAX_LIMIT, JSONBytes, _json
from confnav.web.bodies import Map, Ranked, Stats, Theme
from confnav.web.refresh import REFRESHING_HEADER
from confnav.web.state import AppState, state_of

router = APIRouter(prefix="/api")
MAP_GRID = 10_000


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
    venue = state.store.get_venue(
        venue
    ).id  # an unknown venue: 404, a bad name (ICLR of two): 400; a spelled one: its id
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
    """The mode a request asks for (`?mode=`, or the older `at_conference=true`), else the venue's default, found
    again only when the venue's papers or the supplied signals changed (it reads every paper's citation count: a
    write elsewhere made it the slowest part of a ranking served while being refreshed)."""
    asked = parse_mode(mode, at_conference)
    if asked:
        return asked
    depends = venue_signals_in(dict(state.stores.state()), venue)
    return state.cached(("rank-mode", venue), lambda: default_mode(state.store, venue), depends=depends)


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
    venue = state.store.get_venue(
        venue
    ).id  # an unknown venue: 404, a bad name (ICLR of two): 400; a spelled one: its id
    ranking, refreshing = ranking_of(state, venue, ranking_mode(state, venue, mode, at_conference), theme)
    mark_refreshing(response, refreshing)
    return [r.to_dict() for r in ranking.papers[:top]]


@router.get("/stats", **answers(Stats, 404))
def stats(request: Request, response: Response, venue: str) -> dict[str, object]:
    state = state_of(request)
    venue = state.store.get_venue(
        venue
    ).id  # an unknown venue: 404, a bad name (ICLR of two): 400; a spelled one: its id
    answer, refreshing = state.refreshed(("stats", venue), lambda: stats_json(state.store, venue))
    mark_refreshing(response, refreshing)
    return answer
