"""The versions of each review in an OpenReview snapshot line: the review as fetched, and (API 2) the versions
its edits held before, read from `/notes/edits` answers kept in the line's `edits` (review id → edits); and
what each review, meta-review and decision comment says, as fetched.

An edit carries the note as that edit wrote it (the official client's `Edit.note`); later edits may set only
some fields, so versions are rebuilt by applying the edits in order. A score that is not a number is left out
of the version rather than failing the fetch: the paper's own ratings are checked by the ingest.
"""

from __future__ import annotations

import math
from typing import Any

from confnav.limits import MAX_REVIEW_FIELD_CHARS, MAX_REVIEW_FIELDS
from confnav.model import ReviewText, ReviewVersion
from confnav.sources.openreview_notes import value, venue_of_group
from confnav.sources.values import parse_score

REVIEW_INVITATIONS = ("Official_Review", "/-/Review")
META_REVIEW_INVITATIONS = ("Meta_Review", "/-/Metareview")
DECISION_INVITATIONS = ("/-/Decision",)
SCORES = ("rating", "confidence")  # a review's scores: kept with their history as versions, not as text
DECISION_ONLY = {"title", "decision"}  # a decision note saying no more than these is not a text to show
EDIT_TIME = ("tcdate", "cdate", "tmdate")


def is_review(note: dict[str, Any]) -> bool:
    return any(i.endswith(REVIEW_INVITATIONS) for i in _invitations(note))


def reviews(note: dict[str, Any]) -> list[dict[str, Any]]:
    """A submission's public reviews (the notes whose edits hold their earlier versions)."""
    return [r for r in _replies(note) if is_review(r) and r.get("id")]


def review_versions(entry: dict[str, Any]) -> list[ReviewVersion]:
    """Every version of every review of one snapshot line, oldest first per review."""
    note = entry["note"]
    venue = venue_of_group(str(entry["venue"]))[0].id
    paper = str(note.get("forum") or note["id"])
    edits = given if isinstance(given := entry.get("edits"), dict) else {}
    versions: list[ReviewVersion] = []
    for reply in _replies(note):
        if not is_review(reply) or not reply.get("id") or not isinstance(reply.get("content"), dict):
            continue
        review, reviewer = str(reply["id"]), _reviewer(reply)
        seen: dict[int, ReviewVersion] = {}
        content: dict[str, Any] = {}
        for edit in sorted(edits.get(review) or [], key=lambda e: _time(e, EDIT_TIME) or 0):
            written = written_note if isinstance(written_note := edit.get("note"), dict) else {}
            if edit.get("ddate") or written.get("ddate") or not isinstance(written.get("content"), dict):
                continue
            content = {**content, **written["content"]}
            if (stamp := _time(edit, EDIT_TIME)) is not None:
                seen[stamp] = _version(venue, paper, review, reviewer, stamp, content, "edits")
        stamp = _time(reply)
        if stamp is not None and stamp not in seen:
            seen[stamp] = _version(venue, paper, review, reviewer, stamp, reply["content"], "fetch")
        versions += [v for _, v in sorted(seen.items()) if v.rating is not None or v.confidence is not None]
    return versions


def review_texts(entry: dict[str, Any]) -> list[ReviewText]:
    """What each public review, meta-review and decision comment of one snapshot line says: its text fields in
    the source's order (API 1 plain strings, API 2 `{"value": …}`), as fetched; the last version of each."""
    note = entry["note"]
    venue = venue_of_group(str(entry["venue"]))[0].id
    paper = str(note.get("forum") or note["id"])
    texts: list[ReviewText] = []
    for reply in _replies(note):
        kind = _kind(reply)
        content = reply.get("content")
        if kind is None or not reply.get("id") or not isinstance(content, dict):
            continue
        fields = _text_fields(content, skip=SCORES if kind == "review" else ())
        if not fields or (kind == "decision" and {name for name, _ in fields} <= DECISION_ONLY):
            continue
        stamp = _time(reply) or 0
        texts.append(ReviewText(venue, paper, str(reply["id"]), _reviewer(reply), kind, stamp, fields))
    return texts


def _kind(reply: dict[str, Any]) -> str | None:
    invitations = _invitations(reply)
    if is_review(reply):
        return "review"
    if any(i.endswith(META_REVIEW_INVITATIONS) for i in invitations):
        return "meta-review"
    return "decision" if any(i.endswith(DECISION_INVITATIONS) for i in invitations) else None


def _text_fields(content: dict[str, Any], skip: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The content's fields that read as text (strings, numbers, lists of strings), in order, each cut at
    MAX_REVIEW_FIELD_CHARS; a field without text is left out."""
    fields: list[tuple[str, str]] = []
    for name in content:
        given = value(content, name)
        if name in skip or isinstance(given, bool):
            continue
        if isinstance(given, int | float):
            text = f"{given:g}"
        elif isinstance(given, list) and all(isinstance(item, str) for item in given):
            text = "; ".join(given)
        elif isinstance(given, str):
            text = given
        else:
            continue
        if text.strip():
            fields.append((str(name), text.strip()[:MAX_REVIEW_FIELD_CHARS]))
    return tuple(fields[:MAX_REVIEW_FIELDS])


def _invitations(note: dict[str, Any]) -> list[str]:
    return [str(i) for i in note.get("invitations") or ([note["invitation"]] if note.get("invitation") else [])]


def _replies(note: dict[str, Any]) -> list[dict[str, Any]]:
    details = given if isinstance(given := note.get("details"), dict) else {}
    replies = details.get("replies") or details.get("directReplies") or []
    return [r for r in replies if isinstance(r, dict)] if isinstance(replies, list) else []


def _reviewer(reply: dict[str, Any]) -> str:
    signatures = reply.get("signatures")
    return str(signatures[0]) if isinstance(signatures, list) and signatures else ""


def _time(item: dict[str, Any], keys: tuple[str, ...] = ("tmdate", "mdate", "tcdate", "cdate")) -> int | None:
    """The source's time of a note (its modification time, else its creation time) or of an edit (when it was
    written: `tcdate`, which is the `tmdate` the note took from it), in ms."""
    for key in keys:
        if isinstance(stamp := item.get(key), int) and not isinstance(stamp, bool):
            return stamp
    return None


def _score(content: dict[str, Any], key: str) -> float | None:
    raw = value(content, key)
    if raw is None or raw == "":
        return None
    try:
        score = parse_score(raw)
    except ValueError:
        return None
    return score if math.isfinite(score) else None


def _version(
    venue: str, paper: str, review: str, reviewer: str, stamp: int, content: dict[str, Any], origin: str
) -> ReviewVersion:
    return ReviewVersion(
        venue, paper, review, reviewer, stamp, _score(content, "rating"), _score(content, "confidence"), origin
    )
