"""Snapshots of live sources: the raw answers on disk, ingested like any other file and kept for offline use.

An OpenReview snapshot is JSON lines, one submission per line with its fetch time (read by
sources/openreview_notes.py). It is replaced atomically; the pages of a run that has not finished are
kept in a `.part` log beside it, so that a new run resumes instead of asking again. The reviews' edits a
first fetch read are kept beside it too (`.edits`, a line per submission), written once: a later fetch
reads and rewrites only the submissions themselves.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def default_snapshot(store: Path, source: str, name: str, suffix: str = ".jsonl") -> Path:
    """`snapshots/<source>/<name>` beside the store file."""
    return store.resolve().parent / "snapshots" / source / (re.sub(r"[^A-Za-z0-9._-]+", "_", name) + suffix)


def read_snapshot(path: Path) -> tuple[dict[str, dict[str, Any]], int | None]:
    """The entries of an OpenReview snapshot by paper id, and the newest modification time they hold (ms)."""
    entries: dict[str, dict[str, Any]] = {}
    newest: int | None = None
    if not path.exists():
        return entries, None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        note = entry["note"]
        entries[str(note.get("forum") or note["id"])] = entry
        stamp = newest_time(note)
        if stamp is not None and (newest is None or stamp > newest):
            newest = stamp
    return entries, newest


def newest_time(note: dict[str, Any]) -> int | None:
    """The newest modification time a snapshot's submission holds, its own or a reply's (ms)."""
    stamps = [item.get("tmdate") for item in [note, *((note.get("details") or {}).get("replies") or [])]]
    return max((s for s in stamps if isinstance(s, int)), default=None)


def write_snapshot(path: Path, entries: dict[str, dict[str, Any]]) -> None:
    """All entries, one per line in their order (a held submission keeps its line, which the store's records
    name), written to a temporary file and moved into place."""
    _write_lines(path, entries.values())


def edits_file(snapshot: Path) -> Path:
    return snapshot.with_name(snapshot.name + ".edits")


def read_edits_file(snapshot: Path) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """The reviews' edits kept beside a snapshot: paper id → review id → edits (none without the file)."""
    path = edits_file(snapshot)
    if not path.exists():
        return {}
    lines = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {str(line["paper"]): line["edits"] for line in lines}


def write_edits_file(snapshot: Path, edits: dict[str, dict[str, list[dict[str, Any]]]]) -> None:
    """The reviews' edits beside a snapshot, a line per paper, replaced atomically."""
    _write_lines(edits_file(snapshot), ({"paper": paper, "edits": edits[paper]} for paper in sorted(edits)))


def _write_lines(path: Path, lines: Iterable[Any]) -> None:
    """JSON lines written to a temporary file and moved into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)


class PageLog:
    """Answers of an unfinished run, by query and offset, appended as they arrive; a run with another
    signature (venue, watermark) starts afresh."""

    def __init__(self, path: Path, signature: dict[str, Any]) -> None:
        self.path = path
        self.pages: dict[tuple[str, int], Any] = {}
        header = json.dumps({"signature": signature}, sort_keys=True)
        if path.exists():
            lines = path.read_text(encoding="utf-8").splitlines()
            if lines and lines[0] == header:
                for line in lines[1:]:
                    try:
                        page = json.loads(line)
                    except json.JSONDecodeError:
                        break  # the last line of a run that was killed mid-write
                    self.pages[(page["key"], page["offset"])] = page["answer"]
            else:
                lines = []
            self.resumed = len(self.pages)
        else:
            lines, self.resumed = [], 0
        path.parent.mkdir(parents=True, exist_ok=True)
        if not lines or lines[0] != header:
            path.write_text(header + "\n", encoding="utf-8")
        self._out = path.open("a", encoding="utf-8")

    def page(self, key: Any, offset: int) -> Any:
        return self.pages.get((json.dumps(key), offset))

    def record(self, key: Any, offset: int, answer: Any) -> Any:
        """Keep an answer (on disk at once) and return it."""
        self.pages[(json.dumps(key), offset)] = answer
        self._out.write(json.dumps({"key": json.dumps(key), "offset": offset, "answer": answer}) + "\n")
        self._out.flush()
        return answer

    def discard(self) -> None:
        self._out.close()
        self.path.unlink(missing_ok=True)

    def close(self) -> None:
        self._out.close()
