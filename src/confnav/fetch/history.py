"""Review histories on a fetch: the earlier versions of each review read from its edits (API 2, first fetch),
and every version the snapshot holds recorded in the store, so that the history outlives OpenReview keeping
only the latest version of a review; beside them, the last text of each review and meta-review fetched.

The edits are asked for a submission at a time, by the review invitation its reviews were posted under
(`/notes/edits?invitation=…`, as the official client's `get_note_edits(invitation=…)` asks): one request
for all of a submission's reviews. A review never modified since it was posted (`tmdate` = `tcdate`) has no
earlier version and costs nothing; a review the invitation's answer leaves out, or a deployment that refuses
the filter, is read one note at a time (`note.id=…`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from confnav.fetch.http import FetchError
from confnav.fetch.openreview import OpenReviewClient, VenueInfo
from confnav.fetch.snapshot import PageLog
from confnav.model import ReviewText, ReviewVersion
from confnav.progress import Progress
from confnav.sources.openreview_reviews import REVIEW_INVITATIONS, review_texts, review_versions, reviews
from confnav.store.protocols import IngestStore, ReviewStore

FROM_EDITS = "earlier versions read from the reviews' edits"
SUCCESSIVE = "history from successive fetches only"


@dataclass
class _Wanted:
    """The reviews whose edits are to be read, by the review invitation of their submission, and those without one."""

    by_invitation: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # invitation → (paper, reviews)
    single: list[tuple[str, str]] = field(default_factory=list)  # (paper, review)


def read_edits(
    client: OpenReviewClient, info: VenueInfo, notes: list[dict[str, Any]], log: PageLog, progress: Progress
) -> tuple[dict[str, dict[str, list[dict[str, Any]]]], str]:
    """The edits of every modified review of these submissions (paper id → review id → edits) and what the
    history holds; a venue whose edits are not public (HTTP 403) keeps the history of successive fetches."""
    if info.api != 2:
        return {}, f"{SUCCESSIVE} (API 1 keeps no edits)"
    wanted = _wanted(notes)
    progress.start("reading the reviews' edits", len(wanted.by_invitation) + len(wanted.single))
    edits: dict[str, dict[str, list[dict[str, Any]]]] = {}
    single, bulk = list(wanted.single), True
    try:
        for invitation, (paper, reviews) in wanted.by_invitation.items():
            found = _by_invitation(client, invitation, log) if bulk else None
            if found is None:
                bulk = False  # the filter is refused here: every review is read on its own
                single += [(paper, review) for review in reviews]
                continue
            for review in reviews:
                if found.get(review):
                    edits.setdefault(paper, {})[review] = found[review]
                else:
                    single.append((paper, review))
            progress.advance()
        for paper, review in single:
            edits.setdefault(paper, {})[review] = client.note_edits(review, log)
            progress.advance()
    except FetchError as exc:
        if exc.status != 403:
            raise
        return {}, f"{SUCCESSIVE} ({client.api2.host} does not make the reviews' edits public: {exc})"
    return edits, FROM_EDITS


def _wanted(notes: Iterable[dict[str, Any]]) -> _Wanted:
    wanted = _Wanted()
    for note in notes:
        paper = str(note.get("forum") or note["id"])
        for reply in reviews(note):
            if not _modified(reply):
                continue
            review = str(reply["id"])
            invitation = next((str(i) for i in reply.get("invitations") or [] if _is_review_invitation(i)), None)
            if invitation is None:
                wanted.single.append((paper, review))
            else:
                wanted.by_invitation.setdefault(invitation, (paper, []))[1].append(review)
    return wanted


def _by_invitation(client: OpenReviewClient, invitation: str, log: PageLog) -> dict[str, list[dict[str, Any]]] | None:
    """The edits made under one invitation by the note they edit, or None where the source refuses the filter."""
    try:
        found = client.invitation_edits(invitation, log)
    except FetchError as exc:
        if exc.status not in (400, 404, 422):
            raise
        return None
    by_note: dict[str, list[dict[str, Any]]] = {}
    for edit in found:
        note = edit.get("note")
        if isinstance(note, dict) and note.get("id"):
            by_note.setdefault(str(note["id"]), []).append(edit)
    return by_note


def _modified(reply: dict[str, Any]) -> bool:
    """Whether a reply may have versions before the one fetched: not when it was never changed after being posted."""
    created, modified = reply.get("tcdate"), reply.get("tmdate")
    return not (isinstance(created, int) and isinstance(modified, int) and created == modified)


def _is_review_invitation(invitation: Any) -> bool:
    return isinstance(invitation, str) and invitation.endswith(REVIEW_INVITATIONS)


class HistoryStore(IngestStore, ReviewStore, Protocol):
    """What recording a history needs: the venues ingested and the review versions."""


def record_history(store: HistoryStore, entries: Iterable[dict[str, Any]]) -> int:
    """Keep every review version these snapshot entries hold that the store has not yet, and each review's text
    where it is new or newer; how many versions were new."""
    known = {v.id for v in store.venue_list()}
    versions: list[ReviewVersion] = []
    texts: list[ReviewText] = []
    for entry in entries:
        try:
            found, said = review_versions(entry), review_texts(entry)
        except (KeyError, TypeError, ValueError):  # a line the ingest reported as wrong
            continue
        versions += [v for v in found if v.venue in known]
        texts += [t for t in said if t.venue in known]
    with store.transaction():
        store.put_review_texts(texts)
        return store.add_review_versions(versions)
