"""Ingest paper lists into a store: read, check, key, merge and write, all in one transaction. The job is here;
its phases are `read` (files into records), `keying` (records to papers) and `results` (what it gives)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from pathlib import Path

from confnav.decisions import DecisionTable
from confnav.errors import ConfnavError, InputError, argument
from confnav.ingest.keying import (
    adopt_ids,
    apply_records,
    assign_keys,
    dropped_records,
    merge_duplicates,
    record_changed,
    stored_records,
    wanted_ids,
)
from confnav.ingest.read import checked_paths, read_one, source_keys, venue_problem
from confnav.ingest.results import ChangeWatcher, FileResult, IngestError, IngestResult, PaperChange, warning_lines
from confnav.model import Outcome, Venue, named_venue
from confnav.progress import Progress, Silent
from confnav.sources import SourceRecord
from confnav.sources.identity import keep_apart
from confnav.sources.merge import MERGE_VERSION, merge_records
from confnav.store.protocols import IngestStore

__all__ = [
    "ChangeWatcher",
    "FileResult",
    "IngestError",
    "IngestResult",
    "PaperChange",
    "ingest",
    "source_keys",
    "venue_problem",
]


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
    paths = checked_paths(paths)
    progress = progress or Silent()
    if venue and (problem := venue_problem(venue)):
        raise ConfnavError(f"{argument('venue')}: {problem}")
    if lines is not None and (len(paths) != 1 or decisions is not None):
        raise ConfnavError("only one file, without decision overrides, can be ingested in part")
    if lines is not None and store.merge_version() != MERGE_VERSION:
        lines = None  # papers merged by older rules are merged again: every line is read
    default_venue = named_venue(venue).id if venue else None  # a name with words left over was refused above
    files = [FileResult(str(p), source=key) for p, key in zip(paths, source_keys(paths), strict=True)]
    records: list[SourceRecord] = []
    progress.start("reading", len(files))
    for result in files:
        records.extend(read_one(Path(result.path), result, fmt, mapping, default_venue, strict, lines))
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
        new_venues = {venue_id for venue_id in sorted(by_venue) if store.put_venue(Venue.parse(venue_id))}
        sessions_moved: list[tuple[str, bool, list[tuple[str, str | None]] | None]] = []
        for venue_id, venue_records in sorted(by_venue.items()):
            parsed = Venue.parse(venue_id)
            new = venue_id in new_venues  # added just now, it holds nothing: its records and papers are not read
            wanted = wanted_ids(venue_id, venue_records) if lines is not None else None
            stored = {} if new else stored_records(store, venue_id, wanted)
            adopt_ids(store, venue_id, venue_records, stored)
            keep_apart(venue_records, stored, {f.source: f.path for f in files})
            if wanted is not None and (apart := {r.id for r in venue_records if r.id} - wanted):
                stored.update(stored_records(store, venue_id, apart))  # ids kept apart from another paper's
            assign_keys(venue_records, stored, files, strict)
            keyed = merge_duplicates([r for r in venue_records if r._key is not None])
            if lines is None and not new:  # a file read whole lists all its papers: those it dropped are said so
                whole = {f.source for f in files if not f.errors}
                dropped = dropped_records(venue_id, stored, keyed, whole)
                outcome.dropped.extend((r.file_name, f"{venue_id}/{r.id}") for r in dropped)
                keyed += dropped
            changed = [r for r in keyed if record_changed(r, stored)]
            store.put_records(changed)
            sources = apply_records(stored, changed)
            everything = stale_rules or bool(scopes & {parsed.id, parsed.conference})
            redo = sorted(sources) if everything else sorted({r.id for r in changed if r.id})
            tally: Counter[str] = Counter()
            touched = _merge_into(store, parsed, sources, redo, table, tally, watching, lines is not None, new)
            outcome.added += tally["added"]
            outcome.updated += tally["updated"]
            outcome.unchanged += tally["unchanged"] + len({r.id for r in keyed} - set(redo))
            _count_other(keyed, parsed, table, outcome)
            named = any(t.after.session for t in touched)  # the sessions the papers' own `session` field names
            if _sessions_moved(touched, lines is not None) and (named or not new):
                held = [(t.after.id, t.after.session) for t in touched] if new else None  # a new venue's every paper
                sessions_moved.append((venue_id, named, held))
            progress.advance(len(venue_records))
        for venue_id, named, held in sessions_moved:  # once every venue is written: nothing waits for a write
            store.sync_list_sessions(venue_id, named=named, papers=held)
        for result in files if lines is None else ():
            if not result.records and result.untitled:  # no record names a paper: the wrong reader, or the wrong file
                result.errors.append(_no_titles(result))
                result.untitled = []
        if any(f.errors for f in files) and not skip_bad:
            raise IngestError([e for f in files for e in f.errors])  # rolls back everything written above
        for in_store in store.venue_list() if stale_rules or scopes else []:  # changed overrides (or rules) apply to
            applies = stale_rules or scopes & {in_store.id, in_store.conference}  # every paper of a venue
            if in_store.id not in by_venue and applies:  # counted apart: the files listed none of its papers
                sources = stored_records(store, in_store.id)
                outcome.remerged_by = "newer merge rules" if stale_rules else "the decision table given"
                _merge_into(store, in_store, sources, sorted(sources), table, outcome.remerged[in_store.id], watching)
        store.set_merge_version(MERGE_VERSION)
    outcome.warnings = warning_lines(records, outcome.others) + outcome.dropped_lines()
    return outcome


def _no_titles(result: FileResult) -> InputError:
    return InputError(
        result.path,
        f"none of its {len(result.untitled)} records has a title: not a paper list in the {result.format} format? "
        f"({argument('fmt')} and {argument('mapping')} name another; docs/ingest.md lists the column names)",
    )


def _merge_into(
    store: IngestStore,
    venue: Venue,
    sources: dict[str, list[SourceRecord]],
    paper_ids: list[str],
    table: DecisionTable,
    tally: Counter[str],
    watcher: ChangeWatcher | None = None,
    compare: bool = False,
    new: bool = False,
) -> list[PaperChange]:
    """Merge and write the papers `paper_ids` of a venue from their records, counting in `tally` how many were
    added, updated (really changed: put_papers compares each with the paper stored) or unchanged, and return
    the papers added or changed; the watcher hears of them (only those are read before the write, and all of
    them when `compare`: then each change holds the paper as stored before). A `new` venue holds no papers yet."""
    papers = [merge_records(venue, paper_id, sources[paper_id], table) for paper_id in paper_ids]
    looked_up = (watcher is not None or compare) and not new
    before = store.papers_by_id(venue.id, paper_ids) if looked_up else {}
    changes = store.put_papers(papers, new_venues=[venue.id] if new else ())
    tally.update(changes)
    touched = [PaperChange(before.get(p.id), p) for p, c in zip(papers, changes, strict=True) if c != "unchanged"]
    if watcher is not None and touched:
        watcher.record(touched)
    return touched


def _sessions_moved(touched: list[PaperChange], compared: bool) -> bool:
    """Whether the changed papers may have changed the sessions the venue's papers name: exactly when each was
    `compared` with the paper as stored, else whenever a paper changed."""
    if compared:
        return any((t.before.session if t.before else None) != t.after.session for t in touched)
    return bool(touched)


def _count_other(keyed: list[SourceRecord], venue: Venue, table: DecisionTable, outcome: IngestResult) -> None:
    """Papers of this run whose decision label the table does not know, by label."""
    for label, ids in _labels_by_paper(keyed).items():
        if table.meaning(label, venue) == (Outcome.OTHER, "other"):  # not one the table or a config names
            outcome.others[venue.id][label] += len(ids)


def _labels_by_paper(keyed: list[SourceRecord]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for record in keyed:
        if label := str(record.fields.get("decision") or "").strip():
            found[label].add(record.id or "")
    return found
