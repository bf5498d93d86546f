"""OpenReview snapshots written by `confnav fetch openreview`: JSON lines, one submission note per line.

Each line is `{"fetched": ISO time, "api": 1|2, "venue": "ICLR.cc/2025/Conference", "note": {...}}` with the
note as the API returned it, its replies (reviews, meta-reviews, decisions) under `details`. API 2 wraps
content values as `{"value": …}`, API 1 does not; authors are names or `{fullname, username}` objects.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from confnav.errors import InputError, excerpt
from confnav.model import Venue, series_key
from confnav.sources.base import ReadItem, SourceRecord, clean_id, numbered_lines, parse_json, untitled
from confnav.sources.links import openreview_links, resource_fields, resource_links
from confnav.sources.values import FieldError, as_authors, as_text, as_texts, as_title, kind_of, parse_score

SNAPSHOT_KEYS = ('"note"', '"api"', '"venue"', '"fetched"')
_YEAR = re.compile(r"^(?:19|20)\d\d$")


def venue_of_group(group_id: str) -> tuple[Venue, str | None]:
    """The venue and track of an OpenReview venue id: `NeurIPS.cc/2024/Datasets_and_Benchmarks_Track` → neurips2024."""
    parts = [p for p in group_id.split("/") if p]
    for i, part in enumerate(parts):
        if _YEAR.match(part) and i > 0:
            series = re.sub(r"\.(cc|org|com|net|ai|io)$", "", parts[i - 1], flags=re.I)
            rest = " ".join(p.replace("_", " ") for p in parts[i + 1 :])
            track = None if rest.lower() in ("", "conference") else rest
            return Venue.of(series_key(series) or series, int(part)), track
    raise ValueError(f"cannot read a conference and year from the OpenReview venue id {excerpt(group_id)}")


def value(content: dict[str, Any], key: str) -> Any:
    """A content field of either API: API 2 wraps it as {"value": …}."""
    field = content.get(key)
    return field.get("value") if isinstance(field, dict) and "value" in field else field


class OpenReviewNotesReader:
    """Reads a snapshot file; every line is one submission with its public replies."""

    format = "openreview-notes"
    header_row = False

    def sniff(self, path: Path, text: str) -> bool:
        first = text.lstrip().split("\n", 1)[0]
        return first.startswith("{") and all(key in first for key in SNAPSHOT_KEYS)

    def read(self, path: Path, text: str) -> Iterator[ReadItem]:
        for line in numbered_lines(path, text):
            if isinstance(line, InputError):
                yield line
                continue
            number, content = line
            try:
                entry = parse_json(path, content, number)
            except InputError as exc:
                yield exc
                continue
            note = entry.get("note") if isinstance(entry, dict) else None
            if not isinstance(note, dict) or not isinstance(note.get("content"), dict):
                yield InputError(path, "expected a snapshot line with a note and its content", line=number)
                continue
            record = SourceRecord(source=path.name, kind=self.format, id=None, fields={}, line=number)
            try:
                yield self._record(path, record, entry, note)
            except FieldError as exc:
                yield record.error(path, exc.message, exc.field)

    def _record(self, path: Path, record: SourceRecord, entry: dict[str, Any], note: dict[str, Any]) -> ReadItem:
        paper_id = clean_id(note.get("forum") or note.get("id"), "forum") or ""
        record.id = paper_id or None
        try:
            venue, track = venue_of_group(as_text(entry.get("venue"), "venue"))
        except ValueError as exc:
            return record.error(path, str(exc), "venue")
        record.venue = venue.id
        content = note["content"]
        title = " ".join(as_title(value(content, "title")).split())
        if not paper_id:
            return record.error(path, "the note has no id", "title")
        if not title:
            return untitled(path, record)
        fields = record.fields
        fields["title"] = title
        authors, profiles = _authors(content)
        fields["authors"] = [
            {"name": name, "affiliation": None, **({"profile": p} if p else {})}
            for name, p in zip(authors, profiles, strict=True)
        ]
        for key, target in (
            ("abstract", "abstract"),
            ("TLDR", "tldr"),
            ("TL;DR", "tldr"),
            ("tldr", "tldr"),
            ("primary_area", "primary_area"),
        ):
            if text := as_text(value(content, key), key).strip():
                fields.setdefault(target, text)
        keywords = value(content, "keywords")
        if isinstance(keywords, str):
            keywords = re.split(r"[;,]", keywords)
        if keywords is not None:  # an empty list too (SourceRecord)
            fields["keywords"] = as_texts(keywords, "keywords")
        if track:
            fields["track"] = track
        replies = _replies(note)
        try:
            ratings = [(parse_score(r["rating"]), r.get("confidence")) for r in replies if "rating" in r]
            fields["ratings"] = [rating for rating, _ in ratings]
            if all(c is not None for _, c in ratings):
                fields["confidences"] = [parse_score(c) for _, c in ratings]
        except ValueError as exc:
            return record.error(path, f"review score {exc}", "rating")
        fields["decision"] = _decision(entry, note, replies)
        resources = resource_links({key: value(content, key) for key in resource_fields(content)})
        fields["links"] = openreview_links(paper_id) | resources
        return record


def _authors(content: dict[str, Any]) -> tuple[list[str], list[str | None]]:
    """Names and profile ids, from `authors` + `authorids` or from `{fullname, username}` objects."""
    raw = value(content, "authors") or []
    ids = as_texts(value(content, "authorids") or [], "authorids", keep_blanks=True)
    names: list[str] = []
    profiles: list[str | None] = []
    for i, author in enumerate(raw if isinstance(raw, list) else []):
        if isinstance(author, dict):
            (person,) = as_authors([author], "authors")
            names.append(person["name"])
            profiles.append(person.get("profile") or None)
        else:
            names.append(as_text(author, "authors").strip())
            given = ids[i] if i < len(ids) else ""
            profiles.append(given if given.startswith("~") else None)
    kept = [(n, p) for n, p in zip(names, profiles, strict=True) if n]
    return [n for n, _ in kept], [p for _, p in kept]


def _invitations(note: dict[str, Any]) -> list[str]:
    found = note.get("invitations") or ([note["invitation"]] if note.get("invitation") else [])
    return as_texts(found, "invitations")


def _replies(note: dict[str, Any]) -> list[dict[str, Any]]:
    """Public replies as flat dicts: `kind` (review, meta-review, decision) and the values they carry."""
    details = given if isinstance(given := note.get("details"), dict) else {}
    replies = details.get("replies") or details.get("directReplies") or []
    flat = []
    if not isinstance(replies, list):
        raise FieldError("details", f"expected a list of replies, found {kind_of(replies)}")
    for reply in replies:
        if not isinstance(reply, dict) or not isinstance(reply.get("content"), dict) or reply.get("ddate"):
            continue  # a deleted reply (`ddate`) says nothing any more
        invitations = _invitations(reply)
        content = reply["content"]
        entry: dict[str, Any] = {}
        if any(i.endswith(("Official_Review", "/-/Review")) for i in invitations) and value(content, "rating"):
            entry = {"rating": value(content, "rating"), "confidence": value(content, "confidence")}
        elif any(i.endswith("Decision") for i in invitations) and value(content, "decision"):
            entry = {"decision": as_text(value(content, "decision"), "decision")}
        if entry:
            flat.append(entry)
    return flat


def _decision(entry: dict[str, Any], note: dict[str, Any], replies: list[dict[str, Any]]) -> str:
    """The decision label: the Decision reply's, else what the note's venue id or invitation says of it; a note
    OpenReview deleted (`ddate`) is "Deleted", whatever it said before."""
    if note.get("ddate"):
        return "Deleted"
    decisions = [r["decision"] for r in replies if "decision" in r]
    if decisions:
        return decisions[-1]
    venue_id = as_text(entry.get("venue"), "venue")
    state = as_text(value(note["content"], "venueid"), "venueid")
    markers = [state, *_invitations(note)]
    if any(m.endswith("Desk_Rejected_Submission") for m in markers):
        return "Desk Rejected"
    if any(m.endswith("Withdrawn_Submission") for m in markers):
        return "Withdrawn"
    if state.endswith("Rejected_Submission"):
        return "Reject"
    if state == venue_id:  # accepted: the venue string names the kind ("ICLR 2025 Oral")
        shown = as_text(value(note["content"], "venue"), "venue")
        kind = shown.split()[-1] if shown.split() else "Accept"
        return kind if kind.lower() in ("oral", "spotlight", "poster") else "Accept"
    if state.endswith("/Submission"):
        return "Under Review"
    return ""
