"""`confnav fetch`: the only verbs that use the network; each writes a snapshot, then ingests it."""

from __future__ import annotations

from pathlib import Path

import click

from confnav.cli import cli
from confnav.cli.common import (
    Given,
    OutputFile,
    cli_settings,
    json_option,
    out,
    print_json,
    said,
    venue_option,
    with_new_or_existing_store,
    with_store,
)
from confnav.cli.progress import RichProgress
from confnav.fetch import FetchResult, fetch_openreview, fetch_paperlists
from confnav.fetch.citations import OpenAlex, SemanticScholar, fetch_citations
from confnav.fetch.openreview import OpenReviewClient
from confnav.personal.news import NewsRecorder
from confnav.store.protocols import Store

SNAPSHOT = click.option(
    "--snapshot",
    type=OutputFile(),
    help="Where to keep the raw snapshot (default: snapshots/ beside the store).",
)


@cli.group()
def fetch() -> None:
    """Fetch a conference from a live source into the store (the only commands that use the network)."""


@fetch.command("openreview")
@click.argument("venue_id", type=Given("an OpenReview venue id, e.g. ICLR.cc/2025/Conference"))
@click.option("--base-url", help="OpenReview API 2 (default: $CONFNAV_OPENREVIEW_URL or https://api2.openreview.net).")
@click.option("--v1-url", help="OpenReview API 1 (default: $CONFNAV_OPENREVIEW_V1_URL or https://api.openreview.net).")
@click.option("--full", is_flag=True, help="Fetch everything again instead of only what changed since the snapshot.")
@SNAPSHOT
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@json_option
@with_new_or_existing_store
def fetch_openreview_cmd(
    store: Store,
    venue_id: str,
    base_url: str | None,
    v1_url: str | None,
    full: bool,
    snapshot: Path | None,
    quiet: bool,
    as_json: bool,
) -> None:
    """Submissions, reviews and decisions of an OpenReview venue, e.g. ICLR.cc/2025/Conference.

    Logs in from OPENREVIEW_USERNAME/OPENREVIEW_PASSWORD or OPENREVIEW_TOKEN (never printed or stored).
    """
    with RichProgress(quiet) as progress:
        client = OpenReviewClient.from_settings(cli_settings(), base_url, v1_url, progress=progress)
        result = fetch_openreview(
            store,
            store.files_home(),
            venue_id,
            snapshot=snapshot,
            full=full,
            client=client,
            progress=progress,
            watcher=NewsRecorder(store),
        )
    _report(result, as_json)


@fetch.command("paperlists")
@click.argument("venue")
@click.option("--base-url", help="Where the project's files are (default: $CONFNAV_PAPERLISTS_URL or its GitHub).")
@SNAPSHOT
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@json_option
@with_new_or_existing_store
def fetch_paperlists_cmd(
    store: Store, venue: str, base_url: str | None, snapshot: Path | None, quiet: bool, as_json: bool
) -> None:
    """One conference-year of the community paperlists project, e.g. nips2024 or cvpr2025."""
    with RichProgress(quiet) as progress:
        result = fetch_paperlists(
            store,
            store.files_home(),
            venue,
            base_url=base_url,
            snapshot=snapshot,
            progress=progress,
            settings=cli_settings(),
            watcher=NewsRecorder(store),
        )
    _report(result, as_json)


def _report(result: FetchResult, as_json: bool) -> None:
    if as_json:
        print_json(result.to_dict())
        return
    for warning in result.ingest.warnings:
        click.echo(f"warning: {said(warning)}", err=True)
    resumed = f", {result.resumed_pages} pages resumed from an interrupted run" if result.resumed_pages else ""
    out.print(
        f"{result.source}: {result.notes} records fetched in {result.requests} requests{resumed};"
        f" snapshot {result.snapshot}",
        markup=False,
    )
    ingested = result.ingest
    out.print(
        f"{ingested.added} paper{'s' * (ingested.added != 1)} added, {ingested.updated} updated,"
        f" {ingested.unchanged} unchanged"
        f" ({', '.join(ingested.venues) or 'no venue'})",
        markup=False,
    )
    if line := ingested.remerged_line():  # other venues' papers, merged again under newer merge rules
        out.print(line, markup=False)
    if result.decided:
        out.print(f"{result.decided} pending papers decided since the last fetch", markup=False)
    if result.source == "openreview":
        history = f" ({result.history})" if result.history else ""
        out.print(f"{result.review_versions} review versions added to the history{history}", markup=False)


@fetch.command("citations")
@click.option(
    "--provider",
    type=click.Choice(["s2", "openalex"]),
    default="s2",
    show_default=True,
    help="Semantic Scholar (S2_API_KEY optional) or OpenAlex (OPENALEX_API_KEY required).",
)
@click.option("--base-url", help="The provider's API (default: $CONFNAV_S2_URL / $CONFNAV_OPENALEX_URL).")
@click.option("--no-titles", is_flag=True, help="Match by DOI, arXiv and ACL ids only (no title searches).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@json_option
@with_store
@venue_option("The venue (default: the latest in the store, named on stderr when there are others).", latest=True)
def fetch_citations_cmd(
    store: Store,
    venue: str,
    provider: str,
    base_url: str | None,
    no_titles: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Citation counts of a venue's papers, stored as the `citations` signal the ranking explains."""
    service = (SemanticScholar if provider == "s2" else OpenAlex).from_settings(cli_settings(), base_url)
    with RichProgress(quiet) as progress:
        result = fetch_citations(store, venue, service, titles=not no_titles, progress=progress)
    if as_json:
        print_json(result.to_dict())
        return
    out.print(
        f"{result.venue}: citation counts for {result.by_id + result.by_title} papers from {result.provider}"
        f" ({result.by_id} by id, {result.by_title} by title) in {result.requests} requests",
        markup=False,
    )
    if result.unmatched:
        shown = ", ".join(result.unmatched[:10]) + (" …" if len(result.unmatched) > 10 else "")
        out.print(f"{len(result.unmatched)} papers not found: {shown}", markup=False)
