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

from confnav.errors import ConfnavError, VenueNameError
from confnav.fetch.arrivals import ArrivalRecorder, ArrivalsStore
from confnav.fetch.history import HistoryStore, read_edits, record_history
from confnav.fetch.http import FetchError, HttpClient
from confnav.fetch.openreview import OpenReviewClient
from confnav.fetch.snapshot import (
    PageLog,
    default_snapshot,
    newest_time,
    now,
    read_edits_file,
    read_snapshot,
    write_edits_file,
    write_snapshot,
)
from confnav.ingest import ChangeWatcher, IngestResult, ingest
from confnav.model import named_venue
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

    With a snapshot from an earlier run, only notes changed since then are asked for (unless `full`) and put in
    place in the snapshot; the `watcher` hears of the papers the ingest added or changed. Every version of a
    review seen is kept in the store; the first fetch of an API 2 venue reads the earlier ones from the reviews'
    edits. Once a run has recorded a snapshot's history, later runs read the snapshot only when something
    changed, and ingest and record only the submissions they fetched: the rest of the store is left untouched.
    The ingest, the reviews' versions and texts and the fetch's run are written in one transaction.
    """
    if not venue_id.strip():  # refused before any request (and before a login)
        raise ConfnavError("venue_id is empty: give an OpenReview venue id, e.g. ICLR.cc/2025/Conference")
    progress = progress or Silent()
    client = client or OpenReviewClient.from_settings(settings or Settings(), progress=progress)
    path = snapshot or default_snapshot(store_path, "openreview", venue_id)
    marker = path.with_name(path.name + ".ingested")
    done = _last_run(marker, store_path, path)  # the last run that finished, if the snapshot is as it left it
    held: dict[str, dict[str, Any]] | None = None
    if done is None or full:
        held, newest = read_snapshot(path)
        since = None if full or not held else newest
    else:
        since = done["newest"]
    first = held is not None and not held  # no snapshot yet: the history before this fetch is in the edits

    def entries_held() -> dict[str, dict[str, Any]]:
        nonlocal held
        held = read_snapshot(path)[0] if held is None else held
        return held

    info = client.venue(venue_id)
    log = PageLog(path.with_name(path.name + ".part"), {"venue": venue_id, "api": info.api, "since": since})
    progress.start(f"fetching {venue_id}", None)
    try:
        if since is not None:
            notes = list(
                client.changed_since(info, since, log, lambda: {p: e["note"] for p, e in entries_held().items()})
            )
        else:
            notes = list(client.submissions(info, log))
        edits, history = read_edits(client, info, notes, log, progress) if first else ({}, "")
    finally:
        log.close()
    if done is not None and not notes:  # nothing changed since the last run, which left this store complete
        log.discard()
        ArrivalRecorder(store, watcher).finish([venue_of_group(venue_id)[0].id])  # a fetch that decided none
        result = IngestResult([], [], unchanged=int(done["entries"]))
        requests = client.api2.requests + client.api1.requests
        return FetchResult("openreview", path, 0, requests, log.resumed, result, 0, history)
    entries = entries_held()
    fetched, touched = now(), []
    for note in sorted(notes, key=_number):  # new submissions go last: a held one keeps its line in the snapshot
        paper = str(note.get("forum") or note["id"])
        touched.append(paper)
        kept = entries.get(paper, {}).get("edits")  # a snapshot written before the edits were kept beside it
        entries[paper] = {
            "fetched": fetched,
            "api": info.api,
            "venue": venue_id,
            "note": note,
            **({"edits": kept} if kept else {}),
        }
    if edits:
        write_edits_file(path, edits)
    if notes or not path.exists():
        write_snapshot(path, entries)
    requests = client.api2.requests + client.api1.requests
    stamp = _stamp(store_path, path)
    arrivals = ArrivalRecorder(store, watcher)
    with store.transaction():
        if entries and (notes or done is None):
            only = set(touched) if done is not None and not full else None
            result = _ingest(store, path, entries, only, progress, arrivals)
        else:  # nothing new, and this snapshot is already in this store
            result = IngestResult([], [], unchanged=len(entries))
        if done is not None:  # the earlier versions are in the store: only the reviews of this run's notes are new
            versions = record_history(store, [entries[p] for p in touched])
        else:
            edits = edits or read_edits_file(path)
            entries_edits = [{**e, "edits": edits[p]} if p in edits else e for p, e in entries.items()]
            versions = record_history(store, entries_edits)
        arrivals.finish([*result.venues, *([] if not entries else [venue_of_group(venue_id)[0].id])])
    newest = max((t for e in entries.values() if (t := newest_time(e["note"])) is not None), default=None)
    marker.write_text(json.dumps({**json.loads(stamp or "{}"), "newest": newest, "entries": len(entries)}))
    log.discard()
    found = FetchResult("openreview", path, len(notes), requests, log.resumed, result, versions, history)
    found.decided = arrivals.decided
    return found


def _ingest(
    store: FetchStore,
    path: Path,
    entries: dict[str, dict[str, Any]],
    touched: set[str] | None,
    progress: Progress,
    watcher: ChangeWatcher,
) -> IngestResult:
    """The snapshot ingested: only the lines of the `touched` submissions when given (the store holds the others
    as they are), else every line."""
    if touched is None:
        return ingest(store, [path], progress=progress, watcher=watcher)
    lines = [number for number, paper in enumerate(entries, 1) if paper in touched]
    result = ingest(store, [path], progress=progress, watcher=watcher, lines=lines)
    result.unchanged += len(entries) - len(lines)
    return result


def _number(note: dict[str, Any]) -> tuple[int, str]:
    """A submission's place among those new to a snapshot: by number, then id."""
    number = note.get("number")
    return (number if isinstance(number, int) else 0, str(note.get("forum") or note["id"]))


def _last_run(marker: Path, store_path: Path, snapshot: Path) -> dict[str, Any] | None:
    """What the last finished run left in the marker (the snapshot's newest time, how many entries) when the
    snapshot and store are the ones it names and the snapshot is as it left it; written once the history is
    recorded too, so a run cut short before that is not taken for finished."""
    try:
        found = json.loads(marker.read_text())
    except (OSError, ValueError):
        return None
    stamp = _stamp(store_path, snapshot)
    if not isinstance(found, dict) or not stamp or "newest" not in found:
        return None
    return found if all(found.get(k) == v for k, v in json.loads(stamp).items()) else None


def _stamp(store_path: Path, snapshot: Path) -> str:
    """What says a snapshot is in a store: the store, and the snapshot's size and modification time."""
    if not snapshot.exists():
        return ""
    stat = snapshot.stat()
    return json.dumps({"store": str(store_path.resolve()), "size": stat.st_size, "mtime": stat.st_mtime_ns})


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
    try:
        parsed = named_venue(venue)
    except ValueError as exc:  # `iclr` without its year, or a track: the project has one file per conference-year
        raise VenueNameError(f"{exc}; the paperlists project has one file per conference-year") from None
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
