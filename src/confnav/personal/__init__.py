"""A researcher's own navigator: profiles imported from their library, and recommendations that learn from them."""

from __future__ import annotations

from confnav.personal.profiles import DEFAULT_PROFILE, ImportReport, export_profile, import_library, mark
from confnav.personal.recommend import Recommendation, recommend_for

__all__ = [
    "DEFAULT_PROFILE",
    "ImportReport",
    "Recommendation",
    "export_profile",
    "import_library",
    "mark",
    "recommend_for",
]
