"""What every area of the JSON API shares: the bound on a page of hits, the paper filter its form fields make,
and JSON bodies encoded once."""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import JSONResponse

from confnav.store import PaperFilter

MAX_LIMIT = 100


def _filter(
    venue: str | None,
    decision: str | None,
    author: str | None,
    keyword: str | None,
    min_rating: float | None,
    has_code: bool = False,
    year: int | None = None,
) -> PaperFilter:
    """Empty form fields mean no condition; a bad one is a ConfnavError naming it (PaperFilter's checks)."""
    return PaperFilter(venue or None, decision or None, author or None, keyword or None, year, min_rating, has_code)


YEAR_QUERY = "Only papers of the venues of this year (a venue's year, as the CLI's --year)."  # /api/search, /api/export


class JSONBytes(JSONResponse):
    """A JSON body encoded once and cached: hot answers skip re-serialisation (sent as given)."""

    def render(self, content: Any) -> bytes:
        return bytes(content)


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
