"""A researcher's library as they already keep it: BibTeX, RIS, CSL-JSON (Zotero's and Mendeley's exports), or
a text file with one DOI, arXiv id, OpenReview id or title per line; read into entries, and written back."""

from __future__ import annotations

import errno
import html
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confnav.errors import ConfnavError, cut, excerpt
from confnav.export.tex import latex_text
from confnav.personal.bibfile import inherit, read_strings, resolve, volume_kind
from confnav.sources.values import split_list

DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.I)
ARXIV = re.compile(r"(?:arxiv\.org/(?:abs|pdf)/|arxiv:\s*|^)(\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?$", re.I)
ARXIV_IN_TEXT = re.compile(r"arxiv(?:\.org/(?:abs|pdf)/|:\s*|\s+)(\d{4}\.\d{4,5})", re.I)
OPENREVIEW = re.compile(r"openreview\.net/(?:forum|pdf)\?id=([\w\-]+)", re.I)
# An ACL Anthology id, new (`2020.emnlp-main.188`, `2020.findings-emnlp.372`) or old (`P19-1001`), a version
# (`v2`) aside: in an Anthology link (aclanthology.org/ID, aclweb.org/anthology/ID, `.pdf` or `/` after), in an
# ACL DOI (10.18653/v1/ID), as a whole value, or the new form as a word of a text.
_ACL_ID = r"(\d{4}\.(?=[\w-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)*\.\d+|[A-Z]\d{2}-\d{4})(?:v\d+)?"
_ACL_AT = r"(?:aclanthology\.org/|aclweb\.org/anthology/(?:[A-Z]/[A-Z]\d\d/)?|10\.18653/v1/|^)"
ACL = re.compile(rf"{_ACL_AT}{_ACL_ID}(?:\.pdf|/)?(?=$|[\s\"<>?#,;)])", re.I)
ACL_IN_TEXT = re.compile(
    r"(?<![\w.\-/])(\d{4}\.(?=[\w-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)*\.\d+)(?:v\d+)?(?![\w.\-/])", re.I
)
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
    notes: list[str] = field(default_factory=list)  # what the library's owner wrote of it (annote, RIS N1)
    tags: list[str] = field(default_factory=list)  # the owner's tags, as reference managers export them

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
    """DOI, arXiv, OpenReview and ACL Anthology ids named anywhere in these texts (URLs, notes, eprint fields);
    an ACL DOI names its Anthology id too."""
    ids: dict[str, str] = {}
    for text in (str(t) for t in texts if t):
        if (m := DOI.search(text)) and "doi" not in ids:
            ids["doi"] = m.group(1).rstrip(".,;").lower()
        if (m := ARXIV_IN_TEXT.search(text) or ARXIV.search(text.strip())) and "arxiv" not in ids:
            ids["arxiv"] = m.group(1)
        if (m := OPENREVIEW.search(text)) and "openreview" not in ids:
            ids["openreview"] = m.group(1)
        if (m := ACL.search(text.strip()) or ACL_IN_TEXT.search(text)) and "acl" not in ids:
            ids["acl"] = m.group(1)
    return ids


def _clean(text: str) -> str:
    """A title or abstract as written in TeX (`It{\\^o}`, `$\\alpha$VIL`, `{BERT}`) as plain text, spaces folded."""
    return " ".join(latex_text(text).split())


def read_bibtex(text: str) -> Parsed:
    """The papers of a BibTeX file; a volume entry (`@proceedings`, a book cited as `crossref`) and an entry
    bibtexparser cannot read or whose key repeats are reported by line, and so is a field that is an undefined
    @string (left empty, as BibTeX would after its error)."""
    try:
        import bibtexparser
        from bibtexparser.model import DuplicateBlockKeyBlock
    except ImportError:
        raise ConfnavError("reading BibTeX needs bibtexparser: pip install 'bibtexparser>=2.0.0b7'") from None
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # its problems are reported below, per entry
    library = bibtexparser.parse_string(text, parse_stack=[])  # raw values: an undefined macro stays visible
    problems: list[tuple[int, str]] = []  # by line, to report in file order
    for block in library.failed_blocks:
        line = (block.start_line or 0) + 1
        if isinstance(block, DuplicateBlockKeyBlock):
            problems.append((line, f"a second entry with the key {block.key!r}, skipped"))
            continue
        head = (block.raw or "").strip().splitlines()[:1] or [""]
        problems.append((line, f"unreadable BibTeX entry {head[0][:60]!r}, skipped"))
    strings = read_strings((block.key, str(block.value)) for block in library.strings)
    read: dict[str, tuple[int, str, dict[str, str]]] = {}
    for item in library.entries:
        values: dict[str, str] = {}
        for key, found in item.fields_dict.items():
            values[key.lower()], undefined = resolve(str(found.value), strings)
            if undefined:
                named = ", ".join(repr(name) for name in undefined)
                said = f"{key} is {named}, an @string this file does not define; read as empty"
                problems.append(((found.start_line or item.start_line or 0) + 1, said))
        read[item.key.lower()] = ((item.start_line or 0) + 1, item.entry_type, values)
    parents = {v.get("crossref", "").lower() for _, _, v in read.values()} - {""}
    entries = []
    for item in library.entries:
        line, kind, values = read[item.key.lower()]
        if reason := volume_kind(kind, item.key, parents):
            problems.append((line, f"{reason} ({item.key!r}), skipped"))
            continue
        parent = read.get(values.get("crossref", "").lower())
        entries.append(_bibtex_entry(line, item.key, kind, inherit(values, parent[2] if parent else None)))
    return Parsed(entries, [f"line {line}: {said}" for line, said in sorted(problems)])


def _bibtex_entry(line: int, key: str, kind: str, values: dict[str, str]) -> Entry:
    ids = ids_in(values.get("doi"), values.get("url"), values.get("eprint"), values.get("note"))
    if values.get("eprint") and re.fullmatch(r"\d{4}\.\d{4,5}(v\d+)?", values["eprint"].strip()):
        ids.setdefault("arxiv", values["eprint"].strip().split("v")[0])
    entry = Entry(line, _clean(values.get("title", "")), None, _year(values.get("year")), ids)
    entry.abstract = _clean(values["abstract"]) if values.get("abstract") else None
    entry.fields = {"key": key, "type": kind, **values}
    entry.notes = [_clean(values["annote"])] if values.get("annote") else []
    entry.tags = split_list(values.get("keywords") or "", ";,")
    return entry


def _plain_note(text: str) -> str:
    """A note as text: the HTML a reference manager keeps notes in (Zotero's `<p>…</p>`) dropped."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


RIS_TAG = re.compile(r"^([A-Z][A-Z0-9])  -\s?(.*)$")


def read_ris(text: str) -> Parsed:
    entries: list[Entry] = []
    problems: list[str] = []
    current: dict[str, list[str]] | None = None
    start, last = 0, ""
    for number, raw in enumerate(text.splitlines(), start=1):
        tag = RIS_TAG.match(raw.rstrip())
        if tag is None:
            if current and raw.strip() and last in current:  # a value wrapped onto the next line
                current[last][-1] = f"{current[last][-1]} {raw.strip()}"
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
        last = key
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
    notes = [n for n in map(_plain_note, tags.get("N1", [])) if n]
    return Entry(
        line, " ".join(title.split()), abstract, year, ids, fields, notes, [t for t in tags.get("KW", []) if t]
    )


def read_csl_json(text: str) -> Parsed:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfnavError(f"not valid JSON (line {exc.lineno}: {exc.msg})") from None
    items = data.get("items", [data]) if isinstance(data, dict) else data  # an export, {"items": …} or one item
    if not isinstance(items, list) or not any(isinstance(i, dict) and "title" in i for i in items):
        raise ConfnavError("JSON but not CSL-JSON: expected a list of items with a 'title'")
    entries, problems = [], []
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not str(item.get("title") or "").strip():
            problems.append(f"item {n}: no title, skipped")
            continue
        ids = ids_in(item.get("DOI"), item.get("URL"), item.get("note"), item.get("number"))
        abstract = item.get("abstract")
        title = " ".join(str(item["title"]).split())
        notes = [_plain_note(str(item["annote"]))] if item.get("annote") else []
        year = _issued_year(item.get("issued"))
        entries.append(
            Entry(
                n,
                title,
                abstract or None,
                year,
                ids,
                dict(item),
                notes,
                split_list(str(item.get("keyword") or ""), ";,"),
            )
        )
    return Parsed(entries, problems)


def _issued_year(issued: object) -> int | None:
    """The year of a CSL `issued` date: date parts (`[[2021, 4]]`, or flat `[2021, 4]`), `raw` or `literal`
    text, or a bare string; None when it names none."""
    if not isinstance(issued, dict):
        return _year(issued) if isinstance(issued, str | int) else None
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts:
        first = parts[0][0] if isinstance(parts[0], list) and parts[0] else parts[0]
        if isinstance(first, str | int):
            return _year(first)
    return _year(issued.get("raw") or issued.get("literal"))


def read_lines(text: str) -> Parsed:
    """One DOI, arXiv id, OpenReview id (or URL) or title per line; '#' starts a comment line."""
    entries, problems = [], []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if len(line) > 400:
            problems.append(f"line {number}: too long for an id or a title, skipped")
            continue
        if not any(character.isalnum() for character in line):  # "😀", a stray quote: names no paper
            problems.append(f"line {number}: {excerpt(line)} has no letters or digits: not an id or a title, skipped")
            continue
        ids = ids_in(line)
        if ids:  # an id or a link, perhaps after the title it names ("Title. arXiv:2010.02502")
            entries.append(Entry(number, _title_beside(line), ids=ids))
        elif BARE_ID.match(line):  # a paper id (or a one-word title: the match tries both)
            entries.append(Entry(number, "", ids={"id": line}))
        else:
            entries.append(Entry(number, line))
    return Parsed(entries, problems)


_ID_OR_LINK = re.compile(
    r"(?:https?://\S+|doi:\s*\S+|\b10\.\d{4,9}/\S+|arxiv:?\s*\d{4}\.\d{4,5}\S*|\b\d{4}\.[a-z0-9-]+\.\d+\S*)", re.I
)


def _title_beside(line: str) -> str:
    """The title a line gives beside its ids and links (three words at least), else nothing."""
    rest = " ".join(_ID_OR_LINK.sub(" ", line).split()).strip(" .,;:-–()[]")
    return rest if len(rest.split()) >= 3 else ""


def sniff(path: Path, text: str) -> str:
    """The format of a library file, from its extension, else from its first characters."""
    suffix = path.suffix.lower()
    if suffix in (".bib", ".bibtex"):
        return "bibtex"
    if suffix == ".ris":
        return "ris"
    if suffix in (".json", ".csl", ".csljson"):
        return "csl-json"
    if suffix in (".txt", ".lst", ".list"):
        return "text"
    head = text.lstrip()[:200]
    if head.startswith("@"):
        return "bibtex"
    if RIS_TAG.match(head.split("\n", 1)[0]):
        return "ris"
    if head[:1] in "[{" and head:
        return "csl-json"
    return "text"


READERS = {"bibtex": read_bibtex, "ris": read_ris, "csl-json": read_csl_json, "text": read_lines}


PERSON_PREFIXES = ("~", "s2:")  # how a person's id begins, as `fetch.authors.person_of` reads one
PERSON_FORMS = "an OpenReview profile id is ~First_Last1, a Semantic Scholar author s2:1741101 (digits)"


def read_library(path: Path) -> Parsed:
    """Every entry of a library file; a file that is no library at all raises a one-line ConfnavError."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENAMETOOLONG) and str(path).lower().startswith(PERSON_PREFIXES):
            raise ConfnavError(f"{cut(str(path))}: no such file, nor a person's id: {PERSON_FORMS}") from None
        raise ConfnavError(f"{cut(str(path))}: cannot read ({exc.strerror})") from None
    return parse_library(path, library_text(path, raw))


def library_text(path: Path, raw: bytes) -> str:
    """A library file's text: UTF-8 (a BOM allowed), UTF-16 with its BOM (Windows tools), else Windows-1252 or
    Latin-1 (older BibTeX tools); bytes no text encoding gives (NULs, control bytes) raise a ConfnavError."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError:
            pass
    else:
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            if not re.search(rb"[\x00-\x08\x0e-\x1f]", raw):
                return raw.decode("cp1252", errors="strict") if _is_cp1252(raw) else raw.decode("latin-1")
    raise ConfnavError(f"{path}: not a text file (a library is BibTeX, RIS, CSL-JSON or one id per line)")


def _is_cp1252(raw: bytes) -> bool:
    try:
        raw.decode("cp1252")
    except UnicodeDecodeError:
        return False
    return True


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
