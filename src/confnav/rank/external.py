"""Import user-supplied signals (citations, mentions, ...) from CSV or JSON, merged by paper id."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from confnav.errors import InputError, excerpt
from confnav.sources.base import load_text
from confnav.sources.values import citation_count, parse_number, to_float
from confnav.store.protocols import AnalysisStore

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


UNKNOWN_MARKS = {"n/a", "na", "-", "?", "unknown", "none", "null", "nan"}  # a count the file does not know


@dataclass
class ExternalImport:
    """What an import stored, the ids it did not know (reported, not stored), and which of its citation counts the
    ranking will use: a paper's own count (with its source and date) wins over a file's."""

    stored: int
    signals: list[str]
    unknown_ids: list[str] = field(default_factory=list)
    citations_used: int = 0  # papers without a count of their own
    citations_not_used: dict[str, int] = field(default_factory=dict)  # papers keeping their own count, by its source
    warnings: list[str] = field(default_factory=list)  # ids listed more than once, each with its lines

    def summary(self, file: str, venue: str) -> list[str]:
        """What was stored and what the ranking will use of it, in plain lines."""
        values = f"{self.stored} value{'s' * (self.stored != 1)}"
        said = [f"{file}: {values} of {', '.join(self.signals) or 'no signal'} stored for {venue}"]
        if "citations" in self.signals:
            kept = sum(self.citations_not_used.values())
            sources = ", ".join(sorted(self.citations_not_used))
            said.append(
                f"{file}: citations used for {self.citations_used} papers without a count of their own"
                + (f"; not for {kept} that keep their own ({sources}), which the ranking reads instead" if kept else "")
            )
        if any(name != "citations" for name in self.signals):
            said.append(f"{file}: every other signal is read looking back (never at the conference)")
        return said


def _rows(path: Path) -> list[tuple[int, dict[str | None, object]]]:
    text = load_text(path)
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"malformed JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None
        if not all(isinstance(item, dict) for item in data):
            raise InputError(path, "expected a JSON array of objects with an 'id'")
        return list(enumerate(data, start=1))
    reader = csv.DictReader(io.StringIO(text), delimiter="\t" if "\t" in text.split("\n", 1)[0] else ",")
    _one_column_each(path, list(reader.fieldnames or []), 1)  # a dict of the row would keep the last one only
    return [(reader.line_num, dict(row)) for row in reader]


def _one_column_each(path: Path, columns: list[str], line: int) -> None:
    """InputError naming a signal given by two columns (`citations` twice, or `Citations` and `citations`): which
    one the file means cannot be told, and one of them would be dropped without a word."""
    seen: dict[str, int] = {}
    for number, column in enumerate(columns, start=1):
        name = str(column).strip().lower()
        if name in seen:
            raise InputError(
                path, f"columns {seen[name]} and {number} both give {name!r}: keep one", line=line, field=column
            )
        seen[name] = number


def import_external(store: AnalysisStore, venue: str, path: Path) -> ExternalImport:
    """Store every numeric column (besides `id`) as `external:COLUMN`; unknown ids are skipped and listed."""
    venue = store.get_venue(venue).id
    rows = _rows(path)
    known = {p.id: p for p in store.iter_papers(venue)}
    result = ExternalImport(0, [])
    values: dict[tuple[str, str], float] = {}  # (paper, signal) → the file's first value, as ingest merges a paper
    lines: dict[str, list[int]] = {}
    dropped: dict[str, list[str]] = {}
    unknown: list[str] = []
    for line, row in rows:
        paper_id = str(row.get("id") or row.get("paper_id") or "").strip()
        if not paper_id:
            raise InputError(path, "row has no 'id'", line=line, field="id")
        if paper_id not in known:
            unknown.append(paper_id)
            continue
        lines.setdefault(paper_id, []).append(line)
        _one_column_each(path, [str(column) for column in row if column is not None], line)
        for name, value in _values(path, line, row):
            if (paper_id, name) not in values:
                values[paper_id, name] = value
            elif value != values[paper_id, name]:
                dropped.setdefault(paper_id, []).append(f"{name} {value:g} of line {line}")
    for paper_id, listed in lines.items():
        if len(listed) > 1:
            said = (
                f"id {paper_id!r} is listed on lines {', '.join(map(str, listed))}: each signal keeps its first value"
            )
            result.warnings.append(
                said + (f" ({'; '.join(dropped[paper_id])} not stored)" if paper_id in dropped else "")
            )
    for paper_id, name in values:
        if name == "citations":
            if (own := known[paper_id].citations) is None:
                result.citations_used += 1
            else:
                result.citations_not_used[own.source] = result.citations_not_used.get(own.source, 0) + 1
    stored = [(paper_id, name, value) for (paper_id, name), value in values.items()]
    with store.transaction():
        store.put_external_signals(venue, path.name, stored)
    result.stored, result.signals, result.unknown_ids = len(stored), sorted({n for _, n in values}), unknown
    return result


def _values(path: Path, line: int, row: dict[str | None, object]) -> list[tuple[str, float]]:
    """The signals of one row, by name; a citation count the file marks unknown is left out, never zero."""
    found = []
    for column, raw in row.items():
        if column is None:  # csv's key for the cells past the header's last column
            raise InputError(path, "more cells than the header has columns", line=line)
        if column in ("id", "paper_id") or raw in (None, ""):
            continue
        name = column.strip().lower()
        if not _NAME.match(name):
            raise InputError(path, f"signal name {column!r} must be lower-case letters, digits, _", field=column)
        if name == "citations":  # -1, "n/a" and the like mean unknown: left out, never zero
            if (count := _citations(raw, path, line, column)) is not None:
                found.append((name, count))
            continue
        try:
            found.append((name, parse_number(raw)))
        except ValueError as exc:
            raise InputError(path, str(exc), line=line, field=column) from None
    return found


def _citations(raw: object, path: Path, line: int, column: str) -> float | None:
    """A file's citation count; None for one it marks unknown (negative, "n/a", ...); an error naming the line and
    field for anything else that is no count (a word, a fraction, an absurd number)."""
    if isinstance(raw, str) and raw.strip().lower() in UNKNOWN_MARKS:
        return None
    try:
        counted = citation_count(raw, path.name)
        if counted is None:
            to_float(raw)  # a negative number: unknown; anything else raises
            return None
    except ValueError as exc:  # a word, or a count no paper has (fractional, infinite, absurdly large)
        message = str(exc) if "citation count" in str(exc) else f"citation count {excerpt(raw)} is not a number"
        raise InputError(path, f"{message} (-1, 'n/a' or empty: unknown)", line=line, field=column) from None
    return float(counted["count"])
