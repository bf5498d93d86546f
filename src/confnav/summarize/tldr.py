"""Extractive TL;DRs: the abstract's contribution sentence, cleaned and compressed to at most 30 words.

The sentence is chosen by contribution cues ("we propose", "this paper") against
background cues ("recently", "however"); citations and LaTeX are removed, leading
connectives dropped, and the sentence is shortened clause by clause. Sentences
opening with a pronoun that points outside them ("This", "These", "It") are not
chosen, so each TL;DR stands on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from confnav.model import Paper

MAX_WORDS = 30
DANGLING = frozenset({"this", "these", "it", "they", "such", "those", "its", "their", "them", "that"})
_SELF_REFERENCE = re.compile(r"^(this|our) (paper|work|study|article|submission)\b", re.I)
_CONTRIBUTION = re.compile(
    r"\b(we (propose|introduce|present|develop|design|show|demonstrate|prove|derive|find|study|provide|establish|"
    r"formulate|analy[sz]e|investigate|learn|identify|argue|report|extend|generalize)|this (paper|work|study)|"
    r"in this (paper|work)|our (method|approach|model|framework|algorithm|results?)|here,? we)\b",
    re.I,
)
_BACKGROUND = re.compile(
    r"\b(recent(ly)?|has been|have been|however|although|despite|existing|prior|previous|traditional(ly)?|"
    r"typically|commonly|widely|remains?|challenging|popular|state-of-the-art methods)\b",
    re.I,
)
_LEADING = re.compile(
    r"^(in this (paper|work|study)|here|to this end|to (address|tackle|solve|overcome|fill) (this|these|that|the) "
    r"\w+( \w+)?|specifically|therefore|thus|hence|finally|moreover|furthermore|in addition|additionally|"
    r"consequently|as a result|in particular|concretely|overall|motivated by (this|these) \w+( \w+)?|"
    r"inspired by (this|these) \w+( \w+)?|based on (this|these) \w+( \w+)?)\s*,?\s+",
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


def _score(sentence: str, position: int) -> float:
    score = 3.0 * len(_CONTRIBUTION.findall(sentence)) - 1.0 * len(_BACKGROUND.findall(sentence))
    score += 0.5 if position in (1, 2) else 0.0
    score -= 0.5 if len(sentence.split()) < 8 else 0.0
    return score


def _compress(sentence: str) -> str:
    """Shorten to MAX_WORDS: drop the opening connective, parentheses, then trailing clauses."""
    text = _LEADING.sub("", sentence).strip()
    text = re.sub(r"\s*\([^()]*\)", "", text)
    text = re.sub(r"\s*\[[^\[\]]*\]", "", text)
    words = text.split()
    while len(words) > MAX_WORDS:
        cut = max((i for i, w in enumerate(words[:MAX_WORDS]) if w.endswith((",", ";", ":")) and i >= 8), default=None)
        if cut is None:
            words = [*words[: MAX_WORDS - 1], words[MAX_WORDS - 1].rstrip(",;:.") + "…"]
            break
        words = words[: cut + 1]
    text = " ".join(words).rstrip(",;: ")
    if not text.endswith(("…", ".", "!", "?")):
        text += "."
    return text[0].upper() + text[1:]


def extractive_tldr(abstract: str) -> str | None:
    """The best self-contained contribution sentence of an abstract, at most 30 words; None if none."""
    candidates = sentences(clean(abstract))
    ranked = sorted(range(len(candidates)), key=lambda i: (-_score(candidates[i], i), i))
    for index in ranked:
        summary = _compress(candidates[index])
        if len(summary.split()) >= 4 and is_self_contained(summary):
            return summary
    return None


class ExtractiveSummarizer:
    """The default Summarizer: the author's TL;DR when a source gave one, else an extractive sentence."""

    def tldr(self, paper: Paper) -> Tldr:
        if paper.tldr:
            return Tldr(paper.id, paper.tldr, "author")
        return Tldr(paper.id, extractive_tldr(paper.abstract) if paper.abstract else None, "extractive")
