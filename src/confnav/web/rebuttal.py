"""A venue's rebuttal on the web (`/venues/V/rebuttal`, `/api/rebuttal/V`): the dates used, the rating
distribution at each date and before/after as inline SVG, the share of reviews changed, the mean change by
decision once decisions are out, movers, converged and diverged papers; computed once per store state."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import Field

from confnav.errors import NotFoundError
from confnav.reports.rebuttal import Rebuttal, build_rebuttal, day, rating_order
from confnav.reports.svg import Series, bar_chart, line_chart
from confnav.web.answers import answers, page_answers
from confnav.web.bodies import Body
from confnav.web.pages import page
from confnav.web.state import AppState, state_of

router = APIRouter()


class ReviewMove(Body):
    review: str
    reviewer: str = Field(description="the review's signature (an anonymous reviewer id)")
    pre: float
    pre_at: str | None
    post: float
    post_at: str | None
    change: float
    versions: int


class PaperMove(Body):
    paper: str
    title: str
    decision: str
    pre_mean: float
    post_mean: float
    change: float
    pre_spread: float
    post_spread: float
    reviews: list[ReviewMove]


class Period(Body):
    start: str | None = Field(description="the period asked for (null: from the first version)")
    end: str | None = Field(description="the period asked for (null: to the last version)")


class Distribution(Body):
    at: str | None = Field(description="the end of a day of the period (UTC)")
    reviews: dict[str, int] = Field(description="reviews posted by then, by their latest rating by then")


class DecisionMove(Body):
    papers: int
    mean_change: float


class RebuttalBody(Body):
    """A venue's ratings before (each review's first version) and after (its last) the rebuttal."""

    venue: str
    period: Period
    first_version: str | None
    last_version: str | None
    distributions: list[Distribution]
    before: dict[str, int]
    after: dict[str, int]
    decided: bool = Field(description="whether decisions are out (then by_decision compares them)")
    papers: int
    reviews: int
    reviews_changed: int
    share_changed: float | None
    by_decision: dict[str, DecisionMove]
    rises: list[PaperMove]
    falls: list[PaperMove]
    converged: list[PaperMove]
    diverged: list[PaperMove]


def rebuttal_of(state: AppState, venue: str) -> Rebuttal | None:
    """The venue's rebuttal made now, None when it has no review history."""
    if venue not in state.store.history_venues():
        return None
    found = build_rebuttal(state.store, venue)
    return found if found.papers else None  # versions without a rating: nothing to compare


def charts(rebuttal: Rebuttal) -> tuple[str, str]:
    """The distribution at each date (a line per date) and before/after (bars side by side), as inline SVG."""
    labels = rebuttal.date_labels()
    dated = [Series(label, counts) for label, (_, counts) in zip(labels, rebuttal.distributions(), strict=True)]
    before, after = rebuttal.before_after()
    ratings = rating_order(before, after, *(s.counts for s in dated))
    first, last = day(rebuttal.first_at), day(rebuttal.last_at)
    over_time = line_chart(
        "rebuttal-dates",
        f"Reviews by rating at each date from {first} to {last}",
        f"{len(dated)} lines, one per date ({', '.join(labels)}); each counts the reviews posted by then at "
        "their latest rating by then.",
        ratings,
        dated,
        "rating",
        "reviews",
    )
    shifts = bar_chart(
        "rebuttal-before-after",
        "Reviews by rating before and after the rebuttal",
        f"Before: each review's first rating ({len(rebuttal.reviews):,} reviews); after: its last. "
        + "; ".join(f"rating {r}: {before.get(r, 0)} before, {after.get(r, 0)} after" for r in ratings),
        ratings,
        [Series("before", before), Series("after", after)],
        "rating",
        "reviews",
    )
    return over_time, shifts


def figures_of(state: AppState, venue: str) -> tuple[dict[str, Any], tuple[str, str]] | None:
    """The rebuttal's figures (its JSON) and charts, None without a history (NotFoundError for an unknown venue).
    Made once per store state, off the request path after a write (it reads every review version): the figures
    made before it are served meanwhile."""
    venue = state.store.get_venue(venue).id

    def build() -> tuple[dict[str, Any], tuple[str, str]] | None:
        rebuttal = rebuttal_of(state, venue)
        return None if rebuttal is None else (rebuttal.to_dict(), charts(rebuttal))

    return state.refreshed(("rebuttal-figures", venue), build)[0]


@router.get("/venues/{venue:text}/rebuttal", **page_answers(pages=[400, 404]))
def rebuttal_page(request: Request, venue: str) -> HTMLResponse:
    """The venue's rebuttal, or a sentence saying it has no review history."""
    state = state_of(request)
    info = state.store.get_venue(venue)
    venue = info.id
    found = figures_of(state, venue)
    figures, drawn = found if found else (None, None)
    return page(request, "rebuttal.html", venue=info, figures=figures, charts=drawn, nav_venue=venue)


@router.get("/api/rebuttal/{venue:text}", **answers(RebuttalBody, 404))
def rebuttal_api(request: Request, venue: str) -> dict[str, Any]:
    """Ratings before and after the rebuttal from the venue's review histories (404 when it has none)."""
    state = state_of(request)
    venue = state.store.get_venue(venue).id
    found = figures_of(state, venue)
    if found is None:
        raise NotFoundError(f"no review history for {venue}: histories come from 'confnav fetch openreview'")
    return found[0]
