"""Reading an ingest's files into records: the name each file's records are kept under, and each record's venue
checked."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path, PurePath

from confnav import limits
from confnav.errors import ConfnavError, InputError, argument, excerpt
from confnav.ingest.results import FileResult
from confnav.model import named_venue, split_venue
from confnav.sources import SourceRecord, read_file
from confnav.sources.base import (
    ScheduleEvent,
    Untitled,
    printable_name,
    schedule_hint,
    venue_and_track_from_path,
)


def checked_paths(paths: object) -> list[str | Path]:
    """The `paths` argument as a list of paths, else a ConfnavError naming it: one path given as text is not read
    as a list of one-letter files, and an item that is no path is named by its place."""
    if isinstance(paths, str | bytes | os.PathLike):
        raise ConfnavError(f"paths: give a list of files ([{excerpt(str(paths))}]), not one path")
    if not isinstance(paths, Iterable):
        raise ConfnavError(f"paths: give a list of files, not {excerpt(paths)}")
    checked: list[str | Path] = []
    for number, path in enumerate(paths, start=1):
        if not isinstance(path, str | os.PathLike) or not isinstance(os.fspath(path), str):
            raise ConfnavError(f"paths: item {number} ({excerpt(path)}) is not a file path")
        checked.append(path if isinstance(path, str) else Path(path))  # as given: messages name it so
    return checked


def source_keys(paths: Sequence[str | Path]) -> list[str]:
    """The name each file's records are stored under: its folder and file name (`iclr2021/paperlist.tsv`),
    the same from whichever directory ingest runs; more folders where two inputs of one run share that."""
    absolute = [PurePath(os.path.abspath(p)) for p in paths]
    distinct = set(absolute)

    def tail(path: PurePath, depth: int) -> str:
        return "/".join(printable_name(part) for part in path.parts[-depth:] if part != path.anchor)

    keys: dict[PurePath, str] = {}
    for path in distinct:
        depth = 2
        while depth < len(path.parts) and any(o != path and tail(o, depth) == tail(path, depth) for o in distinct):
            depth += 1
        keys[path] = tail(path, depth)
    return [keys[path] for path in absolute]


def venue_problem(venue: str) -> str | None:
    """Why a venue name cannot be a venue of this store (unreadable, with words left over, or a year out of
    range), else None."""
    try:
        year = named_venue(venue).year
    except ValueError as exc:
        with contextlib.suppress(ValueError):
            if split_venue(venue)[1]:  # a track is read from the file, never from a venue's name
                return (
                    f"{exc}; a paper's track comes from its file (a track field, or a name like icml2024_workshop.json)"
                )
        return str(exc)
    if not limits.FIRST_YEAR <= year <= limits.last_year():
        return f"the year {year} is outside {limits.FIRST_YEAR}–{limits.last_year()}"
    return None


def read_one(
    path: Path,
    result: FileResult,
    fmt: str | None,
    mapping: dict[str, str] | None,
    default_venue: str | None,
    strict: bool,
    lines: Collection[int] | None = None,
) -> list[SourceRecord]:
    """The good records of one file (of these lines only, when given); its problems go to `result.errors` (a
    file-level one drops the file)."""
    good: list[SourceRecord] = []
    file_venue, file_track = (default_venue, None) if default_venue else venue_and_track_from_path(path)
    venue_problems: dict[str, str | None] = {}
    events: list[ScheduleEvent] = []
    try:
        result.format, items = read_file(path, fmt, mapping, lines)
        for item in items:
            if isinstance(item, ScheduleEvent):
                events.append(item)
                continue
            if isinstance(item, Untitled):
                result.skip(item, strict)
                continue
            if isinstance(item, InputError):
                result.errors.append(item)
                continue
            item.source = result.source
            if item.venue is None and file_track and not item.fields.get("track"):
                item.fields["track"] = file_track
            item.venue = item.venue or file_venue
            if item.venue is None:
                raise InputError(
                    path,
                    f"the file does not name its venue; pass {argument('venue')}"
                    f" (e.g. {argument('venue', 'iclr2021')})",
                )
            if item.venue not in venue_problems:
                venue_problems[item.venue] = venue_problem(item.venue)
            if problem := venue_problems[item.venue]:
                result.errors.append(item.error(path, problem, "venue"))
                continue
            good.append(item)
    except InputError as exc:
        result.errors.append(exc)
        return []
    if events and not good:  # nothing but events: the file is a schedule, said once
        noun = "record is an event" if len(events) == 1 else f"{len(events)} records are events"
        result.errors.append(
            InputError(
                path,
                f"a schedule, not a paper list: its {noun} with a start time and no authors, abstract or decision;"
                f" {schedule_hint(path)}",
            )
        )
        return []
    result.errors.extend(events)
    result.records = len(good)
    return good
