"""Import user-supplied signals (citations, mentions, ...) from CSV or JSON, merged by paper id."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from confnav.errors import InputError
from confnav.sources.base import load_text
from confnav.sources.values import citation_count, parse_number
from confnav.store.protocols import AnalysisStore

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass
class ExternalImport:
    """What an import stored, and the ids it did not know (reported, not stored)."""

    stored: int
    signals: list[str]
    unknown_ids: list[str] = field(default_factory=list)


def _rows(path: Path) -> list[tuple[int, dict[str, object]]]:
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
    return [(reader.line_num, dict(row)) for row in reader]


def import_external(store: AnalysisStore, venue: str, path: Path) -> ExternalImport:
    """Store every numeric column (besides `id`) as `external:COLUMN`; unknown ids are skipped and listed."""
    store.get_venue(venue)
    rows = _rows(path)
    known = {p.id for p in store.iter_papers(venue)}
    stored: list[tuple[str, str, float]] = []
    unknown: list[str] = []
    names: set[str] = set()
    for line, row in rows:
        paper_id = str(row.get("id") or row.get("paper_id") or "").strip()
        if not paper_id:
            raise InputError(path, "row has no 'id'", line=line, field="id")
        if paper_id not in known:
            unknown.append(paper_id)
            continue
        for column, raw in row.items():
            if column in ("id", "paper_id") or raw in (None, ""):
                continue
            name = column.strip().lower()
            if not _NAME.match(name):
                raise InputError(path, f"signal name {column!r} must be lower-case letters, digits, _", field=column)
            if name == "citations":  # -1, "n/a" and the like mean unknown: left out, never zero, never an error
                try:
                    counted = citation_count(raw, path.name)
                except ValueError as exc:  # a count no paper has (fractional, infinite, absurdly large)
                    raise InputError(path, str(exc), line=line, field=column) from None
                if counted:
                    stored.append((paper_id, name, float(counted["count"])))
                    names.add(name)
                continue
            try:
                stored.append((paper_id, name, parse_number(raw)))
            except ValueError as exc:
                raise InputError(path, str(exc), line=line, field=column) from None
            names.add(name)
    with store.transaction():
        store.put_external_signals(venue, path.name, stored)
    return ExternalImport(len(stored), sorted(names), unknown)
