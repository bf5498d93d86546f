"""The ask page (`/ask`, `/venues/V/ask`) and `/api/ask`: a question answered from the store, every sentence
citing its papers; with an LLM configured, its prose checked sentence by sentence. Kept per store state.

With a profile (`?profile=NAME`) the answer favours its interests among equally relevant papers; the profile opens
as every profile route opens it (`confnav.web.access`): on a shared server only with its own secret, so that
nobody asks with someone else's profile (the API answers 404, the page answers without the profile and says why)."""

from __future__ import annotations

from urllib.parse import unquote

import anyio
from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import Field

from confnav.answer import Answer, ask
from confnav.answer.written import client_for
from confnav.errors import ConfnavError, NotFoundError
from confnav.personal import DEFAULT_PROFILE
from confnav.web.access import PROFILE_COOKIE, is_shared, profile_access
from confnav.web.answers import answers, page_answers
from confnav.web.api import JSONBytes, _json
from confnav.web.bodies import Body, ExpertPaper
from confnav.web.pages import page
from confnav.web.personal import profile_seen
from confnav.web.state import AppState, state_of

router = APIRouter()
MAX_QUESTION = 1000
PROFILE_REFUSED = "profiles are personal: open your profile's link to ask with it; this answer follows no profile"


class AnswerSentence(Body):
    text: str
    cites: list[str] = Field(description="ids of the papers the sentence rests on")
    source: str = Field(description="where the sentence comes from: a paper's own text, a count, or the LLM")


class AnswerPart(Body):
    heading: str | None = Field(description="the group: a theme or a phrase its papers share")
    sentences: list[AnswerSentence]


class AnswerPaper(ExpertPaper):
    """A paper retrieved for the question (`score`: the hybrid search's)."""

    relevance: float = Field(description="the share of the question's weight the paper's own text covers")
    statement: str | None = Field(description="its one-line statement: the authors' TL;DR or an abstract sentence")
    statement_source: str
    group: str
    close_to: str | None = Field(description="with a profile: the profile's paper it is closest to")


class AnswerCount(Body):
    venue: str
    phrase: str | None = Field(description="the phrase counted (None: every paper of the venue)")
    decision: str | None
    value: int
    author: str | None = Field(None, description="a person's count: the name asked")
    person: str | None = Field(None, description="a person's count: whom the name means (a profile id, else the name)")
    institution: str | None = Field(None, description="an institution's count: its key")
    award: bool = Field(False, description="only the papers the venue's data names an award for")
    scope: bool = Field(False, description="the venue's papers and those the answer's decision filter keeps")


class AskAnswer(Body):
    """A question's answer: paragraphs citing papers by id, the papers, the counts; or why the store does not say."""

    question: str
    venues: list[str]
    answered: bool
    unanswered: str | None = Field(description="why the store does not say, when it does not")
    mode: str = Field(description="extractive, or written by the configured LLM and checked")
    parts: list[AnswerPart]
    papers: list[AnswerPaper]
    counts: list[AnswerCount]
    generated: int = Field(description="sentences the LLM wrote")
    dropped: int = Field(description="of them, dropped by the checks")
    replaced: int = Field(description="of them, replaced by a cited paper's own statement")
    notices: list[str]
    profile: str | None = Field(description="the profile the papers are ordered for, when one was asked for")
    facts: dict[str, str] = Field(description="venue facts the answer states, by venue name (an acceptance rate)")


def answer_of(state: AppState, question: str, venue: str | None, profile: str | None = None) -> Answer:
    """The answer to `question` over `venue` (None: the venues it names), for `profile` (one this request may
    open) when given; computed once per store state and profile content."""
    client = client_for(state.navigator.settings)
    key = ("ask", question, venue, profile, profile_seen(state, profile) if profile else ())
    return state.cached(key, lambda: ask(state.searcher, question, venue, profile, client), True)


@router.get("/api/ask", response_class=JSONBytes, **answers(AskAnswer, 404, 422))
async def ask_api(
    request: Request,
    q: str = Query("", max_length=MAX_QUESTION),
    venue: str | None = None,
    profile: str | None = Query(None, max_length=60),
) -> JSONBytes:
    """The answer to the question `q`: paragraphs of sentences with the ids they cite, the papers they may cite,
    counts; `answered` false with the reason when the store does not say. With `profile`, the papers closest to
    its interests first among the equally relevant (on a shared server only with the profile's key: 404 else).
    400 for an empty question, 404 for an unknown venue or profile."""
    state = state_of(request)

    def answer() -> bytes:
        name = profile_access(request, profile) if profile else None  # NotFoundError (404) unless it may
        return _json(answer_of(state, q, venue or None, name).to_dict())

    if profile:  # a profile's answer follows its marks and its key: not kept by the question alone
        return JSONBytes(await anyio.to_thread.run_sync(answer))
    return JSONBytes(await state.answer(("ask-json", q, venue or None), answer, searched=True))


@router.get("/ask", **page_answers(pages=(400, 404)))
def ask_page(
    request: Request,
    q: str = Query("", max_length=MAX_QUESTION),
    venue: str = "",
    profile: str = Query("", max_length=60),
) -> HTMLResponse:
    """The question form and, when asked, the answer (for `profile` when this request may open it); 400 for a
    blank question."""
    return _page(request, q, venue, profile)


@router.get("/venues/{venue:text}/ask", **page_answers(pages=(400, 404)))
def venue_ask_page(
    request: Request, venue: str, q: str = Query("", max_length=MAX_QUESTION), profile: str = Query("", max_length=60)
) -> HTMLResponse:
    """The ask page for one venue (unknown venue: 404)."""
    venue = state_of(request).store.get_venue(venue).id
    return _page(request, q, venue, profile)


def _profile_of(request: Request, profile: str) -> tuple[str | None, str | None]:
    """The profile the answer follows (None: none asked for, or refused) and why it was refused."""
    if not profile:
        return None, None
    try:
        return profile_access(request, profile), None
    except NotFoundError:
        return None, PROFILE_REFUSED


def _offered(request: Request) -> str | None:
    """The profile the form offers to ask with: the one this browser has open (locally `me` by default), when this
    request may open it and it has papers or likes to favour."""
    named = unquote(request.cookies.get(PROFILE_COOKIE, "")) or ("" if is_shared(request) else DEFAULT_PROFILE)
    try:
        name = profile_access(request, named) if named else None
    except NotFoundError:
        return None
    return name if name and any(profile_seen(state_of(request), name)) else None


def _page(request: Request, q: str, venue: str, profile: str) -> HTMLResponse:
    state = state_of(request)
    venues = state.store.venue_list()
    found, error = None, None
    name, refused = _profile_of(request, profile)
    if q or "q" in request.query_params:
        try:
            found = answer_of(state, q, venue or None, name)
        except NotFoundError:
            raise
        except ConfnavError as exc:
            error = str(exc)
    cited = {c for s in found.sentences for c in s.cites} if found else set()
    sources = [r for r in found.papers if r.paper.id in cited] if found else []
    context = {"q": q, "venue": venue, "venues": venues, "found": found, "error": error, "sources": sources}
    context |= {"profile": name, "offered": name or _offered(request), "refused": refused}
    return page(request, "ask.html", 400 if error else 200, nav_venue=venue, **context)
