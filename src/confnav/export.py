"""Export papers as BibTeX and CSV (reading lists, search results), safe to open (see confnav.safe_text)."""

from __future__ import annotations

import re
import unicodedata

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


# Accents as TeX accent commands, so that classic BibTeX sorts and prints them (`ö` → `{\\"o}`); letters of
# their own (`ß`, `ø`) as their commands. Other characters stay as UTF-8, which biber and modern BibTeX read.
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0304": "=", "\u0307": "."}
_ACCENT_WORDS = {"\u0327": "c", "\u030c": "v", "\u0306": "u", "\u030b": "H", "\u0328": "k", "\u030a": "r"}
_LETTERS = {"ß": "\\ss", "ø": "\\o", "Ø": "\\O", "æ": "\\ae", "Æ": "\\AE", "œ": "\\oe", "Œ": "\\OE"}
_LETTERS |= {"ł": "\\l", "Ł": "\\L", "å": "\\aa", "Å": "\\AA", "ı": "\\i"}


def _tex_letter(char: str) -> str:
    """One character as TeX: a Latin letter with one accent as `{\\'e}`, a special letter as `{\\ss}`."""
    if char in _LETTERS:
        return "{" + _LETTERS[char] + "}"
    decomposed = unicodedata.normalize("NFD", char)
    if len(decomposed) == 2 and decomposed[0].isascii() and decomposed[0].isalpha():
        base, mark = decomposed[0], decomposed[1]
        base = "\\i" if base == "i" else base  # the dotless i takes the accent
        if mark in _ACCENTS:
            return f"{{\\{_ACCENTS[mark]}{base}}}"
        if mark in _ACCENT_WORDS:
            return f"{{\\{_ACCENT_WORDS[mark]}{{{base}}}}}"
    return char


def bib_text(text: str) -> str:
    """Text from the data as a BibTeX field value that prints literally and cannot close its field."""
    escaped = " ".join(text.split()).translate(_BIB_ESCAPE)
    return escaped if escaped.isascii() else "".join(map(_tex_letter, unicodedata.normalize("NFC", escaped)))


def _keeps_capitals(word: str) -> bool:
    """Whether a title word must keep its capitals when a style lower-cases titles: a capital after its first
    letter in any hyphen- or slash-separated part (`DeLighT`, `BERT`, `GANs`, `Bi-LSTM`), or a lone capital
    joined by a hyphen (`Q-learning`, `K-means`)."""
    parts = [p for p in re.split(r"[-/]", word) if p]
    inner = any(any(c.isupper() for c in p[1:]) for p in parts)
    return inner or ("-" in word and any(len(p) == 1 and p.isupper() for p in parts))


def bib_title(title: str) -> str:
    """A title as a BibTeX field value with acronyms and words of internal capitals brace-protected."""
    return " ".join("{" + bib_text(w) + "}" if _keeps_capitals(w) else bib_text(w) for w in title.split())


def bibtex_key(paper: Paper) -> str:
    last = fold(paper.authors[0].name).split()[-1] if paper.authors else "anon"
    word = next((w for w in fold(paper.title).split() if len(w) > 3), "paper")
    return re.sub(r"[^a-z0-9]", "", f"{last}{paper.year}{word}") or "paper"


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


def booktitle(paper: Paper) -> str:
    """The proceedings a paper appeared in, by its track: Findings of an ACL conference are their own volume
    ("Findings of the Association for Computational Linguistics: ACL 2022"), a workshop track is its own."""
    try:
        proceedings = PROCEEDINGS.get(Venue.parse(paper.venue).conference, paper.venue_name)
    except ValueError:  # an id that names no conference and year
        proceedings = paper.venue_name
    if paper.decision.kind == "findings":
        return f"Findings of the Association for Computational Linguistics: {paper.venue_name}"
    if paper.decision.outcome is Outcome.WORKSHOP:
        return f"{proceedings}, Workshop Track"
    return proceedings


def bibtex_entry(paper: Paper, key: str | None = None) -> str:
    """One paper as BibTeX: @inproceedings with the proceedings' title of its track when accepted (or invited to
    a workshop track), else @misc saying where it was submitted (a rejected or withdrawn paper was not published
    there); `key` when the caller made keys unique."""
    outcome = paper.decision.outcome
    published = paper.decision.accepted or outcome in (Outcome.UNKNOWN, Outcome.WORKSHOP)
    fields = {
        "title": bib_title(paper.title),
        "author": " and ".join(bib_text(a.name) for a in paper.authors),
        "booktitle": bib_text(booktitle(paper)) if published else "",
        "note": "" if published else bib_text(f"Submitted to {paper.venue_name} ({paper.decision.name})"),
        "year": str(paper.year),
        "url": safe_link(paper.url) or "",
    }
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    return f"@{'inproceedings' if published else 'misc'}{{{key or bibtex_key(paper)},\n{body}\n}}"


def to_bibtex(papers: list[Paper]) -> str:
    """The papers as BibTeX with unique keys: a key two papers share gets `a`, `b`, … in list order."""
    keys = [bibtex_key(p) for p in papers]
    shared = {k for k in keys if keys.count(k) > 1}
    seen: dict[str, int] = {}
    unique = []
    for k in keys:
        seen[k] = seen.get(k, 0) + 1
        unique.append(f"{k}{_suffix(seen[k])}" if k in shared else k)
    return "\n\n".join(bibtex_entry(p, key) for p, key in zip(papers, unique, strict=True)) + "\n"


def _suffix(n: int) -> str:
    """`a` … `z`, `aa`, `ab`, …: the n-th (1-based) of papers sharing a key."""
    letters = ""
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(97 + rest) + letters
    return letters


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
