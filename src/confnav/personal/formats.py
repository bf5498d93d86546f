"""A researcher's library as they already keep it: BibTeX, RIS, CSL-JSON (Zotero's and Mendeley's exports), or
a text file with one DOI, arXiv id, OpenReview id or title per line; read into entries, and written back."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confnav.errors import ConfnavError

DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.I)
ARXIV = re.compile(r"(?:arxiv\.org/(?:abs|pdf)/|arxiv:\s*|^)(\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?$", re.I)
ARXIV_IN_TEXT = re.compile(r"arxiv(?:\.org/(?:abs|pdf)/|:\s*|\s+)(\d{4}\.\d{4,5})", re.I)
OPENREVIEW = re.compile(r"openreview\.net/(?:forum|pdf)\?id=([\w\-]+)", re.I)
BARE_ID = re.compile(r"^[\w\-.:/]{4,80}$")  # one token: an OpenReview or other paper id
FORMATS = ("bibtex", "ris", "csl-json", "text")


@dataclass
class Entry:
    """One entry of a library: what it says of a paper, and where it stands in its file."""

    line: int
    title: str = ""
    abstract: str | None = None
    year: int | None = None
    ids: dict[str, str] = field(default_factory=dict)  # doi, arxiv, openreview, id
    fields: dict[str, Any] = field(default_factory=dict)

    def identifiers(self) -> dict[str, str]:
        return {k: v for k, v in self.ids.items() if v}


@dataclass
class Parsed:
    """The entries read from a file, and a one-line problem for each entry that could not be read."""

    entries: list[Entry]
    problems: list[str]


def _year(value: object) -> int | None:
    found = re.search(r"\b(1[89]\d\d|2\d\d\d)\b", str(value or ""))
    return int(found.group(1)) if found else None


def ids_in(*texts: object) -> dict[str, str]:
    """DOI, arXiv and OpenReview ids named anywhere in these texts (URLs, notes, eprint fields)."""
    ids: dict[str, str] = {}
    for text in (str(t) for t in texts if t):
        if (m := DOI.search(text)) and "doi" not in ids:
            ids["doi"] = m.group(1).rstrip(".,;").lower()
        if (m := ARXIV_IN_TEXT.search(text) or ARXIV.search(text.strip())) and "arxiv" not in ids:
            ids["arxiv"] = m.group(1)
        if (m := OPENREVIEW.search(text)) and "openreview" not in ids:
            ids["openreview"] = m.group(1)
    return ids


def _clean(text: str) -> str:
    """BibTeX's braces and escapes off a title or abstract, whitespace folded."""
    text = re.sub(r"\\[a-zA-Z]+\s*", "", text.replace("\\&", "&"))
    return " ".join(text.replace("{", "").replace("}", "").split())


def read_bibtex(text: str) -> Parsed:
    try:
        import bibtexparser
    except ImportError:
        raise ConfnavError("reading BibTeX needs bibtexparser: pip install 'bibtexparser>=2.0.0b7'") from None
    library = bibtexparser.parse_string(text)
    problems = []
    for block in library.failed_blocks:
        head = (block.raw or "").strip().splitlines()[:1] or [""]
        problems.append(f"line {(block.start_line or 0) + 1}: unreadable BibTeX entry {head[0][:60]!r}")
    entries = []
    for item in library.entries:
        values = {k.lower(): str(f.value) for k, f in item.fields_dict.items()}
        ids = ids_in(values.get("doi"), values.get("url"), values.get("eprint"), values.get("note"))
        if values.get("eprint") and re.fullmatch(r"\d{4}\.\d{4,5}(v\d+)?", values["eprint"].strip()):
            ids.setdefault("arxiv", values["eprint"].strip().split("v")[0])
        entry = Entry((item.start_line or 0) + 1, _clean(values.get("title", "")), None, _year(values.get("year")), ids)
        entry.abstract = _clean(values["abstract"]) if values.get("abstract") else None
        entry.fields = {"key": item.key, "type": item.entry_type, **values}
        entries.append(entry)
    return Parsed(entries, problems)


RIS_TAG = re.compile(r"^([A-Z][A-Z0-9])  -\s?(.*)$")


def read_ris(text: str) -> Parsed:
    entries: list[Entry] = []
    problems: list[str] = []
    current: dict[str, list[str]] | None = None
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        tag = RIS_TAG.match(raw.rstrip())
        if tag is None:
            continue
        key, value = tag.groups()
        if key == "TY":
            if current is not None:
                problems.append(f"line {start}: RIS record without 'ER  -' end; read up to the next record")
                entries.append(_ris_entry(start, current))
            current, start = {"TY": [value]}, number
        elif key == "ER":
            if current is not None:
                entries.append(_ris_entry(start, current))
            current = None
        elif current is not None:
            current.setdefault(key, []).append(value.strip())
    if current is not None:
        entries.append(_ris_entry(start, current))
    return Parsed(entries, problems)


def _ris_entry(line: int, tags: dict[str, list[str]]) -> Entry:
    first = {k: v[0] for k, v in tags.items() if v}
    title = first.get("TI") or first.get("T1") or ""
    ids = ids_in(first.get("DO"), *tags.get("UR", []), *tags.get("L1", []), first.get("N1"))
    year = _year(first.get("PY") or first.get("Y1") or first.get("DA"))
    abstract = first.get("AB") or first.get("N2")
    fields = {k: v if len(v) > 1 else v[0] for k, v in tags.items()}
    return Entry(line, " ".join(title.split()), abstract, year, ids, fields)


def read_csl_json(text: str) -> Parsed:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfnavError(f"not valid JSON (line {exc.lineno}: {exc.msg})") from None
    items = data.get("items") if isinstance(data, dict) else data
    if not isinstance(items, list) or not any(isinstance(i, dict) and "title" in i for i in items):
        raise ConfnavError("JSON but not CSL-JSON: expected a list of items with a 'title'")
    entries, problems = [], []
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not str(item.get("title") or "").strip():
            problems.append(f"item {n}: no title")
            continue
        issued = item.get("issued") or {}
        parts = issued.get("date-parts") if isinstance(issued, dict) else None
        year = _year(parts[0][0] if parts and parts[0] else issued.get("raw") if isinstance(issued, dict) else None)
        ids = ids_in(item.get("DOI"), item.get("URL"), item.get("note"), item.get("number"))
        abstract = item.get("abstract")
        entries.append(Entry(n, " ".join(str(item["title"]).split()), abstract or None, year, ids, dict(item)))
    return Parsed(entries, problems)


def read_lines(text: str) -> Parsed:
    """One DOI, arXiv id, OpenReview id (or URL) or title per line; '#' starts a comment line."""
    entries, problems = [], []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if len(line) > 400:
            problems.append(f"line {number}: too long for an id or a title")
            continue
        ids = ids_in(line)
        if ids:
            entries.append(Entry(number, "", ids=ids))
        elif BARE_ID.match(line) and not line.isalpha():
            entries.append(Entry(number, "", ids={"id": line}))
        else:
            entries.append(Entry(number, line))
    return Parsed(entries, problems)


def sniff(path: Path, text: str) -> str:
    """The format of a library file, from its extension, else from its first characters."""
    suffix = path.suffix.lower()
    if suffix in (".bib", ".bibtex"):
        return "bibtex"
    if suffix == ".ris":
        return "ris"
    if suffix in (".json", ".csl", ".csljson"):
        return "csl-json"
    head = text.lstrip()[:200]
    if head.startswith("@"):
        return "bibtex"
    if RIS_TAG.match(head.split("\n", 1)[0]):
        return "ris"
    if head[:1] in "[{" and head:
        return "csl-json"
    return "text"


READERS = {"bibtex": read_bibtex, "ris": read_ris, "csl-json": read_csl_json, "text": read_lines}


def read_library(path: Path) -> Parsed:
    """Every entry of a library file; a file that is no library at all raises a one-line ConfnavError."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfnavError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfnavError(f"{path}: not a text file (a library is BibTeX, RIS, CSL-JSON or one id per line)") from None
    return parse_library(path, text)


def parse_library(path: Path, text: str) -> Parsed:
    """Every entry of a library's text (a file's, or one pasted or uploaded under the name `path`), its format
    sniffed from the name, else from the text; no entries at all is a one-line ConfnavError."""
    kind = sniff(path, text)
    try:
        parsed = READERS[kind](text)
    except ConfnavError as exc:
        raise ConfnavError(f"{path}: {exc}") from None
    if not parsed.entries:
        raise ConfnavError(f"{path}: no {kind} entries found (a library is BibTeX, RIS, CSL-JSON or one id per line)")
    parsed.problems = [f"{path.name}: {p}" for p in parsed.problems]
    return parsed
