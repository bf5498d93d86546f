"""The one data model: venues, papers, authors and decisions, shared by every layer."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum

# Acronyms whose display form is not plain upper case.
_DISPLAY_NAMES = {"neurips": "NeurIPS", "colm": "COLM", "tmlr": "TMLR"}
_VENUE_RE = re.compile(r"^\s*([A-Za-z][A-Za-z-]*?)[\s_-]*((?:19|20)\d\d)\s*$")


class Decision(StrEnum):
    """A paper's outcome; accepted tiers first, in order of prominence."""

    ORAL = "oral"
    SPOTLIGHT = "spotlight"
    POSTER = "poster"
    REJECT = "reject"
    WITHDRAWN = "withdrawn"
    DESK_REJECT = "desk-reject"
    UNKNOWN = "unknown"

    @property
    def accepted(self) -> bool:
        return self in (Decision.ORAL, Decision.SPOTLIGHT, Decision.POSTER)

    @property
    def reviewed(self) -> bool:
        """Desk rejects never entered review; every other submission did."""
        return self is not Decision.DESK_REJECT


# Every spelling the sources use, lower-cased. "Talk" is ICLR 2020's oral; an
# accept with no tier counts as a poster (documented in docs/ingest.md).
_DECISION_ALIASES = {
    "oral": Decision.ORAL,
    "accept (oral)": Decision.ORAL,
    "talk": Decision.ORAL,
    "accept (talk)": Decision.ORAL,
    "spotlight": Decision.SPOTLIGHT,
    "accept (spotlight)": Decision.SPOTLIGHT,
    "poster": Decision.POSTER,
    "accept (poster)": Decision.POSTER,
    "accept": Decision.POSTER,
    "accepted": Decision.POSTER,
    "reject": Decision.REJECT,
    "rejected": Decision.REJECT,
    "withdraw": Decision.WITHDRAWN,
    "withdrawn": Decision.WITHDRAWN,
    "desk reject": Decision.DESK_REJECT,
    "desk rejected": Decision.DESK_REJECT,
    "desk-reject": Decision.DESK_REJECT,
    "unknown": Decision.UNKNOWN,
    "": Decision.UNKNOWN,
}


def parse_decision(text: str) -> Decision:
    """Map a source's decision string to a Decision; ValueError names the allowed forms."""
    key = " ".join(text.strip().lower().split())
    try:
        return _DECISION_ALIASES[key]
    except KeyError:
        allowed = ", ".join(d.value for d in Decision)
        raise ValueError(f"unknown decision {text!r} (expected one of: {allowed})") from None


@dataclass(frozen=True)
class Venue:
    """A conference edition: id `iclr2021`, name `ICLR 2021`."""

    id: str
    name: str
    conference: str
    year: int

    @classmethod
    def parse(cls, text: str) -> Venue:
        """Read `iclr2021`, `ICLR 2021`, `iclr-2021` or `iclr 2021`; ValueError otherwise."""
        match = _VENUE_RE.match(text or "")
        if not match:
            raise ValueError(f"cannot read a venue from {text!r} (expected e.g. 'iclr2021' or 'ICLR 2021')")
        conference = match.group(1).lower().replace("-", "")
        year = int(match.group(2))
        display = _DISPLAY_NAMES.get(conference, conference.upper())
        return cls(id=f"{conference}{year}", name=f"{display} {year}", conference=conference, year=year)


@dataclass
class Author:
    """An author in byline order; the affiliation only where the source aligns it."""

    name: str
    affiliation: str | None = None


@dataclass
class Paper:
    """One paper of one venue, merged from every source that mentions it.

    `provenance` maps each filled field to the source it came from.
    """

    id: str
    venue: str
    title: str
    abstract: str | None = None
    authors: list[Author] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    decision: Decision = Decision.UNKNOWN
    ratings: list[float] = field(default_factory=list)
    confidences: list[float] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)
    tldr: str | None = None
    affiliations: list[str] = field(default_factory=list)
    venue_name: str = ""
    year: int = 0
    provenance: dict[str, str] = field(default_factory=dict)

    @property
    def rating_mean(self) -> float | None:
        return sum(self.ratings) / len(self.ratings) if self.ratings else None

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict with the source's id and every field."""
        return {
            "id": self.id,
            "venue": self.venue,
            "venue_name": self.venue_name,
            "year": self.year,
            "title": self.title,
            "abstract": self.abstract,
            "authors": [{"name": a.name, "affiliation": a.affiliation} for a in self.authors],
            "affiliations": self.affiliations,
            "keywords": self.keywords,
            "decision": self.decision.value,
            "ratings": self.ratings,
            "rating_mean": self.rating_mean,
            "confidences": self.confidences,
            "links": self.links,
            "tldr": self.tldr,
            "provenance": self.provenance,
        }


_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def fold(text: str) -> str:
    """Lower-case, strip accents and punctuation, collapse spaces: a key for matching."""
    if text.isascii():
        return " ".join(_NON_ALNUM.sub(" ", text.lower()).split())
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_only = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_NON_ALNUM.sub(" ", ascii_only.lower()).split())


def title_key(title: str) -> str:
    """Normalized title: records of one venue with the same key are the same paper."""
    return fold(title)


def name_key(name: str) -> str:
    """Normalized author name, so "Song, Yang", "yang song" and "Yáng Sōng" agree."""
    if "," in name:
        last, _, first = name.partition(",")
        name = f"{first} {last}"
    return fold(name)


def synthetic_id(venue: str, title: str) -> str:
    """A stable id for a record whose source gives none, derived from venue and title."""
    digest = hashlib.sha1(f"{venue}\n{title_key(title)}".encode()).hexdigest()
    return f"t-{digest[:12]}"
