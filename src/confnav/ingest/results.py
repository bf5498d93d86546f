"""What an ingest gives: per file its format, good records and problems; in all the papers added, updated and
unchanged, the papers a write changed (for watchers of news), and warnings worth a line each."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Protocol

from confnav.errors import ConfnavError, InputError, Said, argument
from confnav.model import Paper
from confnav.sources import SourceRecord
from confnav.sources.base import Untitled

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
        return Said(
            f"{self.path}: {len(skipped)} {noun} without a title skipped ({where}); {argument('strict', True)}"
            " refuses such a file"
        )


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
    dropped: list[tuple[str, str]] = field(default_factory=list)  # (file, venue/id) of each paper a file dropped
    # Papers of venues the files do not list, merged again with the decision table given (a --config override of
    # their venue) or newer merge rules: by venue, how many were updated and unchanged; never in the counts above.
    remerged: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    remerged_by: str = "the decision table given"

    def remerged_line(self) -> str | None:
        """One line naming the other venues whose papers were merged again, with what changed in each."""
        if not self.remerged:
            return None
        counts = [
            f"{venue} {c['updated']:,} updated, {c['unchanged']:,} unchanged"
            for venue, c in sorted(self.remerged.items())
        ]
        return f"other venues' papers merged again with {self.remerged_by}: {'; '.join(counts)}"

    def dropped_lines(self) -> list[str]:
        """One line per file that no longer lists papers it listed before, naming a few."""
        by_file: dict[str, list[str]] = defaultdict(list)
        for name, paper in self.dropped:
            by_file[name].append(paper)
        return [
            f"{name}: {len(ids)} paper{'s' * (len(ids) > 1)} it listed before no longer in it, kept as "
            f"'No longer listed' where no other file lists them ({', '.join(ids[:5])}{', …' if len(ids) > 5 else ''})"
            for name, ids in by_file.items()
        ]

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
            "no_longer_listed": [f"{name}: {paper}" for name, paper in self.dropped],
            "merged_again": {
                venue: {"updated": c["updated"], "unchanged": c["unchanged"]}
                for venue, c in sorted(self.remerged.items())
            },
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
        super().__init__(
            f"{errors[0].marked()}{more}; nothing was written"
            f" (use {argument('skip_bad', True)} to ingest the good records)"
        )


def warning_lines(records: list[SourceRecord], others: dict[str, Counter[str]]) -> list[str]:
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
