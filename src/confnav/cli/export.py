"""The export verb: a reading list, a search result, a theme or papers as BibTeX, RIS, CSL-JSON or CSV."""

from __future__ import annotations

from pathlib import Path

import click

from confnav.cli import cli
from confnav.cli.common import OutputFile, err, filter_options, with_store, write_output
from confnav.cli.progress import themes_with_progress
from confnav.export import EXPORT_FORMATS, export_papers
from confnav.reports.selection import EXPORT_LIMIT, SEARCH_EXPORT, Selected, Selection, select
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
    "--limit",
    type=click.IntRange(min=1),
    help=f"At most this many papers of a search: its best {SEARCH_EXPORT} hits unless given (at most"
    f' {EXPORT_LIMIT:,}); --search "" with filters exports every paper meeting them unless given.',
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
    limit: int | None,
    output: Path | None,
    where: PaperFilter,
) -> None:
    """Export papers for a reference manager (Zotero imports all three citation formats)."""
    selection = Selection(list_name, query, theme, ids, where.venue, where, limit)
    selection.check()
    if theme and where.venue:
        themes_with_progress(store, store.get_venue(where.venue).id)
    selected = select(store, selection)
    text = export_papers(selected.papers, fmt)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_output(output, text, "export")
    cut = _cut(selected, query)
    if output is not None:
        err.print(f"{output}: {len(selected.papers):,} papers as {fmt}{cut}", markup=False)
    elif cut:
        err.print(f"note: {len(selected.papers):,} papers exported{cut}", markup=False)


def _cut(selected: Selected, query: str | None) -> str:
    """When a search's limit cut the export: how many papers matched, and how to export more (a count that
    reads as the whole set must be the whole set)."""
    written, matching = len(selected.papers), selected.matching
    if matching is None or matching <= written:
        return ""
    if not (query and query.strip()):
        return f"; {matching:,} meet the filters (leave out --limit for all of them)"
    if written < EXPORT_LIMIT:
        return f"; {matching:,} match the words (--limit up to {EXPORT_LIMIT:,} for more)"
    return f"; {matching:,} match the words (an export holds at most {EXPORT_LIMIT:,}: narrow the search with filters)"
