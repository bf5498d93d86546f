"""TeX in stored text: markup read as the text it prints (a library's `It{\\^o}`, a stored `$\\alpha$VIL`), and the
math spans (`$...$`) a stored title or abstract holds, which BibTeX keeps as math and RIS or CSL-JSON show as
readable text. Ligature characters (`ﬁ`) are spelt as letters everywhere: they break search and classic BibTeX."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

# A math span as pandoc reads `$...$`: no space just inside either dollar, none escaped, no digit right after the
# closing one, so that "from $5 to $10" holds none.
MATH = re.compile(r"(?<![\\$])\$(?=[^\s$])((?:[^$\\]|\\.)*?[^\s\\$])\$(?!\d)")
_TEX_LIGATURES_PRINTED = {"---": "\u2014", "--": "\u2013", "``": "\u201c", "''": "\u201d"}
_TEX_LIGATURES = re.compile("---|--|``|''")
LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})


def latex_text(text: str) -> str:
    """TeX markup as the text it prints (accents, math letters, escapes, `--` and ``` `` ``` as dash and quote;
    braces dropped); text without any as is."""
    text = _TEX_LIGATURES.sub(lambda m: _TEX_LIGATURES_PRINTED[m.group(0)], text)
    if not any(c in text for c in "\\$~"):  # at most braces, which only group (`{{BERT}}`): the common case, fast
        return text.replace("{", "").replace("}", "")
    from pylatexenc.latexwalker import LatexWalkerError

    try:
        unescaped = re.sub(r"(?<!\\)%", r"\\%", text)  # a bare % is no comment in a title
        return str(_latex_reader().latex_to_text(unescaped))
    except (LatexWalkerError, ValueError, IndexError, RecursionError):  # malformed markup: without its braces
        return re.sub(r"[{}\\$]", "", text)


@cache
def _latex_reader() -> Any:
    """pylatexenc's TeX-to-text converter (bibtexparser's own dependency), knowing the escapes BibTeX exports
    write for literal braces and carets."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    literal = {"textbraceleft": "{", "textbraceright": "}", "textasciicircum": "^", "textasciitilde": "~"}
    context = get_default_latex_context_db()
    context.add_context_category("literal", prepend=True, macros=[MacroTextSpec(k, v) for k, v in literal.items()])
    return LatexNodes2Text(latex_context=context, math_mode="text")


def balanced(tex: str) -> bool:
    """Whether a TeX fragment's braces pair up (escaped ones aside): only such math can go into a BibTeX field."""
    depth = 0
    for char in re.sub(r"\\.", "", tex):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def readable(text: str | None) -> str | None:
    """Stored text as a reference manager shows it (RIS, CSL-JSON): each math span as the text it prints
    (`$\\alpha$-MDF` → `α-MDF`), ligatures as letters; anything else as stored."""
    if not text:
        return text
    return MATH.sub(lambda m: latex_text(m.group(0)), text).translate(LIGATURES)
