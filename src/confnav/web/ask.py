"""The ask page (`/ask`, `/venues/V/ask`) and `/api/ask`: a question answered from the store, every sentence
citing its papers; with an LLM configured, its prose checked sentence by sentence. Kept per store state."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import Field

from confnav.answer import Answer, ask
from confnav.answer.written import client_for
from confnav.errors import ConfnavError, NotFoundError
from confnav.web.answers import answers, page_answers
from confnav.web.api import JSONBytes, _json
from confnav.web.bodies import Body, ExpertPaper
from confnav.web.pages import page
from confnav.web.state import AppState, state_of

router = APIRouter()
MAX_QUESTION = 1000


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


def answer_of(state: AppState, question: str, venue: str | None) -> Answer:
    """The answer to `question` over `venue` (None: the venues it names), computed once per store state."""
    client = client_for(state.navigator.settings)
    return state.cached(("ask", question, venue), lambda: ask(state.searcher, question, venue, None, client), True)


@router.get("/api/ask", response_class=JSONBytes, **answers(AskAnswer, 404, 422))
async def ask_api(request: Request, q: str = Query("", max_length=MAX_QUESTION), venue: str | None = None) -> JSONBytes:
    """The answer to the question `q`: paragraphs of sentences with the ids they cite, the papers they may cite,
    counts; `answered` false with the reason when the store does not say. 400 for an empty question, 404 for an
    unknown venue."""
    state = state_of(request)

    def answer() -> bytes:
        return _json(answer_of(state, q, venue or None).to_dict())

    return JSONBytes(await state.answer(("ask-json", q, venue or None), answer, searched=True))


@router.get("/ask", **page_answers(pages=(400, 404)))
def ask_page(request: Request, q: str = Query("", max_length=MAX_QUESTION), venue: str = "") -> HTMLResponse:
    """The question form and, when asked, the answer; 400 for a blank question."""
    return _page(request, q, venue)


@router.get("/venues/{venue}/ask", **page_answers(pages=(400, 404)))
def venue_ask_page(request: Request, venue: str, q: str = Query("", max_length=MAX_QUESTION)) -> HTMLResponse:
    """The ask page for one venue (unknown venue: 404)."""
    state_of(request).store.get_venue(venue)
    return _page(request, q, venue)


def _page(request: Request, q: str, venue: str) -> HTMLResponse:
    state = state_of(request)
    venues = [s.venue for s in state.store.venues()]
    found, error = None, None
    if q or "q" in request.query_params:
        try:
            found = answer_of(state, q, venue or None)
        except NotFoundError:
            raise
        except ConfnavError as exc:
            error = str(exc)
    cited = {c for s in found.sentences for c in s.cites} if found else set()
    sources = [r for r in found.papers if r.paper.id in cited] if found else []
    context = {"q": q, "venue": venue, "venues": venues, "found": found, "error": error, "sources": sources}
    return page(request, "ask.html", 400 if error else 200, nav_venue=venue, **context)
