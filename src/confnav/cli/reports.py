"""Verbs of summaries and reports: tldr, report, stats, verify, history."""

from __future__ import annotations

import logging
from pathlib import Path

import click
from rich.table import Table as RichTable

from confnav.cli import cli
from confnav.cli.common import (
    PAPER_IDS,
    F,
    OutputFile,
    cli_navigator,
    json_option,
    mode_option,
    out,
    print_json,
    said,
    venue_option,
    with_store,
    write_output,
    writing,
)
from confnav.cli.progress import themes_with_progress
from confnav.rank import RankMode
from confnav.reports.digest import build_digest
from confnav.reports.facts import venue_facts
from confnav.reports.history import NOT_A_FORECAST, acceptance_history
from confnav.reports.model import Report
from confnav.reports.overview import build_overview, load_venue_config
from confnav.reports.render import to_html, to_markdown
from confnav.reports.stats import build_stats_report, stats_json, stats_tables, venue_notes
from confnav.reports.verify import verified, verify_file
from confnav.store.protocols import Store
from confnav.summarize.base import labelled_tldr


@cli.command(context_settings=PAPER_IDS)
@click.argument("paper_id")
@json_option
@with_store
@venue_option("The venue, when the id exists in several.")
def tldr(store: Store, paper_id: str, venue: str | None, as_json: bool) -> None:
    """A one-line TL;DR of a paper (the authors' own, an extractive sentence, or an LLM's when configured)."""
    paper = store.get_paper(paper_id, venue)
    result = labelled_tldr(cli_navigator().summarizer(store, paper.venue), paper)
    if as_json:
        print_json(result.to_dict())
    else:
        out.print(f"{result.tldr or 'No abstract to summarize.'} ({result.source})", markup=False)


def _write(report: Report, fmt: str, output: Path | None, store: Store) -> None:
    """Render, verify the rendered text against the store, and write (or print) it."""
    if output is not None and output.suffix.lower() in (".html", ".htm"):
        fmt = "html"
    if fmt == "html":
        text = to_html(report)
    else:
        assets = output.with_name(output.stem + "_files") if output is not None else None
        with writing(output or Path("-"), "report"):  # its charts go into a folder beside it
            text = to_markdown(report, assets, f"{assets.name}/" if assets else "")
    check = verified(store, text, str(output or "<stdout>"))
    if output is None:
        click.echo(text, nl=False)
        return
    write_output(output, text, "report")
    click.echo(f"{output}: {check.citations} citations and {check.facts} facts verified against the store", err=True)


@cli.group()
def report() -> None:
    """Grounded reports: overview, digest, stats (Markdown or self-contained HTML)."""


def _report_options(func: F) -> F:
    func = click.option("-o", "--output", type=OutputFile(), help="Write to this file.")(func)
    func = click.option("--format", "fmt", type=click.Choice(["md", "html"]), default="md", show_default=True)(func)
    return func


@report.command("overview")
@_report_options
@click.option("--venue-config", type=click.Path(dir_okay=False, path_type=Path), help="TOML [venue] dates/location.")
@click.option("--per-theme", type=click.IntRange(1, 50), default=10, show_default=True)
@mode_option
@with_store
@venue_option("The venue (default: the latest in the store, named on stderr when there are others).", latest=True)
def report_overview(
    store: Store,
    venue: str,
    fmt: str,
    output: Path | None,
    venue_config: Path | None,
    per_theme: int,
    mode: RankMode | None,
) -> None:
    """Themed overview of a venue: facts, then each major theme with its must-read papers and TL;DRs."""
    logging.basicConfig(level=logging.WARNING, format="note: %(message)s")
    config = load_venue_config(venue_config)
    themes_with_progress(store, venue, required=False)  # the overview says what is missing
    navigator = cli_navigator()
    built = build_overview(
        store,
        venue,
        summarizer=navigator.summarizer(store, venue),
        ranker=navigator.ranker(mode=mode),
        per_theme=per_theme,
        config=config,
        mode=mode,
    )
    _write(built, fmt, output, store)


@report.command("digest")
@_report_options
@click.option("--top", type=click.IntRange(1, 500), default=20, show_default=True)
@click.option("--theme", help="Only this theme or sub-theme.")
@click.option("--like", multiple=True, metavar="ID", help="For a reading profile: papers you liked.")
@mode_option
@with_store
@venue_option("The venue (default: the latest in the store, named on stderr when there are others).", latest=True)
def report_digest(
    store: Store,
    venue: str,
    fmt: str,
    output: Path | None,
    top: int,
    theme: str | None,
    like: tuple[str, ...],
    mode: RankMode | None,
) -> None:
    """Must-read digest: the top papers with TL;DR, authors, decision and why each is there (at the conference
    or looking back)."""
    navigator = cli_navigator()
    built = build_digest(
        store,
        venue,
        top=top,
        theme=theme,
        like=like,
        summarizer=navigator.summarizer(store, venue),
        ranker=navigator.ranker(mode=mode),
        mode=mode,
    )
    _write(built, fmt, output, store)


@report.command("stats")
@_report_options
@with_store
@venue_option("The venue (default: the latest in the store, named on stderr when there are others).", latest=True)
def report_stats(store: Store, venue: str, fmt: str, output: Path | None) -> None:
    """Statistics report with tables and charts (charts inline in HTML, beside the file in Markdown)."""
    _write(build_stats_report(store, venue), fmt, output, store)


@cli.command()
@json_option
@with_store
@venue_option("The venue (default: the latest in the store, named on stderr when there are others).", latest=True)
def stats(store: Store, venue: str, as_json: bool) -> None:
    """Statistics of a venue: decisions and rates, ratings, agreement, authors, institutions, keywords."""
    if as_json:
        print_json(stats_json(store, venue))  # numbers as numbers; shares as fractions
        return
    named = store.get_venue(venue)
    venue = named.id
    out.print(f"{named.name} ({venue})", style="bold", markup=False)
    for fact in venue_facts(store, venue):
        out.print(f"{fact.label}: {fact.value}", markup=False)
    for note in venue_notes(store, venue):
        out.print(note, markup=False)
    for table in stats_tables(store, venue):
        shown = RichTable(title=table.caption, title_justify="left", box=None, header_style="bold")
        for i, name in enumerate(table.header):
            shown.add_column(name, justify="left" if i == 0 else "right", overflow="fold")
        for row in table.rows[:10]:
            shown.add_row(*row)
        out.print()
        out.print(shown)


@cli.command()
@click.argument("report_file", type=click.Path(path_type=Path))
@json_option
@with_store
def verify(store: Store, report_file: Path, as_json: bool) -> None:
    """Check a report: cited papers exist in its venue, numbers and tables match the store."""
    result = verify_file(store, report_file)
    if as_json:
        print_json(result.to_dict())
    else:
        for line in result.unchecked:
            click.echo(f"not checked: {line}", err=True)
        for failure in result.failures:
            click.echo(f"FAIL: {failure}", err=True)
        status = "OK" if result.ok else "FAILED"
        out.print(
            f"{status}: {report_file} ({result.kind}, {result.venue}): {result.citations} citations, "
            f"{result.facts} facts, {result.tables} tables checked",
            markup=False,
        )
    if not result.ok:
        raise SystemExit(1)


@cli.command("history")
@json_option
@with_store
@venue_option(
    "The venue (default: the latest, named on stderr); its earlier editions give the history.",
    latest=True,
)
def history_cmd(store: Store, venue: str | None, as_json: bool) -> None:
    """Acceptance by mean rating at the venue's earlier editions: what happened then, not a forecast."""
    history = acceptance_history(store, venue)
    if as_json:
        print_json(history.to_dict())
        return
    pending = f"; {history.pending:,} papers awaiting a decision" if history.pending else ""
    out.print(f"{history.venue.name}{pending}. {NOT_A_FORECAST}", markup=False)
    for notice in history.notices:
        out.print(f"note: {said(notice)}", style="dim", markup=False)
    for edition in history.editions:
        other = "" if edition.comparable else f", another scale than {history.venue.name}'s"
        table = RichTable(title=f"{edition.venue.name} (ratings {edition.scale}{other})", title_justify="left")
        for column in ("mean rating", "papers", "accepted", "share"):
            table.add_column(column, justify="left" if column == "mean rating" else "right")
        for b in edition.bins:
            table.add_row(b.label, str(b.papers), str(b.accepted), f"{b.share:.0%}")
        out.print(table)
