"""The rows ingest writes, as both backends' write paths build them: source records, the papers table's columns
and the filter tables (authors, keywords, institutions) of each paper."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from confnav.decisions import DecisionTable
from confnav.model import Author, CitationCount, Decision, Outcome, Paper, fold, name_key
from confnav.sources.base import SourceRecord
from confnav.store.base import canonical_json, read_json


def index_rows(rows: list[tuple[int, Paper]]) -> list[tuple[str, tuple[str, ...], list[tuple[Any, ...]]]]:
    """The filter tables' rows of papers with these row keys: (table, columns, rows) for authors, keywords and
    institutions."""
    return [
        (
            "paper_authors",
            ("paper_pk", "position", "name", "name_key", "affiliation", "profile"),
            [
                (pk, i, a.name, name_key(a.name), a.affiliation, a.profile)
                for pk, p in rows
                for i, a in enumerate(p.authors)
            ],
        ),
        (
            "paper_keywords",
            ("paper_pk", "position", "keyword", "keyword_key"),
            [(pk, i, k, fold(k)) for pk, p in rows for i, k in enumerate(p.keywords)],
        ),
        (
            "paper_places",
            ("paper_pk", "position", "place"),
            [(pk, i, pl) for pk, p in rows for i, pl in enumerate(p.places)],
        ),
    ]


def indexed(paper: dict[str, Any]) -> tuple[Any, ...]:
    """What a paper's filter rows (index_rows) are made of, from its JSON: its authors, keywords and places."""
    return tuple(paper.get(key) for key in ("authors", "keywords", "institutions", "affiliations"))


# `changed`: the store's generation when the paper was last written (what the keyword index adds since it was made)
PAPER_COLUMNS = (
    "title",
    "abstract",
    "decision",
    "outcome",
    "tier",
    "track",
    "rating_mean",
    "data",
    "changed",
    "ratings",
)
RECORD_COLUMNS = ("venue", "paper_id", "source", "kind", "line", "record", "data")


def record_rows(records: list[SourceRecord]) -> list[tuple[Any, ...]]:
    """The source_records rows of keyed records, in RECORD_COLUMNS order."""
    rows = []
    for r in records:
        assert r._key is not None, "records are keyed before they are stored"
        rows.append((r._key[0], r._key[1], r.source, r.kind, r.line, r.record, canonical_json(r.fields)))
    return rows


def paper_columns(paper: Paper, data: str, generation: int) -> tuple[Any, ...]:
    """The papers table's columns besides venue and id, in PAPER_COLUMNS order."""
    d = paper.decision
    track, mean = paper.track, paper.rating_mean
    finite = [r for r in paper.ratings if math.isfinite(r)]
    ratings = json.dumps(finite) if finite else None
    return (paper.title, paper.abstract, d.name, d.outcome.value, d.tier, track, mean, data, generation, ratings)


def grouped(rows: Iterator[tuple[int, str]]) -> Iterator[tuple[int, list[str]]]:
    """(key, value) rows in key order, as (key, values) per key."""
    key, values = None, []
    for row_key, value in rows:
        if row_key != key and key is not None:
            yield key, values
            values = []
        key = row_key
        values.append(value)
    if key is not None:
        yield key, values


def same_paper(stored: str, data: str) -> bool:
    """Whether a stored paper's JSON and a merged paper's are the same paper: equal texts, or equal once the
    stored one is read into today's Paper (a field added since it was written, at its default, is no change)."""
    return stored == data or canonical_json(paper_from_json(stored).to_dict()) == data


def paper_from_json(text: str) -> Paper:
    """A stored paper; papers written before decisions were open carry the decision as a bare kind."""
    data = read_json(text)
    for derived in ("rating_mean", "affiliations_by_author", "resources", "has_code"):
        data.pop(derived, None)
    data["authors"] = [Author(**a) for a in data["authors"]]
    decision = data["decision"]
    if isinstance(decision, str):
        data["decision"] = DecisionTable().classify(decision)
    else:
        outcome = Outcome(decision["outcome"])
        data["decision"] = Decision(decision["label"], outcome, decision["kind"], decision["tier"])
    if data.get("citations"):
        data["citations"] = CitationCount(**data["citations"])
    return Paper(**data)
