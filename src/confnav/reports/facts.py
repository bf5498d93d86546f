"""The numbers reports may show, each computed from the store under a stable key."""

from __future__ import annotations

from confnav.model import Decision
from confnav.reports.model import Fact, count, percent
from confnav.store import SqliteStore
from confnav.topics.facts import ThemeFacts


def venue_facts(store: SqliteStore, venue: str) -> list[Fact]:
    """Submissions, reviews and decisions of a venue; rates are shares of the submissions reviewed."""
    decisions = [p.decision for p in store.iter_papers(venue)]
    reviewed = sum(d.reviewed for d in decisions)
    accepted = sum(d.accepted for d in decisions)
    tally = {d: decisions.count(d) for d in Decision}
    facts = [
        Fact("venue.records", "Submissions in the data", count(len(decisions))),
        Fact("venue.desk_rejects", "Desk rejects (not reviewed)", count(tally[Decision.DESK_REJECT])),
        Fact("venue.reviewed", "Submissions reviewed", count(reviewed)),
        Fact("venue.accepted", "Accepted papers", count(accepted)),
        Fact("venue.acceptance_rate", "Acceptance rate", percent(accepted, reviewed)),
    ]
    for decision, label in ((Decision.ORAL, "Orals"), (Decision.SPOTLIGHT, "Spotlights"), (Decision.POSTER, "Posters")):
        facts.append(Fact(f"venue.{decision.value}", label, count(tally[decision])))
        facts.append(Fact(f"venue.{decision.value}_rate", f"{label[:-1]} rate", percent(tally[decision], reviewed)))
    facts.append(Fact("venue.reject", "Rejected", count(tally[Decision.REJECT])))
    facts.append(Fact("venue.withdrawn", "Withdrawn", count(tally[Decision.WITHDRAWN])))
    if tally[Decision.UNKNOWN]:
        facts.append(Fact("venue.unknown", "Decision unknown", count(tally[Decision.UNKNOWN])))
    return facts


def theme_facts_of(theme: ThemeFacts) -> dict[str, Fact]:
    """The facts a theme section may cite, keyed `theme.<id>.<name>`."""
    prefix = f"theme.{theme.id}"
    rate = "-" if theme.acceptance_rate is None else f"{100 * theme.acceptance_rate:.1f}%"
    return {
        f"{prefix}.size": Fact(f"{prefix}.size", "papers", count(theme.size)),
        f"{prefix}.share": Fact(f"{prefix}.share", "share of the venue", f"{100 * theme.share:.1f}%"),
        f"{prefix}.accepted": Fact(f"{prefix}.accepted", "accepted", count(theme.accepted)),
        f"{prefix}.acceptance_rate": Fact(f"{prefix}.acceptance_rate", "acceptance rate", rate),
        f"{prefix}.oral": Fact(f"{prefix}.oral", "orals", count(theme.oral)),
    }
