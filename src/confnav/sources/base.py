"""What every reader shares: the record a source yields, the reader interface, text loading."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from confnav.errors import InputError
from confnav.model import Author, Venue, split_venue


@dataclass
class SourceRecord:
    """What one source says about one paper: only the fields it actually sets.

    `fields` holds JSON-ready values keyed by Paper attribute names (the decision
    as the source's own label). A record with no title cannot create a paper; it
    only adds to one (e.g. a ratings row). A record without an id may propose
    `derived_id` (from a `pid`, DOI or URL) for the paper it creates.
    """

    source: str
    kind: str
    id: str | None
    fields: dict[str, Any]
    venue: str | None = None
    line: int | None = None
    record: int | None = None
    derived_id: str | None = None
    stored: str | None = field(default=None, repr=False)  # the JSON text the store holds for it, if any
    warning: str | None = field(default=None, repr=False)
    duplicates: int = field(default=0, repr=False)
    _key: tuple[str, str] | None = field(default=None, repr=False)

    @property
    def locator(self) -> str:
        return f"line {self.line}" if self.line is not None else f"record {self.record}"

    def error(self, path: str | Path, message: str, field_name: str | None = None) -> InputError:
        """An InputError pointing at this record."""
        return InputError(path, message, line=self.line, record=self.record, field=field_name)


ReadItem = SourceRecord | InputError


class Reader(Protocol):
    """A format reader: tells whether it can read a text, and yields records or record errors."""

    format: str

    def sniff(self, path: Path, text: str) -> bool: ...

    def read(self, path: Path, text: str) -> Iterator[ReadItem]: ...


def load_text(path: Path) -> str:
    """Read a whole file as UTF-8, with errors that name the file and line."""
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a directory, not a file")
    data = path.read_bytes()
    if not data.strip():
        raise InputError(path, "file is empty")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = data[exc.start]
        raise InputError(
            path, f"not valid UTF-8 (byte 0x{byte:02x} at column {column}); save the file as UTF-8", line=line
        ) from None


def venue_from_path(path: Path) -> str | None:
    """A venue id named by the file or its folder (`paperlists-iclr2021.json`, `nips/nips2018.json`, `iclr2021/…`)."""
    pattern = re.compile(r"(?<![a-z0-9])([a-z][a-z0-9]{1,19}|\d[a-z][a-z0-9]{0,18})[-_ ]?((?:19|20)\d\d)(?!\d)")
    for part in (path.stem.lower(), path.parent.name.lower()):
        if match := pattern.search(part):
            return Venue.of(match.group(1), int(match.group(2))).id
    return None


def read_venue(record: SourceRecord, text: str) -> None:
    """Set a record's venue, and its track when the text names one after the year; ValueError if unreadable."""
    venue, track = split_venue(text)
    record.venue = venue.id
    if track:
        record.fields["track"] = track


def split_list(text: str, separators: str = ";") -> list[str]:
    """Split on the first separator present, trimming blanks."""
    for sep in separators:
        if sep in text:
            return [part.strip() for part in text.split(sep) if part.strip()]
    return [text.strip()] if text.strip() else []


def parse_number(text: str | float | int) -> float:
    """A finite number from a source cell; ValueError with the bad text otherwise."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ValueError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number")
    return value


_LEADING_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?::|$)")


def parse_score(value: Any) -> float:
    """A rating or confidence: a number, or OpenReview's `"8: accept, good paper"` form."""
    if isinstance(value, str) and (match := _LEADING_NUMBER.match(value)):
        return parse_number(match.group(1))
    return parse_number(value)


def parse_numbers(values: str | list[Any], separators: str = ";,") -> list[float]:
    """A list of scores from `7;8;6`, `7, 8` or a JSON list."""
    items = values if isinstance(values, list) else split_list(str(values), separators)
    return [parse_score(v) for v in items if str(v).strip() != ""]


def citation_count(value: Any, source: str, as_of: str | None = None) -> dict[str, Any] | None:
    """A citation count as stored, or None when the value is missing, negative or not a number (-1: unknown)."""
    try:
        count = parse_number(value)
    except ValueError:
        return None
    if count < 0 or count != int(count):
        return None
    return {"count": int(count), "source": source, "as_of": as_of}


def authors_field(names: list[str], affiliations: list[str | None] | None = None) -> list[dict[str, Any]]:
    """Authors as JSON-ready dicts; affiliations only when aligned one per author."""
    affs = affiliations if affiliations and len(affiliations) == len(names) else [None] * len(names)
    return [Author(name, aff or None).to_dict() for name, aff in zip(names, affs, strict=True)]


def openreview_links(paper_id: str) -> dict[str, str]:
    """Forum and PDF links of an OpenReview id."""
    return {
        "forum": f"https://openreview.net/forum?id={paper_id}",
        "pdf": f"https://openreview.net/pdf?id={paper_id}",
    }


_OPENREVIEW_ID = re.compile(r"openreview\.net/(?:forum|pdf)\?id=([A-Za-z0-9_\-]+)")
_ID_CHARS = re.compile(r"[^A-Za-z0-9._~-]+")


def openreview_id(url: str) -> str | None:
    """The forum id in an OpenReview URL, else None."""
    match = _OPENREVIEW_ID.search(url or "")
    return match.group(1) if match else None


_WEB_URL = re.compile(r"^https?://[^\s/]+\.[^\s]*$", re.I)
_DOI = re.compile(r"(10\.\d{4,9}/\S+)$")


def web_url(value: Any) -> str | None:
    """An absolute http(s) URL, or None for anything else (relative paths, `javascript:`, blanks)."""
    if not value:
        return None
    text = str(value).strip()
    return text if _WEB_URL.match(text) else None


def doi_url(value: Any) -> str | None:
    """`https://doi.org/…` for a DOI given bare or as a URL."""
    text = str(value or "").strip()
    match = _DOI.search(text)
    return f"https://doi.org/{match.group(1)}" if match else None


def links_from(urls: dict[str, Any]) -> dict[str, str]:
    """Links by name from a source's URL fields; OpenReview URLs become `forum` and `pdf` whatever field held them."""
    links: dict[str, str] = {}
    for name, value in urls.items():
        url = doi_url(value) if name == "doi" else web_url(value)
        if url is None:
            continue
        if forum := openreview_id(url):
            links.setdefault("forum", f"https://openreview.net/forum?id={forum}")
            links.setdefault("pdf", f"https://openreview.net/pdf?id={forum}")
        else:
            links.setdefault(name, url)
    return links


def url_id(url: str | None) -> str | None:
    """A stable id from a paper's URL: an OpenReview forum id, else the last path segment without its extension."""
    if not url:
        return None
    if forum := openreview_id(url):
        return forum
    path = re.sub(r"[?#].*$", "", url.split("://", 1)[-1]).rstrip("/")
    segment = path.rsplit("/", 1)[-1] if "/" in path else ""
    segment = re.sub(r"\.(pdf|html?|php)$", "", segment, flags=re.I)
    cleaned = _ID_CHARS.sub("-", segment).strip("-.")
    return cleaned or None


def clean_id(value: Any) -> str | None:
    """A source's id as text with characters that cannot travel in a URL path or a citation replaced."""
    text = str(value if value is not None else "").strip()
    return _ID_CHARS.sub("-", text) or None
