"""BibTeX values read as BibTeX reads them, from bibtexparser's raw blocks: braced and quoted parts, numbers,
`@string` macros (the month names predefined) and `#` joins; a macro no `@string` of the file defines is named,
so that the entry can be reported (BibTeX itself stops on it) rather than keep the macro's name as text. Also
which entries are no paper: volumes (`@proceedings`, `@periodical`, `@collection`, …) and a `@book` that other
entries only cite as their `crossref` parent, whose fields those entries inherit as BibTeX does."""

from __future__ import annotations

import re
from collections.abc import Iterable

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# Entry types of a volume, never one paper (BibTeX's and biblatex's); a book is one when it only holds others.
VOLUMES = {"proceedings", "mvproceedings", "periodical", "collection", "mvcollection", "reference", "mvreference"}
VOLUMES |= {"xdata", "set"}  # biblatex's shared-field and entry-set containers
PARENT_BOOKS = {"book", "mvbook"}
_NAME = re.compile(r"[^\s#{}\"]+")


def resolve(raw: str, strings: dict[str, str]) -> tuple[str, list[str]]:
    """A raw field value as text (outer braces or quotes dropped, macros replaced, `#` parts joined) and the
    macro names no `@string` defines; a value of unexpected shape is kept as given."""
    parts: list[str] = []
    undefined: list[str] = []
    at = 0
    while True:
        at = _skip_space(raw, at)
        if at >= len(raw):
            return raw.strip(), []
        end = _part_end(raw, at)
        if end is None:
            return raw.strip(), []
        part = raw[at:end]
        if part[0] in '{"':
            parts.append(part[1:-1])
        elif part.isdigit() or part.lower() in MONTHS:
            parts.append(part)
        elif part.lower() in strings:
            parts.append(strings[part.lower()])
        else:
            undefined.append(part)
        at = _skip_space(raw, end)
        if at >= len(raw):
            return "".join(parts), undefined
        if raw[at] != "#":
            return raw.strip(), []
        at += 1


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _part_end(text: str, at: int) -> int | None:
    """Where the value part starting at `at` ends: a braced group (nested; BibTeX counts `\\{` too), a quoted
    text (quotes inside braces are text), or a macro name or number."""
    if text[at] in '{"':
        depth = 0
        for i in range(at, len(text)):
            char = text[i]
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0 and text[at] == "{":
                    return i + 1
            elif char == '"' and i > at and depth == 0 and text[at] == '"':
                return i + 1
        return None
    found = _NAME.match(text, at)
    return found.end() if found else None


def read_strings(blocks: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The file's `@string` macros by lower-case name, each read in file order (one may use those before it)."""
    strings: dict[str, str] = {}
    for key, raw in blocks:
        strings[key.lower()] = resolve(raw, strings)[0]
    return strings


def volume_kind(entry_type: str, key: str, parents: set[str]) -> str | None:
    """Why an entry is no paper (it is a volume other papers appear in), or None for a paper."""
    kind = entry_type.lower()
    if kind in VOLUMES:
        return f"a @{kind} entry is a volume, not a paper"
    if kind in PARENT_BOOKS and key.lower() in parents:
        return f"a @{kind} entry other entries cite as their crossref volume, not a paper"
    return None


def inherit(values: dict[str, str], parent: dict[str, str] | None) -> dict[str, str]:
    """An entry's fields with those it lacks taken from its crossref parent, the parent's title as its booktitle
    (as BibTeX's styles read a `crossref`)."""
    if not parent:
        return values
    given = {k: v for k, v in parent.items() if k not in ("title", "key", "type")}
    if parent.get("title"):
        given.setdefault("booktitle", parent["title"])
    return given | values
