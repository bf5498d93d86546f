"""The one data model: venues, papers, authors and decisions, shared by every layer."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from confnav.errors import excerpt
from confnav.keys import PLACEHOLDER_TITLES as PLACEHOLDER_TITLES  # the keys are named from the model too
from confnav.keys import SERIES_ALIASES as SERIES_ALIASES
from confnav.keys import SERIES_NAMES as SERIES_NAMES
from confnav.keys import display_series as display_series
from confnav.keys import fold as fold
from confnav.keys import is_placeholder_place as is_placeholder_place
from confnav.keys import is_placeholder_title as is_placeholder_title
from confnav.keys import name_key as name_key
from confnav.keys import named_places as named_places
from confnav.keys import series_key as series_key
from confnav.keys import synthetic_id as synthetic_id
from confnav.keys import title_key as title_key
from confnav.limits import MAX_VENUE_TEXT
from confnav.model.reviewing import REVIEW_KINDS as REVIEW_KINDS  # the records of reviewing and of programmes
from confnav.model.reviewing import DecisionsArrived as DecisionsArrived
from confnav.model.reviewing import RatingScale as RatingScale
from confnav.model.reviewing import ReviewText as ReviewText
from confnav.model.reviewing import ReviewVersion as ReviewVersion
from confnav.model.sessions import SESSION_SEPARATOR as SESSION_SEPARATOR
from confnav.model.sessions import Session as Session
from confnav.model.sessions import session_names as session_names

_VENUE_RE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9 .&_-]*?)[\s_-]*((?:19|20)\d\d)(?![0-9])\s*(.*?)\s*$")
_SHORT_YEAR = re.compile(r"\s*(.{0,100}?[A-Za-z&])[\s_'-]*(\d{2})\s*")
_FILLER_WORDS = {"", "conference", "main", "main conference", "proceedings"}


class Outcome(StrEnum):
    """What a decision means, whatever the venue calls it (see confnav.decisions)."""

    ACCEPTED = "accepted"
    NOT_ACCEPTED = "not-accepted"
    WORKSHOP = "workshop"
    PENDING = "pending"
    UNKNOWN = "unknown"
    OTHER = "other"

    @property
    def label(self) -> str:
        """The outcome as a reader reads it ("not accepted"); the value stays the key filters take."""
        return self.value.replace("-", " ")


@dataclass(frozen=True)
class Decision:
    """A paper's decision: the label exactly as its source gives it, and what it means.

    `kind` names the accepted kind (oral, spotlight, poster, long, findings, …) or
    the way a paper was not accepted (reject, desk-reject, withdrawn); `tier`
    orders decisions by prominence, 0 first.
    """

    label: str = ""
    outcome: Outcome = Outcome.UNKNOWN
    kind: str = "unknown"
    tier: int = 90

    @property
    def accepted(self) -> bool:
        return self.outcome is Outcome.ACCEPTED

    @property
    def desk_rejected(self) -> bool:
        return self.kind == "desk-reject"

    @property
    def reviewed(self) -> bool:
        """Entered review: any known decision but a desk reject."""
        return self.outcome is not Outcome.UNKNOWN and not self.desk_rejected

    @property
    def decided(self) -> bool:
        """Counted in acceptance rates: accepted, not accepted after review, or sent to a workshop."""
        return self.reviewed and self.outcome in (Outcome.ACCEPTED, Outcome.NOT_ACCEPTED, Outcome.WORKSHOP)

    @property
    def name(self) -> str:
        """The words shown to a reader: the kind, or the source's label where the table does not know it."""
        return self.label.strip() or self.kind if self.outcome is Outcome.OTHER else self.kind

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "outcome": self.outcome.value,
            "kind": self.kind,
            "tier": self.tier,
            "name": self.name,
        }


@dataclass(frozen=True)
class Venue:
    """A conference edition: id `neurips2018`, name `NeurIPS 2018`, series `neurips`."""

    id: str
    name: str
    conference: str
    year: int

    @property
    def series(self) -> str:
        """The series' display name, e.g. `NeurIPS`."""
        return display_series(self.conference)

    @classmethod
    def parse(cls, text: str) -> Venue:
        """Read `iclr2021`, `ICLR 2021`, `nips-2018` or `SIGGRAPH Asia 2022`; ValueError otherwise."""
        return split_venue(text)[0]

    @classmethod
    def of(cls, conference: str, year: int) -> Venue:
        key = series_key(conference)
        return cls(id=f"{key}{year}", name=f"{display_series(key)} {year}", conference=key, year=year)


def find_venue(text: str, known: Iterable[Venue]) -> Venue | None:
    """The one venue of `known` that `text` names (see venues_named), or None: what a question's venue mentions are
    read by."""
    try:
        found = venues_named(text, known)
    except ValueError:
        return None
    return found[0] if len(found) == 1 else None


def venues_named(text: str, known: Iterable[Venue]) -> list[Venue]:
    """The venues of `known` that `text` may name: its id, or any spelling of its series and year (`ICLR 2021`,
    `ICLR2021`, `iclr-2021`, `ICLR'21`, `NIPS 2018` for neurips2018): one venue or none; or a series alone: every
    venue of that series (several: the name is ambiguous). Words left after the year (`ICLR 2021 Workshop`,
    `iclr2021.json`) are a ValueError, as is a name longer than any venue's: a workshop or a track named after a
    venue is another venue, and a name with more to it is not this one's."""
    venues = list(known)
    if match := next((v for v in venues if v.id == text), None):
        return [match]
    if len(text) > MAX_VENUE_TEXT:
        raise ValueError(
            f"{excerpt(text)} is not the name of a venue: no venue name is over {MAX_VENUE_TEXT} characters"
        )
    text = _long_year(text)
    try:
        wanted, rest = split_venue(text)
    except ValueError:
        return [v for v in venues if v.conference == series_key(text)]
    _nothing_left(text, wanted, rest)
    return [v for v in venues if v.id == wanted.id or (v.year, v.conference) == (wanted.year, wanted.conference)]


def named_venue(text: str) -> Venue:
    """The venue a user names for papers the store may not hold yet (`ingest --venue`, `fetch paperlists`), read
    by the rule venues_named reads a stored one by (`ICLR 2021`, `iclr-2021`, `ICLR'21`): ValueError for a name
    without a year or with words left over (`ICLR 2021 Workshop`), so no verb takes one for a track."""
    if len(text) > MAX_VENUE_TEXT:
        raise ValueError(
            f"{excerpt(text)} is not the name of a venue: no venue name is over {MAX_VENUE_TEXT} characters"
        )
    text = _long_year(text)
    wanted, rest = split_venue(text)
    _nothing_left(text, wanted, rest)
    return wanted


def _long_year(text: str) -> str:
    """A name with a two-digit year (`ICLR'21`, `cvpr19`) with its four digits."""
    short = _SHORT_YEAR.fullmatch(text)
    return f"{short.group(1)} 20{short.group(2)}" if short else text


def _nothing_left(text: str, wanted: Venue, rest: str | None) -> None:
    """ValueError when words follow a venue's year: a workshop or a track named after a venue is another venue."""
    if rest is not None:
        raise ValueError(
            f"{excerpt(text)} is not the name of a venue: {excerpt(rest)} is not part of {wanted.name}'s name "
            "(a workshop or a track named after a venue is another venue)"
        )


def split_venue(text: str) -> tuple[Venue, str | None]:
    """A venue and the track named after its year (`NeurIPS 2023 Datasets and Benchmarks`), if any."""
    # Longer text is no venue name, and the pattern would take quadratic time on it.
    match = _VENUE_RE.match(text or "") if len(text or "") <= MAX_VENUE_TEXT else None
    if not match or not re.search(r"[A-Za-z]", match.group(1)):
        raise ValueError(f"cannot read a venue from {excerpt(text)} (expected e.g. 'iclr2021' or 'ICLR 2021')")
    rest = " ".join(match.group(3).split())
    track = None if rest.lower() in _FILLER_WORDS else rest
    return Venue.of(match.group(1), int(match.group(2))), track


@dataclass
class Author:
    """An author in byline order; affiliation, institution and country only where the source aligns them.

    `profile` is a stable person id from the source (an OpenReview `~Name1`, an
    ACL Anthology or DBLP id), used to tell apart people who share a name.
    """

    name: str
    affiliation: str | None = None
    profile: str | None = None
    institution: str | None = None
    country: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {k: v for k, v in self.__dict__.items() if v is not None or k in ("name", "affiliation")}

    @property
    def place(self) -> str | None:
        """The institution this entry names: its normalised institution, else its affiliation (the first of several
        joined by "+"); never a placeholder such as "Unknown Institution", which names none."""
        given = named_places((self.institution, (self.affiliation or "").split("+")[0]))
        return given[0] if given else None


@dataclass(frozen=True)
class CitationCount:
    """A citation count with where it came from and when it was taken (None when the source does not say)."""

    count: int
    source: str
    as_of: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "source": self.source, "as_of": self.as_of}


AWARD_UNNAMED = "an award (its data does not name it)"  # a paper the data flags with an award without its name


@dataclass
class Paper:
    """One paper of one venue, merged from every source that mentions it.

    `affiliations` is the paper's own list, whether or not the source says whose
    each one is; an author carries one only where the source aligns them.
    `provenance` maps each filled field to the source it came from.
    """

    id: str
    venue: str
    title: str
    abstract: str | None = None
    authors: list[Author] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    decision: Decision = field(default_factory=Decision)
    ratings: list[float] = field(default_factory=list)
    confidences: list[float] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)
    tldr: str | None = None
    affiliations: list[str] = field(default_factory=list)
    institutions: list[str] = field(default_factory=list)
    countries: list[str] = field(default_factory=list)
    track: str | None = None
    primary_area: str | None = None
    session: str | None = None
    award: str | None = None  # the award the data names the paper for (AWARD_UNNAMED when it only flags one)
    citations: CitationCount | None = None
    venue_name: str = ""
    year: int = 0
    provenance: dict[str, str] = field(default_factory=dict)

    @property
    def rating_mean(self) -> float | None:
        return sum(self.ratings) / len(self.ratings) if self.ratings else None

    @property
    def reviewed_ratings(self) -> list[float]:
        """The ratings every statistic counts (a venue's, a decision's, a theme's or a keyword's mean): the
        paper's once it entered review; none for a desk reject or an unknown decision, whatever it was rated."""
        return self.ratings if self.decision.reviewed else []

    @property
    def reviewed_rating_mean(self) -> float | None:
        """The mean of `reviewed_ratings`: the paper's part in any mean rating a statistic shows."""
        return self.rating_mean if self.decision.reviewed else None

    @property
    def affiliations_by_author(self) -> bool:
        """Whether the authors carry their own affiliations; if not, the paper's list is shown without pairing."""
        return any(a.affiliation for a in self.authors)

    @property
    def places(self) -> list[str]:
        """The places the paper's data gives: the source's normalised list, else the paper's affiliations, else its
        authors' aligned ones (as stored for the institution index; counters leave out placeholders such as
        "Unknown Institution", see reports.institutions, and count each place once per paper)."""
        aligned = [a.affiliation for a in self.authors if a.affiliation]
        return [a for a in (self.institutions or self.affiliations or aligned) if a and a.strip()]

    @property
    def placeholder(self) -> bool:
        """Whether the title only holds a place (`withdraw`, `title`): kept out of search, themes and rankings."""
        return is_placeholder_title(self.title)

    @property
    def url(self) -> str | None:
        """The paper's best page: its forum, its page on the venue's site, its DOI, else its PDF."""
        return next((self.links[k] for k in LINK_PREFERENCE if self.links.get(k)), None)

    @property
    def resources(self) -> dict[str, str]:
        """The paper's code, project page, video, slides and poster links, http(s) only, in RESOURCE_KINDS order."""
        return {kind: url for kind in RESOURCE_KINDS if (url := self.links.get(kind, "")) and is_web_link(url)}

    @property
    def has_code(self) -> bool:
        """Whether the source links the paper's code (what the "has code" filter keeps)."""
        return "code" in self.resources

    def fields_present(self) -> list[str]:
        """Which of the fields readers look for this record carries (hits show it)."""
        present = {
            "abstract": bool(self.abstract),
            "keywords": bool(self.keywords),
            "ratings": bool(self.ratings),
            "decision": self.decision.outcome is not Outcome.UNKNOWN,
            "tldr": bool(self.tldr),
        }
        return [name for name, yes in present.items() if yes]

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict with the source's id and every field."""
        return {
            "id": self.id,
            "venue": self.venue,
            "venue_name": self.venue_name,
            "year": self.year,
            "track": self.track,
            "title": self.title,
            "abstract": self.abstract,
            "authors": [a.to_dict() for a in self.authors],
            "affiliations": self.affiliations,
            "affiliations_by_author": self.affiliations_by_author,
            "institutions": self.institutions,
            "countries": self.countries,
            "keywords": self.keywords,
            "primary_area": self.primary_area,
            "session": self.session,
            "award": self.award,
            "decision": self.decision.to_dict(),
            "ratings": self.ratings,
            "rating_mean": self.rating_mean,
            "confidences": self.confidences,
            "citations": self.citations.to_dict() if self.citations else None,
            "links": self.links,
            "resources": self.resources,
            "has_code": self.has_code,
            "tldr": self.tldr,
            "provenance": self.provenance,
        }


# Which link names a paper as a whole, best first (see Paper.url).
LINK_PREFERENCE = ("forum", "site", "abstract", "paper", "doi", "pdf")
# The links that come with a paper, in the order pages and hits show them (see Paper.resources).
RESOURCE_KINDS = ("code", "project", "video", "slides", "poster")


def is_web_link(url: str) -> bool:
    """Whether a stored link may be shown as a link: an http(s) URL (anything else is shown as text, if at all)."""
    return url.lower().startswith(("https://", "http://"))


def real_papers(papers: Iterable[Paper]) -> list[Paper]:
    """The papers that are not placeholders (see PLACEHOLDER_TITLES), in their order."""
    return [paper for paper in papers if not paper.placeholder]


def placeholders_left_out(n: int, listed: str = "") -> str | None:
    """The line saying that `n` placeholder records (see PLACEHOLDER_TITLES) are left out of every count, with
    `listed` (their first titles) when given; None when there are none. One wording for every surface."""
    if not n:
        return None
    noun = "record" if n == 1 else "records"
    return f"{n:,} placeholder {noun}{f' ({listed})' if listed else ''} not counted."


def n_papers(n: int) -> str:
    """A count of papers as a sentence says it: "1 paper", "2,997 papers"."""
    return f"{n:,} paper{'s' * (n != 1)}"
