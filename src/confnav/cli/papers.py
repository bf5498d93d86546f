"""Verbs over the store itself: ingest, venues, ls, show, demo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from confnav.cli import cli
from confnav.cli.common import (
    DECISION_HELP,
    PAPER_IDS,
    VENUE,
    InputFile,
    cli_navigator,
    flag_of,
    json_option,
    out,
    print_json,
    said,
    venue_option,
    with_new_or_existing_store,
    with_store,
)
from confnav.cli.progress import RichProgress
from confnav.decisions import load_decision_table
from confnav.demo import build_demo
from confnav.errors import ConfnavError, excerpt
from confnav.ingest import IngestResult, ingest
from confnav.limits import MAX_LISTED
from confnav.model import DecisionsArrived, Outcome, Paper, named_places
from confnav.personal.news import NewsRecorder
from confnav.search.engine import Searcher
from confnav.sources import FORMATS, READERS
from confnav.sources.disagreements import paper_sources
from confnav.sources.tabular import MAPPABLE_FIELDS
from confnav.store import PaperFilter, SqliteStore
from confnav.store.protocols import Store

ARRIVALS_SHOWN = 10  # papers listed under a venue's "decided since the last fetch" line


@cli.command("ingest")
@click.argument("files", nargs=-1, required=True, type=InputFile())
@click.option("--venue", type=VENUE, help="Venue id (e.g. iclr2021) for files that do not name one.")
@click.option(
    "--format",
    "fmt",
    callback=lambda _ctx, _param, value: _known_format(value),
    help=f"Input format: {', '.join(FORMATS)}, or package.module:Class of your own (default: detected from content).",
)
@click.option("--map", "mapping", multiple=True, metavar="FIELD=COLUMN", help="CSV/JSONL column for a field.")
@click.option("--skip-bad", is_flag=True, help="Ingest good records and report bad ones instead of writing nothing.")
@click.option("--strict", is_flag=True, help="Treat a record without a title as bad input instead of skipping it.")
@click.option(
    "--config",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="CONFNAV_CONFIG",
    help="TOML file whose [decisions.VENUE] tables map decision labels (kept in the store; docs/ingest.md).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@json_option
@with_new_or_existing_store
def ingest_cmd(
    store: Store,
    files: tuple[Path, ...],
    venue: str | None,
    fmt: str | None,
    mapping: tuple[str, ...],
    skip_bad: bool,
    strict: bool,
    config: Path | None,
    quiet: bool,
    as_json: bool,
) -> None:
    """Read paper lists (OpenReview TSV, paperlists JSON, Markdown, CSV, JSONL) into the store."""
    decisions = load_decision_table(config) if config else None
    with RichProgress(quiet) as progress:
        result = ingest(
            store,
            files,
            venue=venue,
            fmt=fmt,
            mapping=_parse_mapping(mapping),
            skip_bad=skip_bad,
            strict=strict,
            decisions=decisions,
            progress=progress,
            watcher=NewsRecorder(store),
        )
    if as_json:
        print_json(result.to_dict())
    else:
        _print_ingest(result, store.location)


def _known_format(name: str | None) -> str | None:
    """The --format value, refused up front (before any store is opened) when no reader has that name."""
    if name is not None:
        try:
            READERS.factory(name)
        except ConfnavError as exc:
            raise click.BadParameter(exc.spelled(flag_of)) from None
    return name


def _parse_mapping(pairs: tuple[str, ...]) -> dict[str, str]:
    mapping = {}
    for pair in pairs:
        target, sep, column = pair.partition("=")
        if not sep or target.strip() not in MAPPABLE_FIELDS or not column.strip():
            raise ConfnavError(
                f"--map {excerpt(pair)}: expected FIELD=COLUMN with FIELD one of {', '.join(MAPPABLE_FIELDS)}"
            )
        mapping[target.strip()] = column.strip()
    return mapping


def _print_ingest(result: IngestResult, db: str) -> None:
    for problem in result.errors:
        click.echo(f"skipped: {problem.spelled(flag_of)}", err=True)
    for line in result.untitled:
        click.echo(f"skipped: {said(line)}", err=True)
    for warning in result.warnings:
        click.echo(f"warning: {said(warning)}", err=True)
    for f in result.files:
        out.print(f"{f.path}: {f.records} record{'s' * (f.records != 1)} ({f.format or 'unreadable'})", markup=False)
    out.print(
        f"{db}: {result.added} paper{'s' * (result.added != 1)} added, {result.updated} updated,"
        f" {result.unchanged} unchanged"
        f" ({', '.join(result.venues) or 'no venue'})",
        markup=False,
    )
    if remerged := result.remerged_line():  # other venues' papers, never counted under the files' venues
        out.print(f"{db}: {remerged}", markup=False)


@cli.command()
@json_option
@with_store
def venues(store: Store, as_json: bool) -> None:
    """List the venues in the store with their papers by decision."""
    summaries = store.venues()
    fetched = store.decisions_arrived()
    if as_json:
        last = {v: {"last_fetch": a.to_dict()} for v, a in fetched.items()}
        print_json([s.to_dict() | last.get(s.venue.id, {}) for s in summaries])
        return
    if not summaries:
        out.print("The store is empty: run 'confnav ingest FILE...' first.")
    for s in summaries:
        counts = ", ".join(f"{n} {d}" for d, n in s.by_decision.items())
        tracks = f"; tracks: {', '.join(f'{t} ({n})' for t, n in s.tracks.items())}" if s.tracks else ""
        note = f" ({s.note[:-1]})" if s.note else ""  # the placeholder records the counts leave out
        out.print(
            f"{s.venue.id}  {s.venue.name}: {s.papers} papers, {s.accepted} accepted; by decision: {counts}{tracks}"
            f"{note}",
            markup=False,
        )
        if (arrived := fetched.get(s.venue.id)) is not None:
            _arrivals(arrived)


def _arrivals(arrived: DecisionsArrived) -> None:
    """The line (and the first papers) of the decisions a venue's last fetch brought."""
    when = arrived.fetched[:16].replace("T", " ")
    out.print(f"  {len(arrived.papers)} decided since the last fetch (fetched {when} UTC)", markup=False)
    for paper_id, title, decision in arrived.papers[:ARRIVALS_SHOWN]:
        out.print(f"    {paper_id}  {decision}: {title[:70]}", markup=False)
    if len(arrived.papers) > ARRIVALS_SHOWN:
        out.print(f"    … and {len(arrived.papers) - ARRIVALS_SHOWN} more (--json lists them all)", markup=False)


@cli.command("decisions")
@json_option
@with_store
@venue_option("Only this venue (e.g. acl2022 or 'ACL 2022').")
def decisions_cmd(store: Store, venue: str | None, as_json: bool) -> None:
    """Each venue's decision labels as its sources give them, and what the decision table makes of them."""
    rows = store.decision_labels(store.get_venue(venue).id if venue else None)
    if as_json:
        print_json(rows)
        return
    out.print(f"{'venue':<14} {'label (as given)':<24} {'outcome':<13} {'decision':<12} {'papers':>6}  meaning from")
    for row in rows:
        out.print(
            f"{row['venue']!s:<14} {row['label'] or '(none)'!s:<24} {row['outcome']!s:<13} {row['decision']!s:<12}"
            f" {row['papers']!s:>6}  {row['source']}",
            markup=False,
        )
    for summary in store.venues():
        if summary.note and summary.venue.id in {row["venue"] for row in rows}:
            out.print(f"{summary.venue.id}: {summary.note}", style="dim", markup=False)
    out.print(
        "Override a label with [decisions.VENUE] in a config file: confnav ingest --config FILE (docs/ingest.md)",
        style="dim",
        markup=False,
    )


@cli.command("ls")
@click.option("--decision", help=DECISION_HELP)
@click.option("--author", help="Papers with an author of this name (any order, case or accents).")
@click.option("--keyword", help="Papers with a keyword containing this text.")
@click.option(
    "--limit", type=click.IntRange(0, MAX_LISTED), default=50, show_default=True, help="At most this many (0: all)."
)
@json_option
@with_store
@venue_option("Only this venue (e.g. iclr2021 or 'ICLR 2021').")
def ls_cmd(
    store: Store,
    venue: str | None,
    decision: str | None,
    author: str | None,
    keyword: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """List papers, best decision and rating first."""
    where = PaperFilter(venue=venue, decision=decision, author=author, keyword=keyword)
    papers = store.papers(where, limit=limit or None)
    if as_json:
        print_json([_summary(p) for p in papers])
        return
    for p in papers:
        rating = f"{p.rating_mean:.2f}" if p.rating_mean is not None else "  -  "
        out.print(f"{p.id:<14} {p.venue:<9} {p.decision.name:<11} {rating}  {p.title}", markup=False)
    out.print(f"({len(papers)} papers)", style="dim")


def _summary(p: Paper) -> dict[str, Any]:
    return {
        "id": p.id,
        "venue": p.venue,
        "title": p.title,
        "decision": p.decision.name,
        "outcome": p.decision.outcome.value,
        "authors": [a.name for a in p.authors],
        "keywords": p.keywords,
        "rating_mean": p.rating_mean,
    }


@cli.command(context_settings=PAPER_IDS)
@click.argument("paper_id")
@json_option
@with_store
@venue_option("The venue, when the id exists in several.")
def show(store: Store, paper_id: str, venue: str | None, as_json: bool) -> None:
    """Show one paper with all its fields and where each came from."""
    paper = store.get_paper(paper_id, venue)
    found = paper_sources(store, paper)
    if as_json:
        print_json(paper.to_dict() | found.to_dict())
        return
    out.print(paper.title, style="bold", markup=False)
    label = paper.decision.label
    decision = paper.decision.name + (f" ({label!r} in the source)" if label and label != paper.decision.name else "")
    track = f" · {paper.track}" if paper.track else ""
    out.print(f"{paper.venue_name}{track} · {decision} · id {paper.id}", markup=False)
    authors = ", ".join(
        f"{a.name} ({a.affiliation})" if named_places([a.affiliation]) else a.name for a in paper.authors
    )
    rows = [
        ("Authors", authors),
        ("Affiliations", "" if paper.affiliations_by_author else "; ".join(named_places(paper.affiliations))),
        ("Keywords", ", ".join(paper.keywords)),
        (
            "Ratings",
            ", ".join(f"{r:g}" for r in paper.ratings) + (f" (mean {paper.rating_mean:.2f})" if paper.ratings else ""),
        ),
        ("Confidences", ", ".join(f"{c:g}" for c in paper.confidences)),
        ("Institutions", "; ".join(named_places(paper.institutions))),  # "Unknown Institution" is none
        ("Countries", "; ".join(paper.countries)),
        ("Primary area", paper.primary_area or ""),
        ("Session", paper.session or ""),
        ("Award", paper.award or ""),
        ("Citations", _citations(paper)),
        ("TL;DR (the authors')" if "tldr" in paper.provenance else "TL;DR", paper.tldr or ""),
        *((f"Link ({k})", v) for k, v in paper.links.items()),
    ]
    for label, value in rows:
        if value:
            out.print(f"[bold]{label}:[/bold] ", end="")
            out.print(value, markup=False)
    if paper.abstract:
        out.print()
        out.print(paper.abstract, markup=False)
    out.print()
    out.print(f"Sources: {', '.join(found.sources)}", style="dim", markup=False)
    if found.disagreements:
        out.print("The sources disagree (each field from the first source of its precedence, docs/ingest.md):")
        for conflict in found.disagreements:
            out.print(f"  {conflict.describe()}", markup=False)


def _citations(paper: Paper) -> str:
    if paper.citations is None:
        return ""
    when = f", as of {paper.citations.as_of}" if paper.citations.as_of else " (date not given by the source)"
    return f"{paper.citations.count:,} ({paper.citations.source}{when})"


@cli.command()
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--serve", "then_serve", is_flag=True, help="Then serve it in the browser (http://127.0.0.1:8000/).")
def demo(quiet: bool, then_serve: bool) -> None:
    """Build a navigator for the bundled ICLR 2021 sample page and print a summary."""
    with RichProgress(quiet) as progress:
        built = build_demo(progress=progress, settings=cli_navigator().settings)
    if built.notice:
        click.echo(f"note: {said(built.notice)}", err=True)
    with SqliteStore(built.db_path) as store:
        summary = store.venues()[0]
        out.print(f"Demo store: {built.db_path}", markup=False)
        out.print(f"{summary.venue.name}: {summary.papers} papers from the bundled Markdown page", markup=False)
        for decision, count in summary.by_decision.items():
            out.print(f"  {decision:<12} {count}", markup=False)
        if set(summary.by_outcome) == {Outcome.UNKNOWN.value}:
            out.print("  (the Markdown list carries no decisions; ingest ratings.tsv or the paperlists JSON for them)")
        out.print(f"Semantic index: {built.index.embedded} papers embedded with {built.index.model}", markup=False)
        query = "reinforcement learning from offline data"
        out.print(f"Search {query!r}:", markup=False)
        for hit in Searcher(store).search(query, limit=5).hits:
            out.print(f"  - {hit.paper.title} ({hit.paper.id})", markup=False)
        for path in built.reports:
            out.print(f"Overview (verified against the store): {path}", markup=False)
        out.print(f'Explore it: confnav search --db {built.db_path} "your words"', markup=False)
    if then_serve:
        from confnav.cli.web import run_server

        run_server(built.db_path, "127.0.0.1", 8000)
