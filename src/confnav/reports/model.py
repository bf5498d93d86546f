"""The report model shared by every report and renderer: facts, cited papers, sections, tables, charts.

Every number a report shows is a Fact with a key the verifier can recompute from
the store; every paper it cites is a Citation by id.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from confnav.model import Venue


@dataclass(frozen=True)
class Fact:
    """A number shown to the reader, e.g. key `venue.accepted`, label `Accepted papers`, value `860`."""

    key: str
    label: str
    value: str


@dataclass
class Citation:
    """A cited paper: id, title, its own link (None when the data has none), one-line TL;DR, why it was chosen."""

    paper_id: str
    title: str
    url: str | None
    tldr: str | None
    tldr_source: str
    note: str = ""


@dataclass
class Section:
    """A themed section: heading, a summary (with facts inline as {key} placeholders), cited papers."""

    title: str
    summary: str = ""
    facts: dict[str, Fact] = field(default_factory=dict)
    citations: list[Citation] = field(default_factory=list)
    anchor: str = ""


@dataclass
class Table:
    """A table of computed values; `id` lets the verifier recompute it."""

    id: str
    caption: str
    header: list[str]
    rows: list[list[str]]


@dataclass
class Chart:
    """A PNG chart with a caption."""

    id: str
    caption: str
    png: bytes


@dataclass
class Report:
    """A whole report for one venue."""

    kind: str
    venue: Venue
    title: str
    facts: list[Fact] = field(default_factory=list)
    intro: str = ""
    sections: list[Section] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def count(value: int) -> str:
    return f"{value:,}"


def percent(part: int | float, whole: int | float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"

