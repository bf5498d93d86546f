"""The community "paperlists" JSON: one array of records per conference-year, each venue filling other fields.

Lists are `;`-separated and aligned by author (a few venues separate authors by
commas instead); ids may be missing (CVPR, SIGGRAPH), so a record proposes one
from its `pid`, `ssid`, URL or DOI. Only records that show they come from
OpenReview get OpenReview links.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from confnav.errors import InputError
from confnav.sources.base import (
    ReadItem,
    SourceRecord,
    citation_count,
    clean_id,
    links_from,
    openreview_links,
    parse_numbers,
    split_list,
    url_id,
)

_SIGNATURE_KEYS = ('"status"', '"author"', '"aff"', '"rating"', '"track"', '"id"', '"site"', '"abstract"')
_OPENREVIEW_SHAPE = re.compile(r"^[A-Za-z0-9_-]{8,14}$")
# Fields holding a paper's URLs, by the link name they become (first of a name wins).
URL_FIELDS = {
    "openreview": "forum", "site": "site", "oa": "abstract", "url_paper": "paper", "doi": "doi", "pdf": "pdf",
    "arxiv": "arxiv", "github": "code", "project": "project", "video": "video", "youtube": "video",
    "slides": "slides", "poster": "poster", "proceeding": "proceedings",
}  # fmt: skip
ID_FIELDS = ("pid", "ssid", "paper_id", "uid")


def load_json(path: Path, text: str) -> Any:
    """Parse JSON, turning a syntax error into one naming the line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"malformed JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None
    except RecursionError:
        raise InputError(path, "malformed JSON: nested too deeply") from None


def text_of(value: Any) -> str:
    """A scalar field as text; lists are joined with `;` (some exports give lists instead of strings)."""
    if value is None or isinstance(value, dict):
        return ""
    if isinstance(value, list):
        return ";".join(text_of(v) for v in value)
    return str(value)


def _parts(item: dict[str, Any], key: str) -> list[str]:
    """A `;`-aligned field as its parts, blanks kept so positions line up with the authors."""
    text = text_of(item.get(key))
    return [part.strip() for part in text.split(";")] if text.strip(" ;") else []


class PaperlistsReader:
    """Reads `<venue><year>.json`; the venue comes from the file name or `--venue`."""

    format = "paperlists"

    def sniff(self, path: Path, text: str) -> bool:
        head = text.lstrip()[:5000]
        return head.startswith("[") and '"title"' in head and any(key in head for key in _SIGNATURE_KEYS)

    def read(self, path: Path, text: str) -> Iterator[ReadItem]:
        data = load_json(path, text)
        if not isinstance(data, list):
            raise InputError(path, "expected a JSON array of paper records")
        # Authors are `;`-separated; a file that never uses `;` separates them by commas.
        authors = [text_of(r.get("author") or r.get("authors")) for r in data if isinstance(r, dict)]
        separators = ";" if any(";" in names for names in authors) else ",;"
        for number, item in enumerate(data, start=1):
            yield self._record(path, number, item, separators)

    def _record(self, path: Path, number: int, item: Any, separators: str) -> ReadItem:
        if not isinstance(item, dict):
            return InputError(path, "expected a JSON object", record=number)
        record = SourceRecord(source=path.name, kind=self.format, id=clean_id(item.get("id")), fields={}, record=number)
        title = " ".join(text_of(item.get("title")).split())
        if not title:
            return record.error(path, "missing title", "title")
        fields = record.fields
        fields["title"] = title
        fields["decision"] = text_of(item.get("status")).strip()
        for key, target in (("rating", "ratings"), ("confidence", "confidences")):
            value = item.get(key)
            try:
                fields[target] = parse_numbers(value if isinstance(value, list) else text_of(value), ";")
            except ValueError as exc:
                return record.error(path, f"{key} {exc}", key)
        names = split_list(text_of(item.get("author") or item.get("authors")), separators)
        fields["authors"] = _authors(item, names)
        fields["affiliations"] = list(dict.fromkeys(a for a in _parts(item, "aff") if a))
        fields["institutions"] = [n for n in split_list(text_of(item.get("aff_unique_norm")), ";")]
        fields["countries"] = [c for c in split_list(text_of(item.get("aff_country_unique")), ";")]
        fields["keywords"] = split_list(text_of(item.get("keywords")), ";")
        for key, target in (("abstract", "abstract"), ("tldr", "tldr"), ("primary_area", "primary_area")):
            if value := text_of(item.get(key)).strip():
                fields[target] = value
        if session := text_of(item.get("session") or item.get("sess")).strip():
            fields["session"] = session
        track = text_of(item.get("track")).strip()
        if track and track.lower() != "main":
            fields["track"] = track
        if counted := citation_count(item.get("gs_citation"), "Google Scholar"):
            fields["citations"] = counted
        links = links_from({name: item.get(key) for key, name in URL_FIELDS.items()})
        if record.id and "forum" not in links and _from_openreview(item, record.id):
            links = openreview_links(record.id) | links
        fields["links"] = dict(sorted(links.items()))
        if record.id is None:
            proposed = next((clean_id(item[k]) for k in ID_FIELDS if clean_id(item.get(k))), None)
            record.derived_id = proposed or next(
                (url_id(links[k]) for k in ("forum", "site", "abstract", "doi", "pdf") if links.get(k)), None
            )
        return record


def _from_openreview(item: dict[str, Any], paper_id: str) -> bool:
    """Whether a record's id is an OpenReview forum id: its shape and OpenReview-only fields agree."""
    if not _OPENREVIEW_SHAPE.match(paper_id) or paper_id.isdigit():
        return False
    authorids = text_of(item.get("authorids"))
    return bool(item.get("or_profile") or item.get("reviewers") or "~" in authorids or "@" in authorids)


def _authors(item: dict[str, Any], names: list[str]) -> list[dict[str, Any]]:
    """Authors with what the source aligns to each: affiliation, profile id, institution, country."""
    n = len(names)
    affiliations = _aligned(names, _parts(item, "aff"), text_of(item.get("authorids")))
    profiles = _profiles(item, n)
    institutions = _by_index(item, "aff_unique_norm", "aff_unique_index", n)
    countries = _by_index(item, "aff_country_unique", "aff_country_unique_index", n)
    authors = []
    for i, name in enumerate(names):
        author: dict[str, Any] = {"name": name, "affiliation": affiliations[i] if affiliations else None}
        for key, values in (("profile", profiles), ("institution", institutions), ("country", countries)):
            if values and values[i]:
                author[key] = values[i]
        authors.append(author)
    return authors


def _profiles(item: dict[str, Any], n: int) -> list[str | None] | None:
    """Person ids aligned with the authors: OpenReview `~Name1` profiles or ACL Anthology `/x/name/` ids."""
    for key in ("or_profile", "authorids"):
        parts = _parts(item, key)
        if len(parts) == n and any(p.startswith(("~", "/")) for p in parts):
            return [p if p.startswith(("~", "/")) else None for p in parts]
    return None


def _by_index(item: dict[str, Any], values_key: str, index_key: str, n: int) -> list[str | None] | None:
    """Per-author values of a `…_unique` list through its `…_unique_index` (`"0;1;0"`), when they line up."""
    values = split_list(text_of(item.get(values_key)), ";")
    indexes = _parts(item, index_key)
    if not values or len(indexes) != n:
        return None
    aligned: list[str | None] = []
    for index in indexes:
        aligned.append(values[int(index)] if index.isdigit() and int(index) < len(values) else None)
    return aligned


def _aligned(names: list[str], affiliations: list[str], authorids: str) -> list[str | None] | None:
    """Affiliations one per author, or None when the source cannot say whose is whose.

    The list skips authors without an OpenReview profile (`~Name1` ids); when the
    count of profiles matches, those are the ones the affiliations belong to.
    """
    if not any(affiliations):
        return None
    if len(affiliations) == len(names):
        return [a or None for a in affiliations]
    ids = authorids.split(";") if authorids else []
    profiles = [i.strip().startswith("~") for i in ids]
    if len(ids) == len(names) and sum(profiles) == len(affiliations):
        remaining = iter(affiliations)
        return [next(remaining) or None if has else None for has in profiles]
    return None
