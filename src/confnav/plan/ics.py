"""A plan as an iCalendar file (RFC 5545) that calendar programs import: one event per chosen session with a
timed slot (an all-day one as its dates), its papers in the description; UIDs stable across exports, so a
re-import updates the events."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from confnav import __version__
from confnav.errors import ConfnavError
from confnav.plan.planner import Plan, PlannedSession, PlanStore

LINE_OCTETS = 75  # RFC 5545 §3.1: lines longer than this are folded


def escape(text: str) -> str:
    """A TEXT value escaped (§3.3.11): backslash, semicolon, comma, and line breaks as `\\n`."""
    text = text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")


def fold(line: str) -> str:
    """One content line folded at 75 octets, never inside a UTF-8 character, continuation lines begun by a space."""
    parts: list[str] = []
    current, size = "", 0
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > (LINE_OCTETS if not parts else LINE_OCTETS - 1):
            parts.append(current)
            current, size = "", 0
        current += char
        size += width
    parts.append(current)
    return "\r\n ".join(parts)


def check_calendar(store: PlanStore, venue: str) -> None:
    """Refuse, before any paper is ranked, a calendar that no plan of the venue could fill: none of the sessions
    holding its papers has a time (the same ConfnavError as `plan_calendar`)."""
    linked = {session_id for session_id, _ in store.session_papers(venue)}
    sessions = [s for s in store.sessions(venue) if s.id in linked]
    if not any(s.start is not None for s in sessions):
        raise _no_calendar(venue, "its sessions have no times" if sessions else "it has no sessions")


def _no_calendar(venue: str, held: str) -> ConfnavError:
    return ConfnavError(f"no calendar for the plan of {venue}: {held} (see confnav schedule import)")


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _uid(venue: str, session_id: str) -> str:
    digest = hashlib.sha1(f"{venue}\n{session_id}".encode()).hexdigest()[:20]
    return f"{digest}@confnav"


def _description(planned: PlannedSession) -> str:
    lines = [f"{p.rank}. {p.paper.title} ({p.paper.id})" for p in planned.papers]
    if planned.conflicts:
        lines.append("Overlaps: " + "; ".join(s.name for s in planned.conflicts))
    return "\n".join(lines)


def plan_calendar(plan: Plan, now: datetime | None = None) -> str:
    """The plan's timed sessions as a VCALENDAR text with CRLF line ends; ConfnavError when none has a time (a
    calendar of no event)."""
    if not any(planned.session.start is not None for planned in plan.sessions):
        raise _no_calendar(plan.venue, "its sessions have no times" if plan.sessions else "it has no sessions")
    stamp = _stamp(now or datetime.now(UTC))
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:-//confnav//confnav {__version__}//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{escape(f'{plan.venue} plan' + (f' for {plan.profile}' if plan.profile else ''))}",
    ]
    for planned in plan.sessions:
        session = planned.session
        if session.start is None:
            continue
        lines += ["BEGIN:VEVENT", f"UID:{_uid(plan.venue, session.id)}", f"DTSTAMP:{stamp}"]
        if session.all_day and session.end is not None:  # days, as the schedule gave them, not 24-hour slots
            lines += [f"DTSTART;VALUE=DATE:{session.start:%Y%m%d}", f"DTEND;VALUE=DATE:{session.end:%Y%m%d}"]
        else:
            lines.append(f"DTSTART:{_stamp(session.start)}")
            if session.end is not None and session.end > session.start:
                lines.append(f"DTEND:{_stamp(session.end)}")
        lines.append(f"SUMMARY:{escape(session.name)}")
        lines.append(f"DESCRIPTION:{escape(_description(planned))}")
        if session.room:
            lines.append(f"LOCATION:{escape(session.room)}")
        if session.link:
            lines.append(f"URL:{session.link}")
        if planned.conflicts:
            lines.append("CATEGORIES:CONFLICT")
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + "\r\n" for line in lines)
