"""Readers for every supported paper-list format, chosen by content or by name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from confnav.errors import InputError
from confnav.sources.base import (
    RAW_BYTE,
    Reader,
    ReadItem,
    SourceRecord,
    bad_bytes,
    decode,
    load_bytes,
    venue_from_path,
)
from confnav.sources.checks import RecordCheck
from confnav.sources.markdown import MarkdownReader
from confnav.sources.openreview_notes import OpenReviewNotesReader
from confnav.sources.openreview_tsv import OpenReviewTsvReader
from confnav.sources.paperlists import PaperlistsReader
from confnav.sources.tabular import CsvReader, JsonlReader

FORMATS = ("paperlists", "openreview-tsv", "openreview-notes", "markdown", "csv", "jsonl")
_HEADER_FORMATS = ("openreview-tsv", "csv")
_DETECTION_ORDER = ("paperlists", "openreview-tsv", "openreview-notes", "markdown", "jsonl", "csv")

__all__ = [
    "FORMATS",
    "ReadItem",
    "Reader",
    "SourceRecord",
    "detect_format",
    "make_reader",
    "read_file",
    "venue_from_path",
]


def make_reader(name: str, mapping: dict[str, str] | None = None) -> Reader:
    """The reader for a format name; `mapping` only matters to the CSV and JSONL readers."""
    readers: dict[str, Reader] = {
        "paperlists": PaperlistsReader(),
        "openreview-tsv": OpenReviewTsvReader(),
        "openreview-notes": OpenReviewNotesReader(),
        "markdown": MarkdownReader(),
        "csv": CsvReader(mapping),
        "jsonl": JsonlReader(mapping),
    }
    if name not in readers:
        raise InputError("--format", f"unknown format {name!r} (choose from {', '.join(FORMATS)})")
    return readers[name]


def detect_format(path: Path, text: str) -> str:
    """The first format whose reader recognises the text (most specific first)."""
    for name in _DETECTION_ORDER:
        if make_reader(name).sniff(path, text):
            return name
    raise (bad_bytes(path, text) if RAW_BYTE.search(text) else None) or InputError(
        path, f"cannot tell the format from the content; pass --format ({', '.join(FORMATS)})"
    )


def read_file(
    path: Path, fmt: str | None = None, mapping: dict[str, str] | None = None
) -> tuple[str, Iterator[ReadItem]]:
    """Load and parse one file: its format name and its records (or per-record errors), each record checked.

    Bytes that are not UTF-8 refuse the file when they are in a table's header (or leave the format unknown);
    elsewhere only the records that hold them.
    """
    text, has_bad_bytes = decode(load_bytes(path))
    if not text.strip():
        raise InputError(path, "file is empty")
    name = fmt or detect_format(path, text)
    header_end = text.find("\n")
    if (
        has_bad_bytes
        and name in _HEADER_FORMATS
        and (problem := bad_bytes(path, text, 0, header_end if header_end >= 0 else None))
    ):
        raise problem
    return name, map(RecordCheck(path, text, has_bad_bytes), make_reader(name, mapping).read(path, text))
