"""The JSON API under /api/: a thin layer over the library, used by the pages themselves. Its routes live by area
(papers, venues, reading lists and exports, jobs); this router holds them all, in that order."""

from __future__ import annotations

from fastapi import APIRouter

from confnav.web import api_jobs, api_lists, api_papers, api_venues
from confnav.web.api_base import MAX_LIMIT, JSONBytes, _filter, _json
from confnav.web.api_papers import institution_of, paper_json
from confnav.web.api_venues import ranking_mode, ranking_of

__all__ = [
    "MAX_LIMIT",
    "JSONBytes",
    "_filter",
    "_json",
    "institution_of",
    "paper_json",
    "ranking_mode",
    "ranking_of",
    "router",
]

router = APIRouter()
for area in (api_papers, api_venues, api_lists, api_jobs):
    router.routes.extend(area.router.routes)  # the routes themselves, as one router declaring them all would hold
