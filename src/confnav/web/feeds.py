"""Feeds the web app serves: each profile's news as Atom (`/feeds/{profile}.atom`), for feed readers."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from confnav.errors import NotFoundError, excerpt
from confnav.personal.feed import atom_feed
from confnav.web.access import profile_access
from confnav.web.answers import download_answers
from confnav.web.state import state_of

router = APIRouter()


@router.get("/feeds/{profile:text}.atom", **download_answers("application/atom+xml", pages=[404]))
def profile_feed(request: Request, profile: str) -> Response:
    """The profile's news as an Atom feed; on a shared server only with the profile's secret in the URL
    (`?key=`), which a feed reader keeps and a rotation revokes."""
    state = state_of(request)
    profile = profile_access(request, profile)
    if profile not in {name for name, _, _ in state.store.profiles()}:
        raise NotFoundError(f"no profile named {excerpt(profile)}")
    text = atom_feed(state.store, profile, base_url=str(request.base_url))
    return Response(text.encode(), media_type="application/atom+xml; charset=utf-8")
