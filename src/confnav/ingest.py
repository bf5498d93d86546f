"""Ingest paper lists into a store: read, check, key, merge and write, all in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from confnav.errors import ConfnavError, InputError
from confnav.model import Venue, synthetic_id, title_key
from confnav.progress import Progress, Silent
from confnav.sources import SourceRecord, read_file, venue_from_path
from confnav.sources.merge import merge_records
from confnav.store.base import Store


@dataclass
class FileResult:
    """What one input file gave: its detected format, good records, and bad ones."""

    path: str
    format: str | None = None
    records: int = 0
    errors: list[InputError] = field(default_factory=list)


@dataclass
class IngestResult:
    """Counts of papers added, updated and unchanged, and every skipped problem."""

    files: list[FileResult]
    venues: list[str]
    added: int = 0
    updated: int = 0
    unchanged: int = 0

    @property
    def errors(self) -> list[InputError]:
        return [e for f in self.files for e in f.errors]

    def to_dict(self) -> dict[str, object]:
        return {
            "venues": self.venues,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "files": [{"path": f.path, "format": f.format, "records": f.records} for f in self.files],
            "skipped": [str(e) for e in self.errors],
        }


class IngestError(ConfnavError):
    """The input had problems and nothing was written."""

    def __init__(self, errors: list[InputError]) -> None:
        self.errors = errors
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        super().__init__(f"{errors[0]}{more}; nothing was written (use --skip-bad to ingest the good records)")


def ingest(
    store: Store,
    paths: Sequence[str | Path],
    *,
    venue: str | None = None,
    fmt: str | None = None,
    mapping: dict[str, str] | None = None,
    skip_bad: bool = False,
    progress: Progress | None = None,
) -> IngestResult:
    """Read `paths`, merge them with what the store holds, and write the result atomically.

    Without `skip_bad` any problem raises IngestError before anything is written.
    """
    progress = progress or Silent()
    try:
        default_venue = Venue.parse(venue).id if venue else None
    except ValueError as exc:
        raise ConfnavError(f"--venue: {exc}") from None
    files = [FileResult(str(p)) for p in paths]
    records: list[SourceRecord] = []
    progress.start("reading", len(files))
    for result in files:
        records.extend(_read_one(Path(result.path), result, fmt, mapping, default_venue))
        progress.advance()
    venues = {v: Venue.parse(v) for v in sorted({r.venue for r in records if r.venue})}
    stored = {v: store.records(v) for v in venues}
    _assign_keys(records, stored, files)
    if any(f.errors for f in files) and not skip_bad:
        raise IngestError([e for f in files for e in f.errors])
    keyed = [r for r in records if r._key is not None]
    outcome = IngestResult(files=files, venues=list(venues))
    with store.transaction():
        for v in venues.values():
            store.put_venue(v)
        store.put_records(keyed)
        touched = sorted({r._key for r in keyed if r._key})
        progress.start("merging", len(touched))
        merged_sources = {v: store.records(v) for v in venues}
        for venue_id, paper_id in touched:
            paper = merge_records(venues[venue_id], paper_id, merged_sources[venue_id][paper_id])
            change = store.put_paper(paper)
            setattr(outcome, change, getattr(outcome, change) + 1)
            progress.advance()
    return outcome


def _read_one(
    path: Path, result: FileResult, fmt: str | None, mapping: dict[str, str] | None, default_venue: str | None
) -> list[SourceRecord]:
    """The good records of one file; its problems go to `result.errors` (a file-level one drops the file)."""
    good: list[SourceRecord] = []
    first_seen: dict[str, str] = {}
    try:
        result.format, items = read_file(path, fmt, mapping)
        for item in items:
            if isinstance(item, InputError):
                result.errors.append(item)
                continue
            item.venue = item.venue or default_venue or venue_from_path(path)
            if item.venue is None:
                raise InputError(path, "the file does not name its venue; pass --venue (e.g. --venue iclr2021)")
            if item.id is not None:
                if item.id in first_seen:
                    result.errors.append(
                        item.error(path, f"duplicate id {item.id!r} (first at {first_seen[item.id]})", "id")
                    )
                    continue
                first_seen[item.id] = item.locator
            good.append(item)
    except InputError as exc:
        result.errors.append(exc)
        return []
    result.records = len(good)
    return good


def _assign_keys(
    records: list[SourceRecord], stored: dict[str, dict[str, list[SourceRecord]]], files: list[FileResult]
) -> None:
    """Give each record its (venue, paper id): its own id, else a paper with the same title.

    Records without a title (e.g. ratings rows) may only add to a paper that a
    file of this run or the store already has; others are reported as errors.
    """
    by_path = {Path(f.path).name: f for f in files}
    titles: dict[str, dict[str, str]] = {v: {} for v in stored}
    known: dict[str, set[str]] = {v: set(ids) for v, ids in stored.items()}
    for venue, by_id in stored.items():
        for paper_id, recs in by_id.items():
            for rec in recs:
                if title := rec.fields.get("title"):
                    titles[venue].setdefault(title_key(title), paper_id)
    with_id = [r for r in records if r.id is not None and "title" in r.fields]
    for rec in with_id:
        assert rec.venue is not None and rec.id is not None
        known[rec.venue].add(rec.id)
        titles[rec.venue].setdefault(title_key(rec.fields["title"]), rec.id)
    for rec in records:
        assert rec.venue is not None
        if rec.id is None:
            key = title_key(rec.fields["title"])
            rec.id = titles[rec.venue].setdefault(key, synthetic_id(rec.venue, rec.fields["title"]))
            known[rec.venue].add(rec.id)
        elif "title" not in rec.fields and rec.id not in known[rec.venue]:
            by_path[rec.source].errors.append(
                rec.error(
                    by_path[rec.source].path,
                    f"paper id {rec.id!r} is in no paper list of this run nor in the store",
                    "paper_id",
                )
            )
            continue
        rec._key = (rec.venue, rec.id)
