"""Which paper each record of a venue is of: ids adopted and assigned by title, duplicates within a file merged,
records superseded by newer ones of the same file, and records unchanged since the last run."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace

from confnav.ingest.results import FileResult
from confnav.model import synthetic_id, title_key
from confnav.sources import SourceRecord
from confnav.sources.base import untitled
from confnav.sources.merge import REMOVED
from confnav.store.base import canonical_json
from confnav.store.protocols import IngestStore

Key = tuple[str, str]


def record_changed(record: SourceRecord, stored: dict[str, list[SourceRecord]]) -> bool:
    """Whether a record differs from the one its file gave last time (or is new)."""
    assert record.id is not None
    before = next((r for r in stored.get(record.id, []) if r.source == record.source), None)
    return before is None or (before.kind, before.line, before.record, before.stored) != (
        record.kind,
        record.line,
        record.record,
        canonical_json(record.fields),
    )


def stored_records(
    store: IngestStore, venue: str, paper_ids: Collection[str] | None = None
) -> dict[str, list[SourceRecord]]:
    """A venue's stored records (of these papers only, when given), without those superseded by a newer record
    of the same file."""
    stored = store.records(venue, paper_ids)
    for paper_id, records in stored.items():
        stored[paper_id] = [r for r in records if not any(_supersedes(new, r) for new in records if new is not r)]
    return stored


def wanted_ids(venue: str, records: list[SourceRecord]) -> set[str] | None:
    """The stored papers a run of these records can touch: those of their ids, and those a title alone named
    (which a record of the same title adopts); None (every paper) when a record lacks an id or a title, for
    then it may take any stored paper's id by its title."""
    if any(r.id is None or not r.fields.get("title") for r in records):
        return None
    return {r.id for r in records if r.id} | {synthetic_id(venue, r.fields["title"]) for r in records}


def _supersedes(new: SourceRecord, old: SourceRecord) -> bool:
    """Whether `new` replaces `old`: the same source, or `old` filed under `new`'s bare file name by an earlier
    confnav (`paperlist.tsv`, now `iclr2021/paperlist.tsv`)."""
    legacy = "/" not in old.source and "/" in new.source and old.source == new.file_name and old.kind == new.kind
    return old.source == new.source or legacy


def _replaced_by(records: list[SourceRecord]) -> Callable[[SourceRecord], bool]:
    """Whether a stored record is one these records replace (see `_supersedes`), by its file alone."""
    sources = {r.source for r in records}
    legacy = {(r.file_name, r.kind) for r in records if "/" in r.source}
    return lambda old: old.source in sources or ("/" not in old.source and (old.source, old.kind) in legacy)


def assign_keys(
    records: list[SourceRecord], stored: dict[str, list[SourceRecord]], files: list[FileResult], strict: bool
) -> None:
    """Give each record of one venue its paper id: its own, else a paper's with the same title, else one it proposes.

    Records without a title (e.g. ratings rows) may only add to a paper that a
    file of this run or the store already has; others are reported as errors
    (a paper list's row without a title, skipped as one).
    """
    by_source = {f.source: f for f in files}
    titles: dict[str, str] = {}  # title key → paper id
    title_of: dict[str, str] = {}  # paper id → title key
    replaced = _replaced_by(records)
    for paper_id, recs in stored.items():
        for rec in recs:
            if replaced(rec):  # a file's earlier record: its new one (a title mended, say) takes its place
                continue
            if title := rec.fields.get("title"):
                titles.setdefault(title_key(title), paper_id)
                title_of.setdefault(paper_id, title_key(title))
    for rec in records:
        if rec.id is not None and "title" in rec.fields:
            titles.setdefault(title_key(rec.fields["title"]), rec.id)
            title_of.setdefault(rec.id, title_key(rec.fields["title"]))
    for rec in records:
        assert rec.venue is not None
        if rec.id is None:
            key = title_key(rec.fields["title"])
            proposed = rec.derived_id if title_of.get(rec.derived_id or "", key) == key else None
            rec.id = titles.get(key) or proposed or synthetic_id(rec.venue, rec.fields["title"])
            titles.setdefault(key, rec.id)
            title_of.setdefault(rec.id, key)
        elif "title" not in rec.fields and rec.id not in title_of:
            result = by_source[rec.source]
            if rec.lists_papers:
                result.skip(untitled(result.path, rec), strict)
                result.records -= 1
                continue
            result.errors.append(
                rec.error(
                    result.path, f"paper id {rec.id!r} is in no paper list of this run nor in the store", "paper_id"
                )
            )
            continue
        rec._key = (rec.venue, rec.id)


def adopt_ids(
    store: IngestStore, venue: str, records: list[SourceRecord], stored: dict[str, list[SourceRecord]]
) -> None:
    """A stored paper known so far by title only (a synthetic id) takes the id a record of this run gives the
    same title: whichever list arrives first, one paper, under its real id."""
    synthetic: dict[str, str] = {}  # title key → synthetic paper id
    for paper_id, recs in stored.items():
        title = next((r.fields["title"] for r in recs if r.fields.get("title")), None)
        if title and paper_id == synthetic_id(venue, title):
            synthetic[title_key(title)] = paper_id
    if not synthetic:
        return
    for rec in records:
        if rec.id is None or rec.id in stored or not rec.fields.get("title"):
            continue
        old = synthetic.pop(title_key(rec.fields["title"]), None)
        if old is not None:
            store.rename_paper(venue, old, rec.id)
            stored[rec.id] = stored.pop(old)
            for moved in stored[rec.id]:
                moved.id, moved._key = rec.id, (venue, rec.id)


def merge_duplicates(records: list[SourceRecord]) -> list[SourceRecord]:
    """One record per paper and file: a paper listed twice in a file keeps the first non-empty value of each field."""
    merged: dict[tuple[Key, str], SourceRecord] = {}
    for rec in records:
        assert rec._key is not None
        first = merged.setdefault((rec._key, rec.source), rec)
        if first is not rec:
            for name, value in rec.fields.items():
                if first.fields.get(name) in (None, "", [], {}):
                    first.fields[name] = value
            first.duplicates += 1
    return list(merged.values())


def apply_records(stored: dict[str, list[SourceRecord]], keyed: list[SourceRecord]) -> dict[str, list[SourceRecord]]:
    """A venue's records after this run's are written: a file's new record replaces its earlier one."""
    for rec in keyed:
        assert rec._key is not None
        paper_id = rec._key[1]
        stored[paper_id] = [*(r for r in stored.get(paper_id, []) if not _supersedes(rec, r)), rec]
    return stored


def dropped_records(
    venue: str, stored: dict[str, list[SourceRecord]], keyed: list[SourceRecord], sources: Collection[str]
) -> list[SourceRecord]:
    """For each stored paper a file of `sources` (each read whole this run) listed before and lists no more, that
    file's record again, marked REMOVED: the paper is no longer in it (merge_records says so when no file lists it)."""
    present = {(r.source, r._key[1]) for r in keyed if r._key is not None}
    dropped = []
    for paper_id, records in stored.items():
        for record in records:
            if record.source in sources and (record.source, paper_id) not in present and not record.fields.get(REMOVED):
                gone = replace(record, id=paper_id, fields={**record.fields, REMOVED: True}, stored=None)
                gone._key = (venue, paper_id)
                dropped.append(gone)
    return dropped
