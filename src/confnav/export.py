"""Export papers as BibTeX and CSV (reading lists, search results)."""

from __future__ import annotations

import csv
import io
import re

from confnav.model import Paper, fold

_BIB_ESCAPE = str.maketrans({"{": "\\{", "}": "\\}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_"})


def bibtex_key(paper: Paper) -> str:
    last = fold(paper.authors[0].name).split()[-1] if paper.authors else "anon"
    word = next((w for w in fold(paper.title).split() if len(w) > 3), "paper")
    return re.sub(r"[^a-z0-9]", "", f"{last}{paper.year}{word}")


def to_bibtex(papers: list[Paper]) -> str:
    entries = []
    for paper in papers:
        fields = {
            "title": paper.title.translate(_BIB_ESCAPE),
            "author": " and ".join(a.name.translate(_BIB_ESCAPE) for a in paper.authors),
            "booktitle": paper.venue_name,
            "year": str(paper.year),
            "url": paper.url or "",
        }
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
        entries.append(f"@inproceedings{{{bibtex_key(paper)},\n{body}\n}}")
    return "\n\n".join(entries) + "\n"


def to_csv(papers: list[Paper]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["id", "venue", "title", "authors", "decision", "rating_mean", "url"])
    for p in papers:
        rating = "" if p.rating_mean is None else f"{p.rating_mean:.2f}"
        names = "; ".join(a.name for a in p.authors)
        writer.writerow([p.id, p.venue, p.title, names, p.decision.name, rating, p.url or ""])
    return buffer.getvalue()
