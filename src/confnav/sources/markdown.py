"""Markdown paper lists as people share them: `## [i] Title`, then `**Field**: value` lines."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from confnav.sources.base import ReadItem, SourceRecord, read_venue, untitled
from confnav.sources.links import links_from, openreview_id, openreview_links, url_id

# Values are taken to the end of the line and stripped afterwards: a lazy `.*?\s*$` would try every
# position against every run of spaces, quadratic on a hostile line of spaces.
_HEADING = re.compile(r"^##\s+(?:\[\d+\]\s*)?(?P<title>.*)$")
_FIELD = re.compile(r"^\*\*(?P<name>[A-Za-z ;]+)\*\*\s*:(?P<value>.*)$")
_MD_LINK = re.compile(r"\]\((https?://[^)\s]+)\)")
_BARE_LINK = re.compile(r"https?://[^\s<>\[\]()]+")
_RULE = re.compile(r"^\s*(-{3,}|\*{3,}|_{3,})\s*$")
_KNOWN_FIELDS = {"authors", "conference", "url", "abstract", "tldr", "tl;dr", "keywords", "decision"}


class MarkdownReader:
    """Reads the `## [i] Title` / `**Authors**` / `**Conference**` / `**URL**` / `**Abstract**` layout."""

    format = "markdown"
    header_row = False

    def sniff(self, path: Path, text: str) -> bool:
        return bool(re.search(r"^##\s", text, re.M)) and bool(_FIELD.search(text[:20000]) or "**" in text[:20000])

    def read(self, path: Path, text: str) -> Iterator[ReadItem]:
        for start, lines in _blocks(text.splitlines()):
            item = self._record(path, start, lines)
            if item is not None:
                yield item

    def _record(self, path: Path, start: int, lines: list[str]) -> ReadItem | None:
        title = _unemphasize(_HEADING.match(lines[0]).group("title"))  # type: ignore[union-attr]
        values = _field_values(lines[1:])
        if not values.keys() & _KNOWN_FIELDS:
            return None  # a section heading, not a paper
        record = SourceRecord(source=path.name, kind=self.format, id=None, fields={}, line=start)
        if not title:
            return untitled(path, record, None)
        record.fields["title"] = title
        if "conference" in values:
            try:
                read_venue(record, _unemphasize(values["conference"]))
            except ValueError as exc:
                return record.error(path, str(exc), "Conference")
        if names := _unemphasize(values.get("authors", "")):
            record.fields["authors"] = [{"name": n.strip(), "affiliation": None} for n in names.split(",") if n.strip()]
        if "keywords" in values:  # an empty line too (SourceRecord)
            keywords = _unemphasize(values["keywords"])
            record.fields["keywords"] = [k.strip() for k in re.split(r"[;,]", keywords) if k.strip()]
        if abstract := values.get("abstract", "").strip():
            record.fields["abstract"] = abstract
        if tldr := _unemphasize(values.get("tldr", values.get("tl;dr", ""))):
            record.fields["tldr"] = tldr
        if decision := _unemphasize(values.get("decision", "")):
            record.fields["decision"] = decision
        url = _first_url(values.get("url", ""))
        if url:
            record.id = openreview_id(url)
            record.fields["links"] = openreview_links(record.id) if record.id else links_from({"site": url})
            record.derived_id = None if record.id else url_id(url)
        return record


def _blocks(lines: list[str]) -> Iterator[tuple[int, list[str]]]:
    """Split into `## ` blocks, each with its 1-based starting line number."""
    start, block = 0, list[str]()
    for number, line in enumerate(lines, start=1):
        if line.startswith("## "):
            if block:
                yield start, block
            start, block = number, [line]
        elif block:
            block.append(line)
    if block:
        yield start, block


def _field_values(lines: list[str]) -> dict[str, str]:
    """`**Name**: value` fields; a field with an empty value takes the paragraphs below it."""
    values: dict[str, str] = {}
    current: str | None = None
    body: list[str] = []
    for line in lines:
        match = _FIELD.match(line)
        if match or _RULE.match(line) or line.startswith("[Go to"):
            if current is not None:
                values[current] = values[current] or "\n".join(body).strip()
            current, body = None, []
            if match:
                current = match.group("name").strip().lower()
                values[current] = match.group("value").strip()
            continue
        if current is not None:
            body.append(line)
    if current is not None:
        values[current] = values[current] or "\n".join(body).strip()
    return values


def _unemphasize(text: str) -> str:
    """Drop Markdown emphasis wrapping a value (`*iclr 2021*` → `iclr 2021`)."""
    return text.strip().strip("*_").strip()


def _first_url(text: str) -> str | None:
    """The target of `[label](url)`, else the first bare URL."""
    match = _MD_LINK.search(text) or _BARE_LINK.search(text)
    return match.group(1) if match and match.groups() else (match.group(0) if match else None)
