"""Verbs over a venue's programme: import a schedule file, and plan a person's conference by day and session."""

from __future__ import annotations

from pathlib import Path

import click

from confnav.cli import cli
from confnav.cli.common import OutputFile, json_option, out, print_json, said, venue_option, with_store, write_output
from confnav.plan import build_plan, check_calendar, import_schedule, plan_calendar
from confnav.plan.planner import DEFAULT_TOP, Plan, PlannedPaper
from confnav.sources.schedules import FORMATS
from confnav.store.protocols import Store


@cli.group()
def schedule() -> None:
    """A venue's sessions, days, times and rooms, from the schedule files conference sites publish."""


@schedule.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help="Default: by extension or content.")
@click.option("--timezone", "zone", default=None, help="Zone of times the file gives without one (Europe/Vienna).")
@json_option
@with_store
@venue_option("The venue the schedule belongs to (default: named by the file).")
def schedule_import(
    store: Store, file: Path, venue: str | None, fmt: str | None, zone: str | None, as_json: bool
) -> None:
    """Read an ICS, CSV, JSON or YAML schedule (MiniConf's too) and match its sessions to the venue's papers;
    importing the same file again replaces the sessions it gave."""
    report = import_schedule(store, file, venue, fmt, zone)
    if as_json:
        print_json(report.to_dict())
        return
    for problem in report.unmatched:
        click.echo(f"unmatched: {problem}", err=True)
    out.print(
        f"{report.venue}: {report.sessions} sessions ({report.timed} with times) from {file} ({report.format});"
        f" {report.papers} papers linked ({report.links} links: {report.by_id} by id, {report.by_title} by title,"
        f" {report.by_session_name} by the paper list's session names); {len(report.unmatched)} entries unmatched",
        markup=False,
    )


@cli.command("plan")
@click.option("--for", "profile", default=None, help="A profile: its recommendations (default: the must-read).")
@click.option("--top", default=DEFAULT_TOP, show_default=True, type=click.IntRange(1, 500), help="Papers to place.")
@click.option("--ics", "ics", type=OutputFile(), help="Write the plan as a calendar.")
@json_option
@with_store
@venue_option("The venue (default: the latest in the store, named on stderr when there are others).", latest=True)
def plan(store: Store, venue: str | None, profile: str | None, top: int, ics: Path | None, as_json: bool) -> None:
    """Your must-read papers of a venue by day and session, overlapping sessions flagged; by theme when the
    venue has no schedule."""
    if ics is not None:
        check_calendar(store, store.pick_venue(venue))  # before the ranking: a venue without times has no calendar
    result = build_plan(store, venue, profile, top)
    if ics is not None:
        write_output(ics, plan_calendar(result), "calendar")
    if as_json:
        print_json(result.to_dict())
        return
    click.echo(said(result.notice), err=True)
    _print(result)
    if ics is not None:
        events = sum(1 for s in result.sessions if s.session.timed)
        out.print(f"wrote {ics} ({events} events)", style="dim", markup=False)


def _paper_line(item: PlannedPaper) -> None:
    out.print(f"    {item.rank:>3}. {item.paper.title}", markup=False, end="")
    out.print(f"  ({item.paper.id})", style="dim", markup=False)


def _print(result: Plan) -> None:
    for name, papers in result.themes:
        out.print(name, style="bold", markup=False)
        for item in papers:
            _paper_line(item)
    for day, sessions in result.days():
        out.print(day, style="bold", markup=False)
        for planned in sessions:
            session = planned.session
            when = f"{session.start:%H:%M}–{session.end:%H:%M %Z}" if session.start and session.end else ""
            when = "all day" if session.all_day else when
            where = f" · {session.room}" if session.room else ""
            out.print(f"  {when} {session.name}{where}".rstrip(), markup=False)
            if planned.conflicts:
                names = "; ".join(s.name for s in planned.conflicts)
                out.print(f"    conflict: overlaps {names}", style="red", markup=False)
            for item in planned.papers:
                _paper_line(item)
    if result.unscheduled:
        out.print("Not in any session", style="bold", markup=False)
        for item in result.unscheduled:
            _paper_line(item)
