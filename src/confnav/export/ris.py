"""Papers as RIS (the RefMan tagged format Zotero, EndNote and Mendeley import): one `TAG  - value` line per
field, an entry from `TY` to `ER`."""

from __future__ import annotations

from confnav.export.fields import Kind, booktitle, doi, kind_of, split_name, submission_note, unique_keys
from confnav.model import Paper
from confnav.safe_text import safe_link

# RIS reference types: a conference paper, a journal article, an unpublished work.
RIS_TYPES: dict[Kind, str] = {"conference": "CONF", "journal": "JOUR", "unpublished": "UNPB"}


def ris_name(name: str) -> str:
    """An author as RIS asks: `Family, Given` (and `, Suffix`)."""
    parts = split_name(name)
    return ", ".join(p for p in (parts.family, parts.given, parts.suffix) if p)


def ris_entry(paper: Paper, key: str) -> str:
    """One paper as a RIS entry: type, id, title, one AU line an author, year, proceedings, abstract, link, DOI,
    one KW line a keyword; a note says where an unpublished paper was submitted or a journal paper presented."""
    kind = kind_of(paper)
    note = {"unpublished": submission_note(paper), "journal": f"Presented at {paper.venue_name}"}.get(kind, "")
    lines: list[tuple[str, str | None]] = [
        ("TY", RIS_TYPES[kind]),
        ("ID", key),
        ("TI", paper.title),
        *(("AU", ris_name(a.name)) for a in paper.authors),
        ("PY", str(paper.year) if paper.year else None),
        ("T2", booktitle(paper) if kind == "conference" else None),
        ("AB", paper.abstract),
        ("UR", safe_link(paper.url)),
        ("DO", doi(paper)),
        *(("KW", k) for k in paper.keywords),
        ("N1", note),
    ]
    # A value is one line: a line break in the data would start a line RIS reads as a tag or a continuation.
    body = [f"{tag}  - {' '.join(value.split())}" for tag, value in lines if value and value.strip()]
    return "\r\n".join([*body, "ER  - "])


def to_ris(papers: list[Paper]) -> str:
    """The papers as RIS, entries separated by a blank line, ids unique as the BibTeX keys."""
    entries = (ris_entry(p, key) for p, key in zip(papers, unique_keys(papers), strict=True))
    return "\r\n\r\n".join(entries) + "\r\n"
