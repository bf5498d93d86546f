"""Papers as CSV for a spreadsheet, safe to open: formula-like cells defused, links http(s) only."""

from __future__ import annotations

from confnav.model import Paper
from confnav.safe_text import csv_text, safe_link


def to_csv(papers: list[Paper]) -> str:
    """One row a paper; cells that a spreadsheet would run as formulas are defused, links are http(s) only."""
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
    return csv_text(["id", "venue", "title", "authors", "decision", "rating_mean", "url"], rows)
