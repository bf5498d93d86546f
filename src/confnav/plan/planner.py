"""A person's conference plan: their must-read papers (from a profile, else the venue's must-read ranking) placed in
the sessions that present them, by day, with overlapping sessions flagged; by theme when the venue has no schedule."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from confnav.model import Paper, Session
from confnav.personal import recommend_for
from confnav.personal.recommend import RecommendStore
from confnav.rank import make_ranker
from confnav.store.protocols import AnalysisStore, ScheduleStore

DEFAULT_TOP = 20
NO_THEME = "Other papers"


class PlanStore(AnalysisStore, RecommendStore, ScheduleStore, Protocol):
    """Papers, rankings, profiles, themes and the venue's sessions."""


@dataclass
class PlannedPaper:
    """A chosen paper, its place in the person's order, and why it was chosen."""

    paper: Paper
    rank: int
    reason: str
    theme: str | None = None

    def to_dict(self) -> dict[str, object]:
        p = self.paper
        return {"id": p.id, "title": p.title, "rank": self.rank, "reason": self.reason, "theme": self.theme}


@dataclass
class PlannedSession:
    """A session to attend, the chosen papers it presents, and the other chosen sessions it overlaps."""

    session: Session
    papers: list[PlannedPaper] = field(default_factory=list)
    conflicts: list[Session] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            **self.session.to_dict(),
            "papers": [p.to_dict() for p in self.papers],
            "conflicts": [s.id for s in self.conflicts],
        }


@dataclass
class Plan:
    """The plan of one venue: `schedule` is "timed" (sessions with times), "untimed" (sessions named by the paper
    list, no times) or "none" (then `themes` groups the papers); `notice` says so in one line."""

    venue: str
    profile: str | None
    schedule: str
    notice: str
    sessions: list[PlannedSession] = field(default_factory=list)
    unscheduled: list[PlannedPaper] = field(default_factory=list)
    themes: list[tuple[str, list[PlannedPaper]]] = field(default_factory=list)

    @property
    def conflicts(self) -> int:
        """How many chosen sessions overlap another chosen one."""
        return sum(1 for s in self.sessions if s.conflicts)

    def days(self) -> list[tuple[str, list[PlannedSession]]]:
        """The timed sessions by day (the date in the session's own time zone), then the untimed ones."""
        by_day: dict[str, list[PlannedSession]] = defaultdict(list)
        for planned in self.sessions:
            start = planned.session.start
            by_day[start.date().isoformat() if start else "Sessions without a time"].append(planned)
        return list(by_day.items())

    def to_dict(self) -> dict[str, object]:
        return {
            "venue": self.venue,
            "profile": self.profile,
            "schedule": self.schedule,
            "notice": self.notice,
            "conflicts": self.conflicts,
            "days": [{"day": day, "sessions": [s.to_dict() for s in sessions]} for day, sessions in self.days()],
            "unscheduled": [p.to_dict() for p in self.unscheduled],
            "themes": [{"theme": name, "papers": [p.to_dict() for p in papers]} for name, papers in self.themes],
        }


def must_read(store: PlanStore, venue: str, profile: str | None, top: int) -> list[PlannedPaper]:
    """The person's must-read papers of the venue: the profile's recommendations, else the venue's ranking."""
    if profile:
        found = recommend_for(store, profile, venue, limit=top)
        themes = _themes_of(store, venue)
        return [PlannedPaper(r.paper, n, r.reason, themes.get(r.paper.id)) for n, r in enumerate(found, start=1)]
    ranked = make_ranker(store.settings).rank(store, venue).papers[:top]
    return [PlannedPaper(r.paper, n, "; ".join(r.reasons[:2]), r.theme) for n, r in enumerate(ranked, start=1)]


def _themes_of(store: PlanStore, venue: str) -> dict[str, str]:
    """Each paper's theme label, where the venue's themes are built."""
    labels = {t.id: t.label for t in store.themes(venue, level=1)}
    assigned = store.assignments(venue)
    if not assigned:
        return {}
    papers = store.papers_by_pk(list(assigned))
    return {papers[pk].id: labels.get(a.theme, a.theme) for pk, a in assigned.items() if pk in papers}


def build_plan(store: PlanStore, venue: str | None, profile: str | None = None, top: int = DEFAULT_TOP) -> Plan:
    """Place the must-read papers in their sessions: a paper in several sessions goes to the first that overlaps
    no session already chosen (else the first, flagged); papers in no session are listed apart."""
    venue_id = store.pick_venue(venue)
    chosen = must_read(store, venue_id, profile, top)
    sessions = {s.id: s for s in store.sessions(venue_id)}
    of_paper: dict[str, list[Session]] = defaultdict(list)
    for session_id, paper_id in store.session_papers(venue_id):
        if session_id in sessions:
            of_paper[paper_id].append(sessions[session_id])
    timed = any(s.timed for s in sessions.values())
    if not of_paper:
        return _by_theme(venue_id, profile, chosen)
    planned: dict[str, PlannedSession] = {}
    unscheduled = []
    for item in chosen:
        options = of_paper.get(item.paper.id, [])
        options = [s for s in options if s.timed] or options
        if not options:
            unscheduled.append(item)
            continue
        pick = next((s for s in options if s.id in planned), None) or next(
            (s for s in options if not any(s.overlaps(p.session) for p in planned.values())), options[0]
        )
        planned.setdefault(pick.id, PlannedSession(pick)).papers.append(item)
    ordered = sorted(planned.values(), key=lambda p: (_when(p.session), p.session.name))
    for one in ordered:
        one.conflicts = [o.session for o in ordered if o is not one and one.session.overlaps(o.session)]
    kind = "timed" if timed else "untimed"
    notice = (
        f"{len(chosen) - len(unscheduled)} of {len(chosen)} must-read papers in {len(ordered)} sessions"
        + (f"; {sum(1 for p in ordered if p.conflicts)} sessions overlap another" if timed else "")
        + ("" if timed else "; the sessions have no times (the paper list names them, no schedule gives times)")
    )
    return Plan(venue_id, profile, kind, notice, ordered, unscheduled)


def _when(session: Session) -> float:
    return session.start.timestamp() if isinstance(session.start, datetime) else float("inf")


def _by_theme(venue: str, profile: str | None, chosen: list[PlannedPaper]) -> Plan:
    """The plan of a venue without a schedule: the must-read papers grouped by theme, best first."""
    groups: dict[str, list[PlannedPaper]] = defaultdict(list)
    for item in chosen:
        groups[item.theme or NO_THEME].append(item)
    notice = (
        f"{venue} has no schedule in the store (import one with 'confnav schedule import FILE --venue {venue}');"
        " planned by theme"
    )
    return Plan(venue, profile, "none", notice, themes=list(groups.items()))
