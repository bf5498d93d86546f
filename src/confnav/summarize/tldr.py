"""Extractive TL;DRs: the abstract's contribution sentence, cleaned and compressed to at most 30 words.

Every sentence is cleaned (text.py) and shortened as a TL;DR would show it (shorten.py), then scored
(scoring.py); the best one that breaks no rule (`rule_violations`) is the TL;DR. A background sentence (before
the authors first speak) only when no other will do, and one where the authors do not speak only when it scores
well above the best where they do. No word is added.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from confnav.model import Paper
from confnav.summarize.base import SUMMARIZERS
from confnav.summarize.cut_words import NEVER_ENDS
from confnav.summarize.cuts import MAIN_CLAUSE, MAX_WORDS, OPENERS, last_word
from confnav.summarize.scoring import score_sentences, title_names
from confnav.summarize.shorten import CONJUNCTION_OPENING, SUBJECT, find_pointer, shorten
from confnav.summarize.text import clean, sentences

SILENT_MARGIN = 0.1  # a sentence where the authors do not speak must score this much above the best where they do
DANGLING = frozenset({"this", "these", "it", "they", "such", "those", "its", "their", "them", "that"})
_SELF_REFERENCE = re.compile(r"^(this|our) (paper|work|study|article|submission)\b", re.I)
# "these issues", "the above picture": phrases that point at an earlier sentence (not "this work": the paper).
_ANAPHORA = re.compile(
    r"\b(these|this|those|such|the above|the aforementioned|aforementioned|the former|the latter)\s+"
    r"(issues?|problems?|limitations?|challenges?|shortcomings?|drawbacks?|questions?|observations?|findings?|"
    r"gaps?|difficult(y|ies)|settings?|cases?|pictures?|insights?|results?|methods?|approaches?|models?|tasks?|"
    r"techniques?|works|phenomen(on|a)|concerns?|tradeoffs?|trade-offs?|properties|property|goals?|ideas?)\b|"
    r"\bthe above\b",
    re.I,
)
_SHORT_OPENER = re.compile(r"^[^,;()]{2,40},\s+")
# A link or where to get the code: it points at a page, not at what the paper does.
_LINK = re.compile(
    r"https?://|\bwww\.|(^|\b(our|the|all|its|their|source|pretrained|pre-trained) )"
    r"(code|implementation|data(sets?)?|models?|visualizations?|videos?|demos?|software)\b[^.;]{0,40}"
    r"\b(is|are|will be) (made )?(publicly |freely |openly )?(available|released)\b",
    re.I,
)


@dataclass
class Tldr:
    """A paper's one-line summary and where it came from: author, extractive or llm."""

    id: str
    tldr: str | None
    source: str

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "tldr": self.tldr, "source": self.source}


def is_self_contained(text: str) -> bool:
    """No opening pronoun pointing outside the sentence, no LaTeX or citation leftovers, within 30 words."""
    opener = _SHORT_OPENER.match(text)  # "At a lower level, it learns …": the subject after a short opener
    subject = text[opener.end() :] if opener else text
    first = re.sub(r"[^a-z]", "", subject.split()[0].lower()) if subject.split() else ""
    if first in DANGLING and not _SELF_REFERENCE.match(subject):
        return False
    if re.search(r"[$\\{}~]|\[\d|et al\.,? \d{4}", text) or _ANAPHORA.search(text) or _LINK.search(text):
        return False
    return len(text.split()) <= MAX_WORDS and text.count("(") == text.count(")")


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
# The state of the field, said anywhere in a sentence without the authors in it ("GNNs have emerged as …").
_FIELD_STATE = re.compile(
    r"\b(in recent years|recent(ly)?|(has|have) (recently )?(attracted|received|gained|drawn|emerged|become|shown "
    r"promise)|(is|are|remains?) (still |often |relatively )?(an open|a challenging|a fundamental|a long-standing|"
    r"a key|an important|under-?studied|less studied|poorly understood|limited|largely unexplored|not well understood|"
    r"widely used|popular|prevailing|predominant|ubiquitous)|(growing|increasing) (interests?|attention)|"
    r"a (significant|major|key|fundamental|further|central) (obstacle|challenge|limitation|bottleneck)|"
    r"(existing|previous|prior|conventional|standard|traditional|classical|current) (\w+ ){0,3}(methods|approaches|"
    r"techniques|works?|models|algorithms|systems))\b",
    re.I,
)
_ASKS = re.compile(r"(^|[;:]\s*)(how|why|what|which|whether) (can|do|does|did|is|are|should|could|would|will)\b", re.I)
_EXAMPLE = re.compile(r"(for (instance|example)|e\.g\.),", re.I)  # an example of what an earlier sentence says
_STILL_OPEN = re.compile(
    r"\b((additional|further|more) (efforts?|work|research|studies) (is|are) (needed|required)|"
    r"(questions?|problems?|issues?|challenges?) (still )?(needs?|remains?) to be (answered|addressed|solved))\b",
    re.I,
)
_SCORED = re.compile(r"\b(outperform\w*|state-of-the-art|surpass\w*|achiev\w+|experiments?|benchmarks?)\b", re.I)
_AUTHORS = re.compile(r"\b(we|our|us|this (paper|work|study|article)|the proposed|propose[sd]?)\b", re.I)
_DEFINITION = re.compile(r"^[A-Z][\w-]*[A-Z0-9][\w-]* (is|are) (a|an)\b")  # "DeePa is a framework that …"
_NOVELTY = re.compile(r"\b(novel|new (method|approach|framework|model|algorithm|architecture))\b", re.I)
_SUBORDINATE_OPENING = re.compile(rf"^({OPENERS})\b", re.I)


def rule_violations(tldr: str) -> list[str]:
    """The TL;DR rules a sentence breaks: too long, pointing outside itself, result only, background, question,
    fragment."""
    broken = []
    if len(tldr.split()) > MAX_WORDS:
        broken.append("too long")
    if not is_self_contained(tldr) or find_pointer(tldr) or _EXAMPLE.match(tldr):
        broken.append("points outside itself")
    if _RESULT_ONLY.search(tldr) and not MAIN_CLAUSE.search(tldr):  # "our approach" alone says no more
        broken.append("result only")
    bare = re.sub(r"\s*\([^()]*\)", "", tldr)  # "Graph networks (GNNs) have emerged": the words, not the acronym
    if _is_background(bare):
        broken.append("background")
    if tldr.endswith("?") or _ASKS.search(tldr):
        broken.append("question")
    if (
        tldr.endswith("…")
        or last_word(tldr) in NEVER_ENDS
        or not tldr[:1].isupper()
        or CONJUNCTION_OPENING.match(tldr)
        or (_SUBORDINATE_OPENING.match(tldr) and not MAIN_CLAUSE.search(tldr) and "," not in tldr)
    ):
        broken.append("fragment")
    return broken


def _is_background(sentence: str) -> bool:
    """Whether the sentence tells the field's state ("GNNs have emerged as …"), someone else's work, or what is still
    open ("Additional efforts are needed …", "two questions need to be answered")."""
    field = _BACKGROUND_OPENING.match(sentence) or (_FIELD_STATE.search(sentence) and not _AUTHORS.search(sentence))
    return bool(field or _others(sentence) or _STILL_OPEN.search(sentence))


def _others(sentence: str) -> bool:
    """Whether the sentence tells someone else's work ("Gretton et al. show that we can …"), not opening with the
    authors ("We extend the method of Smith et al. …")."""
    return "et al" in sentence and not re.match(rf"{SUBJECT}", sentence, re.I)


def extractive_tldr(abstract: str, title: str = "", keywords: Sequence[str] = ()) -> str | None:
    """The best-scored abstract sentence that, compressed to at most 30 words, breaks no TL;DR rule; None if none.
    Background (what comes before the authors speak) only when nothing else will do; a sentence where the authors do
    not speak only when it scores SILENT_MARGIN above the best where they do. The title and keywords help choose (see
    scoring.py); they are never copied in."""
    candidates = sentences(clean(abstract))
    shown = [shorten(sentence) for sentence in candidates]
    scores = score_sentences(candidates, title, keywords, shown)
    background = background_sentences(candidates, title)
    ranked = sorted(range(len(shown)), key=lambda i: (i in background, -scores[i], i))
    best = next((i for i in ranked if is_acceptable(shown[i])), None)
    names = title_names(title)
    if best is None or best in background or _speaks(shown[best], names):
        return shown[best] if best is not None else None
    speaking = (  # telling what they do, not how it scored ("our method outperforms …")
        i
        for i in ranked
        if i not in background and _speaks(shown[i], names) and not _SCORED.search(shown[i]) and is_acceptable(shown[i])
    )
    spoken = next(speaking, best)
    return shown[spoken if scores[best] < scores[spoken] + SILENT_MARGIN else best]


def _speaks(sentence: str, names: frozenset[str]) -> bool:
    """Whether the authors speak in the sentence: "we", "this paper", "the proposed", or one of the title's names."""
    return bool(_AUTHORS.search(sentence)) or any(name in sentence for name in names)


def background_sentences(found: list[str], title: str) -> set[int]:
    """The sentences before the authors first speak ("we", "this paper"), unless they name or define the paper's
    own contribution ("DeePa is a framework …", a name from the title, "the proposed")."""
    first = next((i for i, sentence in enumerate(found) if _AUTHORS.search(sentence)), len(found))
    names = title_names(title)
    return {
        i
        for i in range(first)
        if not (_defines_own(found[i], title) or _NOVELTY.search(found[i]) or any(n in found[i] for n in names))
    }


def _defines_own(sentence: str, title: str) -> bool:
    """Whether the sentence defines a name the title has ("DeePa is a framework …"); not "GradNorm is a popular
    method" in a paper titled "Rotograd: …", which is background."""
    return bool(_DEFINITION.match(sentence)) and sentence.split()[0].lower() in title.lower()


def is_acceptable(summary: str) -> bool:
    """Whether a shortened sentence may be a TL;DR: at least 4 words and no rule broken."""
    return len(summary.split()) >= 4 and not rule_violations(summary)


class ExtractiveSummarizer:
    """The default Summarizer: the author's TL;DR when a source gave one, else an extractive sentence, read from
    `known` (the venue's TL;DRs made earlier by the same rules, by paper id) when it is there."""

    def __init__(self, venue: str | None = None, known: Mapping[str, str | None] | None = None) -> None:
        self.venue, self.known = venue, known or {}

    def tldr(self, paper: Paper) -> Tldr:
        if paper.tldr:
            return Tldr(paper.id, paper.tldr, "author")
        if paper.venue == self.venue and paper.id in self.known:
            return Tldr(paper.id, self.known[paper.id], "extractive")
        made = extractive_tldr(paper.abstract, paper.title, paper.keywords) if paper.abstract else None
        return Tldr(paper.id, made, "extractive")


SUMMARIZERS.register("extractive", ExtractiveSummarizer)
