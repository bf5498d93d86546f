"""The JSON API of papers: search, experts, a paper (JSON or BibTeX), an institution, similar papers and
recommendations."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse

from confnav.export import bibtex_entry
from confnav.institutions import institution_key
from confnav.model import Outcome
from confnav.rank.impact import estimates_made, known_impact
from confnav.reports.history import NOT_A_FORECAST
from confnav.reports.institutions import Institution, institution_index, institution_profile
from confnav.search.experts import find_experts
from confnav.search.results import as_mode
from confnav.sources.disagreements import paper_sources
from confnav.store import Store
from confnav.summarize.base import labelled_tldr
from confnav.summarize.llm import ChatClient, LLMConfig
from confnav.summarize.reviews import PaperReviews, paper_reviews
from confnav.topics.facts import lists_rejections
from confnav.web.answers import answers, failures
from confnav.web.api_base import MAX_LIMIT, YEAR_QUERY, JSONBytes, _filter, _json
from confnav.web.bodies import ExpertsAnswer, Hits, SearchAnswer
from confnav.web.bodies import Institution as InstitutionBody
from confnav.web.bodies import Paper as PaperBody
from confnav.web.history import history_of
from confnav.web.state import AppState, state_of

router = APIRouter(prefix="/api")


def paper_json(state: AppState, paper_id: str, venue: str | None = None) -> dict[str, object]:
    """A paper with its TL;DR and theme (and its reviews, where their texts are public), its source records and
    where they disagree, as the paper page and API show it (`confnav show`'s paper_sources)."""
    paper = state.store.get_paper(paper_id, venue)
    data = paper.to_dict()
    tldr = labelled_tldr(state.summarizer(paper.venue), paper)
    data["tldr_text"], data["tldr_source"] = tldr.tldr, tldr.source
    data["theme"] = state.theme_of(paper.venue, paper.id)
    if paper.decision.outcome is Outcome.PENDING:  # history of earlier editions, never a forecast of this paper
        history = history_of(state, paper.venue)
        data["history"] = {"sentences": history.for_mean(paper.rating_mean), "note": NOT_A_FORECAST}
    # the counters as the answer cache reads them (kept STATE_AGE): no store read per paper asked for
    if (impact := known_impact(state.stores, paper.venue)) and paper.id in impact.percentile:
        data["impact"] = {
            "top_percent": max(1, round(100 * (1 - impact.percentile[paper.id]))),
            "source": impact.source(),
            "parts": [str(c) for c in impact.contributions.get(paper.id, [])],
        }
    if reviews := reviews_of(state, paper.venue, paper.id):
        data["reviews"] = reviews.to_dict()
    return data | paper_sources(state.store, paper).to_dict()  # every source record, where they disagree


def reviews_of(state: AppState, venue: str, paper_id: str) -> PaperReviews:
    """A paper's reviews and what they agreed and disagreed on (milliseconds), phrased by the LLM when one is
    configured (then kept per store state, so that the model is asked once)."""
    if (config := LLMConfig.from_settings(state.store.settings)) is None:
        return paper_reviews(state.store, venue, paper_id)
    client = ChatClient(config)
    return state.cached(("reviews", venue, paper_id), lambda: paper_reviews(state.store, venue, paper_id, client))


def rated_venues(store: Store) -> list[str]:
    """The venues whose data lists rejections, so that an acceptance rate means something there."""
    venues = (v.id for v in store.venue_list())
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


@router.get("/search", response_class=JSONBytes, **answers(SearchAnswer, 400, 404))
async def search(
    request: Request,
    q: str = Query("", max_length=4000),
    limit: int = Query(10, ge=1, le=MAX_LIMIT + 1),  # a full page and one more: whether another page follows
    offset: int = Query(0, ge=0, le=10_000),
    sort: str = Query("relevance"),
    mode: str = Query("hybrid"),
    venue: str | None = None,
    decision: str | None = None,
    author: str | None = None,
    keyword: str | None = None,
    min_rating: float | None = Query(None, ge=0, le=10, allow_inf_nan=False),  # NaN is no number
    has_code: bool = False,
    year: int | None = Query(None, description=YEAR_QUERY),
) -> JSONBytes:
    """Hybrid, keyword or semantic search, a page at a time (`offset`, `limit`), by relevance or another `sort`;
    hits carry id, title, authors, venue, decision, score and a marked snippet; `matching` counts word matches,
    `meeting_filters` the papers that meet the filters (`venue`, `decision`, `author`, `keyword`, `year`,
    `min_rating`, `has_code`, as the CLI's `search` flags). Without words, the papers that meet the filters
    (accepted first, then by rating; `matching` counts them)."""
    mode = as_mode(mode)
    state = state_of(request)
    where = _filter(venue, decision, author, keyword, min_rating, has_code, year)

    def answer() -> bytes:
        results = state.searcher.search(q, mode=mode, where=where, limit=limit, offset=offset, sort=sort)
        return _json(results.to_dict())

    key = ("search", q, mode, where, limit, offset, sort)
    return JSONBytes(await state.answer(key, answer, searched=True, quick=True))


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

    return JSONBytes(await state.answer(("experts", q, venue or None, limit), answer, searched=True, quick=True))


@router.get("/paper/{paper_id:textpath}/bibtex", response_class=PlainTextResponse, responses=failures(400, 404))
def paper_bibtex(request: Request, paper_id: str, venue: str | None = None) -> PlainTextResponse:
    """One paper as BibTeX (the proceedings' title for accepted papers; @misc for others)."""
    return PlainTextResponse(bibtex_entry(state_of(request).store.get_paper(paper_id, venue)) + "\n")


@router.get("/paper/{paper_id:textpath}", response_class=JSONBytes, **answers(PaperBody, 400, 404))
async def paper(request: Request, paper_id: str, venue: str | None = None) -> JSONBytes:
    """One paper with every field, its TL;DR and theme; 404 for an unknown id."""
    state = state_of(request)
    key = ("paper", paper_id, venue, estimates_made())  # a ranking may have estimated its impact since
    offline = LLMConfig.from_settings(state.stores.settings) is None  # else its reviews may wait on the LLM
    return JSONBytes(await state.answer(key, lambda: _json(paper_json(state, paper_id, venue)), quick=offline))


@router.get("/institution/{name:textpath}", response_class=JSONBytes, **answers(InstitutionBody, 404))
async def institution(request: Request, name: str) -> JSONBytes:
    """An institution's papers (newest first), per-venue counts and acceptance, and its authors; 404 if unknown."""
    state = state_of(request)
    key = ("institution.json", institution_key(name))
    return JSONBytes(await state.answer(key, lambda: _json(institution_of(state, name).to_dict())))


@router.get("/similar/{paper_id:textpath}", **answers(Hits, 400, 404))
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
