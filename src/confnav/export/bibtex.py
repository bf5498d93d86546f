"""Papers as BibTeX ready to cite: TeX-escaped fields (a stored title's `$...$` math kept as math; ligatures,
dashes and curly quotes as classic BibTeX needs them), protected capitals, each track's proceedings, unique keys."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from confnav.export.fields import arxiv_id, bibtex_key, booktitle, doi, kind_of, note_of, notes_for, unique_keys
from confnav.export.tex import LIGATURES, MATH, balanced
from confnav.model import Paper
from confnav.safe_text import safe_link

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

# Typography classic BibTeX and pdflatex cannot read as UTF-8, as TeX writes it: dashes, quotes, an ellipsis.
_TYPOGRAPHY = str.maketrans(
    {
        "\u2010": "-",
        "\u2011": "-",
        "\u2013": "--",
        "\u2014": "---",
        "\u2018": "`",
        "\u2019": "'",
        "\u201c": "``",
        "\u201d": "''",
        "\u2026": "\\ldots{}",
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
    escaped = " ".join(text.split()).translate(_BIB_ESCAPE).translate(_TYPOGRAPHY).translate(LIGATURES)
    return escaped if escaped.isascii() else "".join(map(_tex_letter, unicodedata.normalize("NFC", escaped)))


def _keeps_capitals(word: str) -> bool:
    """Whether a title word must keep its capitals when a style lower-cases titles: a capital after its first
    letter in any hyphen- or slash-separated part (`DeLighT`, `BERT`, `GANs`, `Bi-LSTM`), or a lone capital
    joined by a hyphen (`Q-learning`, `K-means`); opening quotes and brackets are not its first letter."""
    parts = [p for p in re.split(r"[-/]", re.sub(r"^\W+", "", word)) if p]
    inner = any(any(c.isupper() for c in p[1:]) for p in parts)
    return inner or ("-" in word and any(len(p) == 1 and p.isupper() for p in parts))


def bib_title(title: str) -> str:
    """A title as a BibTeX field value with acronyms and words of internal capitals brace-protected; its TeX math
    (`$\\alpha$-MDF`) kept as math, braced so that no style changes its case."""
    spans = [m.group(0) for m in MATH.finditer(title) if balanced(m.group(0))]
    marked = title
    for n, span in enumerate(spans):  # each span as one token of no space, no TeX special and no capital
        marked = marked.replace(span, f"\ue000{n}\ue001", 1)

    def word(text: str) -> str:
        escaped = "{" + bib_text(text) + "}" if _keeps_capitals(_MARK.sub("", text)) else bib_text(text)
        return _MARK.sub(lambda m: "{" + spans[int(m.group(1))] + "}", escaped)

    return " ".join(word(w) for w in marked.split())


_MARK = re.compile("\ue000(\\d+)\ue001")


def bibtex_entry(paper: Paper, key: str | None = None, note: str = "") -> str:
    """One paper as BibTeX: @inproceedings with the proceedings' title of its track when accepted (or invited to
    a workshop track), else @misc saying where it was submitted (a rejected or withdrawn paper was not published
    there), or @misc for a work of no stored venue; `key` when the caller made keys unique, `note` the reader's."""
    kind = kind_of(paper)
    fields = {
        "title": bib_title(paper.title),
        "author": " and ".join(bib_text(a.name) for a in paper.authors),
        "booktitle": bib_text(booktitle(paper)) if kind in ("conference", "journal") else "",
        "year": str(paper.year) if paper.year else "",
        "doi": bib_text(doi(paper) or ""),
        "eprint": bib_text(arxiv_id(paper) or ""),
        "url": safe_link(paper.url) or "",
        "keywords": bib_text(", ".join(paper.keywords)),
        "note": bib_text(note_of(paper)) if kind != "journal" else "",
        "annote": bib_text(" ".join(note.split())),
    }
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    entry_type = "inproceedings" if kind in ("conference", "journal") else "misc"
    return f"@{entry_type}{{{key or bibtex_key(paper)},\n{body}\n}}"


def to_bibtex(papers: list[Paper], notes: Sequence[str] | None = None) -> str:
    """The papers as BibTeX with unique keys: a key two papers share gets `a`, `b`, … in list order; `notes` the
    reader's own, one a paper."""
    keys, said = unique_keys(papers), notes_for(papers, notes)
    entries = (bibtex_entry(p, key, n) for p, key, n in zip(papers, keys, said, strict=True))
    return "\n\n".join(entries) + "\n"
