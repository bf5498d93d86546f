"""The rebuttal as a section of the statistics report: its facts (keyed `rebuttal.*`) and tables, computed here
and nowhere else, so that the verifier recomputes exactly what a report shows."""

from __future__ import annotations

from statistics import fmean
from typing import Protocol

from confnav.reports.model import Fact, Section, Shown, Table, count, decimal, percent
from confnav.reports.rebuttal import PaperChange, Rebuttal, RebuttalStore, build_rebuttal, day, rating_order
from confnav.store.protocols import PaperReader

SUMMARY = (
    "Before the rebuttal is each review's first rating, after it its last, within the history from {rebuttal.first} "
    "to {rebuttal.last} (the times the source gives, UTC). {rebuttal.reviews_changed} of {rebuttal.reviews} reviews "
    "of {rebuttal.papers} papers changed their rating ({rebuttal.share_changed}); the mean review rating went from "
    "{rebuttal.mean_before} to {rebuttal.mean_after}. Papers whose mean rating rose: {rebuttal.rises}; fell: "
    "{rebuttal.falls}. The tables below give the reviews by rating before and after and the largest moves."
)


class RebuttalStatsStore(PaperReader, RebuttalStore, Protocol):
    """What the statistics report reads: the papers and the review histories."""


def venue_rebuttal(store: RebuttalStore, venue: str) -> Rebuttal | None:
    """The venue's rebuttal over its whole history; None when it has no rated review history."""
    if venue not in store.history_venues():
        return None
    found = build_rebuttal(store, venue)
    return found if found.papers else None


def rebuttal_facts(rebuttal: Rebuttal) -> dict[str, Fact]:
    """The facts the rebuttal section cites, by key."""
    reviews = rebuttal.reviews
    changed = sum(r.change != 0 for r in reviews)
    facts = [
        Fact("rebuttal.first", "First version of a review", day(rebuttal.first_at)),
        Fact("rebuttal.last", "Last version of a review", day(rebuttal.last_at)),
        Fact("rebuttal.papers", "Papers with a review history", count(len(rebuttal.papers))),
        Fact("rebuttal.reviews", "Reviews with a rating", count(len(reviews))),
        Fact("rebuttal.reviews_changed", "Reviews whose rating changed", count(changed)),
        Fact("rebuttal.share_changed", "Share of reviews whose rating changed", percent(changed, len(reviews))),
        Fact("rebuttal.mean_before", "Mean review rating before the rebuttal", decimal(fmean(r.pre for r in reviews))),
        Fact("rebuttal.mean_after", "Mean review rating after the rebuttal", decimal(fmean(r.post for r in reviews))),
        Fact("rebuttal.rises", "Papers whose mean rating rose", count(sum(p.change > 0 for p in rebuttal.papers))),
        Fact("rebuttal.falls", "Papers whose mean rating fell", count(sum(p.change < 0 for p in rebuttal.papers))),
    ]
    return {fact.key: fact for fact in facts}


def rebuttal_section(rebuttal: Rebuttal) -> Section:
    """The report's section on the rebuttal: its summary with every number a fact."""
    return Section("The rebuttal", SUMMARY, rebuttal_facts(rebuttal), anchor="")


def _signed(value: float) -> str:
    return Shown(f"{value:+.2f}", round(value, 6))


def _moves(table_id: str, caption: str, papers: list[PaperChange]) -> Table:
    rows = [
        [p.paper_id, p.title, p.decision or "none yet", decimal(p.pre_mean), decimal(p.post_mean), _signed(p.change)]
        for p in papers
    ]
    return Table(table_id, caption, ["Paper", "Title", "Decision", "Before", "After", "Change"], rows)


def rebuttal_tables(rebuttal: Rebuttal) -> list[Table]:
    """Reviews by rating before and after, the mean change by decision once decisions are out, the largest rises
    and falls of a paper's mean rating."""
    before, after = rebuttal.before_after()
    ratings = [[r, count(before.get(r, 0)), count(after.get(r, 0))] for r in rating_order(before, after)]
    tables = [
        Table(
            "rebuttal_ratings",
            "Reviews by rating before and after the rebuttal",
            ["Rating", "Before", "After"],
            ratings,
        )
    ]
    if rebuttal.decided:
        rows = [
            [name, count(int(f["papers"])), _signed(float(f["mean_change"]))]
            for name, f in rebuttal.by_decision().items()
        ]
        header = ["Decision", "Papers", "Mean change of a paper's mean rating"]
        tables.append(Table("rebuttal_decisions", "The rebuttal by decision", header, rows))
    tables.append(_moves("rebuttal_rises", "Largest rises of a paper's mean rating in the rebuttal", rebuttal.rises()))
    tables.append(_moves("rebuttal_falls", "Largest falls of a paper's mean rating in the rebuttal", rebuttal.falls()))
    return tables
