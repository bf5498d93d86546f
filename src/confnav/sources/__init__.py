"""Readers for every supported paper-list format, chosen by content or by name."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from pathlib import Path

from confnav.errors import ConfnavError, InputError, argument
from confnav.registry import Factory, Registry
from confnav.sources.base import (
    RAW_BYTE,
    Reader,
    ReadItem,
    SourceRecord,
    bad_bytes,
    decode,
    load_bytes,
    not_text,
    venue_from_path,
)
from confnav.sources.checks import RecordCheck
from confnav.sources.markdown import MarkdownReader
from confnav.sources.miniconf import MiniconfReader
from confnav.sources.openreview_notes import OpenReviewNotesReader
from confnav.sources.openreview_tsv import OpenReviewTsvReader
from confnav.sources.paperlists import PaperlistsReader
from confnav.sources.tabular import CsvReader, JsonlReader


def _unmapped(reader: type[Reader]) -> Factory[Reader]:
    """A factory for a reader that takes no column mapping (a given one is ignored, as for every fixed format)."""
    return lambda mapping=None: reader()


# Format name → reader factory (called with `mapping`); detection tries them in this order, most specific first.
READERS: Registry[Reader] = Registry("format", ("format", "header_row", "sniff", "read"))
READERS.register("paperlists", _unmapped(PaperlistsReader))
READERS.register("openreview-tsv", _unmapped(OpenReviewTsvReader))
READERS.register("openreview-notes", _unmapped(OpenReviewNotesReader))
READERS.register("markdown", _unmapped(MarkdownReader))
READERS.register("miniconf", _unmapped(MiniconfReader))
READERS.register("jsonl", JsonlReader)
READERS.register("csv", CsvReader)
FORMATS = READERS.names()  # the built-in formats, for the CLI's help
LINE_FORMATS = ("openreview-notes",)  # a record per line and nothing else: a file of these can be read in part

__all__ = [
    "FORMATS",
    "READERS",
    "ReadItem",
    "Reader",
    "SourceRecord",
    "detect_format",
    "make_reader",
    "read_file",
    "venue_from_path",
]


def make_reader(name: str, mapping: dict[str, str] | None = None) -> Reader:
    """The reader for a format name (or a plugged `module:Class`, called with `mapping` only when one is given);
    `mapping` only matters to the CSV and JSONL readers."""
    try:
        factory = READERS.factory(name)
    except ConfnavError as exc:
        raise InputError(argument("fmt"), exc.marked()) from None
    return factory(mapping=mapping) if mapping is not None or name in READERS else factory()


def detect_format(path: Path, text: str) -> str:
    """The first format whose reader recognises the text (most specific first)."""
    for name in READERS.names():
        if make_reader(name).sniff(path, text):
            return name
    raise (bad_bytes(path, text) if RAW_BYTE.search(text) else None) or InputError(
        path, f"cannot tell the format from the content; pass {argument('fmt')} ({', '.join(READERS.names())})"
    )


def read_file(
    path: Path, fmt: str | None = None, mapping: dict[str, str] | None = None, lines: Collection[int] | None = None
) -> tuple[str, Iterator[ReadItem]]:
    """Load and parse one file: its format name and its records (or per-record errors), each record checked.

    Bytes that are not UTF-8 refuse the file when they are in a table's header (or leave the format unknown);
    elsewhere only the records that hold them. With `lines` (1-based), only those lines of a file of one record
    per line are parsed; the others are not read as records at all.
    """
    detected: list[str] = []

    def sniff(head: bytes, whole: bool) -> None:
        """Refuse from its start a file that is not text, or (without `fmt`) whose format no reader knows."""
        if problem := not_text(head):
            raise InputError(path, problem)
        # whole lines (or up to its last ASCII byte): no character of the sniffed start is cut in two
        start = head if whole else head[: head.rfind(b"\n") + 1] or head.rstrip(bytes(range(0x80, 0x100)))
        if fmt is None and start.strip():
            detected.append(detect_format(path, decode(start)[0]))

    text, has_bad_bytes = decode(load_bytes(path, sniff))
    if not text.strip():
        raise InputError(path, "file is empty")
    name = fmt or (detected[0] if detected else detect_format(path, text))
    if name in ("paperlists", "jsonl") and (inner := unwrapped(path, text)) is not None:
        text = inner
        name = fmt or detect_format(path, text)
    reader = make_reader(name, mapping)
    if lines is not None:
        if name not in LINE_FORMATS:
            raise ConfnavError(f"{path}: only a file of one record per line can be read in part, not {name}")
        text = only_lines(text, lines)
    header_end = text.find("\n")
    if (
        has_bad_bytes
        and reader.header_row
        and (problem := bad_bytes(path, text, 0, header_end if header_end >= 0 else None))
    ):
        raise problem
    return name, map(RecordCheck(path, text, has_bad_bytes), reader.read(path, text))


def unwrapped(path: Path, text: str) -> str | None:
    """The array of papers a JSON file wraps in an object (`{"papers": [...]}`, `{"data": ...}`, an API answer
    `{"notes": [...], "count": 3}`), as JSON text to read as an array; None for any other file (one object per
    line, or one record). An empty object, or one holding several arrays of objects, is refused in one line."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None  # one object per line, or malformed: the reader names the line
    if not isinstance(data, dict) or "title" in data:
        return None
    arrays = [(key, value) for key, value in data.items() if isinstance(value, list) and value]
    papers = [(key, value) for key, value in arrays if all(isinstance(item, dict) for item in value)]
    if len(papers) == 1:
        return json.dumps(papers[0][1], ensure_ascii=False, indent=1)
    if data and not papers:
        return None  # one record (an id and its decision, say): the reader reads it
    keys = ", ".join(map(repr, list(data)[:8])) or "none"
    holding = f"; it holds several arrays ({', '.join(k for k, _ in papers)})" if papers else ""
    raise InputError(path, f"a JSON object, not paper records (its keys: {keys}){holding}; expected an array of papers")


def only_lines(text: str, lines: Collection[int]) -> str:
    """`text` with every line but these (1-based) left blank: the lines kept keep their numbers."""
    wanted = set(lines)
    return "\n".join(line if number in wanted else "" for number, line in enumerate(text.split("\n"), 1))
