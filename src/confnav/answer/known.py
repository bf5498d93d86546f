"""What a venue's data can count: a count of a decision the data cannot hold (rejections where only accepted papers
are listed, a kind of decision the venue never gave) is said to be unknown, with why, never shown as 0."""

from __future__ import annotations

from confnav.model import Decision, Outcome
from confnav.store import PaperFilter
from confnav.store.base import REVIEWED
from confnav.store.protocols import PaperReader
from confnav.topics.facts import lists_rejections

# What an accepted-only list cannot hold: the outcomes other than acceptance and the kinds of not being accepted.
NOT_LISTED = {o.value for o in Outcome if o is not Outcome.ACCEPTED} | {"reject", "withdrawn", "desk-reject", REVIEWED}


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def decision_gap(store: PaperReader, venue: str, decision: str) -> str | None:
    """Why the store cannot count `venue`'s papers of `decision` (None when it can): the data holds no decisions,
    lists accepted papers only (the test `stats` makes for its acceptance rate), or no paper of the venue has a
    decision of that name (which the store's filter refuses), so that no 0 is stated for it."""
    counts = store.decision_counts(venue)
    wanted = PaperFilter(decision=decision)
    decisions: list[Decision] = [d for d, n in counts if n]
    whole = wanted.decision_key() != REVIEWED or lists_rejections(decisions)  # an accepted-only list: not all reviewed
    if whole and any(wanted.admits(d) for d in decisions):
        return None
    info = store.get_venue(venue)
    venue, name = info.id, info.name
    if all(d.outcome is Outcome.UNKNOWN for d in decisions):
        return f"the data of {name} holds no decisions"
    if not lists_rejections(decisions) and wanted.decision_key() in NOT_LISTED:
        return f"the data of {name} lists accepted papers only (no rejected submissions)"
    kinds = _listed(list(dict.fromkeys(d.name for d in sorted(decisions, key=lambda d: (d.tier, d.name)))))
    return f"{name} gave no decision named {decision!r} (its decisions in the data are {kinds})"


def accepted_only(store: PaperReader, venue: str) -> bool:
    """Whether the venue's data lists accepted papers only (every decision known, none a rejection)."""
    decisions = [d for d, n in store.decision_counts(venue) if n]
    return bool(decisions) and all(d.accepted for d in decisions)


def submissions_gap(store: PaperReader, venue: str) -> str | None:
    """Why the store cannot say how many papers were submitted to `venue` (None when it can): its papers are the
    submissions only when its data lists the papers that were not accepted, as for the acceptance rate."""
    return decision_gap(store, venue, Outcome.NOT_ACCEPTED.value)
