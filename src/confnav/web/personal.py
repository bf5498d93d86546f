"""A researcher's own pages and API: like or dislike papers, "For you" per venue, profiles with their own secret
on a shared server (who may open which profile: `confnav.web.access`)."""

from __future__ import annotations

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from confnav.errors import ConfnavError, NotFoundError
from confnav.model import Paper
from confnav.personal import Recommendation, is_cold, papers_to_mark, personal_rank, recommend_for
from confnav.personal.access import create_with_secret, rotate_secret, secret_shaped, verify_secret
from confnav.search.results import Hit
from confnav.web.access import (
    capability_link,
    chosen_profile,
    given_key,
    is_shared,
    profile_access,
    remember,
)
from confnav.web.answers import WRITE, answers, page_answers
from confnav.web.api import MAX_LIMIT
from confnav.web.pages import page
from confnav.web.profile_bodies import (
    MarkAdded,
    MarkRemoved,
    Marks,
    Profile,
    ProfileSecret,
    ProfileSummary,
    Recommendations,
)
from confnav.web.state import AppState, state_of

router = APIRouter()
FOR_YOU_LIMIT = 30
MUST_READ_LIMIT = 10  # the personal must-read shown beside the recommendations
TO_MARK = 8  # papers a cold profile is asked to mark
SNIPPET = 240  # characters of the abstract a For you entry shows


def for_you(
    state: AppState, profile: str, venue: str, limit: int = FOR_YOU_LIMIT, seen: tuple[object, ...] | None = None
) -> list[Recommendation]:
    """The papers of the For you view (page and API): the one place that decides what they are, so that a personal
    must-read can take the place of the profile's recommendations. Kept per profile content (`seen`, read here
    when not given) and store state."""
    store = state.store
    key = ("for-you", profile, venue, limit, profile_seen(state, profile) if seen is None else seen)
    return state.cached(key, lambda: recommend_for(store, profile, venue, limit))


def profile_seen(state: AppState, profile: str) -> tuple[object, ...]:
    """What a profile's model learns from (its marks and items): part of the key of every answer made for it."""
    try:
        items = tuple((i.venue, i.paper_id, i.title) for i in state.store.profile_items(profile))
        return (tuple(state.store.profile_marks(profile)), items)
    except NotFoundError:  # not created yet (locally, `me` before its first mark)
        return ()


def must_read_hits(state: AppState, profile: str, venue: str, seen: tuple[object, ...]) -> list[dict[str, object]]:
    """The personal must-read beside the recommendations: the venue's must-read blended with the profile, each
    with both reasons (kept per profile content and store state)."""

    def ranked() -> list[dict[str, object]]:
        papers = personal_rank(state.store, venue, profile).papers[:MUST_READ_LIMIT]
        return [_hit(state, r.paper, r.score, "; ".join(r.reasons[:2])) for r in papers]

    return state.cached(("must-read-for", profile, venue, seen), ranked)


def to_mark_hits(
    state: AppState, profile: str, venue: str, seen: tuple[object, ...]
) -> tuple[str, list[dict[str, object]]]:
    """A cold profile's start: a few diverse papers of the venue to like or dislike, and why these."""
    if not is_cold(state.store, profile):
        return "", []
    ask = state.cached(("to-mark", profile, venue, seen), lambda: papers_to_mark(state.store, venue, profile, TO_MARK))
    return ask.why, [_hit(state, paper, 0.0, None) for paper in ask.papers]


def _profile_content(state: AppState, name: str) -> tuple[int, list[tuple[str, str, str]]]:
    """How many papers the profile holds and its marks; none yet for a profile not created (locally, `me`)."""
    try:
        return len(state.store.profile_items(name)), state.store.profile_marks(name)
    except NotFoundError:
        return 0, []


def _hit(state: AppState, paper: Paper, score: float, reason: str | None) -> dict[str, object]:
    """A paper as the pages show a hit (its venue's rating scale, the abstract's start), with why it is there."""
    abstract = " ".join((paper.abstract or "").split())
    snippet = abstract if len(abstract) <= SNIPPET else abstract[:SNIPPET].rsplit(" ", 1)[0] + " …"
    scale = state.store.rating_scales().get(paper.venue)
    hit = Hit(paper, score, None, None, snippet, scale.describe() if scale else None).to_dict()
    return {**hit, "reason": reason}


# The API: reads and writes of one profile, each after `profile_access`; writes after the server's write check too.


@router.post("/api/profiles", **answers(ProfileSecret, 400, *WRITE, status=201))
def create_profile(
    request: Request, response: Response, name: str | None = Body(None, embed=True, max_length=60)
) -> dict[str, str]:
    """A new profile with its own secret, shown this once (and kept in this browser's cookies); a random name when
    none is given. Only the secret's hash is stored."""
    with state_of(request).writing(request) as store:
        chosen, secret = create_with_secret(store, name)
    remember(request, response, chosen, secret)
    return {"name": chosen, "secret": secret, "link": capability_link(chosen, secret)}


@router.get("/api/profiles", **answers(list[ProfileSummary], 404))
def list_profiles(request: Request) -> list[dict[str, object]]:
    """Every profile with its counts, locally only: a shared server has no such route."""
    if is_shared(request):
        raise StarletteHTTPException(404, "Not Found")
    return [{"name": n, "papers": items, "marks": marks} for n, items, marks in state_of(request).store.profiles()]


@router.get("/api/profiles/{name:text}", **answers(Profile, 404))
def show_profile(request: Request, name: str) -> dict[str, object]:
    """A profile's papers (matched or its own texts) and marks."""
    store = state_of(request).store
    name = profile_access(request, name)
    items = [{"title": i.title, "year": i.year, "venue": i.venue, "id": i.paper_id} for i in store.profile_items(name)]
    return {"name": name, "items": items, "marks": _marks_json(store.profile_marks(name))}


def _marks_json(marks: list[tuple[str, str, str]]) -> list[dict[str, str]]:
    return [{"venue": venue, "id": paper_id, "mark": how} for venue, paper_id, how in marks]


@router.get("/api/profiles/{name:text}/marks", **answers(Marks, 404))
def list_marks(request: Request, name: str) -> dict[str, object]:
    """The papers the profile liked or disliked, oldest first."""
    name = profile_access(request, name)
    return {"name": name, "marks": _marks_json(_profile_content(state_of(request), name)[1])}


@router.post("/api/profiles/{name:text}/marks", **answers(MarkAdded, 400, 404, *WRITE, status=201))
def add_mark(
    request: Request,
    name: str,
    id: str = Body(..., embed=True, max_length=100),
    mark: str = Body(..., embed=True, max_length=20),
    venue: str | None = Body(None, embed=True, max_length=100),
) -> dict[str, str]:
    """Like or dislike a paper (a later mark replaces an earlier one); its venue tells apart papers sharing an id."""
    with state_of(request).writing(request) as store:
        name = profile_access(request, name)
        paper = store.mark_paper(name, id, mark, venue or None)
    return {"name": name, "id": paper.id, "venue": paper.venue, "mark": mark}


@router.delete("/api/profiles/{name:text}/marks/{paper_id:textpath}", **answers(MarkRemoved, 400, 404, *WRITE))
def remove_mark(request: Request, name: str, paper_id: str, venue: str | None = None) -> dict[str, str]:
    """Take back a like or dislike."""
    with state_of(request).writing(request) as store:
        name = profile_access(request, name)
        paper = store.unmark_paper(name, paper_id, venue or None)
    return {"name": name, "id": paper.id, "venue": paper.venue, "removed": "mark"}


@router.get("/api/profiles/{name:text}/recommend", **answers(Recommendations, 404))
def recommend(request: Request, name: str, venue: str, limit: int = Query(10, ge=1, le=MAX_LIMIT)) -> dict[str, object]:
    """The For you papers of a venue, each with why; a profile without papers or likes gets a notice instead."""
    state = state_of(request)
    name = profile_access(request, name)
    venue = state.store.get_venue(venue).id  # an unknown venue: 404
    try:
        found = for_you(state, name, venue, limit)
    except NotFoundError:
        return {"hits": [], "notices": [f"profile {name!r} has no papers or likes yet: like a few papers first"]}
    except ConfnavError as exc:
        return {"hits": [], "notices": [str(exc)]}
    return {"hits": [r.to_dict() for r in found], "notices": []}


@router.post("/api/profiles/{name:text}/secret", **answers(ProfileSecret, 400, 404, *WRITE))
def new_secret(
    request: Request, response: Response, name: str, key: str | None = Body(None, embed=True, max_length=200)
) -> dict[str, str]:
    """A new secret for the profile, given its current one (in the body, `?key=` or the cookie) on a shared
    server; every link and feed URL with the old one stops working."""
    state = state_of(request)
    with state.writing(request) as store:
        secret = rotate_secret(store, name, key or given_key(request), check=state.shared)
    remember(request, response, name, secret)
    return {"name": name, "secret": secret, "link": capability_link(name, secret)}


# The pages.


def _opened_by_link(request: Request) -> Response | None:
    """A capability link (`?key=`): its profile remembered in cookies and the same page shown without the key in
    its address (history, bookmarks); None when the request carries no key. A wrong key (on a shared server)
    or text no secret has (on any: it would go into a cookie, which holds Latin-1 alone): the 404 page."""
    secret = request.query_params.get("key")
    if not secret:
        return None
    name = chosen_profile(request)
    if not secret_shaped(secret) or (is_shared(request) and not verify_secret(state_of(request).store, name, secret)):
        message = f"no profile {name!r} opens with this key (it may have been replaced by a new one)"
        return page(request, "error.html", 404, message=message)
    response = RedirectResponse(request.url.path, status_code=303)
    remember(request, response, name, secret)
    return response


def _remembered(request: Request, response: Response, name: str) -> Response:
    """The page, keeping a profile chosen with `?profile=` in this browser's cookie."""
    if request.query_params.get("profile"):
        remember(request, response, name)
    return response


@router.get("/for-you", **page_answers(pages=[404], by_link=True))
def for_you_home(request: Request) -> Response:
    """Which profile this browser uses and the venues to open For you in; a profile to create on a shared server."""
    if opened := _opened_by_link(request):
        return opened
    state = state_of(request)
    context: dict[str, object] = {"venues": state.store.venue_list(), "shared": state.shared}
    try:
        name = profile_access(request)
    except NotFoundError as exc:
        return page(request, "for_you.html", 404 if chosen_profile(request) else 200, refused=str(exc), **context)
    papers, marks = _profile_content(state, name)
    shown = page(request, "for_you.html", 200, profile=name, papers=papers, marks=len(marks), **context)
    return _remembered(request, shown, name)


@router.get("/venues/{venue:text}/for-you", **page_answers(400, 409, pages=[400, 404], by_link=True))
def for_you_page(request: Request, venue: str) -> Response:
    """The venue's papers for the chosen profile, each with why; how to start when it has no papers or likes."""
    if opened := _opened_by_link(request):
        return opened
    state = state_of(request)
    info = state.store.get_venue(venue)
    venue = info.id
    context: dict[str, object] = {"venue": info, "nav_venue": venue, "shared": state.shared}
    try:
        name = profile_access(request)
    except NotFoundError as exc:
        return page(request, "for_you.html", 404 if chosen_profile(request) else 200, refused=str(exc), **context)
    notice, hits, must_read = None, [], []
    seen = profile_seen(state, name)  # read once: the key of each list below
    try:
        hits = [_hit(state, r.paper, r.score, r.reason) for r in for_you(state, name, venue, seen=seen)]
        must_read = must_read_hits(state, name, venue, seen) if hits else []
    except NotFoundError:
        notice = "start"
    except ConfnavError as exc:
        notice = "start" if not any(seen) else str(exc)  # nothing yet to learn from
    try:
        why, to_mark = to_mark_hits(state, name, venue, seen)
    except ConfnavError:  # no index to pick papers from: the start notice says what to do
        why, to_mark = "", []
    shown = page(
        request,
        "for_you.html",
        200,
        profile=name,
        hits=hits,
        notice=notice,
        must_read=must_read,
        to_mark=to_mark,
        why=why,
        **context,
    )
    return _remembered(request, shown, name)
