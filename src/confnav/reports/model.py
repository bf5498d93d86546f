"""The report model shared by every report and renderer: facts, cited papers, sections, tables, charts.

Every number a report shows is a Fact with a key the verifier can recompute from
the store; every paper it cites is a Citation by id.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from confnav.model import Decision, Outcome, Venue


@dataclass(frozen=True)
class Fact:
    """A number shown to the reader, e.g. key `venue.accepted`, label `Accepted papers`, value `860`."""

    key: str
    label: str
    value: str


@dataclass
class Citation:
    """A cited paper: id, title, its own link (None when the data has none), one-line TL;DR, why it was chosen,
    the name its abstract gives the method (None when it gives none), and its byline and decision (for its card)."""

    paper_id: str
    title: str
    url: str | None
    tldr: str | None
    tldr_source: str
    note: str = ""
    name: str | None = None
    authors: str = ""
    decision: str = ""


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
    """A table of computed values; `id` lets the verifier recompute it. `names` (one a row, when given) are what
    the first cell names in the app (an author's name where the cell tells apart people sharing it)."""

    id: str
    caption: str
    header: list[str]
    rows: list[list[str]]
    names: list[str] | None = None


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
    mode: str | None = None  # the ranking mode of the papers it cites, for reports that rank
    ranker: str | None = None  # the name of the ranker that ranked them (registered or `module:Class`)
    context: list[Fact] = field(default_factory=list)  # facts its prose cites that its facts block does not list


# The notes a report writes on how an LLM wrote it: their counts are of that run, which the store does not keep, so
# `verify` accepts a note of these forms (listing it as not checked) and refuses any other note the store does not give.
LLM_NOTES = (
    "The LLM wrote {} paragraphs, checked sentence by sentence, {} of them shown: of its {} sentences, {} were dropped"
    " and {} replaced by a paper's own sentence for failing a check.",
    "The LLM could not be reached: the prose and TL;DRs are extractive.",
    "{} LLM TL;DRs failed a check and were replaced by extractive ones.",
)


class Shown(str):
    """A number as a report shows it ("3,014", "28.7%", "7.40") that keeps its value for JSON (3014, 0.287, 7.4)."""

    value: int | float | None

    def __new__(cls, text: str, value: int | float | None) -> Shown:
        shown = super().__new__(cls, text)
        shown.value = value
        return shown


def plain(cell: object) -> object:
    """The value behind a shown number (a share as a fraction); other cells as they are."""
    return cell.value if isinstance(cell, Shown) else cell


def count(value: int) -> str:
    return Shown(f"{value:,}", value)


def percent(part: int | float, whole: int | float) -> str:
    return Shown(f"{100 * part / whole:.1f}%", round(part / whole, 6)) if whole else Shown("-", None)


def decimal(value: float | None) -> str:
    """A mean or a rating with two decimals."""
    return Shown("-", None) if value is None else Shown(f"{value:.2f}", round(value, 6))


def decision_words(decision: Decision) -> str:
    """A paper's decision as a listed paper shows it ("accepted (oral)", "not accepted (withdrawn)"), so that no
    rejected or withdrawn paper reads as accepted; "" when the data gives none."""
    if decision.outcome is Outcome.UNKNOWN:
        return ""
    said = decision.outcome.label
    return said if decision.name in ("", said) else f"{said} ({decision.name})"
