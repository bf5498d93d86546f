"""The export verb: a reading list, a search result, a theme or papers as BibTeX, RIS, CSL-JSON or CSV."""

from __future__ import annotations

from pathlib import Path

import click

from confnav.cli import cli
from confnav.cli.common import OutputFile, err, filter_options, themes_with_progress, with_store, write_output
from confnav.export import EXPORT_FORMATS, export_papers
from confnav.reports.selection import EXPORT_LIMIT, Selection, select_papers
from confnav.store import PaperFilter
from confnav.store.protocols import Store


@cli.command("export")
@click.option("--format", "fmt", type=click.Choice(list(EXPORT_FORMATS)), default="bibtex", show_default=True)
@click.option("--list", "list_name", metavar="NAME", help="The papers of this reading list.")
@click.option("--search", "query", metavar="QUERY", help="The hits of this search (the filters below narrow it).")
@click.option("--theme", metavar="ID", help="The papers of this theme of --venue (e.g. t3).")
@click.option(
    "--ids",
    multiple=True,
    metavar="ID",
    help="This paper; repeat for several (--ids A --ids B); --venue tells apart shared ids.",
)
@click.option(
    "--limit", type=click.IntRange(1, EXPORT_LIMIT), default=100, show_default=True, help="At most this many hits."
)
@click.option("-o", "--output", type=OutputFile(), help="Write here (default: stdout).")
@with_store
@filter_options
def export_cmd(
    store: Store,
    fmt: str,
    list_name: str | None,
    query: str | None,
    theme: str | None,
    ids: tuple[str, ...],
    limit: int,
    output: Path | None,
    where: PaperFilter,
) -> None:
    """Export papers for a reference manager (Zotero imports all three citation formats)."""
    selection = Selection(list_name, query, theme, ids, where.venue, where, limit)
    selection.check()
    if theme and where.venue:
        themes_with_progress(store, store.get_venue(where.venue).id)
    papers = select_papers(store, selection)
    text = export_papers(papers, fmt)
    if output is None:
        click.echo(text, nl=False)
        return
    write_output(output, text, "export")
    err.print(f"{output}: {len(papers)} papers as {fmt}", markup=False)
