"""The community "paperlists" JSON: one array of records per conference-year, each venue filling other fields.

Lists are `;`-separated and aligned by author (a few venues separate authors by
commas instead); ids may be missing (CVPR, SIGGRAPH), so a record proposes one
from its `pid`, `ssid`, URL or DOI. Only records that show they come from
OpenReview get OpenReview links.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from confnav.errors import InputError
from confnav.sources.base import ReadItem, SourceRecord, clean_id, parse_json, read_citations, untitled
from confnav.sources.links import links_from, openreview_links, resource_links, url_id
from confnav.sources.profile_order import byline_order, reordered
from confnav.sources.values import FieldError, as_authors, as_award, as_text, as_texts, as_title, parse_numbers

# Keys of the paperlists schema itself: an array of papers naming none of them (`authors`, `decision`, `venue`) is
# read as plain JSON rows by the JSONL reader, whose column names are those of CSV files.
# paperlists' own keys: an `author` string (not an `authors` list), its `aff` string, the decision as `status`. A
# JSON array of other keys ("authors", "decision", "ratings"; "track" alone) is read by the JSONL reader, which
# knows their names.
_SIGNATURE_KEYS = ('"author"', '"aff"', '"status"')
_OPENREVIEW_SHAPE = re.compile(r"^[A-Za-z0-9_-]{8,14}$")
# Fields holding a paper's URLs, by the link name they become (first of a name wins).
URL_FIELDS = {
    "openreview": "forum",
    "site": "site",
    "oa": "abstract",
    "url_paper": "paper",
    "doi": "doi",
    "pdf": "pdf",
    "arxiv": "arxiv",
    "github": "code",
    "project": "project",
    "video": "video",
    "youtube": "video",
    "slides": "slides",
    "poster": "poster",
    "proceeding": "proceedings",
}
ID_FIELDS = ("pid", "ssid", "paper_id", "uid")


def _parts(item: dict[str, Any], key: str) -> list[str]:
    """A `;`-aligned field as its parts, blanks kept so positions line up with the authors."""
    return as_texts(item.get(key), key, ";", keep_blanks=True)


def _author_key(item: dict[str, Any]) -> str:
    return "author" if item.get("author") else "authors"


class PaperlistsReader:
    """Reads `<venue><year>.json`; the venue comes from the file name or `--venue`."""

    format = "paperlists"
    header_row = False

    def sniff(self, path: Path, text: str) -> bool:
        head = text.lstrip()[:5000]
        return head.startswith("[") and '"title"' in head and any(key in head for key in _SIGNATURE_KEYS)

    def read(self, path: Path, text: str) -> Iterator[ReadItem]:
        data = parse_json(path, text)
        if not isinstance(data, list):
            raise InputError(path, "expected a JSON array of paper records")
        # Authors are `;`-separated; a file that never uses `;` separates them by commas.
        names = (r.get(_author_key(r)) for r in data if isinstance(r, dict))
        separators = ";" if any(isinstance(n, str) and ";" in n for n in names) else ",;"
        for number, item in enumerate(data, start=1):
            if not isinstance(item, dict):
                yield InputError(path, "expected a JSON object", record=number)
                continue
            record = SourceRecord(source=path.name, kind=self.format, id=None, fields={}, record=number)
            try:
                yield self._record(path, record, item, separators)
            except FieldError as exc:
                yield record.error(path, exc.message, exc.field)

    def _record(self, path: Path, record: SourceRecord, item: dict[str, Any], separators: str) -> ReadItem:
        def text(key: str) -> str:
            return as_text(item.get(key), key).strip()

        record.id = clean_id(item.get("id"))
        title = " ".join(as_title(item.get("title")).split())
        if not title:
            return untitled(path, record)
        fields = record.fields
        fields["title"] = title
        fields["decision"] = text("status")
        for key, target in (("rating", "ratings"), ("confidence", "confidences")):
            try:
                fields[target] = parse_numbers(item.get(key), ";")
            except ValueError as exc:
                return record.error(path, f"{key} {exc}", key)
        author_key = _author_key(item)
        fields["authors"] = _authors(item, as_authors(item.get(author_key), author_key, separators))
        fields["affiliations"] = list(dict.fromkeys(a for a in _parts(item, "aff") if a))
        fields["institutions"] = as_texts(item.get("aff_unique_norm"), "aff_unique_norm")
        fields["countries"] = as_texts(item.get("aff_country_unique"), "aff_country_unique")
        if "keywords" in item:  # an empty one too; a list without the field says nothing (SourceRecord)
            fields["keywords"] = as_texts(item["keywords"], "keywords")
        for key, target in (("abstract", "abstract"), ("tldr", "tldr"), ("primary_area", "primary_area")):
            if value := text(key):
                fields[target] = value
        if award := as_award(item.get("award"), "award"):
            fields["award"] = award
        if session := text("session" if item.get("session") else "sess"):
            fields["session"] = session
        track = text("track")
        if track and track.lower() != "main":
            fields["track"] = track
        read_citations(path, record, item.get("gs_citation"), "Google Scholar", "gs_citation")
        links = resource_links(item) | links_from({name: text(key) for key, name in URL_FIELDS.items()})
        if record.id and "forum" not in links and _from_openreview(item, record.id):
            links = openreview_links(record.id) | links
        fields["links"] = dict(sorted(links.items()))
        if record.id is None:
            proposed = next((found for key in ID_FIELDS if (found := clean_id(item.get(key), key))), None)
            record.derived_id = proposed or next(
                (url_id(links[k]) for k in ("forum", "site", "abstract", "doi", "pdf") if links.get(k)), None
            )
        return record


def _from_openreview(item: dict[str, Any], paper_id: str) -> bool:
    """Whether a record's id is an OpenReview forum id: its shape and OpenReview-only fields agree."""
    if not _OPENREVIEW_SHAPE.match(paper_id) or paper_id.isdigit():
        return False
    authorids = ";".join(_parts(item, "authorids"))
    return bool(item.get("or_profile") or item.get("reviewers") or "~" in authorids or "@" in authorids)


def _authors(item: dict[str, Any], given: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Authors with what the source aligns to each: affiliation, profile id, institution, country (an author
    given as an object keeps its own affiliation and profile)."""
    n = len(given)
    lists, per_author = _in_byline_order(item, [person["name"] for person in given])
    listed = lists["aff"]
    affiliations = _aligned(listed, n)
    profiles = _profiles(lists, n)
    slots = {n: list(range(n))} if per_author else _index_slots(listed, n)
    institutions = _by_index(item, "aff_unique_norm", lists["aff_unique_index"], slots, n)
    countries = _by_index(item, "aff_country_unique", lists["aff_country_unique_index"], slots, n)
    authors = []
    for i, person in enumerate(given):
        author: dict[str, Any] = {
            "name": person["name"],
            "affiliation": person.get("affiliation") or (affiliations[i] if affiliations else None),
        }
        if person.get("profile"):
            author["profile"] = person["profile"]
        for key, values in (("profile", profiles), ("institution", institutions), ("country", countries)):
            if values and values[i]:
                author.setdefault(key, values[i])
        authors.append(author)
    return authors


_PROFILE_LISTS = ("or_profile", "aff", "aff_unique_index", "aff_country_unique_index")


def _in_byline_order(item: dict[str, Any], names: list[str]) -> tuple[dict[str, list[str]], bool]:
    """The per-author lists, those read from OpenReview profiles put in the byline's order (see profile_order),
    emptied when whose is whose cannot be told; and whether the index lists now hold one entry per author."""
    lists = {key: _parts(item, key) for key in ("authorids", *_PROFILE_LISTS)}
    profiles, n = lists["or_profile"], len(names)
    if not any(p.startswith("~") for p in profiles) or profiles == lists["authorids"]:
        return lists, False
    order = byline_order(names, lists["authorids"], profiles)
    if order == list(range(n)):
        return lists, False
    if order is None:
        return lists | {key: [] for key in _PROFILE_LISTS}, False
    filled = [i for i, a in enumerate(lists["aff"]) if a] if len(lists["aff"]) == n else []
    for key in ("aff_unique_index", "aff_country_unique_index"):  # one entry per author first
        if len(lists[key]) == len(filled) != n:
            full = [""] * n
            for i, value in zip(filled, lists[key], strict=True):
                full[i] = value
            lists[key] = full
    return lists | {key: reordered(lists[key], order) for key in _PROFILE_LISTS}, True


def _profiles(lists: dict[str, list[str]], n: int) -> list[str | None] | None:
    """Person ids aligned with the authors: OpenReview `~Name1` profiles or ACL Anthology `/x/name/` ids."""
    for key in ("or_profile", "authorids"):
        parts = lists[key]
        if len(parts) == n and any(p.startswith(("~", "/")) for p in parts):
            return [p if p.startswith(("~", "/")) else None for p in parts]
    return None


def _aligned(affiliations: list[str], n: int) -> list[str | None] | None:
    """Affiliations one per author, or None when the source cannot say whose is whose.

    Only a list as long as the byline is aligned: a shorter one (authors without a
    profile left out, several people sharing one entry) or a longer one (a `;`
    inside a name) stays the paper's list, never guessed onto people.
    """
    if not any(affiliations) or len(affiliations) != n:
        return None
    return [a or None for a in affiliations]


def _index_slots(affiliations: list[str], n: int) -> dict[int, list[int]]:
    """Which authors a `…_unique_index` list of each length speaks for: one entry per author, or one per
    non-blank affiliation (blanks skipped) of a list aligned by author; none when the affiliations are not."""
    if not affiliations:
        return {n: list(range(n))}
    if len(affiliations) != n:
        return {}
    return {n: list(range(n))} | {sum(map(bool, affiliations)): [i for i, a in enumerate(affiliations) if a]}


def _by_index(
    item: dict[str, Any], values_key: str, indexes: list[str], slots: dict[int, list[int]], n: int
) -> list[str | None] | None:
    """Per-author values of a `…_unique` list through its `…_unique_index` (`"0;1;0"`), when they line up."""
    values = as_texts(item.get(values_key), values_key)
    authors = slots.get(len(indexes))
    if not values or not indexes or authors is None:
        return None
    aligned: list[str | None] = [None] * n
    for author, index in zip(authors, indexes, strict=True):
        known = index.isdecimal() and len(index) < 10 and int(index) < len(values)  # "²" is a digit int() refuses
        aligned[author] = values[int(index)] if known else None
    return aligned
