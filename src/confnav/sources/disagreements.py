"""Where a paper's source records disagree on a field it shows: what each says, whose value the paper took and
why, by the merge's own rules (merge.py), so that `confnav show` hides no source and no conflict."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Protocol

from confnav.decisions import DecisionTable
from confnav.model import Paper, Venue, fold, is_placeholder_title
from confnav.sources.base import SourceRecord
from confnav.sources.merge import REMOVED, choose, filled, kind_rank, label, pending, precedence, snapshot_date

# The fields compared: those `show` prints in a line (abstract, authors and affiliations are long texts whose
# spellings differ between lists without saying different things).
COMPARED = ("title", "decision", "ratings", "keywords", "track", "primary_area", "session", "award", "tldr")


@dataclass(frozen=True)
class Said:
    """One record's value of a field: its source (`kind:file`), the value as the source gives it and as shown,
    and whether the paper took it or why not."""

    source: str
    value: Any
    shown: str
    note: str

    def to_dict(self) -> dict[str, object]:
        return {"source": self.source, "value": self.value, "shown": self.shown, "note": self.note}


@dataclass(frozen=True)
class Disagreement:
    """A field on which a paper's records say different things, the value the paper shows first."""

    field: str
    said: list[Said]

    def describe(self) -> str:
        """One line: each source's value, the one shown and why the others were not."""
        parts = [f"{s.source} says {s.shown} ({s.note})" for s in self.said]
        return f"{self.field.replace('_', ' ')}: " + "; ".join(parts)

    def to_dict(self) -> dict[str, object]:
        return {"field": self.field, "said": [s.to_dict() for s in self.said]}


@dataclass(frozen=True)
class PaperSources:
    """Every source record of a paper and the fields on which they disagree: what `confnav show` and the web's
    paper page and `/api/paper` list after the paper's fields."""

    sources: list[str]
    disagreements: list[Disagreement]

    def to_dict(self) -> dict[str, object]:
        return {"sources": self.sources, "disagreements": [d.to_dict() for d in self.disagreements]}


class RecordReader(Protocol):
    """What paper_sources reads of a store (its records, the venue and the decision table)."""

    def records(self, venue: str, paper_ids: Collection[str] | None = None) -> dict[str, list[SourceRecord]]: ...

    def get_venue(self, venue_id: str) -> Venue: ...

    def decision_table(self) -> DecisionTable: ...


def paper_sources(store: RecordReader, paper: Paper) -> PaperSources:
    """A stored paper's source records by label, and where they disagree (see disagreements)."""
    records = store.records(paper.venue, [paper.id]).get(paper.id, [])
    found = disagreements(records, store.get_venue(paper.venue), store.decision_table())
    return PaperSources(source_labels(records), found)


def source_labels(records: list[SourceRecord]) -> list[str]:
    """Every record's source (`kind:file`), sorted; a file that no longer lists the paper says so."""
    return sorted({label(r) + (" (no longer lists it)" if r.fields.get(REMOVED) else "") for r in records})


def disagreements(records: list[SourceRecord], venue: Venue, table: DecisionTable) -> list[Disagreement]:
    """The COMPARED fields on which the records of files listing the paper differ in meaning (a decision by what
    the venue's table reads it as, ratings in any order, keywords in any case): each record's value, the one the
    merge chose marked shown, every other with the rule that set it aside."""
    listed = [r for r in records if not r.fields.get(REMOVED)]
    found = []
    for field in COMPARED:
        giving = [r for r in listed if r.fields.get(field) is not None]
        if len({_meaning(field, r.fields[field], venue, table) for r in giving}) < 2:
            continue
        chosen = choose(listed, field)
        ordered = sorted(giving, key=lambda r: (r is not chosen, precedence(r, field)))
        said = [Said(label(r), (v := r.fields[field]), _shown(field, v), _note(field, r, chosen)) for r in ordered]
        found.append(Disagreement(field, said))
    return found


def _meaning(field: str, value: Any, venue: Venue, table: DecisionTable) -> object:
    if not filled(field, value):
        return None
    if field == "decision":
        return table.meaning(str(value), venue)
    if field == "ratings":
        return tuple(sorted(float(r) for r in value))
    if field == "keywords":
        return frozenset(fold(str(k)) for k in value)
    return str(value).strip()


def _shown(field: str, value: Any) -> str:
    if field == "ratings":
        return ", ".join(f"{float(r):g}" for r in value) if value else "no ratings"
    if field == "keywords":
        return ", ".join(str(k) for k in value) if value else "no keywords"
    return repr(str(value)) if str(value).strip() else "nothing"


def _note(field: str, record: SourceRecord, chosen: SourceRecord | None) -> str:
    """Why the paper shows this record's value, or why not (the merge's rule that decided between them)."""
    if record is chosen:
        return "shown"
    value = record.fields[field]
    if not filled(field, value):
        return "not used: an unknown decision is no decision" if field == "decision" else "not used: empty"
    if chosen is None:
        return "not used"
    if field == "decision" and pending(value) and not pending(chosen.fields[field]):
        return "not used: a decision made beats pending"
    if field == "title" and is_placeholder_title(str(value)):
        return "not used: a placeholder, not a title"
    if kind_rank(chosen.kind, field) != kind_rank(record.kind, field):
        return f"not used: {chosen.kind} comes before {record.kind} for the {field.replace('_', ' ')}"
    if snapshot_date(chosen.file_name) != snapshot_date(record.file_name):
        return "not used: the other file's name carries a later date"
    return "not used: the other file's name sorts first"
