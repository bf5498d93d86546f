"""A person's papers from a live source, into a profile: an OpenReview profile (`~First_Last1`) or a Semantic
Scholar author (`s2:1741101`). Matched to stored papers as library files are; the rest kept as own texts.

OpenReview: the profile from `GET /profiles?id=`, then `GET /notes?content.authorids=USERNAME` on API 2 and API 1
for each of its usernames (as the official client's `get_all_notes(content={'authorids': id})`), pages of at most
1,000, notes kept when their authors name one of the usernames. Semantic Scholar: `GET /author/{id}/papers`
answering `{"offset", "next", "data"}`, `next` absent on the last page, at most 1,000 a page.
Everything is fetched before anything is written: a failure leaves the profile as it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from confnav.errors import excerpt
from confnav.fetch.citations import SemanticScholar
from confnav.fetch.http import FetchError, HttpClient
from confnav.fetch.openreview import OpenReviewClient
from confnav.model import title_key
from confnav.personal.formats import Entry, Parsed, ids_in, read_library
from confnav.personal.profiles import ImportReport, ProfilePapers, import_entries
from confnav.settings import Settings

S2_PAGE = 1000
S2_FIELDS = "title,abstract,year,externalIds,venue,authors"
_OPENREVIEW_ID = re.compile(r"^~[^\s/~]+\d+$")
_S2_ID = re.compile(r"^s2:(\d+)$", re.I)


@dataclass(frozen=True)
class Person:
    """Whose papers to bring: `openreview` with a profile id, or `s2` with an author id."""

    service: str
    id: str

    @property
    def label(self) -> str:
        return self.id if self.service == "openreview" else f"s2:{self.id}"


def person_of(argument: str) -> Person | None:
    """`~First_Last1` is an OpenReview profile, `s2:DIGITS` a Semantic Scholar author; anything else is a file."""
    if _OPENREVIEW_ID.match(argument):
        return Person("openreview", argument)
    if match := _S2_ID.match(argument):
        return Person("s2", match.group(1))
    return None


def _value(content: dict[str, Any], key: str) -> Any:
    """A content field of either API: API 2 wraps each value as {"value": ...}."""
    found = content.get(key)
    return found.get("value") if isinstance(found, dict) else found


def note_authors(content: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Names and profile ids of a note's authors, in the unified `authors` form or `authors` + `authorids`."""
    authors = _value(content, "authors") or []
    if authors and isinstance(authors[0], dict):
        return [str(a.get("fullname") or "") for a in authors], [str(a.get("username") or "") for a in authors]
    return [str(a) for a in authors], [str(a) for a in _value(content, "authorids") or []]


def _note_entry(note: dict[str, Any], line: int) -> Entry:
    content = note.get("content") or {}
    names, _ = note_authors(content)
    venue = str(_value(content, "venue") or "")
    stamp = note.get("pdate") or note.get("cdate") or note.get("tcdate")
    year = re.search(r"\b(19|20)\d\d\b", venue)
    fields: dict[str, Any] = {"author": " and ".join(n for n in names if n)}
    if venue:
        fields["venue"] = venue
    return Entry(
        line=line,
        title=" ".join(str(_value(content, "title") or "").split()),
        abstract=str(_value(content, "abstract") or "") or None,
        year=int(year.group(0)) if year else datetime.fromtimestamp(int(stamp) / 1000, UTC).year if stamp else None,
        ids={"openreview": str(note.get("forum") or note["id"])},
        fields=fields,
    )


def openreview_papers(client: OpenReviewClient, profile_id: str) -> list[Entry]:
    """The papers whose authors name this profile (any of its usernames), on API 2 then API 1, once each."""
    try:
        answer = client.get(client.api2, "/profiles", {"id": profile_id})
    except FetchError as exc:
        if exc.status in (400, 404):
            raise FetchError(
                f"OpenReview has no profile {excerpt(profile_id)} (check the id, e.g. ~First_Last1)"
            ) from None
        raise
    profiles = answer.get("profiles") if isinstance(answer, dict) else None
    if not profiles:
        raise FetchError(f"OpenReview has no profile {excerpt(profile_id)} (check the id, e.g. ~First_Last1)")
    profile = profiles[0]
    names = (profile.get("content") or {}).get("names") or []
    usernames = list(dict.fromkeys([profile_id, str(profile.get("id") or profile_id)]))
    usernames += [str(n["username"]) for n in names if n.get("username") and n["username"] not in usernames]
    entries: list[Entry] = []
    seen: set[str] = set()
    for api in (client.api2, client.api1):
        for username in usernames:
            for note in client.pages(api, {"content.authorids": username}):
                _, ids = note_authors(note.get("content") or {})
                entry = _note_entry(note, len(entries) + 1)
                keys = {entry.ids["openreview"], f"title:{title_key(entry.title)}"}
                if not set(ids) & set(usernames) or not entry.title or keys & seen:
                    continue  # another person's note, an untitled one, or one already taken
                seen |= keys
                entries.append(entry)
    return entries


def s2_papers(http: HttpClient, author_id: str, page: int = S2_PAGE) -> list[Entry]:
    """The author's papers, page by page until the answer has no `next`."""
    entries: list[Entry] = []
    offset: int | None = 0
    while offset is not None:
        path = f"/author/{author_id}/papers"
        try:
            answer = http.get(path, {"fields": S2_FIELDS, "offset": offset, "limit": page})
        except FetchError as exc:
            if exc.status in (400, 404):
                raise FetchError(
                    f"Semantic Scholar has no author {author_id!r} (the number in the author's URL)"
                ) from None
            raise
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list):
            raise FetchError(f"{http.host} answered {path} without a list of papers")
        for paper in data:
            if paper.get("title"):
                entries.append(_s2_entry(paper, len(entries) + 1))
        following = answer.get("next")
        offset = int(following) if isinstance(following, int) and data and following > offset else None
    return entries


def _s2_entry(paper: dict[str, Any], line: int) -> Entry:
    external = {str(k).lower(): str(v) for k, v in (paper.get("externalIds") or {}).items() if v}
    ids = ids_in(f"doi:{external['doi']}" if "doi" in external else "", f"arxiv:{external.get('arxiv', '')}")
    if "acl" in external:
        ids.setdefault("acl", external["acl"])
    fields: dict[str, Any] = {"author": " and ".join(str(a.get("name")) for a in paper.get("authors") or [])}
    if paper.get("venue"):
        fields["venue"] = str(paper["venue"])
    year = paper.get("year")
    return Entry(
        line=line,
        title=" ".join(str(paper["title"]).split()),
        abstract=paper.get("abstract") or None,
        year=int(year) if isinstance(year, int) else None,
        ids=ids,
        fields={k: v for k, v in fields.items() if v},
    )


def import_person(
    store: ProfilePapers,
    people: Sequence[Person],
    profile: str,
    *,
    files: Sequence[Path] = (),
    settings: Settings | None = None,
    openreview: OpenReviewClient | None = None,
    s2: HttpClient | None = None,
) -> ImportReport:
    """Library files read and every person's papers fetched first, then all matched and added in one write."""
    sources = [(path.name, read_library(path)) for path in files]
    sources += people_papers(people, settings or store.settings, openreview=openreview, s2=s2)
    return import_entries(store, sources, profile)


def people_papers(
    people: Sequence[Person],
    settings: Settings,
    *,
    openreview: OpenReviewClient | None = None,
    s2: HttpClient | None = None,
) -> list[tuple[str, Parsed]]:
    """Each person's papers from their service, as a named source of entries (nothing written: a server fetches
    before it takes the store's write lock)."""
    sources = []
    for person in people:
        if person.service == "openreview":
            openreview = openreview or OpenReviewClient.from_settings(settings)
            entries = openreview_papers(openreview, person.id)
        else:
            s2 = s2 or SemanticScholar.from_settings(settings).http
            entries = s2_papers(s2, person.id)
        sources.append((person.label, Parsed(entries, [])))
    return sources
