"""Live sources: fetch a snapshot from a service, then ingest it in one transaction like any other file.

Only `confnav fetch` touches the network; everything else works on the store. A fetch that fails or is
interrupted leaves the store as it was, and the next run resumes from the pages already fetched.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from confnav.fetch.arrivals import ArrivalRecorder, ArrivalsStore
from confnav.fetch.history import HistoryStore, read_edits, record_history
from confnav.fetch.http import FetchError, HttpClient
from confnav.fetch.openreview import OpenReviewClient
from confnav.fetch.snapshot import PageLog, default_snapshot, now, read_snapshot, write_snapshot
from confnav.ingest import ChangeWatcher, IngestResult, ingest
from confnav.model import Venue
from confnav.progress import Progress, Silent
from confnav.settings import Settings
from confnav.sources.openreview_notes import venue_of_group

__all__ = ["FetchError", "FetchResult", "fetch_openreview", "fetch_paperlists"]


class FetchStore(HistoryStore, ArrivalsStore, Protocol):
    """What a fetch from OpenReview needs: the ingest, the review histories and the decisions that arrived."""


PAPERLISTS_NAMES = {"neurips": "nips"}  # the project's folder names where they differ from confnav's series ids


@dataclass
class FetchResult:
    """What a fetch transferred, where its snapshot is, and what the ingest of it changed."""

    source: str
    snapshot: Path
    notes: int
    requests: int
    resumed_pages: int
    ingest: IngestResult
    review_versions: int = 0  # review versions new to the store
    history: str = ""  # where this fetch found the reviews' history, when it looked
    decided: int = 0  # papers pending before this fetch that it found decided

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "snapshot": str(self.snapshot),
            "fetched": self.notes,
            "requests": self.requests,
            "resumed_pages": self.resumed_pages,
            "review_versions": self.review_versions,
            "decided": self.decided,
            **({"review_history": self.history} if self.history else {}),
            **self.ingest.to_dict(),
        }


def fetch_openreview(
    store: FetchStore,
    store_path: Path,
    venue_id: str,
    *,
    snapshot: Path | None = None,
    full: bool = False,
    client: OpenReviewClient | None = None,
    progress: Progress | None = None,
    settings: Settings | None = None,
    watcher: ChangeWatcher | None = None,
) -> FetchResult:
    """Every submission of an OpenReview venue with its public reviews and decision, into the store.

    With a snapshot from an earlier run, only notes changed since then are asked for (unless `full`); the
    `watcher` hears of the papers the ingest added or changed. Every version of a review seen is kept in the
    store; the first fetch of an API 2 venue reads the earlier ones from the reviews' edits.
    """
    progress = progress or Silent()
    client = client or OpenReviewClient.from_settings(settings or Settings(), progress=progress)
    path = snapshot or default_snapshot(store_path, "openreview", venue_id)
    entries, newest = read_snapshot(path)
    info = client.venue(venue_id)
    since = None if full or not entries else newest
    log = PageLog(path.with_name(path.name + ".part"), {"venue": venue_id, "api": info.api, "since": since})
    progress.start(f"fetching {venue_id}", None)
    try:
        notes = list(client.changed_since(info, since, log) if since is not None else client.submissions(info, log))
        edits, history = read_edits(client, info, notes, log, progress) if not entries else ({}, "")
    finally:
        log.close()
    fetched = now()
    for note in notes:
        paper = str(note.get("forum") or note["id"])
        kept = edits.get(paper) or entries.get(paper, {}).get("edits")
        entries[paper] = {
            "fetched": fetched,
            "api": info.api,
            "venue": venue_id,
            "note": note,
            **({"edits": kept} if kept else {}),
        }
    if notes or not path.exists():
        write_snapshot(path, entries)
    requests = client.api2.requests + client.api1.requests
    marker = path.with_name(path.name + ".ingested")
    stat = path.stat()
    stamp = json.dumps({"store": str(store_path.resolve()), "size": stat.st_size, "mtime": stat.st_mtime_ns})
    arrivals = ArrivalRecorder(store, watcher)
    if entries and (notes or not marker.exists() or marker.read_text() != stamp):
        result = ingest(store, [path], progress=progress, watcher=arrivals)
        marker.write_text(stamp)
    else:  # nothing new, and this snapshot is already in this store
        result = IngestResult([], [], unchanged=len(entries))
    versions = record_history(store, entries)
    arrivals.finish([*result.venues, *([] if not entries else [venue_of_group(venue_id)[0].id])])
    log.discard()
    found = FetchResult("openreview", path, len(notes), requests, log.resumed, result, versions, history)
    found.decided = arrivals.decided
    return found


def fetch_paperlists(
    store: ArrivalsStore,
    store_path: Path,
    venue: str,
    *,
    base_url: str | None = None,
    snapshot: Path | None = None,
    http: HttpClient | None = None,
    progress: Progress | None = None,
    settings: Settings | None = None,
    watcher: ChangeWatcher | None = None,
) -> FetchResult:
    """One venue's file of the paperlists project (`nips2024`, `cvpr2025`), saved and ingested (the `watcher`
    hears of the papers added or changed)."""
    parsed = Venue.parse(venue)
    folder = PAPERLISTS_NAMES.get(parsed.conference, parsed.conference)
    client = http or HttpClient(base_url or (settings or Settings()).paperlists_url)
    try:
        data = client.get(f"/{folder}/{folder}{parsed.year}.json")
    except FetchError as exc:
        if exc.status == 404:
            raise FetchError(
                f"the paperlists project has no file for {venue} ({client.host}/{folder}/{folder}{parsed.year}.json)"
            ) from None
        raise
    if not isinstance(data, list):
        raise FetchError(f"{client.host} answered with something that is not a paperlists file (a JSON array)")
    path = snapshot or default_snapshot(store_path, "paperlists", f"{folder}{parsed.year}", ".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    os.replace(temporary, path)
    arrivals = ArrivalRecorder(store, watcher)
    result = ingest(store, [path], venue=parsed.id, progress=progress, watcher=arrivals)
    arrivals.finish(result.venues)
    return FetchResult("paperlists", path, len(data), client.requests, 0, result, decided=arrivals.decided)
