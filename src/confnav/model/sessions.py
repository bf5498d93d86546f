"""A venue's programme: its sessions with their times and rooms, and the sessions a paper's `session` field names."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time
from typing import Any

SESSION_SEPARATOR = "|"  # a paper presented in several sessions names them `A | B` in its `session` field


def session_names(value: str | None) -> list[str]:
    """The sessions a paper's `session` field names."""
    return [name.strip() for name in (value or "").split(SESSION_SEPARATOR) if name.strip()]


@dataclass(frozen=True)
class Session:
    """A session of a venue's programme: its name, times (aware datetimes; None when the source gives none), room
    or meeting link, and the file it came from. `timezone` is the zone name the source gave, if any."""

    venue: str
    id: str
    name: str
    start: datetime | None = None
    end: datetime | None = None
    timezone: str | None = None
    room: str | None = None
    link: str | None = None
    source: str = ""

    @property
    def timed(self) -> bool:
        return self.start is not None

    @property
    def all_day(self) -> bool:
        """Whether the session fills whole days: from midnight to a later midnight in its own zone (as an all-day
        calendar event is read), so a calendar shows it by day rather than as hours."""
        if self.start is None or self.end is None or self.end <= self.start:
            return False
        return self.start.timetz().replace(tzinfo=None) == self.end.timetz().replace(tzinfo=None) == time(0)

    def overlaps(self, other: Session) -> bool:
        """Whether the two sessions share some time (a session without an end lasts an instant)."""
        if self.start is None or other.start is None:
            return False
        mine, theirs = self.end or self.start, other.end or other.start
        if self.start == other.start:
            return True
        return self.start < theirs and other.start < mine

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "start": self.start.isoformat() if self.start else None,
            "end": self.end.isoformat() if self.end else None,
            "all_day": self.all_day,
            "timezone": self.timezone,
            "room": self.room,
            "link": self.link,
            "source": self.source,
        }
