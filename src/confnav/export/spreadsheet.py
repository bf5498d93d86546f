"""Papers as CSV for a spreadsheet, safe to open: formula-like cells defused, links http(s) only."""

from __future__ import annotations

from collections.abc import Sequence

from confnav.model import Paper
from confnav.safe_text import csv_text, safe_link


def to_csv(papers: list[Paper], notes: Sequence[str] | None = None) -> str:
    """One row a paper; cells that a spreadsheet would run as formulas are defused, links are http(s) only; a
    `note` column when the reader's notes are given."""
    rows = [
        [
            p.id,
            p.venue,
            p.title,
            "; ".join(a.name for a in p.authors),
            p.decision.name,
            "" if p.rating_mean is None else f"{p.rating_mean:.2f}",
            safe_link(p.url) or "",
        ]
        for p in papers
    ]
    header = ["id", "venue", "title", "authors", "decision", "rating_mean", "url"]
    if notes is not None:
        header, rows = [*header, "note"], [[*row, note] for row, note in zip(rows, notes, strict=True)]
    return csv_text(header, rows)
