"""Papers as RIS (the RefMan tagged format Zotero, EndNote and Mendeley import): one `TAG  - value` line per
field, an entry from `TY` to `ER`; titles and abstracts as readable text (stored TeX math as the text it prints)."""

from __future__ import annotations

from collections.abc import Sequence

from confnav.export.fields import Kind, arxiv_id, booktitle, doi, kind_of, note_of, notes_for, split_name, unique_keys
from confnav.export.tex import readable
from confnav.model import Paper
from confnav.safe_text import safe_link

# RIS reference types: a conference paper, a journal article, an unpublished work.
RIS_TYPES: dict[Kind, str] = {"conference": "CONF", "journal": "JOUR", "unpublished": "UNPB", "other": "GEN"}


def ris_name(name: str) -> str:
    """An author as RIS asks: `Family, Given` (and `, Suffix`)."""
    parts = split_name(name)
    return ", ".join(p for p in (parts.family, parts.given, parts.suffix) if p)


def ris_entry(paper: Paper, key: str, note: str = "") -> str:
    """One paper as a RIS entry: type, id, title, one AU line an author, year, proceedings, abstract, link, DOI,
    one KW line a keyword; a note says where an unpublished paper was submitted or a journal paper presented, and
    the reader's own `note` is a note line of its own."""
    kind = kind_of(paper)
    lines: list[tuple[str, str | None]] = [
        ("TY", RIS_TYPES[kind]),
        ("ID", key),
        ("TI", readable(paper.title)),
        *(("AU", ris_name(a.name)) for a in paper.authors),
        ("PY", str(paper.year) if paper.year else None),
        ("T2", booktitle(paper) if kind == "conference" else None),
        ("AB", readable(paper.abstract)),
        ("UR", safe_link(paper.url)),
        ("DO", doi(paper)),
        *(("KW", k) for k in paper.keywords),
        (
            "L1",
            f"https://arxiv.org/abs/{arxiv}" if (arxiv := arxiv_id(paper)) and arxiv not in (paper.url or "") else None,
        ),
        ("N1", note_of(paper)),
        ("N1", note),
    ]
    # A value is one line: a line break in the data would start a line RIS reads as a tag or a continuation.
    body = [f"{tag}  - {' '.join(value.split())}" for tag, value in lines if value and value.strip()]
    return "\r\n".join([*body, "ER  - "])


def to_ris(papers: list[Paper], notes: Sequence[str] | None = None) -> str:
    """The papers as RIS, entries separated by a blank line, ids unique as the BibTeX keys; `notes` the reader's
    own, one a paper."""
    keys, said = unique_keys(papers), notes_for(papers, notes)
    entries = (ris_entry(p, key, n) for p, key, n in zip(papers, keys, said, strict=True))
    return "\r\n\r\n".join(entries) + "\r\n"
