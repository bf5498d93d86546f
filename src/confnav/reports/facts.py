"""The numbers reports may show, each computed from the store under a stable key, and what the data lacks."""

from __future__ import annotations

import re
from collections import Counter

from confnav.errors import ConfnavError
from confnav.model import Decision, Outcome, Paper, Venue, placeholders_left_out
from confnav.reports.model import Fact, count, percent
from confnav.store.protocols import AnalysisStore, PaperReader
from confnav.topics.build import topic_vectors
from confnav.topics.facts import ThemeFacts, lists_rejections
from confnav.topics.trends import earlier_in_series, theme_changes


def fact_key(name: str) -> str:
    """A decision name as a fact key part (`Technical Paper` → `technical-paper`)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "other"


def rate_basis(decisions: list[Decision]) -> str:
    """What an acceptance rate counted, in words: `337 accepted of 992 decided submissions that entered review…`."""
    decided = sum(d.decided for d in decisions)
    parts = [f"of the {decided:,} decided submissions that entered review"]
    if workshop := sum(d.outcome is Outcome.WORKSHOP for d in decisions):
        parts.append(f"{workshop:,} workshop invitations counted as not accepted")
    left_out = Counter(d.outcome.value for d in decisions if d.reviewed and not d.decided)
    if left_out:
        parts.append("left out: " + ", ".join(f"{n:,} {outcome}" for outcome, n in sorted(left_out.items())))
    return "; ".join(parts)


def decision_facts(decisions: list[Decision]) -> list[Fact]:
    """Submissions, decisions and rates; rates are shares of the decided submissions that entered review."""
    facts = [Fact("venue.records", "Papers in the data", count(len(decisions)))]
    if all(d.outcome is Outcome.UNKNOWN for d in decisions):
        return facts
    tally = Counter(d.name for d in decisions)
    order = sorted(tally, key=lambda name: min(d.tier for d in decisions if d.name == name))
    accepted = sum(d.accepted for d in decisions)
    decided = sum(d.decided for d in decisions)
    rates = lists_rejections(decisions)
    if rates:
        desk = sum(d.desk_rejected for d in decisions)
        facts.append(Fact("venue.desk_rejects", "Desk rejects (not reviewed)", count(desk)))
        reviewed = sum(d.reviewed for d in decisions)
        facts.append(Fact("venue.reviewed", "Submissions that entered review", count(reviewed)))
    facts.append(Fact("venue.accepted", "Accepted papers", count(accepted)))
    if rates:
        label = f"Acceptance rate ({rate_basis(decisions)})"
        facts.append(Fact("venue.acceptance_rate", label, percent(accepted, decided)))
    kinds = {d.name: d for d in decisions}
    for name in order:
        decision, key = kinds[name], f"venue.{fact_key(name)}"
        if decision.desk_rejected:
            continue
        label = _decision_label(decision)
        facts.append(Fact(key, label, count(tally[name])))
        if rates and decision.accepted:
            facts.append(Fact(f"{key}_rate", f"{label}: share of decided submissions", percent(tally[name], decided)))
    return facts


def _decision_label(decision: Decision) -> str:
    if decision.accepted:
        return f"Accepted as {decision.name}"
    if decision.outcome is Outcome.WORKSHOP:
        return "Invited to the workshop track (not a main-conference acceptance)"
    if decision.outcome is Outcome.OTHER and decision.kind == "other":
        return f"Decision {decision.name!r} (not in the decision table)"
    return {
        "reject": "Rejected",
        "withdrawn": "Withdrawn",
        "pending": "Decision pending",
        "deleted": "Deleted",
        "removed": "No longer in the files that listed them",
    }.get(decision.kind, f"Decision: {decision.name}")


def venue_facts(store: PaperReader, venue: str) -> list[Fact]:
    """The decision facts of a venue (see decision_facts), from the store's counts: a large venue's papers are
    not read, so a page showing these facts stays fast right after an ingest."""
    return decision_facts([d for d, n in store.decision_counts(venue) for _ in range(n)])


def placeholder_note(papers: list[Paper], shown: int = 3) -> str | None:
    """The line saying how many of a venue's papers are placeholders (model.PLACEHOLDER_TITLES), left out of every
    count, with their first few titles; None when there are none."""
    titles = [p.title for p in papers if p.placeholder]
    if not titles:
        return None
    distinct = list(dict.fromkeys(titles))
    return placeholders_left_out(len(titles), ", ".join(distinct[:shown]) + (", …" if len(distinct) > shown else ""))


def namesake_note(papers: list[Paper]) -> str | None:
    """The line saying authors are counted by name where most of a venue's authors have no profile id (people.py
    tells namesakes apart by profile ids only: e-mail addresses do not, as one person signs with several); None
    when most have one."""
    authors = [a for p in papers for a in p.authors]
    with_ids = sum(bool(a.profile) for a in authors)
    if not authors or with_ids >= len(authors) / 2:
        return None
    who = (
        f"Only {with_ids:,} of {len(authors):,} authors of its papers have"
        if with_ids
        else "No author of its papers has"
    )
    return f"{who} a profile id in the data, so authors are counted by name: people who share a name are one row."


def data_gaps(papers: list[Paper]) -> list[str]:
    """Plain statements of what a venue's data does not hold, so that reports say it instead of showing zeros."""
    n = len(papers)
    if not n:
        return ["The store holds no papers of this venue."]
    decisions = [p.decision for p in papers]
    gaps = []
    if all(d.outcome is Outcome.UNKNOWN for d in decisions):
        gaps.append("The data holds no decisions, so nothing here counts acceptances.")
    elif not any(d.decided for d in decisions):
        gaps.append("No paper is decided yet (still under review), so nothing here counts acceptances.")
    elif not lists_rejections(decisions):
        gaps.append("The data lists accepted papers only (no rejected submissions), so it gives no acceptance rate.")
    absent, first = [], len(gaps)
    for name, present in (
        ("reviewer ratings", sum(bool(p.ratings) for p in papers)),
        ("abstracts", sum(bool(p.abstract) for p in papers)),
        ("keywords", sum(bool(p.keywords) for p in papers)),
    ):
        if not present:
            absent.append(name)
        elif present < n / 2:
            gaps.append(f"Only {present:,} of {n:,} papers have {name}.")
    if absent:  # one line for all that is missing, so that a report says why its sections are left out
        names = absent[0] if len(absent) == 1 else ", ".join(absent[:-1]) + " or " + absent[-1]
        gaps.insert(first, f"The data holds no {names}.")
    return gaps


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


def trend_facts(
    store: AnalysisStore, venue: str, themes: list[ThemeFacts] | None = None
) -> tuple[Venue | None, list[Fact]]:
    """The previous edition of the venue's series and the share of its papers each of this venue's themes held
    (its papers placed by their nearest theme centre, as trends.py does), keyed `trend.<theme>.before`; (None, [])
    when the store has no earlier edition with a semantic index, or the venue no themes. `themes`: the venue's
    level-1 theme facts, when the caller has them."""
    info = store.get_venue(venue)
    venue = info.id
    earlier = earlier_in_series(store.venue_list(), info)
    if not earlier:
        return None, []
    previous = earlier[0]
    try:
        before, after = topic_vectors(store, previous.id), topic_vectors(store, venue)
        changes = theme_changes(store, previous.id, venue, before, after, themes)
    except ConfnavError:  # no index for the earlier edition, or no themes: nothing to compare
        return None, []
    total = sum(c.count_before for c in changes)
    label = f"share of {previous.name}'s papers"
    return previous, [Fact(f"trend.{c.id}.before", label, percent(c.count_before, total)) for c in changes]
