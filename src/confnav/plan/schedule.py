"""Import a schedule file into a venue's programme: its sessions, matched to stored papers by id, then by
normalised title, then by the session names the papers' own `session` field gives; unmatched entries reported."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from confnav.errors import InputError, argument
from confnav.ingest import source_keys
from confnav.model import Paper, Session, fold, session_names, title_key
from confnav.sources.base import venue_from_path
from confnav.sources.links import openreview_id
from confnav.sources.schedules import PaperRef, ScheduleEntry, read_schedule
from confnav.store.protocols import PaperReader, ScheduleStore
from confnav.store.schedules import session_slug, unique_id

_DASHES = re.compile(r"\s+[—–|]\s+|\s+-\s+|\t")
_TOKEN = re.compile(r"[\w.~-]+")


class ScheduleImportStore(PaperReader, ScheduleStore, Protocol):
    """The venue's papers, to match, and its sessions, to write."""


@dataclass
class ScheduleImport:
    """What a schedule import did: sessions stored, papers linked to them (a paper in two sessions is one paper and
    two links; links counted by how they were made), and every entry it could not match."""

    path: str
    venue: str
    format: str
    sessions: int = 0
    timed: int = 0
    links: int = 0
    papers: int = 0
    by_id: int = 0
    by_title: int = 0
    by_session_name: int = 0
    unmatched: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "venue": self.venue,
            "format": self.format,
            "sessions": self.sessions,
            "timed_sessions": self.timed,
            "papers_linked": self.papers,
            "links": self.links,
            "matched": {"id": self.by_id, "title": self.by_title, "session_name": self.by_session_name},
            "unmatched": self.unmatched,
        }


class PaperMatcher:
    """Finds the stored paper a schedule names: an id (as given or in an OpenReview link), a normalised title, or
    one part of a line such as `main.1004: Title` or `Title — Authors`."""

    def __init__(self, papers: list[Paper]) -> None:
        self.ids = {p.id: p.id for p in papers}
        self.folded_ids = {p.id.casefold(): p.id for p in papers}
        self.titles: dict[str, str] = {}
        for paper in papers:
            self.titles.setdefault(title_key(paper.title), paper.id)

    def by_id(self, text: str) -> str | None:
        text = text.strip().strip("[]()")
        return self.ids.get(text) or self.folded_ids.get(text.casefold()) or self.ids.get(openreview_id(text) or "")

    def match(self, text: str) -> tuple[str, str] | None:
        """(paper id, "id" or "title") for a reference, else None."""
        if found := self.by_id(text):
            return found, "id"
        if (key := title_key(text)) and key in self.titles:
            return self.titles[key], "title"
        for part in _parts(text):
            if found := self.by_id(part):
                return found, "id"
            if (key := title_key(part)) and key in self.titles:
                return self.titles[key], "title"
        for token in _TOKEN.findall(text):  # an id inside a line; only id-like tokens, never a bare number or word
            id_like = len(token) >= 6 and re.search(r"\d", token) and re.search(r"[A-Za-z]", token)
            if id_like and (found := self.by_id(token)):
                return found, "id"
        return None


def _parts(text: str) -> list[str]:
    """The pieces of a line that may name a paper: around dashes, bars and tabs (`Title — Authors`), and either
    side of its first colon (`main.1004: Title`); titles with a colon of their own stay whole in the line."""
    pieces = [p.strip() for p in _DASHES.split(text) if p.strip()]
    parts = pieces if len(pieces) > 1 else []
    for piece in pieces:
        if ": " in piece:
            parts += [half.strip() for half in piece.split(": ", 1)]
    return parts


def _where(ref: PaperRef, path: str) -> str:
    return str(InputError(path, f"no paper of the venue matches {ref.text[:80]!r}", line=ref.line, field=ref.field))


def import_schedule(
    store: ScheduleImportStore, path: Path, venue: str | None = None, fmt: str | None = None, zone: str | None = None
) -> ScheduleImport:
    """Read a schedule file and replace the venue's sessions from that file by its sessions, in one transaction.
    A file that cannot be read is refused whole (InputError) and nothing is written."""
    venue = store.pick_venue(venue or venue_from_path(path))
    fmt, entries = read_schedule(path, fmt, zone)
    papers = list(store.iter_papers(venue))
    matcher = PaperMatcher(papers)
    report = ScheduleImport(str(path), venue, fmt)
    source = source_keys([path])[0]
    sessions: list[Session] = []
    links: list[tuple[str, str]] = []
    taken: set[str] = set()
    by_alias: dict[str, list[str]] = {}
    for paper in papers:
        for name in session_names(paper.session):
            by_alias.setdefault(fold(name), []).append(paper.id)
    for entry in entries:
        session = _session(venue, entry, source, taken)
        sessions.append(session)
        linked = _link(entry, matcher, report)
        for alias in entry.aliases:
            for paper_id in by_alias.get(fold(alias), []):
                if paper_id not in linked:
                    linked.append(paper_id)
                    report.by_session_name += 1
        links += [(session.id, paper_id) for paper_id in linked]
    report.sessions, report.timed, report.links = len(sessions), sum(s.timed for s in sessions), len(links)
    report.papers = len({paper_id for _, paper_id in links})
    _check_fits(path, venue, entries, report)
    with store.transaction():
        store.put_sessions(venue, source, sessions, links)
    return report


def _check_fits(path: Path, venue: str, entries: list[ScheduleEntry], report: ScheduleImport) -> None:
    """Refuse a file that is no schedule of this venue: one naming papers none of which is the venue's (another
    venue's schedule), or one with neither a time nor a paper of the venue in any session (a paper list)."""
    if report.links:
        return
    named = sum(1 for entry in entries for ref in entry.papers if not ref.loose)
    if named:
        raise InputError(
            path,
            f"none of the {named} papers its sessions name is a paper of {venue}, so nothing was imported"
            f" (another venue's schedule? pass {argument('venue')})",
        )
    if not report.timed:
        raise InputError(
            path,
            f"no session has a time or presents a paper of {venue}, so nothing was imported: not a schedule"
            " (a paper list? read it with 'confnav ingest')",
        )


def _session(venue: str, entry: ScheduleEntry, source: str, taken: set[str]) -> Session:
    """The stored session of an entry: its own id, else one made from its name and start."""
    when = entry.start.strftime("%Y%m%d-%H%M") if entry.start else ""
    wanted = entry.id or session_slug(f"{entry.name} {when}")
    session_id = unique_id(wanted[:120], taken)
    taken.add(session_id)
    return Session(
        venue, session_id, entry.name, entry.start, entry.end, entry.timezone, entry.room, entry.link, source
    )


def _link(entry: ScheduleEntry, matcher: PaperMatcher, report: ScheduleImport) -> list[str]:
    """The papers an entry names, in its order; unmatched ones reported (loose guesses only beside a match)."""
    linked: list[str] = []
    missed: list[PaperRef] = []
    for ref in entry.papers:
        found = matcher.match(ref.text)
        if found is None:
            if not ref.loose or ref.field != "SUMMARY":
                missed.append(ref)
            continue
        paper_id, how = found
        if paper_id not in linked:
            linked.append(paper_id)
            report.by_id += how == "id"
            report.by_title += how == "title"
    report.unmatched += [_where(ref, report.path) for ref in missed if not ref.loose or linked]
    return linked
