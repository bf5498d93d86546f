"""What every reader shares: the record a source yields, the reader interface, text loading."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from confnav.errors import InputError
from confnav.model import Author, Venue, parse_decision


@dataclass
class SourceRecord:
    """What one source says about one paper: only the fields it actually sets.

    `fields` holds JSON-ready values keyed by Paper attribute names. A record with
    no title cannot create a paper; it only adds to one (e.g. a ratings row).
    """

    source: str
    kind: str
    id: str | None
    fields: dict[str, Any]
    venue: str | None = None
    line: int | None = None
    record: int | None = None
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
    """A venue id named by the file or its folder (`paperlists-iclr2021.json`, `iclr2021/…`)."""
    pattern = re.compile(r"(?<![a-z])([a-z]{2,12})[-_ ]?((?:19|20)\d\d)(?!\d)")
    for part in (path.stem.lower(), path.parent.name.lower()):
        match = pattern.search(part)
        if match:
            return f"{match.group(1)}{match.group(2)}"
    return None


def venue_id(text: str) -> str:
    """The canonical venue id of a source's venue text; ValueError if unreadable."""
    return Venue.parse(text).id


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


def parse_numbers(values: str | list[Any], separators: str = ";,") -> list[float]:
    """A list of numbers from `7;8;6`, `7, 8` or a JSON list."""
    items = values if isinstance(values, list) else split_list(str(values), separators)
    return [parse_number(v) for v in items if str(v).strip() != ""]


def decision_value(text: str) -> str:
    """The Decision value of a source string (ValueError when unknown)."""
    return parse_decision(text).value


def authors_field(names: list[str], affiliations: list[str | None] | None = None) -> list[dict[str, Any]]:
    """Authors as JSON-ready dicts; affiliations only when aligned one per author."""
    affs = affiliations if affiliations and len(affiliations) == len(names) else [None] * len(names)
    return [Author(name, aff or None).__dict__ for name, aff in zip(names, affs, strict=True)]


def openreview_links(paper_id: str) -> dict[str, str]:
    """Forum and PDF links of an OpenReview id."""
    return {
        "forum": f"https://openreview.net/forum?id={paper_id}",
        "pdf": f"https://openreview.net/pdf?id={paper_id}",
    }


_OPENREVIEW_ID = re.compile(r"openreview\.net/(?:forum|pdf)\?id=([A-Za-z0-9_\-]+)")


def openreview_id(url: str) -> str | None:
    """The forum id in an OpenReview URL, else None."""
    match = _OPENREVIEW_ID.search(url or "")
    return match.group(1) if match else None
