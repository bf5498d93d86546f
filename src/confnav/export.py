"""Export papers as BibTeX and CSV (reading lists, search results), safe to open (see confnav.safe_text)."""

from __future__ import annotations

import re

from confnav.model import Outcome, Paper, Venue, fold
from confnav.safe_text import csv_text, safe_link

# Every character TeX treats specially, as text. Braces become \textbraceleft{} and \textbraceright{}, which stay
# balanced: BibTeX counts `\{` as a brace, so a lone one from the data would end the field early.
_BIB_ESCAPE = str.maketrans(
    {
        "\\": "\\textbackslash{}",
        "{": "\\textbraceleft{}",
        "}": "\\textbraceright{}",
        "&": "\\&",
        "%": "\\%",
        "$": "\\$",
        "#": "\\#",
        "_": "\\_",
        "~": "\\textasciitilde{}",
        "^": "\\textasciicircum{}",
    }
)


def bib_text(text: str) -> str:
    """Text from the data as a BibTeX field value that prints literally and cannot close its field."""
    return " ".join(text.split()).translate(_BIB_ESCAPE)


def bibtex_key(paper: Paper) -> str:
    last = fold(paper.authors[0].name).split()[-1] if paper.authors else "anon"
    word = next((w for w in fold(paper.title).split() if len(w) > 3), "paper")
    return re.sub(r"[^a-z0-9]", "", f"{last}{paper.year}{word}")


# The proceedings' own titles of common series (booktitle); other venues use their display name.
PROCEEDINGS = {
    "iclr": "International Conference on Learning Representations",
    "neurips": "Advances in Neural Information Processing Systems",
    "icml": "International Conference on Machine Learning",
    "cvpr": "IEEE/CVF Conference on Computer Vision and Pattern Recognition",
    "iccv": "IEEE/CVF International Conference on Computer Vision",
    "eccv": "European Conference on Computer Vision",
    "acl": "Annual Meeting of the Association for Computational Linguistics",
    "emnlp": "Conference on Empirical Methods in Natural Language Processing",
    "naacl": "Conference of the North American Chapter of the Association for Computational Linguistics",
    "corl": "Conference on Robot Learning",
    "aaai": "AAAI Conference on Artificial Intelligence",
    "ijcai": "International Joint Conference on Artificial Intelligence",
    "aistats": "International Conference on Artificial Intelligence and Statistics",
    "uai": "Conference on Uncertainty in Artificial Intelligence",
    "colt": "Conference on Learning Theory",
    "kdd": "ACM SIGKDD Conference on Knowledge Discovery and Data Mining",
    "www": "The ACM Web Conference",
    "siggraph": "ACM SIGGRAPH Conference Proceedings",
}


def bibtex_entry(paper: Paper) -> str:
    """One paper as BibTeX: @inproceedings with the proceedings' title when accepted, else @misc saying where it
    was submitted (a rejected or withdrawn paper was not published there)."""
    try:
        proceedings = PROCEEDINGS.get(Venue.parse(paper.venue).conference, paper.venue_name)
    except ValueError:  # an id that names no conference and year
        proceedings = paper.venue_name
    published = paper.decision.accepted or paper.decision.outcome is Outcome.UNKNOWN
    fields = {
        "title": bib_text(paper.title),
        "author": " and ".join(bib_text(a.name) for a in paper.authors),
        "booktitle": bib_text(proceedings) if published else "",
        "note": "" if published else bib_text(f"Submitted to {paper.venue_name} ({paper.decision.name})"),
        "year": str(paper.year),
        "url": safe_link(paper.url) or "",
    }
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    return f"@{'inproceedings' if published else 'misc'}{{{bibtex_key(paper)},\n{body}\n}}"


def to_bibtex(papers: list[Paper]) -> str:
    return "\n\n".join(bibtex_entry(paper) for paper in papers) + "\n"


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
