"""Generic CSV/TSV and JSONL paper lists, read through a documented column mapping.

Each Paper field is read from the first column whose name (case-insensitive)
matches one of its aliases; `--map FIELD=COLUMN` overrides an alias.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from confnav.errors import InputError, Said, argument
from confnav.limits import MAX_RECORD_CHARS
from confnav.model import RESOURCE_KINDS
from confnav.sources.base import (
    ReadItem,
    SourceRecord,
    authors_field,
    clean_id,
    numbered_lines,
    parse_json,
    printable_name,
    read_citations,
    read_venue,
    schedule_event,
    untitled,
)
from confnav.sources.links import links_from, openreview_id, openreview_links, resource_links, url_id, web_url
from confnav.sources.openreview_notes import value
from confnav.sources.schedules import event_start
from confnav.sources.values import (
    FieldError,
    as_authors,
    as_award,
    as_text,
    as_texts,
    as_title,
    delimiter_of,
    header_key,
    parse_numbers,
    split_list,
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
    "award": ("award", "awards"),
    "citations": ("citations", "citation_count", "gs_citation", "cited_by"),
    "url": ("url", "link", "forum_url", "openreview"),
    "pdf": ("pdf", "pdf_url"),
    "doi": ("doi",),
    "code": ("code", "github", "code_url"),
    "project": ("project", "project_page", "project_url"),
    "video": ("video", "video_url", "youtube"),
    "slides": ("slides", "slides_url", "slide"),
    "poster": ("poster", "poster_url"),
    "site": ("site", "virtual_site"),
    "pid": ("pid", "ssid"),
    "tldr": ("tldr", "tl;dr", "tl_dr"),
}
MAPPABLE_FIELDS = tuple(COLUMN_ALIASES)


_ALIAS_KEYS = {target: tuple(header_key(a) for a in aliases) for target, aliases in COLUMN_ALIASES.items()}


def resolve_columns(columns: list[str], overrides: dict[str, str] | None = None) -> dict[str, str]:
    """Map each Paper field to the column that holds it in this file (names compared as `header_key` makes them;
    of two columns of one name, the first)."""
    lowered: dict[str, str] = {}
    for column in columns:
        lowered.setdefault(header_key(column), column)
    mapping: dict[str, str] = {}
    for target, aliases in _ALIAS_KEYS.items():
        for alias in aliases:
            if alias in lowered:
                mapping[target] = lowered[alias]
                break
    for target, column in (overrides or {}).items():
        mapping[target] = column
    return mapping


def record_from_row(path: Path, record: SourceRecord, row: dict[str, Any], mapping: dict[str, str]) -> ReadItem:
    """Fill a record from one row through the mapping; errors name the offending column. A row with a start time
    and no authors, abstract or decision is a schedule's event, not a paper (a paper list may give talk times)."""
    paper_like = ("authors", "abstract", "decision")
    if not any(row.get(mapping.get(name, "")) for name in paper_like) and (start := event_start(row)):
        return schedule_event(path, record, start)
    try:
        return _fill(path, record, row, mapping)
    except FieldError as exc:
        return record.error(path, exc.message, exc.field)


def _fill(path: Path, record: SourceRecord, row: dict[str, Any], mapping: dict[str, str]) -> ReadItem:
    def raw(target: str) -> Any:
        value = row.get(mapping[target]) if target in mapping else None
        return value.strip() if isinstance(value, str) else value

    def text(target: str) -> str:
        return as_text(raw(target), mapping.get(target, target)).strip()

    fields = record.fields
    url = web_url(text("url")) or ""
    named = {"site": url or text("site"), "pdf": text("pdf"), "doi": text("doi")}
    links = resource_links(row) | links_from(named | {kind: text(kind) for kind in RESOURCE_KINDS})
    record.id = clean_id(raw("id"), mapping.get("id", "id")) or openreview_id(url)
    if title := " ".join(as_title(raw("title"), mapping.get("title", "title")).split()):
        fields["title"] = title
    if abstract := text("abstract"):
        fields["abstract"] = abstract
    if venue := text("venue"):
        try:
            read_venue(record, venue)
        except ValueError as exc:
            return record.error(path, str(exc), mapping["venue"])
    if authors := raw("authors"):
        fields.update(_authors(authors, raw("affiliations"), mapping))
    if (keywords := raw("keywords")) is not None:  # an empty cell too (SourceRecord)
        fields["keywords"] = as_texts(keywords, mapping["keywords"], ";,")
    if raw("decision") is not None:
        fields["decision"] = text("decision")
    for target in ("ratings", "confidences"):
        if (value := raw(target)) not in (None, ""):
            try:
                fields[target] = parse_numbers(value)
            except ValueError as exc:
                noun = "rating" if target == "ratings" else "confidence"
                return record.error(path, f"{noun} {exc}", mapping[target])
    for target in ("tldr", "track", "primary_area", "session"):
        if value := text(target):
            fields[target] = value
    if award := as_award(raw("award"), mapping.get("award", "award")):
        fields["award"] = award
    if "citations" in mapping:
        read_citations(path, record, raw("citations"), printable_name(path.name), mapping["citations"])
    if record.id and openreview_id(url) == record.id:
        links = openreview_links(record.id) | links
    if links:
        fields["links"] = links
    if record.id is None:
        record.derived_id = clean_id(raw("pid"), mapping.get("pid", "pid")) or url_id(
            url or links.get("doi") or links.get("pdf")
        )
    record.lists_papers = "title" in mapping  # a row of a list without a title adds to a paper it names by id
    if record.id is None and "title" not in fields:
        return untitled(path, record, mapping.get("title", "title"))
    return record


def _authors(given: Any, affiliations: Any, mapping: dict[str, str]) -> dict[str, Any]:
    """The `authors` field (and the paper's `affiliations`): objects carry their own affiliation; names take the
    affiliations column's, one per author."""
    column = mapping["authors"]
    if isinstance(given, list) and any(isinstance(author, dict) for author in given):
        return {"authors": as_authors(given, column)}
    names = as_texts(given, column, ";|")
    if len(names) == 1 and "," in names[0]:
        names = split_list(names[0], ",")
    if not affiliations:
        return {"authors": authors_field(names)}
    listed = as_texts(affiliations, mapping["affiliations"], ";|", keep_blanks=isinstance(affiliations, list))
    return {"authors": authors_field(names, listed), "affiliations": list(dict.fromkeys(a for a in listed if a))}


class CsvReader:
    """Comma- or tab-separated files with a header row."""

    format = "csv"
    names_unread = True  # a format built on CSV that reads more columns itself says nothing of them
    header_row = True

    def __init__(self, mapping: dict[str, str] | None = None) -> None:
        self.mapping = mapping

    def sniff(self, path: Path, text: str) -> bool:
        header = text.split("\n", 1)[0].lower()
        if header.lstrip().startswith(("[", "{")):
            return False  # JSON, not a table
        columns = {header_key(c) for c in header.split(delimiter_of(header))}
        if path.suffix.lower() in (".csv", ".tsv"):  # a table by its name: the reader says what its header lacks
            return len(columns) > 1
        return len(columns) > 1 and any(a in columns for a in (*_ALIAS_KEYS["title"], *_ALIAS_KEYS["id"]))

    def read(self, path: Path, text: str) -> Iterator[ReadItem]:
        previous = csv.field_size_limit(MAX_RECORD_CHARS)  # the module's own default is 128 Ki characters
        try:
            yield from self._rows(path, text)
        finally:
            csv.field_size_limit(previous)

    def _rows(self, path: Path, text: str) -> Iterator[ReadItem]:
        delimiter = delimiter_of(text.split("\n", 1)[0])
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        try:
            columns = next(reader)
        except csv.Error as exc:
            raise InputError(path, f"unreadable header: {_csv_problem(exc)}", line=1) from None
        columns = [c if c not in columns[:i] else f"{c} ({i + 1})" for i, c in enumerate(columns)]  # a name twice
        mapping = resolve_columns(columns, self.mapping)
        _check_mapping(path, mapping, columns)
        unread = self.unread(path, columns, mapping)
        ended = reader.line_num  # a row starts on the line after the last one ended (its quoted cells may span more)
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield InputError(path, f"malformed CSV: {_csv_problem(exc)}", line=ended + 1)
                ended = reader.line_num
                continue
            number, ended = ended + 1, reader.line_num
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(columns):
                yield InputError(path, f"expected {len(columns)} columns, found {len(cells)}", line=number)
                continue
            record = SourceRecord(source=path.name, kind=self.format, id=None, fields={}, line=number)
            if unread:  # said once, with the file's first record
                record.warnings.append(unread)
                unread = ""
            yield self.record(path, record, dict(zip(columns, cells, strict=True)), mapping)

    def unread(self, path: Path, columns: list[str], mapping: dict[str, str]) -> str:
        """A warning naming the header's columns no field reads ("Writers", "Verdict"), or "": what `--map` is for."""
        left = [c for c in columns if c not in set(mapping.values()) and c.strip()]
        if not left or not self.names_unread:
            return ""
        named = ", ".join(repr(c) for c in left[:8]) + (", …" if len(left) > 8 else "")
        return Said(
            f"{path.name}: column(s) not read: {named}; {argument('mapping')} (a field to a column) reads one"
            " (docs/ingest.md)"
        )

    def record(self, path: Path, record: SourceRecord, row: dict[str, str], mapping: dict[str, str]) -> ReadItem:
        """One row's record (a format built on CSV reads its own columns here too)."""
        return record_from_row(path, record, row, mapping)


class JsonlReader:
    """One JSON object per line, or a JSON array of flat objects; keys are read as CSV columns are."""

    format = "jsonl"
    header_row = False

    def __init__(self, mapping: dict[str, str] | None = None) -> None:
        self.mapping = mapping

    def sniff(self, path: Path, text: str) -> bool:
        return text.lstrip().startswith(("{", "["))

    def read(self, path: Path, text: str) -> Iterator[ReadItem]:
        if text.lstrip().startswith("["):
            yield from self._array(path, text)
            return
        for line in numbered_lines(path, text):
            if isinstance(line, InputError):
                yield line
                continue
            number, content = line
            try:
                row = parse_json(path, content, number)
            except InputError as exc:
                yield exc
                continue
            if not isinstance(row, dict):
                yield InputError(path, "expected a JSON object on this line", line=number)
                continue
            row = note_fields(row)
            record = SourceRecord(source=path.name, kind=self.format, id=None, fields={}, line=number)
            yield record_from_row(path, record, row, resolve_columns(list(row), self.mapping))

    def _array(self, path: Path, text: str) -> Iterator[ReadItem]:
        """The records of a JSON array of objects, numbered as they come."""
        data = parse_json(path, text)
        if not isinstance(data, list):
            raise InputError(path, "expected a JSON array of paper records")
        for number, row in enumerate(data, start=1):
            if not isinstance(row, dict):
                yield InputError(path, "expected a JSON object", record=number)
                continue
            row = note_fields(row)
            record = SourceRecord(source=path.name, kind=self.format, id=None, fields={}, record=number)
            yield record_from_row(path, record, row, resolve_columns(list(row), self.mapping))


def note_fields(row: dict[str, Any]) -> dict[str, Any]:
    """A record in a note's shape (OpenReview's and MiniConf's `{"id", "forum", "content": {…}}`) as a flat one:
    its content's fields (API 2's `{"value": …}` unwrapped) beside the top level's; other records as they are."""
    content = row.get("content")
    if not isinstance(content, dict):
        return row
    flat = {key: value(content, key) for key in content}
    return {**{key: found for key, found in row.items() if key != "content"}, **flat}


def _csv_problem(exc: csv.Error) -> str:
    """The csv module's complaint in words a user can act on."""
    if "field larger than field limit" in str(exc):
        return f"a field of more than {MAX_RECORD_CHARS:,} characters (the limit for one field)"
    return str(exc)


def _check_mapping(path: Path, mapping: dict[str, str], columns: list[str]) -> None:
    absent = sorted(target for target, column in mapping.items() if column not in columns)
    if absent:
        raise InputError(
            path,
            f"{argument('mapping')} names column(s) not in the header: {', '.join(mapping[a] for a in absent)}",
            line=1,
        )
    if "title" not in mapping and "id" not in mapping:
        raise InputError(path, "header has no title or id column (see docs/ingest.md for the column names)", line=1)
