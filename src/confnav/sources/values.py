"""One rule for reading a source's values whatever their JSON kind: text, lists of text, authors, numbers, counts.

A number where text is expected is written out; a single string where a list is
expected is split; null is missing. A list or an object where text is expected
(or a list inside a list) cannot be read without guessing: it raises FieldError
naming the field, and the reader reports the record as bad.
"""

from __future__ import annotations

import html
import math
import re
from typing import Any

from confnav.errors import excerpt
from confnav.limits import MAX_CITATIONS
from confnav.model import AWARD_UNNAMED


class FieldError(ValueError):
    """A value of the wrong kind (or an impossible number) in one field of a record."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(message)


def kind_of(value: object) -> str:
    """A value's JSON kind in words: `a list`, `an object`, `true`, `text`."""
    if isinstance(value, str):
        return "text"
    return "a number" if isinstance(value, int | float) and not isinstance(value, bool) else excerpt(value)


def as_text(value: Any, field: str) -> str:
    """One text: a string, or a number written out; null is empty. Lists, objects, true and false are refused."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else repr(value)
    raise FieldError(field, f"expected text, found {kind_of(value)}")


def as_title(value: Any, field: str = "title") -> str:
    """A title: text, or null (none). A number is refused like a list: a title names a paper in words, so a number
    there is another value in the wrong field, where an id or a label given as a number is written out (as_text)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise FieldError(field, f"expected the title as text, found a number ({excerpt(value)})")
    return as_text(value, field)


_HEADER_SEPARATORS = re.compile(r"[\s_\-]+")
TABLE_DELIMITERS = (",", "\t", ";", "|")  # `;` as spreadsheets of many locales save CSV


def header_key(name: object) -> str:
    """A column or key name as names are compared: case, spaces, underscores and hyphens ignored, so the headers
    people write ("Paper ID", `start-time`) find the fields named `paper_id`, `start_time`."""
    return _HEADER_SEPARATORS.sub("", str(name)).casefold()


def delimiter_of(header: str) -> str:
    """The delimiter a table's header line uses: the one of TABLE_DELIMITERS it holds most (a comma on a tie)."""
    counts = {d: header.count(d) for d in TABLE_DELIMITERS}
    return max(counts, key=lambda d: (counts[d], d == ","))


# An HTML character reference, complete with its `;` (lists scraped from web pages hold `&amp;`, `&#x27;`).
ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def unescape_entities(text: str) -> str:
    """Text with its HTML character references read as the characters they stand for; a bare `&` stays."""
    return ENTITY.sub(lambda found: html.unescape(found.group()), text) if "&" in text else text


def split_list(text: str, separators: str = ";") -> list[str]:
    """Split on the first separator present, trimming blanks (the `;` of `Ren&eacute;e` splits nothing)."""
    text = unescape_entities(text) if ";" in separators else text
    for sep in separators:
        if sep in text:
            return [part.strip() for part in text.split(sep) if part.strip()]
    return [text.strip()] if text.strip() else []


def as_texts(value: Any, field: str, separators: str = ";", *, keep_blanks: bool = False) -> list[str]:
    """A list of texts: a JSON list of strings or numbers, or one string split at the first separator present.

    `keep_blanks` keeps empty places (split at the first separator only), so lists aligned by position stay aligned.
    """
    if isinstance(value, list):
        items = []
        for number, item in enumerate(value, start=1):
            if isinstance(item, list | dict):
                raise FieldError(field, f"item {number}: expected text, found {kind_of(item)}")
            items.append(as_text(item, field).strip())
        return items if keep_blanks else [item for item in items if item]
    text = as_text(value, field)
    if keep_blanks:
        text = unescape_entities(text) if separators[0] == ";" else text
        return [part.strip() for part in text.split(separators[0])] if text.strip(f" {separators}") else []
    return split_list(text, separators)


# Footnote marks a byline puts beside a name (equal contribution, corresponding author, affiliation numbers):
# "Ryan Lowe*", "Yi Wu†", "Bob Ray¹", "Ann Lee^", "Jo Kim#".
_MARK = "*∗⋆⁎†‡§¶#^♠♣♥♦⁰¹²³⁴⁵⁶⁷⁸⁹"
_NAME_MARKS = re.compile(rf"^[\s{_MARK}]+|[\s{_MARK},]+$")


def author_name(name: str) -> str:
    """A byline's name without its footnote marks, which say something about the paper, not who the person is."""
    return _NAME_MARKS.sub("", name) or name.strip()


def as_authors(value: Any, field: str, separators: str = ";") -> list[dict[str, Any]]:
    """Authors as dicts (`name`, `affiliation`, maybe `profile`): names in a list or one string split at
    `separators`, or objects `{name | fullname, affiliation, profile | username | id}`."""
    if isinstance(value, dict):
        raise FieldError(field, "expected a list of authors, found an object")
    if not isinstance(value, list):
        return [{"name": name, "affiliation": None} for name in split_list(as_text(value, field), separators)]
    authors = []
    for number, item in enumerate(value, start=1):
        if isinstance(item, dict):
            authors.append(_author_object(item, f"{field}[{number}]"))
        elif isinstance(item, list):
            raise FieldError(field, f"author {number}: expected a name or an object, found a list")
        elif name := as_text(item, field).strip():
            authors.append({"name": name, "affiliation": None})
    return authors


def _author_object(value: dict[str, Any], field: str) -> dict[str, Any]:
    """An author given as an object: `name` or OpenReview's `fullname`, and a `profile`/`username`/`id`."""
    name = as_text(value.get("name") or value.get("fullname"), f"{field}.name").strip()
    affiliation = as_text(value.get("affiliation"), f"{field}.affiliation").strip()
    author: dict[str, Any] = {"name": name, "affiliation": affiliation or None}
    if profile := as_text(value.get("profile") or value.get("username") or value.get("id"), f"{field}.profile"):
        author["profile"] = profile.strip()
    return author


def to_float(value: Any) -> float:
    """A number from a cell or a JSON number, infinite and NaN included; ValueError naming anything else."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"{excerpt(value)} is not a number")
    try:
        return float(value)
    except (ValueError, OverflowError):
        raise ValueError(f"{excerpt(value)} is not a number") from None


def parse_number(value: Any) -> float:
    """A finite number from a source cell; ValueError naming the bad value otherwise."""
    number = to_float(value)
    if not math.isfinite(number):
        raise ValueError(f"{excerpt(value)} is not a finite number")
    return number


_LEADING_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?::|$)")


def parse_score(value: Any) -> float:
    """A rating or confidence: a number, or OpenReview's `"8: accept, good paper"` form. Infinite and NaN
    scores are returned, for the record check to drop with a warning like any other out-of-range score."""
    if isinstance(value, str) and (match := _LEADING_NUMBER.match(value)):
        return to_float(match.group(1))
    return to_float(value.strip() if isinstance(value, str) else value)


def parse_numbers(values: Any, separators: str = ";,") -> list[float]:
    """A list of scores from `7;8;6`, `7, 8` or a JSON list; null is none."""
    if isinstance(values, dict):
        raise ValueError("is an object, not a list of numbers")
    if not isinstance(values, list):
        values = split_list(values, separators) if isinstance(values, str) else [values]
    return [parse_score(v) for v in values if v is not None and not (isinstance(v, str) and not v.strip())]


def citation_count(value: Any, source: str, as_of: str | None = None) -> dict[str, Any] | None:
    """A citation count as stored; None when the source does not know it (missing, not a number, or negative:
    `-1` means unknown); ValueError for a number that cannot be a count (fractional, infinite, absurdly large)."""
    if isinstance(value, str) and re.fullmatch(r"\s*\d{1,3}(?:[,\u202f\u00a0 ]\d{3})+\s*", value):
        value = re.sub(r"\D", "", value)  # thousands written out ("1,234", as Google Scholar shows counts)
    try:
        count = to_float(value)
    except ValueError:
        return None
    if count < 0:
        return None
    if not count.is_integer() or count > MAX_CITATIONS:  # NaN and infinity are not integers either
        raise ValueError(f"citation count {excerpt(value)} is not a whole number from 0 to {MAX_CITATIONS:,}")
    return {"count": int(count), "source": source, "as_of": as_of}


_NO = {"", "false", "no", "0", "none", "n/a", "-"}
_YES = {"true", "yes", "1"}


def as_award(value: Any, field: str) -> str | None:
    """The award a record names: its name as given, AWARD_UNNAMED for a bare flag (true, "yes", 1), None for none
    (false, "no", 0, empty); a list is its names joined by "; "."""
    if isinstance(value, bool) or value in (0, 1):
        return AWARD_UNNAMED if value else None
    if isinstance(value, list):
        names = [n for item in value if (n := as_award(item, field)) and n != AWARD_UNNAMED]
        return "; ".join(names) or (AWARD_UNNAMED if any(as_award(v, field) for v in value) else None)
    text = " ".join(as_text(value, field).split())
    if text.lower() in _NO:
        return None
    return AWARD_UNNAMED if text.lower() in _YES else text
