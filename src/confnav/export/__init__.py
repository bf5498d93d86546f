"""Export papers (a reading list, a search result, a theme, one paper) as BibTeX, RIS, CSL-JSON or CSV, all safe
to open (see confnav.safe_text); `export_papers` picks the format by name from `EXPORT_FORMATS`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from confnav.errors import ConfnavError, excerpt
from confnav.export.bibtex import bib_text, bib_title, bibtex_entry, to_bibtex
from confnav.export.csl import to_csl_json
from confnav.export.fields import PROCEEDINGS, bibtex_key, booktitle
from confnav.export.ris import to_ris
from confnav.export.spreadsheet import to_csv
from confnav.model import Paper


@dataclass(frozen=True)
class ExportFormat:
    """A format papers export to: its name, the file extension and media type of a download, the writer."""

    name: str
    extension: str
    media_type: str
    write: Callable[[list[Paper], Sequence[str] | None], str]  # papers and the reader's notes (or None)


EXPORT_FORMATS = {
    f.name: f
    for f in (
        ExportFormat("bibtex", "bib", "application/x-bibtex", to_bibtex),
        ExportFormat("ris", "ris", "application/x-research-info-systems", to_ris),
        ExportFormat("csl-json", "json", "application/vnd.citationstyles.csl+json", to_csl_json),
        ExportFormat("csv", "csv", "text/csv", to_csv),
    )
}
CITATION_FORMATS = ("bibtex", "ris", "csl-json")


def export_format(name: str) -> ExportFormat:
    """The format of this name; a ConfnavError naming the known ones otherwise."""
    if name not in EXPORT_FORMATS:
        raise ConfnavError(f"unknown export format {excerpt(name)} (known: {', '.join(EXPORT_FORMATS)})")
    return EXPORT_FORMATS[name]


def export_papers(papers: list[Paper], fmt: str, notes: Sequence[str] | None = None) -> str:
    """The papers as text in the named format, with the reader's own note on each when given."""
    return export_format(fmt).write(papers, notes)


__all__ = [
    "CITATION_FORMATS",
    "EXPORT_FORMATS",
    "PROCEEDINGS",
    "ExportFormat",
    "bib_text",
    "bib_title",
    "bibtex_entry",
    "bibtex_key",
    "booktitle",
    "export_format",
    "export_papers",
    "to_bibtex",
    "to_csl_json",
    "to_csv",
    "to_ris",
]
