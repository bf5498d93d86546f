"""Schedule files as conference sites publish them: ICS calendars, CSV tables, JSON and YAML (MiniConf's
`paper_sessions.yml`, `main_calendar.json`, `overall_calendar.yml`), read into sessions with the papers each names.

Only parsing happens here; matching the papers named to stored ones is `confnav.plan.schedule`'s. Any problem
with the file (unparsable, a time that cannot be read, a session without a name) refuses the whole file.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time, tzinfo
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from confnav.errors import InputError, MissingExtraError, argument
from confnav.limits import MAX_RECORD_CHARS
from confnav.sources.base import load_text, parse_json
from confnav.sources.links import web_url
from confnav.sources.values import FieldError, as_text, delimiter_of, header_key

FORMATS = ("ics", "csv", "json", "yaml")
# Keys of a session's fields, first found wins, compared as `header_key` makes them (`Start Time` is `start_time`);
# a row naming a session (`session`) is one paper's row.
KEYS: dict[str, tuple[str, ...]] = {
    "session_id": ("session_id", "session_uid", "session_key", "session_code"),
    "session": ("session", "session_name", "session_title"),
    "id": ("id", "uid", "key", "code"),
    "name": ("long_name", "name", "title", "summary"),
    "short": ("name", "short_name"),
    "start": ("start", "start_time", "starts", "begin", "dtstart", "from", "start_date"),
    "end": ("end", "end_time", "ends", "finish", "dtend", "until", "end_date"),
    "date": ("date", "day"),
    "room": ("room", "location", "place", "hall"),
    "link": ("link", "url", "zoom", "meeting_url"),
    "timezone": ("timezone", "tz", "time_zone"),
    "papers": ("papers", "paper_ids", "uids", "paper_list"),
    "paper_id": ("paper_id", "paper_uid", "paper", "uid", "id", "forum"),
    "paper_title": ("paper_title", "title"),
}
_TAGS = re.compile(r"<[^>]*>")
_CODE = re.compile(r"\(([A-Za-z0-9][\w.\-]{0,19})\)\s*$")
_LINK_LIKE = re.compile(r"^\w+://|^www\.|\.html?\b|^[\w./-]+\?\w+=", re.I)


@dataclass
class PaperRef:
    """A paper as the schedule names it (an id, a title, or a line holding either), and where. A `loose` ref is a
    guess (an event's summary, a line of its description): unmatched, it is only reported when others matched."""

    text: str
    line: int | None = None
    field: str | None = None
    loose: bool = False


@dataclass
class ScheduleEntry:
    """One session as the file gives it: the names papers' own session fields may use for it, and its papers."""

    name: str
    id: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    timezone: str | None = None
    room: str | None = None
    link: str | None = None
    aliases: set[str] = field(default_factory=set)
    papers: list[PaperRef] = field(default_factory=list)
    line: int | None = None


def schedule_format(path: Path, text: str) -> str:
    """The schedule's format from its extension, else its content."""
    suffix = path.suffix.lower().lstrip(".")
    named = {"ics": "ics", "ical": "ics", "csv": "csv", "tsv": "csv", "json": "json", "yml": "yaml", "yaml": "yaml"}
    if suffix in named:
        return named[suffix]
    head = text.lstrip()[:200]
    if head.upper().startswith("BEGIN:VCALENDAR"):
        return "ics"
    if head.startswith(("{", "[")):
        return "json"
    first = head.split("\n", 1)[0]
    return "csv" if any(c in first for c in _SHOWN) and ":" not in first else "yaml"


def read_schedule(path: Path, fmt: str | None = None, zone: str | None = None) -> tuple[str, list[ScheduleEntry]]:
    """The sessions of a schedule file (`fmt` one of FORMATS, else detected); `zone` (an IANA name) places times
    the file gives without a zone. InputError, naming the line or field, for anything unreadable."""
    text = load_text(path)
    if not text.strip():
        raise InputError(path, "file is empty")
    fmt = fmt or schedule_format(path, text)
    default = _zone(path, zone) if zone else None
    if fmt == "ics":
        from confnav.sources.schedule_ics import read_ics  # it builds on this module's entries

        entries = read_ics(path, text, default)
    elif fmt == "csv":
        entries = _read_csv(path, text, default)
    elif fmt in ("json", "yaml"):
        data = parse_json(path, text) if fmt == "json" else _load_yaml(path, text)
        entries = [_entry(path, obj, default, where, key) for obj, where, key in _objects(path, data)]
    else:
        raise InputError(path, f"unknown schedule format {fmt!r}; use one of {', '.join(FORMATS)}")
    if not entries:
        raise InputError(path, "no sessions found (expected events, rows or objects with a name and times)")
    return fmt, entries


def _zone(path: Path, name: str, field_name: str | None = None, line: int | None = None) -> ZoneInfo:
    """The zone a file's field names, or (no `field_name`) the one the caller's `zone` argument gives."""
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        said = f"unknown time zone {name!r}" if field_name else f"{argument('zone', name)}: unknown time zone"
        raise InputError(path, f"{said} (use a name like Europe/Vienna)", line=line, field=field_name) from None


def _load_yaml(path: Path, text: str) -> Any:
    try:
        import yaml
    except ImportError:
        raise MissingExtraError("reading YAML schedules", "schedules") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).split("\n")[0]
        raise InputError(path, f"malformed YAML: {problem}", line=mark.line + 1 if mark else None) from None


def _objects(path: Path, data: Any) -> Iterator[tuple[dict[str, Any], str, str | None]]:
    """The session objects of a JSON/YAML schedule with their place: a list of objects, an object of objects
    keyed by session id (MiniConf's `paper_sessions.yml`), or either under a `sessions`/`events` key."""
    if isinstance(data, dict):
        for key in ("sessions", "events", "schedule", "calendar"):
            if isinstance(data.get(key), list | dict):
                yield from ((obj, f"{key}.{where}", k) for obj, where, k in _objects(path, data[key]))
                return
        if data and all(isinstance(v, dict) for v in data.values()):
            yield from ((obj, str(key), str(key)) for key, obj in data.items())
            return
        yield data, "the top-level object", None
        return
    if not isinstance(data, list):
        raise InputError(path, "expected a list of sessions or an object of sessions keyed by id")
    for number, obj in enumerate(data, start=1):
        if not isinstance(obj, dict):
            raise InputError(path, f"expected an object, found {type(obj).__name__}", field=f"[{number}]")
        yield obj, f"[{number}]", None


# Times a file gives without a zone
PASS_ZONE = f"pass {argument('zone')} (e.g. {argument('zone', 'Europe/Vienna')}) to place it"
_KEYS = {key: tuple(header_key(alias) for alias in aliases) for key, aliases in KEYS.items()}


def _value(obj: dict[str, Any], key: str) -> tuple[str | None, Any]:
    """The first of a field's keys the object has (compared by `header_key`), as the file names it, and its value."""
    named = {header_key(k): k for k in obj}
    for alias in _KEYS[key]:
        if alias in named and obj[named[alias]] not in (None, ""):
            return str(named[alias]), obj[named[alias]]
    return None, None


def event_start(obj: dict[str, Any]) -> str | None:
    """The key under which an object gives a session's start as schedules name it (`start`, `Start Time`,
    `dtstart`, …), else None: what tells a schedule's event from a paper record."""
    return _value(obj, "start")[0]


def _text(path: Path, obj: dict[str, Any], key: str, where: str, line: int | None = None) -> str:
    name, value = _value(obj, key)
    try:
        return " ".join(_TAGS.sub(" ", as_text(value, name or key)).split())
    except FieldError as exc:
        raise InputError(path, exc.message, line=line, field=_place(where, name)) from None


def _place(where: str | None, name: str | None) -> str | None:
    return ".".join(p for p in (where, name) if p) or None


def _entry(
    path: Path, obj: dict[str, Any], default: tzinfo | None, where: str, key: str | None, line: int | None = None
) -> ScheduleEntry:
    """A session from one object (JSON, YAML) or one row (CSV, then `where` is empty and `line` set)."""
    paper_row = _value(obj, "session")[0] is not None or _value(obj, "session_id")[0] is not None
    name = _text(path, obj, "session" if paper_row else "name", where, line)
    session_id = _text(path, obj, "session_id" if paper_row else "id", where, line) or key
    if not name and not session_id:
        raise InputError(path, "a session without a name", line=line, field=where or None)
    zone_name = _text(path, obj, "timezone", where, line)
    zone = _zone(path, zone_name, _place(where, "timezone") or "timezone", line) if zone_name else default
    day = _value(obj, "date")[1]
    start = _time(path, obj, "start", zone, day, where, line)
    end = _time(path, obj, "end", zone, day, where, line)
    if start is not None and end is not None and end < start:
        (_, began), (column, ended) = _value(obj, "start"), _value(obj, "end")
        raise InputError(
            path, f"end {str(ended)[:40]!r} is before start {str(began)[:40]!r}", line=line, field=_place(where, column)
        )
    room, link = _text(path, obj, "room", where, line), _text(path, obj, "link", where, line)
    if _LINK_LIKE.search(room):  # MiniConf's `location` is the session's page, not a room
        room, link = "", link or room
    entry = ScheduleEntry(
        name or session_id or "",
        session_id or None,
        start,
        end,
        zone_name or (getattr(zone, "key", None) if zone else None),
        room or None,
        web_url(link),
        line=line,
    )
    entry.aliases = session_aliases(entry, _text(path, obj, "short", where, line), link)
    if paper_row:
        for alias in ("paper_id", "paper_title"):
            column, value = _value(obj, alias)
            if value not in (None, ""):
                entry.papers.append(PaperRef(as_text(value, column or alias).strip(), line, _place(where, column)))
                break
        return entry
    column, papers = _value(obj, "papers")
    listed = papers if isinstance(papers, list) else [p for p in str(papers or "").split("|") if p.strip()]
    for number, paper in enumerate(listed):
        place = f"{_place(where, column)}[{number}]"
        if isinstance(paper, dict):
            paper = _value(paper, "paper_id")[1] or _value(paper, "paper_title")[1]
        if isinstance(paper, str | int) and str(paper).strip():
            entry.papers.append(PaperRef(str(paper).strip(), line, place))
    return entry


def session_aliases(entry: ScheduleEntry, short: str, link: str) -> set[str]:
    """Names a paper list may give this session: its name, short name, id, the code in parentheses at the end of
    its name (`(P1S3)`), and the `session=` parameter of its link (MiniConf's `papers.html?session=Mon+Session+3`)."""
    names = {entry.name, short, entry.id or ""}
    if code := _CODE.search(entry.name):
        names.add(code.group(1))
        names.add(entry.name[: code.start()])
    if link:
        names.update(parse_qs(urlsplit(link).query).get("session", []))
    return {" ".join(n.split()) for n in names if n and n.strip()}


_TIME_ONLY = re.compile(r"^\d{1,2}:\d\d(?::\d\d)?$")
_ONE_DIGIT_HOUR = re.compile(r"(?<=[T ])(\d:\d\d)")


def _time(
    path: Path, obj: dict[str, Any], key: str, zone: tzinfo | None, day: Any, where: str, line: int | None
) -> datetime | None:
    """A start or end as an aware datetime: ISO 8601 text (`Z` or an offset), a YAML timestamp, or a time of day
    beside a `date` column; a time without a zone takes the file's or `--timezone`'s, else it is refused."""
    column, value = _value(obj, key)
    if value is None:
        return None
    place = _place(where, column)
    text = value.isoformat() if isinstance(value, date | datetime) else str(value).strip()
    said = repr(text[:60])  # what the file wrote, for messages
    if _TIME_ONLY.match(text) and day is not None:
        on = day.isoformat() if isinstance(day, date) else str(day).strip()
        text, said = f"{on}T{text}", f"{said} on {on[:40]!r}"
    try:
        parsed = datetime.fromisoformat(_ONE_DIGIT_HOUR.sub(r"0\1", text.replace(" UTC", "Z")))
    except ValueError:
        raise InputError(
            path, f"{said} is not a date and time (use ISO 8601: 2024-05-07T10:00:00+02:00)", line=line, field=place
        ) from None
    if type(value) is date or (len(text) <= 10 and "T" not in text):
        parsed = datetime.combine(parsed.date(), time(0))
    if parsed.tzinfo is None:
        if zone is None:
            raise InputError(
                path,
                f"{said} has no time zone; {PASS_ZONE}",
                line=line,
                field=place,
            )
        parsed = parsed.replace(tzinfo=zone)
    return parsed


def _read_csv(path: Path, text: str, default: tzinfo | None) -> list[ScheduleEntry]:
    """One row per paper in a session (a `session` column) or per session (name or title, start, end, papers)."""
    delimiter = delimiter_of(text.split("\n", 1)[0])
    previous = csv.field_size_limit(MAX_RECORD_CHARS)
    try:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        try:
            columns = [c.strip() for c in next(reader)]
            rows = [(reader.line_num, cells) for cells in reader]
        except csv.Error as exc:
            raise InputError(path, f"malformed CSV: {exc}", line=reader.line_num) from None
    finally:
        csv.field_size_limit(previous)
    header = {header_key(c) for c in columns}
    if not header & {*_KEYS["session"], *_KEYS["session_id"], *_KEYS["name"]}:
        read = ", ".join(repr(c[:40]) for c in columns[:8])
        raise InputError(
            path,
            f"header has no session or name column (read as {len(columns)} columns split by"
            f" {_SHOWN[delimiter]}: {read}; see docs/plan.md)",
            line=1,
        )
    merged: dict[tuple[Any, ...], ScheduleEntry] = {}
    for number, cells in rows:
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(columns):
            raise InputError(
                path,
                f"expected {len(columns)} columns, found {len(cells)} (split by {_SHOWN[delimiter]}, as the header is)",
                line=number,
            )
        entry = _entry(path, dict(zip(columns, cells, strict=True)), default, "", None, number)
        key = (entry.id or entry.name, entry.start, entry.end, entry.room)
        if key in merged:
            merged[key].papers += entry.papers
        else:
            merged[key] = entry
    return list(merged.values())


_SHOWN = {",": "','", ";": "';'", "\t": "tabs", "|": "'|'"}
