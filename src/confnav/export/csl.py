"""Papers as CSL-JSON, the input format of the Citation Style Language (Zotero, Pandoc, citeproc): an array of
items with the schema's variables only (csl-data.json allows no others); titles and abstracts as readable text
(stored TeX math as the text it prints, as citeproc shows no TeX)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from confnav.export.fields import Kind, arxiv_id, booktitle, doi, kind_of, note_of, notes_for, split_name, unique_keys
from confnav.export.tex import readable
from confnav.model import Paper
from confnav.safe_text import safe_link

# CSL item types: a paper in proceedings, a journal article, an unpublished manuscript.
CSL_TYPES: dict[Kind, str] = {
    "conference": "paper-conference",
    "journal": "article-journal",
    "unpublished": "manuscript",
    "other": "article",
}


def csl_name(name: str) -> dict[str, str]:
    """An author as a CSL name variable: family, given and suffix parts, the empty ones left out."""
    parts = split_name(name)
    named = {"family": parts.family, "given": parts.given, "suffix": parts.suffix}
    return {k: v for k, v in named.items() if v}


def csl_item(paper: Paper, key: str, note: str = "") -> dict[str, object]:
    """One paper as a CSL item; `issued` as date parts, `keyword` as one comma-separated string as CSL has it;
    `note` the reader's own, as `annote`."""
    kind = kind_of(paper)
    item: dict[str, object | None] = {
        "id": key,
        "type": CSL_TYPES[kind],
        "title": readable(paper.title),
        "author": [csl_name(a.name) for a in paper.authors],
        "issued": {"date-parts": [[paper.year]]} if paper.year else None,
        "container-title": booktitle(paper) if kind == "conference" else None,
        "abstract": readable(paper.abstract),
        "URL": safe_link(paper.url),
        "DOI": doi(paper),
        "keyword": ", ".join(paper.keywords),
        "number": f"arXiv:{arxiv}" if (arxiv := arxiv_id(paper)) else None,
        "note": note_of(paper),
        "annote": " ".join(note.split()),
    }
    return {k: v for k, v in item.items() if v}


def to_csl_json(papers: list[Paper], notes: Sequence[str] | None = None) -> str:
    """The papers as a CSL-JSON array, ids unique as the BibTeX keys; `notes` the reader's own, one a paper."""
    keys, said = unique_keys(papers), notes_for(papers, notes)
    items = [csl_item(p, key, n) for p, key, n in zip(papers, keys, said, strict=True)]
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"
