"""ICS calendars read into schedule sessions: each VEVENT a session, its papers named in its description.

Times need a zone: a floating time (no TZID, no `Z`) and an all-day event (a date) both take `--timezone`, and
without it refuse the file alike, saying so. An all-day event lasts from midnight to midnight of its days."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any

from confnav.errors import InputError, MissingExtraError
from confnav.sources.links import web_url
from confnav.sources.schedules import PASS_ZONE, PaperRef, ScheduleEntry, session_aliases

_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,3}[.)])\s+")


def read_ics(path: Path, text: str, default: tzinfo | None) -> list[ScheduleEntry]:
    """Each VEVENT a session: SUMMARY its name, LOCATION its room, URL its link; its papers are named in its
    DESCRIPTION (one per line: an id, a title, or both) or, for a talk, by the SUMMARY itself."""
    try:
        import icalendar
    except ImportError:
        raise MissingExtraError("reading ICS schedules", "schedules") from None
    if not text.lstrip().upper().startswith("BEGIN:VCALENDAR"):
        raise InputError(path, "not an iCalendar file (it does not start with BEGIN:VCALENDAR)", line=1)
    try:
        calendar = icalendar.Calendar.from_ical(text)
    except ValueError as exc:
        raise InputError(path, f"malformed iCalendar: {str(exc).split(':')[0]}") from None
    starts = [n for n, line in enumerate(text.splitlines(), start=1) if line.strip().upper() == "BEGIN:VEVENT"]
    entries = []
    for number, event in enumerate(calendar.walk("VEVENT")):
        line = starts[number] if number < len(starts) else None
        summary = " ".join(str(event.get("SUMMARY", "")).split())
        uid = str(event.get("UID", "")).strip() or None
        if not summary:
            raise InputError(path, "an event without a SUMMARY (its name)", line=line, field="SUMMARY")
        start, end = _times(path, event, default, line)
        zone = getattr(start.tzinfo, "key", None) if start else None
        link = str(event.get("URL", "")).strip()
        entry = ScheduleEntry(
            summary, uid, start, end, zone, str(event.get("LOCATION", "")).strip() or None, web_url(link), line=line
        )
        entry.aliases = session_aliases(entry, "", link)
        entry.papers.append(PaperRef(summary, line, "SUMMARY", loose=True))
        for part in str(event.get("DESCRIPTION", "")).splitlines():
            if cleaned := _BULLET.sub("", part).strip():
                entry.papers.append(PaperRef(cleaned, line, "DESCRIPTION", loose=True))
        entries.append(entry)
    return entries


def _times(path: Path, event: Any, default: tzinfo | None, line: int | None) -> tuple[datetime | None, datetime | None]:
    """An event's start and end: DTEND, else DTSTART plus DURATION, else (an all-day event) the next midnight."""
    start, end = _ics_time(path, event, "DTSTART", default, line), _ics_time(path, event, "DTEND", default, line)
    if start is not None and end is None:
        if event.get("DURATION") is not None:
            end = start + event.decoded("DURATION")
        elif _all_day(event, "DTSTART"):  # RFC 5545 §3.6.1: a date alone lasts that day
            end = datetime.combine(start.date() + timedelta(days=1), time(0), start.tzinfo)
    if start is not None and end is not None and end < start:
        raise InputError(
            path, f"DTEND {_said(event, 'DTEND')} is before DTSTART {_said(event, 'DTSTART')}", line=line, field="DTEND"
        )
    return start, end


def _all_day(event: Any, name: str) -> bool:
    return event.get(name) is not None and not isinstance(event.decoded(name), datetime)


def _said(event: Any, name: str) -> str:
    """A property's value as the file wrote it, quoted."""
    return repr(event[name].to_ical().decode("utf-8", "replace")[:40])


def _ics_time(path: Path, event: Any, name: str, default: tzinfo | None, line: int | None) -> datetime | None:
    if event.get(name) is None:
        return None
    try:
        value = event.decoded(name)
    except (ValueError, TypeError):
        raise InputError(path, f"{name} is not a date and time", line=line, field=name) from None
    if isinstance(value, date) and not isinstance(value, datetime):  # an all-day event: the day, from midnight
        if default is None:
            raise InputError(
                path,
                f"{name} {_said(event, name)} is a whole day with no time zone; {PASS_ZONE}",
                line=line,
                field=name,
            )
        return datetime.combine(value, time(0), default)
    if value.tzinfo is None:
        if default is None:
            raise InputError(
                path,
                f"{name} {_said(event, name)} has no time zone (a floating time); {PASS_ZONE}",
                line=line,
                field=name,
            )
        value = value.replace(tzinfo=default)
    return value
