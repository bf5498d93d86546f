"""The verified reports as pages of the site (overview, digest, statistics), made off the request path."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from confnav.errors import ConfnavError
from confnav.reports.digest import build_digest
from confnav.reports.model import Report
from confnav.reports.overview import build_overview
from confnav.reports.render import to_html
from confnav.reports.stats import build_stats_report
from confnav.reports.verify import verified
from confnav.web.answers import page_answers
from confnav.web.api import ranking_mode
from confnav.web.pages import mode_switch, page, site_nav
from confnav.web.refresh import REFRESHING_HEADER
from confnav.web.state import state_of

router = APIRouter()


@router.get("/reports/{venue:text}/{kind:text}", **page_answers(pages=[400, 404, 409]))
def report_page(
    request: Request,
    venue: str,
    kind: str,
    mode: str | None = Query(None, max_length=40),
    at_conference: bool = False,
) -> Response:
    """The overview, digest or statistics report, as the same self-contained HTML the CLI writes (built once
    per store state: a report takes most of a second); the ranked ones in the mode asked for, with a switch."""
    state = state_of(request)
    venue = state.store.get_venue(venue).id
    nav = site_nav(venue)
    if kind == "stats":
        return _report(request, ("report", venue, kind), lambda: build_stats_report(state.store, venue), nav)
    ranked: dict[str, Callable[..., Report]] = {"overview": build_overview, "digest": build_digest}
    if kind not in ranked:
        return page(request, "error.html", 404, message=f"no report {kind!r} (overview, digest, stats)")
    try:
        chosen = ranking_mode(state, venue, mode, at_conference)
    except ConfnavError as exc:
        return page(request, "error.html", 400, message=str(exc))
    switch = mode_switch(f"/reports/{quote(venue, safe='')}/{kind}", chosen)
    build = partial(ranked[kind], state.store, venue, mode=chosen)
    return _report(request, ("report", venue, kind, chosen.value), build, nav, switch)


VERIFIED_NOTE = "Every citation, number and table of this report was checked against the store when it was made."


def _report(
    request: Request, key: tuple[object, ...], build: Callable[[], Report], nav: str, top: str = ""
) -> Response:
    """A report page, verified as the CLI writes it and then shown with the app's links; made off the request path
    after a write (the one made before is shown meanwhile, saying so)."""
    store = state_of(request).store

    def build_verified() -> str:
        report = build()
        verified(store, to_html(report), request.url.path)  # a failure names each claim the store lacks
        html = to_html(report, app_nav=nav, app_top=top)
        return html.replace("</main>", f'<p class="verified" role="note">{VERIFIED_NOTE}</p></main>', 1)

    try:
        html, refreshing = state_of(request).refreshed(key, build_verified)
    except ConfnavError as exc:
        return page(request, "error.html", 409, message=str(exc))
    if not refreshing:
        return HTMLResponse(html)
    notice = (
        '<p class="refreshing" role="status">The store changed since this report was made: a new one is being'
        " made; reload in a moment.</p>"
    )
    return HTMLResponse(html.replace("<main>", "<main>" + notice, 1), headers={REFRESHING_HEADER: "1"})
