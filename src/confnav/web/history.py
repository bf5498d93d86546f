"""Acceptance by mean rating at a venue's earlier editions, for the web: computed once per store version."""

from __future__ import annotations

from fastapi import APIRouter, Request

from confnav.reports.history import AcceptanceHistory, acceptance_history
from confnav.web.answers import answers
from confnav.web.bodies import History
from confnav.web.state import AppState, state_of

router = APIRouter()


def history_of(state: AppState, venue: str) -> AcceptanceHistory:
    """The venue's acceptance-by-rating history (NotFoundError for an unknown venue: a 404)."""
    return state.cached(("history", venue), lambda: acceptance_history(state.store, venue))


@router.get("/api/history/{venue:text}", **answers(History, 404))
def history_api(request: Request, venue: str) -> dict[str, object]:
    """Per earlier edition of the venue's series, the share of decided papers accepted per mean-rating bin,
    with whether its scale is the venue's own: what happened then, not a forecast for a pending paper."""
    return history_of(state_of(request), venue).to_dict()
