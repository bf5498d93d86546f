"""The community "paperlists" JSON: an array of records with `;`-separated authors, ratings, affiliations."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from confnav.errors import InputError
from confnav.sources.base import (
    ReadItem,
    SourceRecord,
    authors_field,
    decision_value,
    openreview_links,
    parse_numbers,
    split_list,
)

_SIGNATURE_KEYS = ('"status"', '"author"', '"aff"', '"rating"')


def load_json(path: Path, text: str) -> Any:
    """Parse JSON, turning a syntax error into one naming the line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"malformed JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None


class PaperlistsReader:
    """Reads `paperlists-<venue>.json`; the venue comes from the file name or `--venue`."""

    format = "paperlists"

    def sniff(self, path: Path, text: str) -> bool:
        head = text.lstrip()[:5000]
        return head.startswith("[") and sum(key in head for key in _SIGNATURE_KEYS) >= 2

    def read(self, path: Path, text: str) -> Iterator[ReadItem]:
        data = load_json(path, text)
        if not isinstance(data, list):
            raise InputError(path, "expected a JSON array of paper records")
        for number, item in enumerate(data, start=1):
            yield self._record(path, number, item)

    def _record(self, path: Path, number: int, item: Any) -> ReadItem:
        if not isinstance(item, dict):
            return InputError(path, "expected a JSON object", record=number)
        paper_id = str(item.get("id") or "").strip() or None
        record = SourceRecord(source=path.name, kind=self.format, id=paper_id, fields={}, record=number)
        if paper_id is None:
            return record.error(path, "missing id", "id")
        title = " ".join(str(item.get("title") or "").split())
        if not title:
            return record.error(path, "missing title", "title")
        fields = record.fields
        fields["title"] = title
        try:
            fields["decision"] = decision_value(str(item.get("status") or ""))
        except ValueError as exc:
            return record.error(path, str(exc), "status")
        for key, target in (("rating", "ratings"), ("confidence", "confidences")):
            try:
                fields[target] = parse_numbers(item.get(key) or "", ";")
            except ValueError as exc:
                return record.error(path, f"rating {exc}" if key == "rating" else str(exc), key)
        names = split_list(str(item.get("author") or ""), ";")
        affiliations = [a.strip() for a in str(item.get("aff") or "").split(";")] if item.get("aff") else []
        fields["authors"] = authors_field(names, _aligned(names, affiliations, str(item.get("authorids") or "")))
        fields["affiliations"] = list(dict.fromkeys(a for a in affiliations if a))
        fields["keywords"] = split_list(str(item.get("keywords") or ""), ";")
        if abstract := str(item.get("abstract") or "").strip():
            fields["abstract"] = abstract
        if tldr := str(item.get("tldr") or "").strip():
            fields["tldr"] = tldr
        fields["links"] = _links(paper_id, item)
        return record


def _aligned(names: list[str], affiliations: list[str], authorids: str) -> list[str | None] | None:
    """Affiliations one per author, or None when the source cannot say whose is whose.

    The list skips authors without an OpenReview profile (`~Name1` ids); when the
    count of profiles matches, those are the ones the affiliations belong to.
    """
    if not affiliations:
        return None
    if len(affiliations) == len(names):
        return list(affiliations)
    ids = authorids.split(";") if authorids else []
    profiles = [i.strip().startswith("~") for i in ids]
    if len(ids) == len(names) and sum(profiles) == len(affiliations):
        remaining = iter(affiliations)
        return [next(remaining) if has else None for has in profiles]
    return None


def _links(paper_id: str, item: dict[str, Any]) -> dict[str, str]:
    links = openreview_links(paper_id)
    for key, target in (("site", "site"), ("github", "code"), ("project", "project"), ("video", "video")):
        value = str(item.get(key) or "").strip()
        if value.startswith("http"):
            links[target] = value
    return links
