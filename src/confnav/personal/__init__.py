"""A researcher's own navigator: profiles imported from their library, and recommendations that learn from them.

For other surfaces: `recommend_for(store, profile, venue, limit, include_rejected)` (the best papers, each with
its reason), `personal_rank(store, venue, profile, mode)` (the venue's must-read blended with the profile, a
`Ranking`), `papers_to_mark(store, venue, profile, count)` and `is_cold(store, profile)` (a cold start's marks).
"""

from __future__ import annotations

from confnav.personal.cold import COLD, Ask, is_cold, papers_to_mark
from confnav.personal.must_read import PERSONAL_WEIGHT, personal_rank
from confnav.personal.profiles import DEFAULT_PROFILE, ImportReport, export_profile, import_library, mark
from confnav.personal.recommend import Recommendation, profile_taste, recommend_for

__all__ = [
    "COLD",
    "DEFAULT_PROFILE",
    "PERSONAL_WEIGHT",
    "Ask",
    "ImportReport",
    "Recommendation",
    "export_profile",
    "import_library",
    "is_cold",
    "mark",
    "papers_to_mark",
    "personal_rank",
    "profile_taste",
    "recommend_for",
]
