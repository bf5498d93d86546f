"""Server-rendered pages (usable without JavaScript); scripts add search-as-you-type, the map, reading lists."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from confnav.errors import ConfnavError, NotFoundError, VenueNameError
from confnav.model import Venue, fold, n_papers, name_key, named_places
from confnav.people import PeopleIndex, Person
from confnav.rank import Ranking, RankMode
from confnav.reports.facts import venue_facts
from confnav.reports.history import NOT_A_FORECAST
from confnav.reports.rebuttal import paper_rebuttal
from confnav.reports.render import ICON
from confnav.safe_text import site_name
from confnav.search.experts import find_experts
from confnav.search.query import phrase
from confnav.search.results import SORTS
from confnav.store import PaperFilter, Store, VenueSummary, venue_generation_in
from confnav.summarize.reviews import paragraphs
from confnav.topics import ensure_topics, get_theme, theme_facts, trends
from confnav.topics.trends import comparison_notice, earlier_in_series
from confnav.web.access import chosen_profile, default_list, visible_lists
from confnav.web.answers import page_answers
from confnav.web.api import MAX_LIMIT, _filter, institution_of, paper_json, ranking_mode, ranking_of
from confnav.web.history import history_of
from confnav.web.search_listing import NOTHING_ASKED, export_query, search_listing
from confnav.web.state import state_of

router = APIRouter()
templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
templates.env.filters["urlq"] = lambda value: quote(str(value), safe="")
templates.env.filters["phrase"] = lambda value: phrase(str(value))  # a query's quoted text, from data
templates.env.filters["site"] = lambda url: site_name(str(url))
templates.env.filters["paragraphs"] = paragraphs
templates.env.filters["papers"] = lambda n: n_papers(int(n))  # "1 paper", "2 papers"
templates.env.filters["named_places"] = named_places  # institutions without placeholders ("Unknown Institution")
templates.env.globals["icon"] = ICON  # the icon of every page, report pages too (render.py)


SORT_NAMES = {sort: {"match": "closest match"}.get(sort, sort) for sort in SORTS}  # as the sort menu shows them
DEFAULTS = {("mode", "hybrid"), ("sort", "relevance"), ("limit", 20)}  # left out of shareable URLs
ARRIVALS_SHOWN = 20  # papers listed under a venue's "decided since the last fetch"
SPELLINGS_SHOWN = 8  # an institution page lists this many of the ways the data writes its name


def site_nav(venue: str) -> str:
    """The site's navigation for a page about `venue`, as every page's header shows it (report pages too)."""
    return templates.get_template("_nav.html").render(nav_venue=venue)


def mode_switch(path: str, mode: RankMode, explanation: str = "") -> str:
    """The visible switch between the two ranking modes of a ranked page (links to `path?mode=...`)."""
    return templates.get_template("_mode_switch.html").render(
        mode=mode, modes=list(RankMode), base=path, explanation=explanation
    )


def page(request: Request, template: str, status: int = 200, **context: object) -> HTMLResponse:
    """A page; its `profile` (whose likes its buttons record) is the one the request chose unless given."""
    context.setdefault("profile", chosen_profile(request))
    context.setdefault("default_list", default_list(request))
    return templates.TemplateResponse(request, template, context, status_code=status)


def _topics_ready(request: Request, venue: str) -> str | None:
    """None when the venue's themes are available, else the reason (e.g. no index yet)."""
    try:
        ensure_topics(state_of(request).store, venue)
    except ConfnavError as exc:
        return str(exc)
    return None


@router.get("/", **page_answers())
def home(request: Request) -> HTMLResponse:
    state = state_of(request)
    store = state.store
    counters = dict(state.stores.state())  # read once for every venue's card
    venues = [  # each venue counted again only when its own papers changed
        state.cached(("home", v.id), partial(_venue_card, store, v), depends=venue_generation_in(counters, v.id))
        for v in state.cached(("venue-list",), store.venue_list)
    ]
    fetched = state.cached(("home-fetches",), lambda: (store.history_venues(), store.decisions_arrived()))
    return page(request, "home.html", venues=venues, histories=fetched[0], arrivals=fetched[1], shown=ARRIVALS_SHOWN)


def _venue_card(store: Store, venue: Venue) -> tuple[VenueSummary, dict[str, object]]:
    """A venue's counts and decision facts, as the home page lists them."""
    return store.venue_summary(venue), {f.key: f.value for f in venue_facts(store, venue.id)}


@router.get("/search", **page_answers(pages=[400, 404]))
def search_page(
    request: Request,
    q: str = Query("", max_length=4000),
    mode: str = "hybrid",
    venue: str = "",
    decision: str = "",
    author: str = "",
    keyword: str = "",
    min_rating: float | None = Query(None, ge=0, le=10, allow_inf_nan=False),  # NaN is no number
    has_code: bool = False,
    sort: str = "relevance",
    page_number: int = Query(1, ge=1, le=500, alias="page"),
    limit: int = Query(20, ge=1, le=MAX_LIMIT),
) -> HTMLResponse:
    state = state_of(request)
    form = {
        "q": q,
        "mode": mode,
        "venue": venue,
        "decision": decision,
        "author": author,
        "keyword": keyword,
        "min_rating": "" if min_rating is None else min_rating,
        "has_code": "1" if has_code else "",
        "sort": sort,
        "limit": limit,
    }
    shown = {k: v for k, v in form.items() if v not in ("", None) and (k, v) not in DEFAULTS}
    where = _filter(venue, decision, author, keyword, min_rating, has_code)
    found = search_listing(state.searcher, q, mode, where, sort, page_number, limit, shown)
    venues = state.store.venue_list()
    decisions = state.store.decision_names()
    lists = visible_lists(request)
    return page(
        request,
        "search.html",
        found.status,
        hits=found.hits,
        error=found.error,
        hint=found.hint,
        nothing_asked=NOTHING_ASKED,
        notices=found.notices,
        form=form,
        venues=venues,
        decisions=decisions,
        paging=found.paging,
        sorts=SORT_NAMES,
        lists=lists,
        export_query=export_query(shown, q, page_number * limit),
        nav_venue=venue if venue in {v.id for v in venues} else "",
    )


@router.get("/paper/{paper_id:textpath}", **page_answers(pages=[400, 404]))
def paper_page(
    request: Request,
    paper_id: str,
    venue: str | None = None,
    similar: str = "",
    mode: str | None = Query(None, max_length=40),
    at_conference: bool = False,
) -> HTMLResponse:
    state = state_of(request)
    try:
        data = paper_json(state, paper_id, venue)
        chosen = ranking_mode(state, str(data["venue"]), mode, at_conference)
    except NotFoundError as exc:
        return page(request, "error.html", 404, message=str(exc))
    except ConfnavError as exc:
        return page(request, "error.html", 400, message=str(exc))
    standing = _standing(state.kept(("rank", data["venue"], None, chosen.value)), paper_id)  # never computed here
    everything = similar == "all"  # the switch: rejected and withdrawn papers too
    found = state.searcher.similar(paper_id, venue=data["venue"], limit=8, include_rejected=everything)  # type: ignore[arg-type]
    lists = visible_lists(request)
    here = f"/paper/{quote(paper_id, safe='')}?venue={quote(str(data['venue']), safe='')}"
    switch = {"all": everything, "on": f"{here}&similar=all#similar", "off": f"{here}#similar"}
    return page(
        request,
        "paper.html",
        paper=data,
        similar=[h.to_dict() for h in found.hits],
        lists=lists,
        switch=switch,
        nav_venue=data["venue"],
        mode=chosen,
        standing=standing,
        mode_links=mode_switch(here, chosen),
        rebuttal=paper_rebuttal(state.store, str(data["venue"]), paper_id),
    )


def _standing(ranking: object, paper_id: str) -> dict[str, object] | None:
    """The paper's place and reasons in a ranking the app has already computed (a page view never ranks)."""
    if not isinstance(ranking, Ranking):
        return None
    place = next((i for i, r in enumerate(ranking.papers) if r.paper.id == paper_id), None)
    if place is None:
        return None
    return {"place": place + 1, "of": len(ranking.papers), "reasons": ranking.papers[place].reasons}


@router.get("/author/{name:text}", **page_answers(pages=[404]))
def author_page(request: Request, name: str) -> HTMLResponse:
    store = state_of(request).store
    papers = store.papers(PaperFilter(author=name)) if name_key(name) else []  # no letters: not a name
    if not papers:
        return page(request, "error.html", 404, message=f"no author named {name!r} in the store")
    people = PeopleIndex(profiles=store.author_profiles([name_key(name)])).people_named(name, papers)
    if not people:  # the filter matched the name's words in another order or form: list those papers as they are
        people = [Person(f"name:{name_key(name)}", name, None, papers)]
    return page(request, "author.html", name=name, people=people)


@router.get("/experts", **page_answers(pages=[400, 404]))
def experts_page(
    request: Request, q: str = Query("", max_length=4000), venue: str = "", limit: int = Query(20, ge=1, le=MAX_LIMIT)
) -> HTMLResponse:
    """The authors whose papers best match a topic; the empty form when no topic is asked, 400 for a blank one."""
    state = state_of(request)
    venues = state.store.venue_list()
    found, error = None, None
    if q or "q" in request.query_params:
        try:
            found = state.cached(
                ("experts", q, venue or None, limit), lambda: find_experts(state.searcher, q, venue or None, limit)
            )
        except NotFoundError:
            raise
        except ConfnavError as exc:
            error = str(exc)
    status = 400 if error else 200
    return page(request, "experts.html", status, q=q, venue=venue, venues=venues, found=found, error=error)


@router.get("/institution/{name:textpath}", **page_answers(pages=[404]))
def institution_page(request: Request, name: str) -> HTMLResponse:
    """An institution's papers with decision badges, its venues with acceptance, its authors (unknown: 404)."""
    institution = institution_of(state_of(request), name)
    shown = {fold(text) for text in [institution.name, *institution.spellings[:SPELLINGS_SHOWN]]}
    asked = name.strip() if fold(name) not in shown else None  # a spelling the page would not show: say where it went
    return page(request, "institution.html", institution=institution, asked=asked, spellings=SPELLINGS_SHOWN)


@router.get("/map", **page_answers(pages=[400, 404, 409]))
def map_page(request: Request, venue: str = "") -> HTMLResponse:
    store = state_of(request).store
    venues = store.venue_list()
    try:
        venue = store.pick_venue(venue or None)
    except (NotFoundError, VenueNameError):
        raise  # the app's answer: a 404 for a venue not here, a 400 for a name that names no one venue
    except ConfnavError as exc:  # an empty store
        return page(request, "error.html", 409, message=str(exc))
    problem = _topics_ready(request, venue)
    name = store.get_venue(venue).name
    return page(request, "map.html", venue=venue, venue_name=name, venues=venues, problem=problem, nav_venue=venue)


@router.get("/themes/{venue:text}", **page_answers(pages=[400, 404, 409]))
def themes_page(request: Request, venue: str) -> HTMLResponse:
    store = state_of(request).store
    shown = store.get_venue(venue)  # unknown: a 404 (a bad name: 400), not "themes not built"
    venue = shown.id
    if problem := _topics_ready(request, venue):
        return page(request, "error.html", 409, message=problem)
    others = earlier_in_series(store.venue_list(), shown)  # trends run forward within one series
    return page(
        request, "themes.html", venue=shown, themes=theme_facts(store, venue, 1), others=others, nav_venue=venue
    )


@router.get("/history/{venue:text}", **page_answers(pages=[400, 404]))
def history_page(request: Request, venue: str) -> HTMLResponse:
    """Acceptance by mean rating at the venue's earlier editions, one table per edition."""
    history = history_of(state_of(request), venue)
    return page(request, "history.html", history=history, note=NOT_A_FORECAST, nav_venue=history.venue.id)


@router.get("/themes/{venue:text}/{theme_id:text}", **page_answers(pages=[400, 404, 409]))
def theme_page(
    request: Request,
    venue: str,
    theme_id: str,
    mode: str | None = Query(None, max_length=40),
    at_conference: bool = False,
) -> HTMLResponse:
    """A theme with its papers in must-read order, in the ranking mode asked for (or the venue's default)."""
    state = state_of(request)
    store = state.store
    shown = store.get_venue(venue)  # unknown: a 404 (a bad name: 400), not "themes not built"
    venue = shown.id
    if problem := _topics_ready(request, venue):
        return page(request, "error.html", 409, message=problem)
    try:
        theme = get_theme(store, venue, theme_id)
    except NotFoundError as exc:
        return page(request, "error.html", 404, message=str(exc))
    try:
        chosen = ranking_mode(state, venue, mode, at_conference)
    except ConfnavError as exc:
        return page(request, "error.html", 400, message=str(exc))
    ranking: Ranking = ranking_of(state, venue, chosen)[0]
    members = set(theme.paper_ids)
    ranked = [item for item in ranking.papers if item.paper.id in members]
    ranked.sort(key=lambda item: not item.paper.decision.accepted)  # accepted first, each part in must-read order
    subs = [t for t in theme_facts(store, venue, 2) if t.parent == theme.id]
    parent = next((t for t in store.themes(venue, 1) if t.id == theme.parent), None)  # a sub-theme's parent
    switch = mode_switch(f"/themes/{quote(venue, safe='')}/{quote(theme_id, safe='')}", chosen, ranking.explanation)
    return page(
        request,
        "theme.html",
        theme=theme,
        ranked=ranked,
        subs=subs,
        venue=shown,
        parent=parent,
        nav_venue=venue,
        mode=chosen,
        switch=switch,
    )


@router.get("/trends", **page_answers(pages=[400, 404, 409]))
def trends_page(
    request: Request, source: str = Query(..., alias="from"), target: str = Query(..., alias="to")
) -> HTMLResponse:
    store = state_of(request).store
    before, after = store.get_venue(source), store.get_venue(target)  # unknown: 404
    source, target, names = before.id, after.id, {"source": before.name, "target": after.name}
    try:
        comparison_notice(before, after)
    except ConfnavError as exc:  # backwards in time
        return page(request, "error.html", 400, message=str(exc))
    if problem := _topics_ready(request, target):
        return page(request, "error.html", 409, message=problem)
    return page(request, "trends.html", trends=trends(store, source, target), names=names, nav_venue=target)


@router.get("/lists", **page_answers(pages=[404]))
def lists_page(request: Request, name: str = "") -> HTMLResponse:
    store = state_of(request).store
    lists = visible_lists(request)
    current = name or (lists[0][0] if lists else "")
    if current and not any(n == current for n, _ in lists):
        return page(request, "lists.html", 404, lists=lists, current="", papers=[], missing=current)
    papers = store.list_papers(current) if current else []
    return page(request, "lists.html", lists=lists, current=current, papers=papers)
