"""Join the records of one paper into a Paper, field by field, by a documented precedence.

For each field the value comes from the highest-ranked source kind that has a
non-empty value ("unknown" decisions count as empty); ties between two files of
the same kind go to the file whose name sorts first. Links are the union of all
sources, the highest-ranked source winning per link. Confidences travel with
the ratings they belong to. The result does not depend on ingest order.
"""

from __future__ import annotations

from typing import Any

from confnav.decisions import DecisionTable, default_meaning
from confnav.model import Author, CitationCount, Outcome, Paper, Venue
from confnav.sources.base import SourceRecord

# The community list carries the final (camera-ready) title, authors with
# affiliations, decisions and review scores; the OpenReview TSV carries the
# submission's abstract and keywords as the authors typed them.
# A live OpenReview snapshot is the newest word on reviews and decisions, so it comes first.
DEFAULT_ORDER = ("openreview-notes", "paperlists", "openreview-tsv", "markdown", "csv", "jsonl")
FIELD_ORDER: dict[str, tuple[str, ...]] = {
    "abstract": ("openreview-notes", "openreview-tsv", "paperlists", "markdown", "csv", "jsonl"),
    "keywords": ("openreview-notes", "openreview-tsv", "paperlists", "markdown", "csv", "jsonl"),
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
    "citations",
)


# Bumped whenever the merge rules (or the Paper they produce) change: stores merged by older rules are re-merged.
MERGE_VERSION = 3


def _rank(kind: str, field: str) -> int:
    order = FIELD_ORDER.get(field, DEFAULT_ORDER)
    return order.index(kind) if kind in order else len(order)


def _filled(field: str, value: Any) -> bool:
    if field == "decision":
        return value is not None and default_meaning(str(value))[0] is not Outcome.UNKNOWN
    return value not in (None, "", [], {})


def _label(record: SourceRecord) -> str:
    """`kind:file name` (the file's folder, kept in the store to tell files apart, is left out)."""
    return f"{record.kind}:{record.file_name}"


def merge_records(
    venue: Venue, paper_id: str, records: list[SourceRecord], decisions: DecisionTable | None = None
) -> Paper:
    """One Paper from every record of it, its decision label read through the table; ValueError without a title."""
    chosen: dict[str, SourceRecord] = {}
    for field in MERGED_FIELDS:
        candidates = [r for r in records if _filled(field, r.fields.get(field))]
        if len(candidates) == 1:
            chosen[field] = candidates[0]
        elif candidates:
            chosen[field] = min(
                candidates, key=lambda r: (_rank(r.kind, field), r.file_name, r.source, r.line or r.record or 0)
            )
    if "title" not in chosen:
        raise ValueError(f"no source gives a title for paper {paper_id!r}")
    values = {field: record.fields[field] for field, record in chosen.items()}
    provenance = {field: _label(record) for field, record in chosen.items()}
    confidences: list[float] = []
    if "ratings" in chosen:
        confidences = list(chosen["ratings"].fields.get("confidences") or [])
        if confidences:
            provenance["confidences"] = provenance["ratings"]
    links: dict[str, str] = {}
    for record in sorted(records, key=lambda r: (_rank(r.kind, "links"), r.file_name, r.source), reverse=True):
        for key, url in (record.fields.get("links") or {}).items():
            links[key] = url
            provenance[f"links.{key}"] = _label(record)
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
        provenance=dict(sorted(provenance.items())),
    )
