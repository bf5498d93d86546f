"""The documented bounds of ingested input, in one place (docs/ingest.md, "Limits", lists them with their reasons).

The real corpus stays far below every bound (longest title 170 characters,
abstract 4,966, TL;DR 667; at most 54 authors, 21 keywords, 6 reviews), so
they only ever touch broken or hostile input.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

MAX_FILE_BYTES = 1 << 30  # one input file: 1 GiB (the largest real list is 4 MB)
MAX_RECORD_CHARS = 16 << 20  # one line of a line-based format, or one CSV field: 16 Mi characters


@dataclass(frozen=True)
class TextLimit:
    """At most `chars` characters; longer text is cut with a warning, or the record refused when `refuse`."""

    chars: int
    refuse: bool = False


# Text fields of a record. A title or id that long means columns have slipped, so the record is refused;
# other text is still useful cut short.
TEXT_LIMITS: dict[str, TextLimit] = {
    "id": TextLimit(200, refuse=True),
    "title": TextLimit(1_000, refuse=True),
    "abstract": TextLimit(20_000),
    "tldr": TextLimit(2_000),
    "decision": TextLimit(200),
    "track": TextLimit(200),
    "primary_area": TextLimit(200),
    "session": TextLimit(500),
    "award": TextLimit(200),
    "keywords": TextLimit(200),  # each keyword
    "affiliations": TextLimit(1_000),  # each of the paper's affiliations
    "institutions": TextLimit(500),
    "countries": TextLimit(100),
}
# Each author's fields.
AUTHOR_LIMITS: dict[str, TextLimit] = {
    "name": TextLimit(200),
    "affiliation": TextLimit(1_000),
    "profile": TextLimit(200),
    "institution": TextLimit(500),
    "country": TextLimit(100),
}
# Lists: the first so many items are kept, with a warning. 1,000 authors leaves room for large
# collaborations (BIG-bench, a TMLR paper, has 442).
MAX_ITEMS: dict[str, int] = {
    "authors": 1_000,
    "keywords": 100,
    "affiliations": 1_000,
    "institutions": 1_000,
    "countries": 1_000,
    "ratings": 100,
    "confidences": 100,
}
MAX_REVIEW_FIELD_CHARS = 100_000  # one text field of a review (the longest real ones are ~10,000); cut beyond
MAX_REVIEW_FIELDS = 50  # text fields kept per review (real forms have up to ~15)
MAX_URL_CHARS = 2_000  # a longer link is dropped (cut short it would lead nowhere)

# Scores: the rating scale is read from the data (model.RatingScale), so ingest can only hold ratings and
# confidences to bounds wide enough for every venue's scale; a value outside is dropped with a warning.
SCORE_RANGES: dict[str, tuple[float, float]] = {"ratings": (0.0, 10.0), "confidences": (0.0, 5.0)}
MAX_CITATIONS = 10_000_000  # the most cited papers have a few hundred thousand
MAX_LISTED = 1_000_000  # papers `ls --limit` lists at most (0: all): more than any store holds, within SQL's integers
MAX_THEMES = 1_000  # top-level themes one may ask for (a venue gets 15-40 by default)
MAX_VENUE_TEXT = 200  # a venue name to read ("NeurIPS 2023 Datasets and Benchmarks")
FIRST_YEAR = 1900


def last_year() -> int:
    """The latest plausible venue year: two years from now (calls for papers open early)."""
    return date.today().year + 2


# Web requests (`confnav serve`): the app refuses larger ones, and its HTTP parser bounds the head before that.
MAX_BODY = 64 * 1024  # bytes of a request body (413 above)
MAX_URL = 8192  # characters of a request's path and query string (414 above)
MAX_HEADERS = 16 * 1024  # bytes of all request headers together (431 above)
