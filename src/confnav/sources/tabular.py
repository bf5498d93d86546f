"""Generic CSV/TSV and JSONL paper lists, read through a documented column mapping.

Each Paper field is read from the first column whose name (case-insensitive)
matches one of its aliases; `--map FIELD=COLUMN` overrides an alias.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from confnav.errors import InputError
from confnav.sources.base import (
    ReadItem,
    SourceRecord,
    authors_field,
    citation_count,
    clean_id,
    links_from,
    openreview_id,
    openreview_links,
    parse_numbers,
    read_venue,
    split_list,
    url_id,
    web_url,
)

COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "paper_id", "forum", "openreview_id", "uid"),
    "title": ("title", "paper_title", "name"),
    "abstract": ("abstract", "summary"),
    "authors": ("authors", "author", "author_names"),
    "affiliations": ("affiliations", "aff", "affiliation"),
    "keywords": ("keywords", "keyword", "tags"),
    "decision": ("decision", "status", "outcome"),
    "ratings": ("ratings", "rating", "scores"),
    "confidences": ("confidences", "confidence"),
    "venue": ("venue", "conference"),
    "track": ("track",),
    "primary_area": ("primary_area", "area", "subject_area"),
    "session": ("session",),
    "citations": ("citations", "citation_count", "gs_citation", "cited_by"),
    "url": ("url", "link", "forum_url", "openreview"),
    "pdf": ("pdf", "pdf_url"),
    "doi": ("doi",),
    "code": ("code", "github", "code_url"),
    "site": ("site", "virtual_site"),
    "pid": ("pid", "ssid"),
    "tldr": ("tldr", "tl;dr", "tl_dr"),
}
MAPPABLE_FIELDS = tuple(COLUMN_ALIASES)


def resolve_columns(columns: list[str], overrides: dict[str, str] | None = None) -> dict[str, str]:
    """Map each Paper field to the column that holds it in this file."""
    lowered = {c.strip().lower(): c for c in columns}
    mapping: dict[str, str] = {}
    for target, aliases in COLUMN_ALIASES.items():
        for alias in aliases:
            if alias in lowered:
                mapping[target] = lowered[alias]
                break
    for target, column in (overrides or {}).items():
        mapping[target] = column
    return mapping


def record_from_row(path: Path, record: SourceRecord, row: dict[str, Any], mapping: dict[str, str]) -> ReadItem:
    """Fill a record from one row through the mapping; errors name the offending column."""

    def get(target: str) -> Any:
        column = mapping.get(target)
        value = row.get(column) if column else None
        return value.strip() if isinstance(value, str) else value

    fields = record.fields
    url = web_url(get("url")) or ""
    links = links_from({"site": url or get("site"), "pdf": get("pdf"), "doi": get("doi"), "code": get("code")})
    record.id = clean_id(get("id")) or openreview_id(url)
    if title := " ".join(str(get("title") or "").split()):
        fields["title"] = title
    if abstract := get("abstract"):
        fields["abstract"] = str(abstract)
    if venue := get("venue"):
        try:
            read_venue(record, str(venue))
        except ValueError as exc:
            return record.error(path, str(exc), mapping["venue"])
    names = _as_list(get("authors"), ";|") if get("authors") else []
    if names:
        if all(isinstance(n, dict) for n in names):
            fields["authors"] = [_author_object(n) for n in names]
        else:
            if len(names) == 1 and "," in str(names[0]):
                names = split_list(str(names[0]), ",")
            affiliations = _as_list(get("affiliations"), ";|") if get("affiliations") else None
            fields["authors"] = authors_field([str(n) for n in names], affiliations)
            if affiliations:
                fields["affiliations"] = list(dict.fromkeys(str(a) for a in affiliations if a))
    if keywords := get("keywords"):
        fields["keywords"] = [str(k) for k in _as_list(keywords, ";,")]
    if (decision := get("decision")) is not None:
        fields["decision"] = str(decision).strip()
    for target in ("ratings", "confidences"):
        if (value := get(target)) not in (None, ""):
            try:
                fields[target] = parse_numbers(value if isinstance(value, list) else str(value))
            except ValueError as exc:
                noun = "rating" if target == "ratings" else "confidence"
                return record.error(path, f"{noun} {exc}", mapping[target])
    for target in ("tldr", "track", "primary_area", "session"):
        if value := get(target):
            fields[target] = str(value)
    if (counted := get("citations")) not in (None, "") and (citations := citation_count(counted, path.name)):
        fields["citations"] = citations
    if record.id and openreview_id(url) == record.id:
        links = openreview_links(record.id) | links
    if links:
        fields["links"] = links
    if record.id is None:
        record.derived_id = clean_id(get("pid")) or url_id(url or links.get("doi") or links.get("pdf"))
    if record.id is None and "title" not in fields:
        return record.error(path, "row has neither an id nor a title", "title")
    return record


def _author_object(value: dict[str, Any]) -> dict[str, Any]:
    """An author given as an object: `name` or OpenReview's `fullname`, and a `username`/`profile` id."""
    name = str(value.get("name") or value.get("fullname") or "").strip()
    affiliation = value.get("affiliation")
    author = {"name": name, "affiliation": str(affiliation) if isinstance(affiliation, str) and affiliation else None}
    if profile := value.get("profile") or value.get("username") or value.get("id"):
        author["profile"] = str(profile)
    return author


def _as_list(value: Any, separators: str) -> list[Any]:
    return value if isinstance(value, list) else split_list(str(value), separators)


class CsvReader:
    """Comma- or tab-separated files with a header row."""

    format = "csv"

    def __init__(self, mapping: dict[str, str] | None = None) -> None:
        self.mapping = mapping

    def sniff(self, path: Path, text: str) -> bool:
        header = text.split("\n", 1)[0].lower()
        if header.lstrip().startswith(("[", "{")):
            return False  # JSON, not a table
        return ("," in header or "\t" in header) and any(a in header for a in COLUMN_ALIASES["title"])

    def read(self, path: Path, text: str) -> Iterator[ReadItem]:
        delimiter = "\t" if "\t" in text.split("\n", 1)[0] else ","
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        try:
            columns = next(reader)
        except csv.Error as exc:
            raise InputError(path, f"unreadable header: {exc}", line=1) from None
        mapping = resolve_columns(columns, self.mapping)
        _check_mapping(path, mapping, columns)
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield InputError(path, f"malformed CSV: {exc}", line=reader.line_num)
                continue
            number = reader.line_num
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(columns):
                yield InputError(path, f"expected {len(columns)} columns, found {len(cells)}", line=number)
                continue
            record = SourceRecord(source=path.name, kind=self.format, id=None, fields={}, line=number)
            yield record_from_row(path, record, dict(zip(columns, cells, strict=True)), mapping)


class JsonlReader:
    """One JSON object per line (also a JSON array of flat objects)."""

    format = "jsonl"

    def __init__(self, mapping: dict[str, str] | None = None) -> None:
        self.mapping = mapping

    def sniff(self, path: Path, text: str) -> bool:
        return text.lstrip().startswith("{")

    def read(self, path: Path, text: str) -> Iterator[ReadItem]:
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                yield InputError(path, f"malformed JSON: {exc.msg} (column {exc.colno})", line=number)
                continue
            if not isinstance(row, dict):
                yield InputError(path, "expected a JSON object on this line", line=number)
                continue
            record = SourceRecord(source=path.name, kind=self.format, id=None, fields={}, line=number)
            yield record_from_row(path, record, row, resolve_columns(list(row), self.mapping))


def _check_mapping(path: Path, mapping: dict[str, str], columns: list[str]) -> None:
    absent = sorted(target for target, column in mapping.items() if column not in columns)
    if absent:
        raise InputError(
            path, f"--map names column(s) not in the header: {', '.join(mapping[a] for a in absent)}", line=1
        )
    if "title" not in mapping and "id" not in mapping:
        raise InputError(path, "header has no title or id column (see docs/ingest.md for the column names)", line=1)
