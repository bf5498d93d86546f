"""A profile's news on the web: its watches (add, remove), what each ingest or fetch found for them, and the import
of a library or a person's papers into the profile; every route opens the profile as `confnav.web.access` says."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from confnav.errors import ConfnavError, NotFoundError, excerpt
from confnav.fetch.authors import people_papers, person_of
from confnav.fetch.http import FetchError
from confnav.personal.formats import parse_library
from confnav.personal.news import add_watch, describe, profile_news
from confnav.personal.profiles import import_entries
from confnav.store.news import NewsItem, Watch
from confnav.web.access import chosen_profile, profile_access
from confnav.web.answers import WRITE, answers, page_answers
from confnav.web.bodies import Body
from confnav.web.pages import page
from confnav.web.state import state_of

router = APIRouter()
NEWS_SHOWN = 100  # items the news page lists (the API and the feed page through `since`)
MAX_LIBRARY = 5_000_000  # characters of a pasted or uploaded library


class WatchOut(Body):
    """One watch of a profile, with its words."""

    id: str
    profile: str
    kind: str = Field(description="query, author, theme or decisions")
    value: str
    venue: str | None
    created: str
    says: str = Field(description="the watch in a few words")


class WatchIn(Body):
    """What to watch: exactly one of a query, an author, a theme (of `venue`) or `decisions` of `venue`."""

    query: str | None = Field(None, max_length=500)
    author: str | None = Field(None, max_length=200)
    theme: str | None = Field(None, max_length=100)
    decisions: bool = False
    venue: str | None = Field(None, max_length=100)


class NewsOut(Body):
    """One thing an ingest or fetch found for a watch."""

    id: str
    watch: str
    venue: str
    paper_id: str
    title: str
    kind: str
    summary: str
    created: str


class ImportIn(Body):
    """A library's text (BibTeX, RIS, CSL-JSON or one id per line) named like its file, or a person to bring
    (an OpenReview profile id ~First_Last1 or a Semantic Scholar author s2:ID)."""

    text: str | None = Field(None, max_length=MAX_LIBRARY)
    filename: str | None = Field(None, max_length=200)
    person: str | None = Field(None, max_length=200)


class ImportOut(Body):
    profile: str
    matched: int
    own: int
    added: int
    problems: list[str]


def _watch_json(watch: Watch) -> dict[str, object]:
    return {**vars(watch), "says": describe(watch)}


def _news_json(item: NewsItem) -> dict[str, object]:
    return {k: v for k, v in vars(item).items() if k != "profile"}


def _own_watch(request: Request, name: str, watch_id: str) -> Watch:
    """The profile's watch of this id; another profile's is answered as unknown (404), as on a shared server
    nobody learns what others watch."""
    found = [w for w in state_of(request).store.watches(name) if w.id == watch_id]
    if not found:
        raise NotFoundError(f"{name} has no watch {excerpt(watch_id)}")
    return found[0]


@router.get("/api/profiles/{name:text}/watches", **answers(list[WatchOut], 404))
def list_watches(request: Request, name: str) -> list[dict[str, object]]:
    """The profile's watches, oldest first."""
    name = profile_access(request, name)
    return [_watch_json(w) for w in state_of(request).store.watches(name)]


@router.post("/api/profiles/{name:text}/watches", **answers(WatchOut, 400, 404, *WRITE, status=201))
def new_watch(request: Request, name: str, body: WatchIn) -> dict[str, object]:
    """Follow a query, an author, a theme or a venue's decisions; checked before anything is kept."""
    with state_of(request).writing(request) as store:
        name = profile_access(request, name)
        made = add_watch(
            store,
            name,
            query=body.query or None,
            author=body.author or None,
            theme=body.theme or None,
            venue=body.venue or None,
            decisions=body.decisions,
        )
    return _watch_json(made)


@router.delete("/api/profiles/{name:text}/watches/{watch_id}", **answers(WatchOut, 404, *WRITE))
def drop_watch(request: Request, name: str, watch_id: str) -> dict[str, object]:
    """Stop a watch; its news go with it."""
    with state_of(request).writing(request) as store:
        name = profile_access(request, name)
        gone = store.remove_watch(_own_watch(request, name, watch_id).id)
    return _watch_json(gone)


@router.get("/api/profiles/{name:text}/news", **answers(list[NewsOut], 400, 404))
def list_news(
    request: Request, name: str, since: str | None = Query(None, max_length=40, description="a date or UTC time")
) -> list[dict[str, object]]:
    """What each ingest or fetch found for the profile's watches, newest first."""
    name = profile_access(request, name)
    return [_news_json(item) for item in profile_news(state_of(request).store, name, since)]


@router.post("/api/profiles/{name:text}/import", **answers(ImportOut, 400, 404, 502, *WRITE))
def import_into_profile(request: Request, name: str, body: ImportIn) -> dict[str, object]:
    """Add a library (its text) or a person's papers to the profile: matched to stored papers, the rest kept as
    the profile's own texts, problems reported per entry. A person is fetched before the store is locked."""
    state = state_of(request)
    name = profile_access(request, name)
    state.check_write(request)  # before anything is fetched: a refused write asks no service
    if bool(body.text) == bool(body.person):
        raise ConfnavError("give a library's text or a person (~First_Last1, s2:ID), one of them")
    if body.person:
        person = person_of(body.person.strip())
        if person is None:
            raise ConfnavError(f"person {body.person!r}: give an OpenReview profile id (~First_Last1) or s2:ID")
        try:
            sources = people_papers([person], state.store.settings)
        except FetchError as exc:  # the service is out of reach or refused: not the request's fault
            raise StarletteHTTPException(502, str(exc)) from None
    else:
        filename = Path(body.filename or "pasted").name or "pasted"
        sources = [(filename, parse_library(Path(filename), body.text or ""))]
    with state.writing(request) as store:  # the profile was opened above, before anything was fetched
        return import_entries(store, sources, name).to_dict()


@router.get("/news", **page_answers(pages=[404]))
def news_page(request: Request) -> Response:
    """The chosen profile's news, its watches with a form to add one, and a form to import papers into it; its
    feed linked once the profile exists (the feed of an unknown profile is a 404)."""
    state = state_of(request)
    venues = state.store.venue_list()
    try:
        name = profile_access(request)
    except NotFoundError as exc:
        status = 404 if chosen_profile(request) else 200
        return page(request, "news.html", status, refused=str(exc), venues=venues)
    known = {n for n, _, _ in state.store.profiles()}
    items = state.store.news(name, limit=NEWS_SHOWN) if name in known else []
    watches = [_watch_json(w) for w in state.store.watches(name)]
    context = {"items": items, "watches": watches, "venues": venues, "shared": state.shared, "feed": name in known}
    return page(request, "news.html", 200, profile=name, **context)
