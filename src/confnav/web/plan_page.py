"""A venue's plan page: the must-read papers by day and session (or by theme), with the plan as an ICS download.
`?profile=NAME` plans from a profile's recommendations, on a local server only (profiles are personal)."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from confnav.errors import ConfnavError, NotFoundError
from confnav.plan import Plan, build_plan, plan_calendar
from confnav.plan.planner import DEFAULT_TOP
from confnav.web.access import profile_access
from confnav.web.answers import download_answers, page_answers
from confnav.web.downloads import download
from confnav.web.pages import page
from confnav.web.state import state_of

router = APIRouter()
PROFILE_REFUSED = (
    "profiles are personal: open your profile's link to plan with it; this plan follows the venue's must-read"
)


def _plan(request: Request, venue: str, profile: str | None, top: int) -> tuple[Plan, str | None] | Response:
    """The plan (kept per store state) and, when a profile was asked for but refused, why; or the error page."""
    state = state_of(request)
    venue = state.store.get_venue(venue).id  # an unknown venue is a 404
    refused = None
    if profile:
        try:
            profile = profile_access(request, profile)
        except NotFoundError:
            profile, refused = None, PROFILE_REFUSED
    try:
        plan = state.cached(("plan", venue, profile, top), lambda: build_plan(state.store, venue, profile, top))
    except NotFoundError:
        raise
    except ConfnavError as exc:  # a venue that cannot be planned (no papers to rank): said on the page
        return page(request, "error.html", 409, message=str(exc))
    return plan, refused


@router.get("/venues/{venue:text}/plan", **page_answers(400, 409, pages=[400, 404, 409]))
def plan_page(
    request: Request,
    venue: str,
    profile: str | None = Query(None, max_length=60),
    top: int = Query(DEFAULT_TOP, ge=1, le=200),
) -> Response:
    planned = _plan(request, venue, profile or None, top)
    if isinstance(planned, Response):
        return planned
    plan, refused = planned
    venue = plan.venue  # the store's id of the venue asked for (_plan reads any spelling)
    name = state_of(request).store.get_venue(venue).name
    query = "?" + urlencode({"profile": plan.profile, "top": top} if plan.profile else {"top": top})
    return page(request, "plan.html", plan=plan, venue_name=name, refused=refused, ics_query=query, nav_venue=venue)


@router.get(
    "/venues/{venue:text}/plan.ics", **download_answers("text/calendar", codes=[400, 409], pages=[400, 404, 409])
)
def plan_calendar_file(
    request: Request,
    venue: str,
    profile: str | None = Query(None, max_length=60),
    top: int = Query(DEFAULT_TOP, ge=1, le=200),
) -> Response:
    planned = _plan(request, venue, profile or None, top)
    if isinstance(planned, Response):
        return planned
    return download(plan_calendar(planned[0]), f"{planned[0].venue}-plan.ics", "text/calendar")
