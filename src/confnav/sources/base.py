"""What every reader shares: the record a source yields, the reader interface, text loading."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from confnav import limits
from confnav.errors import InputError, Said, not_utf8
from confnav.model import Author, Venue, split_venue
from confnav.sources.links import ID_CHARS
from confnav.sources.values import as_text, citation_count


@dataclass
class SourceRecord:
    """What one source says about one paper: only the fields it actually sets.

    `fields` holds JSON-ready values keyed by Paper attribute names (the decision
    as the source's own label). A record with no title cannot create a paper; it
    only adds to one (e.g. a ratings row). A record without an id may propose
    `derived_id` (from a `pid`, DOI or URL) for the paper it creates. A field the
    source carries but leaves empty is kept empty (a decision, ratings or keywords
    column with a blank cell: `""` or `[]`): the source says the paper has none, which
    `confnav show` lists beside another source's value; a field it does not carry is absent.
    """

    source: str
    kind: str
    id: str | None
    fields: dict[str, Any]
    venue: str | None = None
    line: int | None = None
    record: int | None = None
    derived_id: str | None = None
    lists_papers: bool = False  # a row of a table with a title column: without a title, it names no paper
    stored: str | None = field(default=None, repr=False)  # the JSON text the store holds for it, if any
    warnings: list[str] = field(default_factory=list, repr=False)
    duplicates: int = field(default=0, repr=False)
    _key: tuple[str, str] | None = field(default=None, repr=False)

    @property
    def file_name(self) -> str:
        """The source's file name without the folder its key may carry (`iclr2021/paperlist.tsv`)."""
        return self.source.rsplit("/", 1)[-1]

    def error(self, path: str | Path, message: str, field_name: str | None = None) -> InputError:
        """An InputError pointing at this record."""
        return InputError(path, message, line=self.line, record=self.record, field=field_name)

    def warn(self, path: str | Path, message: str, field_name: str | None = None) -> None:
        """Note a problem that the record survives (a value dropped or cut), located like an error."""
        self.warnings.append(Said(self.error(path, message, field_name).marked()))


ReadItem = SourceRecord | InputError


class Untitled(InputError):
    """A record with no title (or only spaces): it names no paper, so ingest skips it and sums such records up in
    one line per file; `--strict` makes it bad input again."""


class ScheduleEvent(InputError):
    """A record that is a schedule's event (a session, a talk), not a paper: it gives a start time and no authors,
    abstract or decision. A file of nothing else is a schedule, refused by ingest in one line."""


def schedule_hint(path: str | Path) -> str:
    """What to do with a schedule given to ingest."""
    return f"import it with 'confnav schedule import {path}'"


def schedule_event(path: str | Path, record: SourceRecord, field_name: str | None) -> ScheduleEvent:
    """The error of a record that is a schedule's event, located like any other."""
    return ScheduleEvent(
        path,
        f"a schedule's event (a start time, no authors, abstract or decision), not a paper; {schedule_hint(path)}",
        line=record.line,
        record=record.record,
        field=field_name,
    )


def untitled(path: str | Path, record: SourceRecord, field_name: str | None = "title") -> Untitled:
    """The skip notice of a record without a title, located like an error."""
    return Untitled(path, "missing title", line=record.line, record=record.record, field=field_name)


class Reader(Protocol):
    """A format reader: tells whether it can read a text, and yields records or record errors. `header_row`: bytes
    that are not UTF-8 in the first line refuse the whole file (a table's header names every column)."""

    format: str
    header_row: bool

    def sniff(self, path: Path, text: str) -> bool: ...

    def read(self, path: Path, text: str) -> Iterator[ReadItem]: ...


HEAD_BYTES = 1 << 20  # the start of a file, sniffed before the rest is read
NOT_TEXT_SHARE = 0.3  # a start with more controls and bytes that are not UTF-8 than this is a binary file's
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\udc80-\udcff]")
_OPEN_ERRORS = {
    errno.ENOENT: "no such file",
    errno.ENOTDIR: "no such file (a part of its path is not a folder)",
    errno.ELOOP: "symbolic link loop (a link that leads back to itself); point it at the file",
    errno.EACCES: "permission denied; make the file readable",
    errno.EPERM: "permission denied; make the file readable",
    errno.EISDIR: "is a directory, not a file",
    errno.ENAMETOOLONG: "file name too long",
    errno.ENXIO: "is a socket or a device, not a regular file",
}


def load_bytes(path: Path, sniff: Callable[[bytes, bool], None] | None = None) -> bytes:
    """A regular file's bytes, refusing with one line what cannot be a paper list: missing, unreadable, a
    link loop, a directory, a named pipe or device (reading one would wait forever), or over the size limit.

    `sniff` sees the file's first HEAD_BYTES (and whether that is all of it) before the rest is read, and may
    refuse the file by raising: a gigabyte that is not text is told apart from its start."""
    try:  # non-blocking, so that opening a named pipe returns at once instead of waiting for a writer
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        broken_link = exc.errno == errno.ENOENT and os.path.islink(path)
        reason = "is a symbolic link to a missing file" if broken_link else _OPEN_ERRORS.get(exc.errno or 0)
        raise InputError(path, reason or f"cannot open: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        mode, size = info.st_mode, info.st_size
        if stat.S_ISDIR(mode):
            raise InputError(path, "is a directory, not a file")
        if not stat.S_ISREG(mode):
            kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device or socket"
            raise InputError(path, f"is {kind}, not a regular file; save the list to a file first")
        if size > limits.MAX_FILE_BYTES:
            raise InputError(path, _too_big(size))
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(HEAD_BYTES)
            if sniff is not None and data:
                sniff(data, len(data) < HEAD_BYTES)
            if len(data) == HEAD_BYTES:
                data += file.read(limits.MAX_FILE_BYTES + 1 - HEAD_BYTES)
    except OSError as exc:  # e.g. an I/O error of the disk
        raise InputError(path, f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > limits.MAX_FILE_BYTES:  # grew while being read
        raise InputError(path, _too_big(len(data)))
    if not data or data.isspace():
        raise InputError(path, "file is empty")
    return data


def not_text(head: bytes) -> str | None:
    """Why the start of a file shows it is no text a paper list could be (UTF-16, or bytes of a binary file:
    controls and bytes that are not UTF-8, over NOT_TEXT_SHARE of them), else None; a stray NUL is a record's
    problem, not the file's."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "cannot tell the format from the content: it is UTF-16 text; save the file as UTF-8"
    text = head.decode("utf-8", errors="surrogateescape")
    if len(_NOT_TEXT.findall(text)) > NOT_TEXT_SHARE * len(text):
        return "cannot tell the format from the content: it is not text (its first bytes are binary)"
    return None


def _too_big(size: int) -> str:
    return f"is {size:,} bytes, over the {limits.MAX_FILE_BYTES:,}-byte limit for one input file; split it"


def load_text(path: Path) -> str:
    """Read a whole file as UTF-8, with errors that name the file and line."""
    text, has_bad_bytes = decode(load_bytes(path))
    if has_bad_bytes and (problem := bad_bytes(path, text)):
        raise problem
    return text


def decode(data: bytes) -> tuple[str, bool]:
    """UTF-8 text (a leading byte-order mark dropped), and whether some bytes were not UTF-8: those become lone
    surrogates U+DC80–U+DCFF, for `bad_bytes` to locate."""
    try:
        return data.decode("utf-8-sig"), False
    except UnicodeDecodeError:
        return data.decode("utf-8-sig", errors="surrogateescape"), True


RAW_BYTE = re.compile("[\udc80-\udcff]")


def bad_bytes(path: Path, text: str, start: int = 0, end: int | None = None) -> InputError | None:
    """The first byte that is not UTF-8 in `text[start:end]`, as an error naming its line and column."""
    found = RAW_BYTE.search(text, start, len(text) if end is None else end)
    if found is None:
        return None
    at = found.start()
    line_start = text.rfind("\n", 0, at) + 1
    byte = ord(text[at]) - 0xDC00
    return InputError(path, not_utf8(byte, at - line_start + 1), line=text.count("\n", 0, at) + 1)


def numbered_lines(path: Path, text: str) -> Iterator[tuple[int, str] | InputError]:
    """The non-blank lines of a line-based format with their 1-based numbers; a line over the record limit is
    an error, never parsed (parsing megabytes of nested JSON takes long and much memory)."""
    number, start = 0, 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        number += 1
        if end - start > limits.MAX_RECORD_CHARS:
            message = f"line of {end - start:,} characters, over the {limits.MAX_RECORD_CHARS:,} limit for one record"
            yield InputError(path, message, line=number)
        elif not text[start:end].isspace() and end > start:
            yield number, text[start:end]
        start = end + 1


def parse_json(path: Path, text: str, line: int | None = None) -> Any:
    """Parse JSON, turning every way it can fail into one error naming the line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = line if line is not None else exc.lineno
        raise InputError(path, f"malformed JSON: {exc.msg} (column {exc.colno})", line=at) from None
    except RecursionError:
        raise InputError(path, "malformed JSON: nested too deeply", line=line) from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise InputError(path, f"malformed JSON: {exc}".split(";")[0], line=line) from None


def printable_name(name: str) -> str:
    """A file name's bytes that are not UTF-8 written as `\\xe9`, so that the name can be stored and printed."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


# Words file names use beside a year that name no conference (`papers_2024.json`, `accepted-2024.json`).
_GENERIC_NAMES = frozenset(
    (
        "paper",
        "papers",
        "paperlist",
        "paperlists",
        "list",
        "lists",
        "accepted",
        "accept",
        "data",
        "all",
        "submissions",
        "submission",
        "export",
        "notes",
        "reviews",
        "ratings",
        "decisions",
        "program",
        "proceedings",
        "schedule",
        "sessions",
        "results",
        "output",
        "conference",
        "final",
        "camera",
    )
)
# Words that make the rest of a file name after its venue a track (`neurips2023_workshop_x`, `iclr2024-tinypapers`).
_TRACK_WORDS = frozenset(
    (
        "workshop",
        "workshops",
        "track",
        "findings",
        "demo",
        "demos",
        "datasets",
        "benchmarks",
        "tiny",
        "tinypapers",
        "short",
        "industry",
        "student",
        "position",
        "tutorial",
        "tutorials",
        "blogpost",
        "blogposts",
        "journal",
        "competition",
    )
)
# The shortest name before a year: `iclr2021-2020-11-10` (a dated snapshot) is ICLR 2021, not "iclr2021 2020".
_VENUE_IN_NAME = re.compile(r"(?<![a-z0-9])([a-z][a-z0-9]{1,19}?|\d[a-z][a-z0-9]{0,18}?)[-_ ]?((?:19|20)\d\d)(?!\d)")


def venue_from_path(path: Path) -> str | None:
    """A venue id named by the file or its folder (`paperlists-iclr2021.json`, `nips/nips2018.json`, `iclr2021/…`)."""
    return venue_and_track_from_path(path)[0]


def venue_and_track_from_path(path: Path) -> tuple[str | None, str | None]:
    """The venue a file's name or folder names, and a track the rest of its name names (`neurips2023_workshop_x`:
    NeurIPS 2023, "workshop x"). Words like `papers` are no conference: `iclr2024/papers_2024.json` is ICLR 2024,
    and `icml/accepted-2024.json` names none (its folder could be any folder: the user is asked for --venue)."""
    stem, folder = path.stem.lower(), path.parent.name.lower()
    for part in (stem, folder):
        for match in _VENUE_IN_NAME.finditer(part):
            if match.group(1) not in _GENERIC_NAMES:
                track = _track(part[match.end() :]) if part == stem else None
                return Venue.of(match.group(1), int(match.group(2))).id, track
    return None, None


def _track(rest: str) -> str | None:
    """A track named by the rest of a file name after its venue, when a word of it is a track's."""
    words = re.findall(r"[a-z0-9]+", rest)
    return " ".join(words) if _TRACK_WORDS & set(words) else None


def read_venue(record: SourceRecord, text: str) -> None:
    """Set a record's venue, and its track when the text names one after the year; ValueError if unreadable."""
    venue, track = split_venue(text)
    record.venue = venue.id
    if track:
        record.fields["track"] = track


def read_citations(path: Path, record: SourceRecord, value: Any, source: str, field_name: str) -> None:
    """Set a record's citation count when the source knows it; a count no paper can have is dropped with a warning."""
    try:
        if counted := citation_count(value, source):
            record.fields["citations"] = counted
    except ValueError as exc:
        record.warn(path, f"{exc}; dropped", field_name)


def authors_field(names: list[str], affiliations: Sequence[str | None] | None = None) -> list[dict[str, Any]]:
    """Authors as JSON-ready dicts; affiliations only when aligned one per author."""
    affs = affiliations if affiliations and len(affiliations) == len(names) else [None] * len(names)
    return [Author(name, aff or None).to_dict() for name, aff in zip(names, affs, strict=True)]


def clean_id(value: Any, field: str = "id") -> str | None:
    """A source's id as text with characters that cannot travel in a URL path or a citation replaced."""
    return ID_CHARS.sub("-", as_text(value, field).strip()) or None
