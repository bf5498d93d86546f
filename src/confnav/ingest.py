"""Ingest paper lists into a store: read, check, key, merge and write, all in one transaction."""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Protocol

from confnav import limits
from confnav.decisions import DecisionTable
from confnav.errors import ConfnavError, InputError
from confnav.model import Outcome, Paper, Venue, synthetic_id, title_key
from confnav.progress import Progress, Silent
from confnav.sources import SourceRecord, read_file, venue_from_path
from confnav.sources.base import Untitled, printable_name, untitled
from confnav.sources.identity import keep_apart
from confnav.sources.merge import MERGE_VERSION, merge_records
from confnav.store.base import canonical_json
from confnav.store.protocols import IngestStore

Key = tuple[str, str]
MAX_WARNINGS_PER_FILE = 50  # a hostile file can have a million records over a limit; the lines stay readable
SHOWN_UNTITLED = 5  # records without a title named in a file's summary line


@dataclass
class FileResult:
    """What one input file gave: its detected format, good records, and bad ones."""

    path: str
    format: str | None = None
    records: int = 0
    errors: list[InputError] = field(default_factory=list)
    source: str = ""
    untitled: list[Untitled] = field(default_factory=list)

    def skip(self, problem: Untitled, strict: bool) -> None:
        """Note a record without a title: skipped, or bad input under `strict`."""
        (self.errors if strict else self.untitled).append(problem)

    def untitled_line(self) -> str | None:
        """One line summing up the records skipped for having no title (how many, which), if any."""
        if not (skipped := self.untitled):
            return None
        by = "record" if all(u.record is not None for u in skipped) else "line"
        places = [u.record if by == "record" else u.line for u in skipped]
        shown = ", ".join(str(place) for place in places[:SHOWN_UNTITLED] if place is not None)
        more = ", …" if len(places) > SHOWN_UNTITLED else ""
        noun = "record" if len(skipped) == 1 else "records"
        where = f"{by}{'s' * (len(places) > 1)} {shown}{more}" if shown else "no line numbers"
        return f"{self.path}: {len(skipped)} {noun} without a title skipped ({where}); --strict refuses such a file"


@dataclass
class IngestResult:
    """Counts of papers added, updated and unchanged, every skipped problem, and warnings worth a line each."""

    files: list[FileResult]
    venues: list[str]
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    warnings: list[str] = field(default_factory=list)
    others: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter), repr=False)

    @property
    def errors(self) -> list[InputError]:
        return [e for f in self.files for e in f.errors]

    @property
    def untitled(self) -> list[str]:
        """One line per file that had records without a title, which were skipped."""
        return [line for f in self.files if (line := f.untitled_line())]

    def to_dict(self) -> dict[str, object]:
        return {
            "venues": self.venues,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "files": [{"path": f.path, "format": f.format, "records": f.records} for f in self.files],
            "skipped": [str(e) for e in self.errors],
            "untitled": self.untitled,
            "warnings": self.warnings,
        }


@dataclass(frozen=True)
class PaperChange:
    """A paper an ingest added (`before` is None) or changed, as it was and as it is now."""

    before: Paper | None
    after: Paper


class ChangeWatcher(Protocol):
    """Told, inside the ingest's transaction, which papers each venue's write added or changed (news of watches)."""

    def watching(self) -> bool:
        """Whether anything wants changes: when not, the ingest reads no paper before writing it."""
        ...

    def record(self, changes: list[PaperChange]) -> None: ...


class IngestError(ConfnavError):
    """The input had problems and nothing was written."""

    def __init__(self, errors: list[InputError]) -> None:
        self.errors = errors
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        super().__init__(f"{errors[0]}{more}; nothing was written (use --skip-bad to ingest the good records)")


def ingest(
    store: IngestStore,
    paths: Sequence[str | Path],
    *,
    venue: str | None = None,
    fmt: str | None = None,
    mapping: dict[str, str] | None = None,
    skip_bad: bool = False,
    strict: bool = False,
    decisions: DecisionTable | None = None,
    progress: Progress | None = None,
    watcher: ChangeWatcher | None = None,
    lines: Collection[int] | None = None,
) -> IngestResult:
    """Read `paths`, merge them with what the store holds, and write the result atomically.

    `decisions` overrides the decision table for its venues or series (kept in the
    store, and applied to every paper of those venues). Without `skip_bad` any
    problem raises IngestError before anything is written. A record without a
    title is skipped (counted per file), or under `strict` a problem like any other. A `watcher` is told
    which papers were added or changed, in the same transaction. With `lines`, of one file whose other lines
    the store holds as they are (a snapshot a fetch patched), only those lines are read and only their papers
    merged again: the store ends as an ingest of the whole file leaves it (the counts are of those lines' papers).
    """
    progress = progress or Silent()
    if venue and (problem := venue_problem(venue)):
        raise ConfnavError(f"--venue: {problem}")
    if lines is not None and (len(paths) != 1 or decisions is not None):
        raise ConfnavError("only one file, without decision overrides, can be ingested in part")
    if lines is not None and store.merge_version() != MERGE_VERSION:
        lines = None  # papers merged by older rules are merged again: every line is read
    default_venue = Venue.parse(venue).id if venue else None
    files = [FileResult(str(p), source=key) for p, key in zip(paths, source_keys(paths), strict=True)]
    records: list[SourceRecord] = []
    progress.start("reading", len(files))
    for result in files:
        records.extend(_read_one(Path(result.path), result, fmt, mapping, default_venue, strict, lines))
        progress.advance()
    by_venue: dict[str, list[SourceRecord]] = defaultdict(list)
    for record in records:
        by_venue[record.venue or ""].append(record)
    outcome = IngestResult(files=files, venues=sorted(by_venue))
    scopes = set(decisions.overrides) if decisions else set()
    with store.transaction():  # keys come from the store as it is inside the transaction that writes them
        watching = watcher if watcher is not None and watcher.watching() else None
        if decisions is not None:
            store.put_decision_overrides(decisions)
        table = store.decision_table()
        stale_rules = store.merge_version() != MERGE_VERSION
        progress.start("merging", len(records))
        for venue_id, venue_records in sorted(by_venue.items()):
            parsed = Venue.parse(venue_id)
            wanted = _wanted_ids(venue_id, venue_records) if lines is not None else None
            stored = _stored_records(store, venue_id, wanted)
            _adopt_ids(store, venue_id, venue_records, stored)
            keep_apart(venue_records, stored, {f.source: f.path for f in files})
            if wanted is not None and (apart := {r.id for r in venue_records if r.id} - wanted):
                stored.update(_stored_records(store, venue_id, apart))  # ids kept apart from another paper's
            _assign_keys(venue_records, stored, files, strict)
            keyed = _merge_duplicates([r for r in venue_records if r._key is not None])
            changed = [r for r in keyed if _changed(r, stored)]
            store.put_venue(parsed)
            store.put_records(changed)
            sources = _apply(stored, changed)
            everything = stale_rules or bool(scopes & {parsed.id, parsed.conference})
            redo = sorted(sources) if everything else sorted({r.id for r in changed if r.id})
            moved = _merge_into(store, parsed, sources, redo, table, outcome, watching, lines is not None)
            outcome.unchanged += len({r.id for r in keyed} - set(redo))
            _count_other(keyed, parsed, table, outcome)
            if redo and moved:  # the sessions the papers' own `session` field names, when papers changed them
                store.sync_list_sessions(venue_id)
            progress.advance(len(venue_records))
        if any(f.errors for f in files) and not skip_bad:
            raise IngestError([e for f in files for e in f.errors])  # rolls back everything written above
        for summary in store.venues() if stale_rules or scopes else []:  # changed overrides (or rules) apply to
            applies = stale_rules or scopes & {summary.venue.id, summary.venue.conference}  # every paper of a venue
            if summary.venue.id not in by_venue and applies:
                sources = _stored_records(store, summary.venue.id)
                _merge_into(store, summary.venue, sources, sorted(sources), table, outcome, watching)
        store.set_merge_version(MERGE_VERSION)
    outcome.warnings = _warnings(records, outcome.others)
    return outcome


def _changed(record: SourceRecord, stored: dict[str, list[SourceRecord]]) -> bool:
    """Whether a record differs from the one its file gave last time (or is new)."""
    assert record.id is not None
    before = next((r for r in stored.get(record.id, []) if r.source == record.source), None)
    return before is None or (before.kind, before.line, before.record, before.stored) != (
        record.kind,
        record.line,
        record.record,
        canonical_json(record.fields),
    )


def _merge_into(
    store: IngestStore,
    venue: Venue,
    sources: dict[str, list[SourceRecord]],
    paper_ids: list[str],
    table: DecisionTable,
    outcome: IngestResult,
    watcher: ChangeWatcher | None = None,
    compare: bool = False,
) -> bool:
    """Merge and write the papers `paper_ids` of a venue from their records, counting what changed; the
    watcher hears of the papers added or changed (only those are read before the write). Whether the papers
    changed may have changed the sessions they name: always, unless `compare`d with the papers as stored."""
    papers = [merge_records(venue, paper_id, sources[paper_id], table) for paper_id in paper_ids]
    before = store.papers_by_id(venue.id, paper_ids) if watcher is not None or compare else {}
    changes = store.put_papers(papers)
    for change in changes:
        setattr(outcome, change, getattr(outcome, change) + 1)
    touched = [PaperChange(before.get(p.id), p) for p, c in zip(papers, changes, strict=True) if c != "unchanged"]
    if watcher is not None and touched:
        watcher.record(touched)
    return not compare or any((t.before.session if t.before else None) != t.after.session for t in touched)


def _count_other(keyed: list[SourceRecord], venue: Venue, table: DecisionTable, outcome: IngestResult) -> None:
    """Papers of this run whose decision label the table does not know, by label."""
    for label, ids in _labels_by_paper(keyed).items():
        if table.meaning(label, venue)[0] is Outcome.OTHER:
            outcome.others[venue.id][label] += len(ids)


def _labels_by_paper(keyed: list[SourceRecord]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for record in keyed:
        if label := str(record.fields.get("decision") or "").strip():
            found[label].add(record.id or "")
    return found


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


def _stored_records(
    store: IngestStore, venue: str, paper_ids: Collection[str] | None = None
) -> dict[str, list[SourceRecord]]:
    """A venue's stored records (of these papers only, when given), without those superseded by a newer record
    of the same file."""
    stored = store.records(venue, paper_ids)
    for paper_id, records in stored.items():
        stored[paper_id] = [r for r in records if not any(_supersedes(new, r) for new in records if new is not r)]
    return stored


def _wanted_ids(venue: str, records: list[SourceRecord]) -> set[str] | None:
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


def venue_problem(venue: str) -> str | None:
    """Why a venue name cannot be a venue of this store (unreadable, or a year out of range), else None."""
    try:
        year = Venue.parse(venue).year
    except ValueError as exc:
        return str(exc)
    if not limits.FIRST_YEAR <= year <= limits.last_year():
        return f"the year {year} is outside {limits.FIRST_YEAR}–{limits.last_year()}"
    return None


def _read_one(
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
    file_venue = default_venue or venue_from_path(path)
    venue_problems: dict[str, str | None] = {}
    try:
        result.format, items = read_file(path, fmt, mapping, lines)
        for item in items:
            if isinstance(item, Untitled):
                result.skip(item, strict)
                continue
            if isinstance(item, InputError):
                result.errors.append(item)
                continue
            item.source = result.source
            item.venue = item.venue or file_venue
            if item.venue is None:
                raise InputError(path, "the file does not name its venue; pass --venue (e.g. --venue iclr2021)")
            if item.venue not in venue_problems:
                venue_problems[item.venue] = venue_problem(item.venue)
            if problem := venue_problems[item.venue]:
                result.errors.append(item.error(path, problem, "venue"))
                continue
            good.append(item)
    except InputError as exc:
        result.errors.append(exc)
        return []
    result.records = len(good)
    return good


def _assign_keys(
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
    for paper_id, recs in stored.items():
        for rec in recs:
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


def _adopt_ids(
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


def _merge_duplicates(records: list[SourceRecord]) -> list[SourceRecord]:
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


def _apply(stored: dict[str, list[SourceRecord]], keyed: list[SourceRecord]) -> dict[str, list[SourceRecord]]:
    """A venue's records after this run's are written: a file's new record replaces its earlier one."""
    for rec in keyed:
        assert rec._key is not None
        paper_id = rec._key[1]
        stored[paper_id] = [*(r for r in stored.get(paper_id, []) if not _supersedes(rec, r)), rec]
    return stored


def _warnings(records: list[SourceRecord], others: dict[str, Counter[str]]) -> list[str]:
    """Lines a user should read: values cut or dropped, labels the decision table does not know, ids shared or
    repeated within a file (at most MAX_WARNINGS_PER_FILE record lines per file, then their count)."""
    lines: list[str] = []
    per_source = Counter(r.source for r in records for _ in r.warnings)
    shown: Counter[str] = Counter()
    for record in records:
        for warning in record.warnings:
            shown[record.source] += 1
            if shown[record.source] <= MAX_WARNINGS_PER_FILE:
                lines.append(warning)
    for source, n in per_source.items():
        if n > MAX_WARNINGS_PER_FILE:
            lines.append(f"{source}: {n - MAX_WARNINGS_PER_FILE} more warnings like these")
    repeated = Counter(r.source for r in records if r.duplicates)
    for source, n in repeated.items():
        lines.append(f"{source}: {n} papers listed more than once; their records were merged")
    for venue, labels in sorted(others.items()):
        listed = ", ".join(f"{label!r} ({n} paper{'s' * (n > 1)})" for label, n in labels.most_common())
        lines.append(
            f"{venue}: decision label(s) not in the decision table, kept and counted as 'other': {listed}; "
            f"map them under [decisions.{venue}] in a config file (docs/ingest.md)"
        )
    return lines
