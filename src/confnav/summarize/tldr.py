"""Extractive TL;DRs: the abstract's contribution sentence, cleaned and compressed to at most 30 words.

The sentence is chosen by contribution cues ("we propose", "this paper") against
background cues ("recently", "however"); citations and LaTeX are removed, leading
connectives dropped, and the sentence is shortened clause by clause. Sentences
opening with a pronoun that points outside them ("This", "These", "It") are not
chosen, so each TL;DR stands on its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from confnav.model import Paper
from confnav.summarize.scoring import score_sentences

MAX_WORDS = 30
DANGLING = frozenset({"this", "these", "it", "they", "such", "those", "its", "their", "them", "that"})
_SELF_REFERENCE = re.compile(r"^(this|our) (paper|work|study|article|submission)\b", re.I)
_LEADING = re.compile(
    r"^(however|in this (paper|work|study)|here|to this end|"
    r"to (address|tackle|solve|overcome|fill) (this|these|that|the) \w+( \w+)?|"
    r"specifically|therefore|thus|hence|finally|moreover|furthermore|in addition|additionally|"
    r"consequently|as a result|in particular|concretely|overall|motivated by (this|these) \w+( \w+)?|"
    r"inspired by (this|these) \w+( \w+)?|based on (this|these) \w+( \w+)?)\s*,?\s+"
    r"(in this (paper|work|study)\s*,?\s+)?",
    re.I,
)
# "these issues", "the above picture": phrases that point at an earlier sentence.
_ANAPHORA = re.compile(
    r"\b(these|this|those|such|the above|the aforementioned|aforementioned|the former|the latter)\s+"
    r"(issues?|problems?|limitations?|challenges?|shortcomings?|drawbacks?|questions?|observations?|findings?|"
    r"gaps?|difficult(y|ies)|settings?|cases?|pictures?|insights?|results?|methods?|approaches?|models?|tasks?|"
    r"techniques?|works?|phenomen(on|a)|concerns?|tradeoffs?|trade-offs?|properties|property|goals?|ideas?)\b|"
    r"\bthe above\b",
    re.I,
)
_ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|et al|vs|cf|fig|eq|resp|approx|w\.r\.t|etc|a\.k\.a)\.", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


@dataclass
class Tldr:
    """A paper's one-line summary and where it came from: author, extractive or llm."""

    id: str
    tldr: str | None
    source: str

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "tldr": self.tldr, "source": self.source}


def clean(text: str) -> str:
    """Remove citations, LaTeX, footnote marks and odd quotes; collapse spaces."""
    text = re.sub(r"\\cite[tp]?\{[^}]*\}", "", text)
    text = re.sub(r"\[[^\[\]]*(\d{2}|et al)[^\[\]]*\]", "", text)  # [Smith'20], [12], [Smith et al., 2019]
    text = re.sub(r"\(([A-Z][A-Za-z-]+( et al\.?)?( and [A-Z][a-z]+)?,? (19|20)\d\d[a-z]?;? ?)+\)", "", text)
    text = re.sub(r"\$+([^$]*)\$+", lambda m: _strip_latex(m.group(1)), text)
    text = _strip_latex(text)
    text = text.replace("``", '"').replace("''", '"').replace("`", "'").replace("~", " ")
    text = re.sub(r"\s+([,.;:])", r"\1", text)
    return " ".join(text.split())


def _strip_latex(text: str) -> str:
    text = re.sub(r"\\(textit|textbf|emph|mathrm|mathbf|mathcal|mathbb|text|texttt|textsc|operatorname)\{([^}]*)\}",
                  r"\2", text)  # fmt: skip
    text = re.sub(r"\\([A-Za-z]+)", r"\1", text)
    return text.replace("{", "").replace("}", "").replace("\\", "").replace("$", "")


def sentences(text: str) -> list[str]:
    """Split into sentences without breaking at e.g., i.e., et al. or decimals."""
    protected = _ABBREVIATIONS.sub(lambda m: m.group(0).replace(".", "\0"), text)
    return [s.replace("\0", ".").strip() for s in _SENTENCE_END.split(protected) if s.strip()]


def is_self_contained(text: str) -> bool:
    """No opening pronoun pointing outside the sentence, no LaTeX or citation leftovers, within 30 words."""
    first = re.sub(r"[^a-z]", "", text.split()[0].lower()) if text.split() else ""
    if first in DANGLING and not _SELF_REFERENCE.match(text):
        return False
    if re.search(r"[$\\{}~]|\[\d|et al\.,? \d{4}", text) or _ANAPHORA.search(text):
        return False
    return len(text.split()) <= MAX_WORDS and text.count("(") == text.count(")")


_POINTING = re.compile(  # "this reliance", "such effects"; not "this paper", "such as"
    r"\b(this|these|those|such)\s+(?!(paper|work|study|article|submission|end|as|that)\b)[a-z]", re.I
)
_RESULT_ONLY = re.compile(
    r"^(extensive |comprehensive |our |the |empirical |experimental |numerical )*(experiments?|experimental results|"
    r"empirical (results|evaluations?|studies)|results|evaluations?|simulations?|ablations?)\b.*\b(show|demonstrate|"
    r"verify|validate|confirm|indicate|suggest|reveal)|\b(demonstrates?|shows?|verif(y|ies)|validates?|confirms?)"
    r" (the )?(effectiveness|superiority|efficacy|advantages?|benefits?|validity|usefulness)\b",
    re.I,
)
_BACKGROUND_OPENING = re.compile(
    r"^(recent(ly)?|in recent years|over the (past|last)|despite|although|however|existing|prior|previous|"
    r"traditional(ly)?|currently|nowadays|many|most|\w+( \w+){0,4} (has|have) (been|become|shown|achieved|attracted|"
    r"gained|emerged|seen|received))\b",
    re.I,
)
_CLAUSE_WORDS = frozenset({
    "which", "that", "where", "while", "whereas", "by", "using", "via", "through", "with", "without", "and", "but",
    "thereby", "allowing", "enabling",
})  # fmt: skip
_OPENERS = r"under|given|assuming|while|whereas|if|when|since|because|as|for|with"  # words opening a clause
_OPENER_BEFORE_MAIN = re.compile(
    rf"^({_OPENERS}|by|using|building on|unlike)\b[^,;]{{3,160}},\s*(?=(we|our|this paper|this work)\b)", re.I
)
_SUBORDINATE_OPENING = re.compile(rf"^({_OPENERS})\b", re.I)
_MAIN_CLAUSE = re.compile(r"\b(we|this (paper|work))\b", re.I)


def rule_violations(tldr: str) -> list[str]:
    """The TL;DR rules a sentence breaks: too long, pointing outside itself, result only, background, fragment."""
    broken = []
    if len(tldr.split()) > MAX_WORDS:
        broken.append("too long")
    if not is_self_contained(tldr) or _POINTING.search(tldr):
        broken.append("points outside itself")
    if _RESULT_ONLY.search(tldr) and not _MAIN_CLAUSE.search(tldr):  # "our approach" alone says no more
        broken.append("result only")
    if _BACKGROUND_OPENING.match(tldr):
        broken.append("background")
    if tldr.endswith("…") or not tldr[:1].isupper() or (
        _SUBORDINATE_OPENING.match(tldr) and not _MAIN_CLAUSE.search(tldr) and "," not in tldr
    ):
        broken.append("fragment")
    return broken


def _compress(sentence: str) -> str:
    """Shorten to MAX_WORDS: drop the opening connective, parentheses, then trailing clauses."""
    text = _LEADING.sub("", sentence).strip()
    if len(text.split()) > MAX_WORDS:  # "Under assumption A, we show B": keep the main clause, not the opener
        text = _OPENER_BEFORE_MAIN.sub("", text)
    text = re.sub(r"\s*\([^()]*\)", "", text)
    text = re.sub(r"\s*\[[^\[\]]*\]", "", text)
    words = text.split()
    while len(words) > MAX_WORDS:
        cut = _clause_end(words)
        if cut is None:
            words = [*words[: MAX_WORDS - 1], words[MAX_WORDS - 1].rstrip(",;:.") + "…"]
            break
        words = words[:cut]
    text = " ".join(words).rstrip(",;: ")
    if not text.endswith(("…", ".", "!", "?")):
        text += "."
    return text[0].upper() + text[1:]


def _clause_end(words: list[str]) -> int | None:
    """Where to end a long sentence within MAX_WORDS: after the last punctuated clause, else before the last
    clause word ("which", "by", "and", …), never before the 8th word; None if neither is found."""
    head = words[:MAX_WORDS]
    punctuated = [i + 1 for i, w in enumerate(head) if w.endswith((",", ";", ":")) and i >= 8]
    if punctuated:
        return punctuated[-1]
    joints = [i for i, w in enumerate(head) if i >= 8 and w.lower() in _CLAUSE_WORDS]
    return joints[-1] if joints else None


def extractive_tldr(abstract: str, title: str = "", keywords: Sequence[str] = ()) -> str | None:
    """The best-scored abstract sentence that, compressed to at most 30 words, breaks no TL;DR rule; None if none.
    The title and keywords help choose (see scoring.py); they are never copied in."""
    candidates = sentences(clean(abstract))
    scores = score_sentences(candidates, title, keywords)
    for index in sorted(range(len(candidates)), key=lambda i: (-scores[i], i)):
        summary = _compress(candidates[index])
        if len(summary.split()) >= 4 and not rule_violations(summary):
            return summary
    return None


class ExtractiveSummarizer:
    """The default Summarizer: the author's TL;DR when a source gave one, else an extractive sentence."""

    def tldr(self, paper: Paper) -> Tldr:
        if paper.tldr:
            return Tldr(paper.id, paper.tldr, "author")
        made = extractive_tldr(paper.abstract, paper.title, paper.keywords) if paper.abstract else None
        return Tldr(paper.id, made, "extractive")
