"""The decision table: what each venue's decision labels mean (docs/ingest.md lists the defaults).

Labels stay as the source gives them; the table maps each one to an Outcome and
a kind. A user's config can override any label for a venue (`iclr2018`) or a
whole series (`acl`); a label nobody maps is kept as "other" and reported.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from confnav.errors import InputError, excerpt, read_utf8
from confnav.model import Decision, Outcome, Venue, named_venue, series_key

A, N = Outcome.ACCEPTED, Outcome.NOT_ACCEPTED
# Normalised label (lower case, single spaces) → (outcome, kind).
NO_LONGER_LISTED = "No longer listed"  # the decision of a paper every file that listed it dropped since
DEFAULT_LABELS: dict[str, tuple[Outcome, str]] = {
    "oral": (A, "oral"),
    "talk": (A, "oral"),
    "contributed talk": (A, "oral"),
    "long oral": (A, "oral"),
    "oral presentation": (A, "oral"),
    "award candidate": (A, "oral"),
    "best paper": (A, "oral"),
    "top-5%": (A, "oral"),
    "notable-top-5%": (A, "oral"),
    "top-25%": (A, "spotlight"),
    "notable-top-25%": (A, "spotlight"),
    "spotlight": (A, "spotlight"),
    "highlight": (A, "spotlight"),
    "highlighted": (A, "spotlight"),
    "spotlight presentation": (A, "spotlight"),
    "poster": (A, "poster"),
    "poster presentation": (A, "poster"),
    "accept": (A, "poster"),
    "accepted": (A, "poster"),
    "main": (A, "main"),
    "long": (A, "long"),
    "long paper": (A, "long"),
    "short": (A, "short"),
    "short paper": (A, "short"),
    "findings": (A, "findings"),
    "long main": (A, "long"),
    "short main": (A, "short"),
    "long findings": (A, "findings"),
    "short findings": (A, "findings"),
    "industry": (A, "industry"),
    "system demonstrations": (A, "demo"),
    "technical": (A, "technical"),
    "technical paper": (A, "technical"),
    "conference paper": (A, "technical"),
    "journal": (A, "journal"),
    "journal paper": (A, "journal"),
    "tog paper": (A, "journal"),
    "tacl": (A, "journal"),
    "cl": (A, "journal"),  # the ACL's journal Computational Linguistics, presented at its conferences
    "computational linguistics": (A, "journal"),
    "demo": (A, "demo"),
    "demonstration": (A, "demo"),
    "reject": (N, "reject"),
    "rejected": (N, "reject"),
    "withdraw": (N, "withdrawn"),
    "withdrawn": (N, "withdrawn"),
    "withdrawn submission": (N, "withdrawn"),
    "desk reject": (N, "desk-reject"),
    "desk rejected": (N, "desk-reject"),
    "desk-reject": (N, "desk-reject"),
    "desk rejected submission": (N, "desk-reject"),
    "workshop": (Outcome.WORKSHOP, "workshop"),
    "poster workshop": (Outcome.WORKSHOP, "workshop"),
    "oral workshop": (Outcome.WORKSHOP, "workshop"),
    "invite to workshop": (Outcome.WORKSHOP, "workshop"),
    "accept (workshop)": (Outcome.WORKSHOP, "workshop"),
    "active": (Outcome.PENDING, "pending"),
    "pending": (Outcome.PENDING, "pending"),
    "under review": (Outcome.PENDING, "pending"),
    "submitted": (Outcome.PENDING, "pending"),
    "unknown": (Outcome.UNKNOWN, "unknown"),
    "": (Outcome.UNKNOWN, "unknown"),
    "n/a": (Outcome.UNKNOWN, "unknown"),
    "deleted": (Outcome.OTHER, "deleted"),  # a submission OpenReview deleted: no longer pending, in no rate
    NO_LONGER_LISTED.lower(): (Outcome.OTHER, "removed"),  # in no file that listed it: in no rate either
}
# Prominence of each kind (0 first); kinds not listed take their outcome's default.
KIND_TIERS = {
    "oral": 0,
    "spotlight": 1,
    "findings": 3,
    "workshop": 10,
    "pending": 20,
    "unknown": 30,
    "other": 25,
    "reject": 40,
    "withdrawn": 41,
    "desk-reject": 42,
    "deleted": 45,
    "removed": 46,
}
OUTCOME_TIERS = {A: 2, N: 40, Outcome.WORKSHOP: 10, Outcome.PENDING: 20, Outcome.UNKNOWN: 30, Outcome.OTHER: 25}
_CONNECTIVE = re.compile(r"^(?:as|for|to|with)\s+(?:an?\s+)?")
_ACCEPT_WITH_KIND = re.compile(r"^accept(?:ed)?(?:\s*[(:\-–]\s*|\s+)([^)]*?)\s*\)?$")  # (Oral), -Poster, " oral"


def label_key(label: str) -> str:
    """How labels are compared: lower case, `_` as space, single spaces."""
    return " ".join(label.replace("_", " ").lower().split())


def tier_of(outcome: Outcome, kind: str) -> int:
    return KIND_TIERS.get(kind, OUTCOME_TIERS[outcome])


PAPER_TRACKS = frozenset({"main", "long", "short", "technical", "journal"})  # kinds that name a track of papers
SIDE_TRACKS = frozenset({"findings", "demo", "industry"})  # accepted beside a venue's papers, not among them
SIDE_TIER = KIND_TIERS["findings"]


def venue_tier(decision: Decision, venue_kinds: Collection[str]) -> int:
    """A decision's tier among its venue's accepted kinds: the table's, except that a side track (findings, demos,
    industry) and a poster at a venue whose papers are a paper track (SIGGRAPH's Technical and TOG papers) come
    below the venue's papers; at a venue of orals, spotlights and posters a poster is one of its papers."""
    if decision.kind in SIDE_TRACKS or (decision.kind == "poster" and not PAPER_TRACKS.isdisjoint(venue_kinds)):
        return max(decision.tier, SIDE_TIER)
    return decision.tier


def default_meaning(label: str) -> tuple[Outcome, str]:
    """The default table's meaning of a label, with a few patterns for forms like `Accept (Oral)`."""
    key = label_key(label)
    if key in DEFAULT_LABELS:
        return DEFAULT_LABELS[key]
    if match := _ACCEPT_WITH_KIND.match(key):
        inner = _CONNECTIVE.sub("", match.group(1))  # "accepted as a poster", "accept for oral presentation"
        if "workshop" in inner:
            return Outcome.WORKSHOP, "workshop"
        known = DEFAULT_LABELS.get(inner) or DEFAULT_LABELS.get(inner.split(" ", 1)[0])  # "oral presentation"
        return (A, known[1]) if known and known[0] is A else (A, inner or "poster")
    if "workshop" in key:
        return Outcome.WORKSHOP, "workshop"
    if "desk" in key and "reject" in key:
        return N, "desk-reject"
    if key.startswith(("reject", "not accepted")):
        return N, "reject"
    if key.startswith("withdr"):
        return N, "withdrawn"
    return Outcome.OTHER, "other"


@dataclass
class DecisionTable:
    """The default table plus overrides by scope: a venue id (`iclr2018`) or a series (`acl`)."""

    overrides: dict[str, dict[str, tuple[Outcome, str]]] = field(default_factory=dict)

    def meaning(self, label: str, venue: Venue | None = None) -> tuple[Outcome, str]:
        key = label_key(label)
        for scope in (venue.id, venue.conference) if venue else ():
            if key in self.overrides.get(scope, {}):
                return self.overrides[scope][key]
        return default_meaning(label)

    def classify(self, label: str, venue: Venue | None = None) -> Decision:
        """The Decision for a source's label at a venue."""
        outcome, kind = self.meaning(label, venue)
        return Decision(label.strip(), outcome, kind, tier_of(outcome, kind))

    def rows(self) -> list[tuple[str, str, str, str]]:
        """(scope, label, outcome, kind) of every override, for display and storage."""
        return [
            (scope, label, outcome.value, kind)
            for scope, table in sorted(self.overrides.items())
            for label, (outcome, kind) in table.items()
        ]

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str, str, str]]) -> DecisionTable:
        table = cls()
        for scope, label, outcome, kind in rows:
            table.overrides.setdefault(scope, {})[label] = (Outcome(outcome), kind)
        return table

    def merged(self, newer: DecisionTable) -> DecisionTable:
        """This table with `newer`'s scopes replacing its own."""
        return DecisionTable({**self.overrides, **newer.overrides})


def parse_meaning(text: str) -> tuple[Outcome, str]:
    """`accepted`, `accepted:findings`, `workshop`, or a kind the default table knows (`oral`, `withdrawn`)."""
    outcome_text, _, kind = text.strip().lower().partition(":")
    try:
        outcome = Outcome(outcome_text)
    except ValueError:
        known = {k: o for o, k in DEFAULT_LABELS.values()}
        if outcome_text in known and not kind:
            return known[outcome_text], outcome_text
        allowed = ", ".join(o.value for o in Outcome)
        raise ValueError(
            f"{excerpt(text)} is not an outcome ({allowed}, optionally ':KIND') nor a known kind"
        ) from None
    defaults = {A: "poster", N: "reject", Outcome.OTHER: "other"}
    return outcome, kind.strip() or defaults.get(outcome, outcome.value)


def load_decision_table(path: Path) -> DecisionTable:
    """Read `[decisions.SCOPE]` tables of `"Label" = "outcome[:kind]"` from a TOML config file."""
    try:
        data = tomllib.loads(read_utf8(path))
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, f"cannot read the config: {exc}") from None
    if "decisions" not in data:  # a misspelt table would otherwise be ignored without a word
        close = difflib.get_close_matches("decisions", list(data), n=1, cutoff=0.7)
        named = f"[{close[0]}] is not read: did you mean [decisions.VENUE]?" if close else ""
        tables = ", ".join(f"[{k}]" for k in data) or "none"
        raise InputError(path, named or f"no [decisions.VENUE] table to read (its tables: {tables})", field="decisions")
    scopes = data["decisions"]
    if not isinstance(scopes, Mapping):
        raise InputError(path, "[decisions] must hold one table per venue or series", field="decisions")
    table = DecisionTable()
    for scope, labels in scopes.items():
        if not isinstance(labels, Mapping):
            raise InputError(path, 'expected a table of "Label" = "outcome"', field=f"decisions.{scope}")
        try:
            key = series_key(scope) if not re.search(r"\d{4}$", scope) else named_venue(scope).id
        except ValueError as exc:
            raise InputError(path, str(exc), field=f"decisions.{scope}") from None
        for label, meaning in labels.items():
            try:
                table.overrides.setdefault(key, {})[label_key(label)] = parse_meaning(str(meaning))
            except ValueError as exc:
                raise InputError(path, str(exc), field=f"decisions.{scope}.{label}") from None
    return table
