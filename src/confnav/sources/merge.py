"""Join the records of one paper into a Paper, field by field, by a documented precedence.

For each field the value comes from the highest-ranked source kind that has a
non-empty value ("unknown" decisions count as empty, and "pending" ones where
another record has a decision); ties between two files of the same kind go to
the file whose name carries the later date (dated snapshots: `…-2021-01-15.json`),
then to the file whose name sorts first. Links are the union of all
sources, the highest-ranked source winning per link. Confidences travel with
the ratings they belong to. Authors without affiliations take them from the best
record that aligns affiliations to the same byline, and the paper's list of
affiliations then comes from that record too. The result does not depend on
ingest order.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from confnav.decisions import NO_LONGER_LISTED, DecisionTable, default_meaning
from confnav.errors import excerpt
from confnav.model import Author, CitationCount, Outcome, Paper, Venue, is_placeholder_title, name_key
from confnav.sources.base import SourceRecord

# The community list carries the final (camera-ready) title, authors with
# affiliations, decisions and review scores; the OpenReview TSV carries the
# submission's abstract and keywords as the authors typed them.
# A live OpenReview snapshot is the newest word on reviews and decisions, so it comes first.
DEFAULT_ORDER = ("openreview-notes", "paperlists", "openreview-tsv", "markdown", "miniconf", "csv", "jsonl")
FIELD_ORDER: dict[str, tuple[str, ...]] = {
    "abstract": ("openreview-notes", "openreview-tsv", "paperlists", "markdown", "miniconf", "csv", "jsonl"),
    "keywords": ("openreview-notes", "openreview-tsv", "paperlists", "markdown", "miniconf", "csv", "jsonl"),
}
MERGED_FIELDS = (
    "title",
    "abstract",
    "authors",
    "affiliations",
    "institutions",
    "countries",
    "keywords",
    "decision",
    "ratings",
    "tldr",
    "track",
    "primary_area",
    "session",
    "award",
    "citations",
)


# Bumped whenever the merge rules (or the Paper they produce) change: stores merged by older rules are re-merged.
MERGE_VERSION = 8  # 6: "Accepted as Poster" is a poster; 7: records of files that no longer list a paper;
# 8: more placeholder titles ("Blank") give way to a real one


REMOVED = "removed"  # set on a record of a file that listed its paper once and no longer does

# Where an author is, filled from another record listing the same byline when the chosen one does not say.
AUTHOR_DETAILS = ("affiliation", "institution", "country")


def kind_rank(kind: str, field: str) -> int:
    order = FIELD_ORDER.get(field, DEFAULT_ORDER)
    return order.index(kind) if kind in order else len(order)


def filled(field: str, value: Any) -> bool:
    if field == "decision":
        return value is not None and default_meaning(str(value))[0] is not Outcome.UNKNOWN
    return value not in (None, "", [], {})


def pending(label: Any) -> bool:
    return default_meaning(str(label))[0] is Outcome.PENDING


_DATE_IN_NAME = re.compile(r"(?<!\d)((?:19|20)\d\d)[-_.]?(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])(?!\d)")


def snapshot_date(file_name: str) -> int:
    """The last full date a file's name carries, as YYYYMMDD (0: none): which of two snapshots is newer."""
    dates = _DATE_IN_NAME.findall(file_name)
    return int("".join(dates[-1])) if dates else 0


def label(record: SourceRecord) -> str:
    """`kind:file name` (the file's folder, kept in the store to tell files apart, is left out)."""
    return f"{record.kind}:{record.file_name}"


def choose(records: list[SourceRecord], field: str) -> SourceRecord | None:
    """The record whose value of `field` the paper takes (the rules of this module's docstring); None: no value."""
    candidates = [r for r in records if filled(field, r.fields.get(field))]
    if field == "title":  # a real title wherever one is given: "Withdraw" in one list names no paper
        candidates = [r for r in candidates if not is_placeholder_title(r.fields["title"])] or candidates
    if field == "decision":  # a decision made beats "still pending" wherever it is said
        candidates = [r for r in candidates if not pending(r.fields["decision"])] or candidates
    return min(candidates, key=lambda r: precedence(r, field), default=None)


def precedence(record: SourceRecord, field: str) -> tuple[int, int, str, str, int]:
    """A record's place for a field, first wins: its kind's rank, the later date its file name carries, the
    file name, then the folder and the record's place in the file."""
    return (
        kind_rank(record.kind, field),
        -snapshot_date(record.file_name),
        record.file_name,
        record.source,
        record.line or record.record or 0,
    )


def merge_records(
    venue: Venue, paper_id: str, records: list[SourceRecord], decisions: DecisionTable | None = None
) -> Paper:
    """One Paper from every record of it, its decision label read through the table; ValueError without a title. The
    records of files that no longer list it (`REMOVED`) count only when no file lists it: then it is as they last
    described it, with the decision NO_LONGER_LISTED."""
    listed = [r for r in records if not r.fields.get(REMOVED)]
    records = listed or [replace(r, fields={**r.fields, "decision": NO_LONGER_LISTED}) for r in records]
    chosen = {field: record for field in MERGED_FIELDS if (record := choose(records, field)) is not None}
    if "title" not in chosen:
        raise ValueError(f"no source gives a title for paper {excerpt(paper_id)}")
    values = {field: record.fields[field] for field, record in chosen.items()}
    provenance = {field: label(record) for field, record in chosen.items()}
    if "authors" in chosen:
        _align_affiliations(chosen["authors"], records, values, provenance)
    confidences: list[float] = []
    if "ratings" in chosen:
        confidences = list(chosen["ratings"].fields.get("confidences") or [])
        if confidences:
            provenance["confidences"] = provenance["ratings"]
    links: dict[str, str] = {}
    for record in sorted(records, key=lambda r: (kind_rank(r.kind, "links"), r.file_name, r.source), reverse=True):
        for key, url in (record.fields.get("links") or {}).items():
            links[key] = url
            provenance[f"links.{key}"] = label(record)
    return Paper(
        id=paper_id,
        venue=venue.id,
        venue_name=venue.name,
        year=venue.year,
        title=values["title"],
        abstract=values.get("abstract"),
        authors=[Author(**a) for a in values.get("authors", [])],
        affiliations=list(values.get("affiliations", [])),
        institutions=list(values.get("institutions", [])),
        countries=list(values.get("countries", [])),
        keywords=list(values.get("keywords", [])),
        decision=(decisions or DecisionTable()).classify(values.get("decision", ""), venue),
        ratings=list(values.get("ratings", [])),
        confidences=confidences,
        citations=CitationCount(**values["citations"]) if "citations" in values else None,
        links=dict(sorted(links.items())),
        tldr=values.get("tldr"),
        track=values.get("track"),
        primary_area=values.get("primary_area"),
        session=values.get("session"),
        award=values.get("award"),
        provenance=dict(sorted(provenance.items())),
    )


def _byline(authors: list[dict[str, Any]]) -> list[str]:
    return [name_key(a.get("name") or "") for a in authors]


def _align_affiliations(
    authors_from: SourceRecord, records: list[SourceRecord], values: dict[str, Any], provenance: dict[str, str]
) -> None:
    """Per-author details for a byline given without affiliations, from the best record whose authors are the
    same people in the same order and carry them; the paper's affiliations then follow that record (or its
    authors), so the paper's list and its authors' never disagree. Without such a record nothing changes."""
    authors = values["authors"]
    if any(a.get("affiliation") for a in authors):
        aligned: SourceRecord | None = authors_from
    else:
        byline = _byline(authors)
        same = [
            r
            for r in records
            if r is not authors_from
            and any(a.get("affiliation") for a in r.fields.get("authors") or [])
            and _byline(r.fields["authors"]) == byline
        ]
        aligned = min(same, key=lambda r: (kind_rank(r.kind, "authors"), r.file_name, r.source), default=None)
        if aligned is None:
            return
        values["authors"] = [
            {**a, **{k: v for k in AUTHOR_DETAILS if not a.get(k) and (v := other.get(k))}}
            for a, other in zip(authors, aligned.fields["authors"], strict=True)
        ]
        provenance["authors.affiliation"] = label(aligned)
    if aligned is None:
        return
    own = aligned.fields.get("affiliations") or list(
        dict.fromkeys(a["affiliation"] for a in values["authors"] if a.get("affiliation"))
    )
    if own:
        values["affiliations"] = own
        provenance["affiliations"] = label(aligned)
