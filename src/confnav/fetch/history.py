"""Review histories on a fetch: the earlier versions of each review read from its edits (API 2, first fetch),
and every version the snapshot holds recorded in the store, so that the history outlives OpenReview keeping
only the latest version of a review; beside them, the last text of each review and meta-review fetched.
"""

from __future__ import annotations

from typing import Any, Protocol

from confnav.fetch.http import FetchError
from confnav.fetch.openreview import OpenReviewClient, VenueInfo
from confnav.fetch.snapshot import PageLog
from confnav.model import ReviewText, ReviewVersion
from confnav.progress import Progress
from confnav.sources.openreview_reviews import review_ids, review_texts, review_versions
from confnav.store.protocols import IngestStore, ReviewStore

FROM_EDITS = "earlier versions read from the reviews' edits"
SUCCESSIVE = "history from successive fetches only"


def read_edits(
    client: OpenReviewClient, info: VenueInfo, notes: list[dict[str, Any]], log: PageLog, progress: Progress
) -> tuple[dict[str, dict[str, list[dict[str, Any]]]], str]:
    """The edits of every review of these submissions (paper id → review id → edits) and what the history
    holds; a venue whose edits are not public (HTTP 403) keeps the history of successive fetches."""
    if info.api != 2:
        return {}, f"{SUCCESSIVE} (API 1 keeps no edits)"
    wanted = [(str(n.get("forum") or n["id"]), review) for n in notes for review in review_ids(n)]
    progress.start("reading the reviews' edits", len(wanted))
    edits: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for paper, review in wanted:
        try:
            edits.setdefault(paper, {})[review] = client.note_edits(review, log)
        except FetchError as exc:
            if exc.status != 403:
                raise
            return {}, f"{SUCCESSIVE} ({client.api2.host} does not make the reviews' edits public: {exc})"
        progress.advance()
    return edits, FROM_EDITS


class HistoryStore(IngestStore, ReviewStore, Protocol):
    """What recording a history needs: the venues ingested and the review versions."""


def record_history(store: HistoryStore, entries: dict[str, dict[str, Any]]) -> int:
    """Keep every review version the snapshot's entries hold that the store has not yet, and each review's text
    where it is new or newer; how many versions were new."""
    known = {summary.venue.id for summary in store.venues()}
    versions: list[ReviewVersion] = []
    texts: list[ReviewText] = []
    for entry in entries.values():
        try:
            found, said = review_versions(entry), review_texts(entry)
        except (KeyError, TypeError, ValueError):  # a line the ingest reported as wrong
            continue
        versions += [v for v in found if v.venue in known]
        texts += [t for t in said if t.venue in known]
    with store.transaction():
        store.put_review_texts(texts)
        return store.add_review_versions(versions)
