"""Extractive TL;DRs: the abstract's contribution sentence, cleaned and compressed to at most 30 words.

Every sentence is cleaned (citations, LaTeX) and shortened as a TL;DR would show it: the leading
connective ("In this paper, we" → "We"), a clause pointing outside the sentence ("To address these
issues, we …", "… to solve this problem") and parentheses other than a defined name ("(GANs)") are
dropped, then trailing clauses until it fits 30 words, cut only where a whole thought ends (not inside a list, an
aside or a pair such as "not only … but also", nor between a subject and its verb). The shortened sentences are scored
(scoring.py); the best one that breaks no rule (`rule_violations`) is the TL;DR, and a background
sentence (before the authors first speak) only when no other will do. No word is added.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from confnav.model import Paper
from confnav.summarize.scoring import score_sentences, title_names
from confnav.summarize.text import clean, sentences

MAX_WORDS = 30
MAIN_WORDS = 6  # after an opening clause ("When pre-trained on X, …"), a cut keeps this many words of the main clause
DANGLING = frozenset({"this", "these", "it", "they", "such", "those", "its", "their", "them", "that"})
_SELF_REFERENCE = re.compile(r"^(this|our) (paper|work|study|article|submission)\b", re.I)
_LEADING = re.compile(
    r"^(however|in this (paper|work|study)|here|to this end|"
    r"(to (address|tackle|solve|overcome|fill|mitigate|alleviate|bridge|remedy|resolve|circumvent)|motivated by|"
    r"inspired by|based on) (this|these|that|the|such|both)\b[^,;]{0,60}?(,|(?= we\b))|"
    r"specifically|therefore|thus|hence|finally|moreover|furthermore|in addition|additionally|"
    r"consequently|as a result|in particular|concretely|overall)\s*,?\s+"
    r"(in this (paper|work|study)\s*,?\s+)?",
    re.I,
)
# Discourse openers dropped only before a comma or "we" ("First, we …", "Then we …"; not "First-order methods").
_DISCOURSE = re.compile(
    r"^(first(ly)?|second(ly)?|third(ly)?|next|then|further|instead|lastly|importantly|most importantly|crucially|"
    r"notably|(perhaps )?surprisingly|interestingly|differently|herein|alternatively|accordingly|empirically|"
    r"experimentally|subsequently|meanwhile|together|"
    r"more specifically|in (this|our) (article|work|paper)|in the paper|to the best of our knowledge|"
    r"to (do (this|so)|that end|this aim)|for this purpose|in this (way|regard|context)|doing so|in contrast)"
    r"(\s*,\s*|\s+(?=we\b))",
    re.I,
)
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
_ACRONYM = re.compile(r"[A-Z][\w-]*[A-Z][\w-]*")  # "(DIVE)", "(GraphSAGE)": a name the sentence defines
_ASIDE = re.compile(r"(?:^|\s+)\(([^()]*)\)")  # a parenthesis after a space; "Ω(d^2)", "f(x)" are formulas


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
_AUTHORS = re.compile(r"\b(we|our|us|this (paper|work|study|article)|the proposed|propose[sd]?)\b", re.I)
_DEFINITION = re.compile(r"^[A-Z][\w-]*[A-Z0-9][\w-]* (is|are) (a|an)\b")  # "DeePa is a framework that …"
_NOVELTY = re.compile(r"\b(novel|new (method|approach|framework|model|algorithm|architecture))\b", re.I)
# A clause holding the pointing phrase: the opener before the main clause, or where a trailing clause may be cut.
_SUBJECT = r"(we|our|this (paper|work|study|article))\b"
_OPENER_BEFORE_SUBJECT = re.compile(rf"^(?!{_SUBJECT})[^;]{{3,400}}?,\s*(?=({_SUBJECT}|here\b))", re.I)
_POINTER_PATTERN = (
    rf"{_POINTING.pattern}|\b(this|these|those)\s*[,;:.]|\bthe above\b|\b(aforementioned|above-?mentioned)\b|"
    r"\bthat (gap|issue|problem|challenge|limitation|shortcoming|question|goal)\b|"
    r"\b(both|the two) (concerns|issues|problems|limitations|"
    r"challenges|shortcomings|drawbacks)\b"
)
_POINTER_LOWER, _POINTER_ANY_CASE = re.compile(_POINTER_PATTERN), re.compile(_POINTER_PATTERN, re.I)


def _find_pointer(text: str) -> re.Match[str] | None:
    """The first phrase pointing outside the sentence (searched in lower case: several times faster)."""
    lowered = text.lower()
    return _POINTER_LOWER.search(lowered) if len(lowered) == len(text) else _POINTER_ANY_CASE.search(text)


_CUT_BEFORE = frozenset({  # where a trailing clause holding a pointing phrase may be cut off
    "to", "for", "which", "thereby", "and", "so", "thus", "in", "while", "whereas", "where", "using", "via",
    "through", "with", "allowing", "enabling",
})  # fmt: skip
_KEEPS_NEXT = frozenset({  # words that do not end a clause: "with respect to", "tries to", "able to"
    "respect", "due", "according", "tries", "try", "aims", "aim", "seeks", "seek", "able", "unable", "needs", "need",
    "wants", "want", "learns", "learn", "attempts", "attempt", "how", "order", "has", "have", "allows", "allow",
    "helps", "help", "tends", "tend", "fails", "fail", "is", "are", "way", "ways",
})  # fmt: skip
# Words a shortened sentence must not end on ("… and show.", "… given by.", "… the exponent bias, and the."); the
# first group never ends an English sentence, so a TL;DR ending on one is a fragment (rule_violations).
_NEVER_ENDS = frozenset({
    "a", "an", "the", "and", "or", "but", "nor", "whose", "whereas", "than", "such", "including", "via", "namely",
    "between", "by", "its", "their", "our", "show", "shows", "prove", "proves", "demonstrate", "demonstrates",
    "observe", "observes", "reveal", "reveals",
})  # fmt: skip
_NO_CUT_ENDS = _NEVER_ENDS | {
    "that", "which", "where", "while", "however", "of", "to", "for", "with", "from", "in", "on", "at", "as", "into",
    "onto", "is", "are", "be", "find", "finds", "argue", "argues", "suggest", "suggests", "require", "requires",
    "ensure", "ensures", "assume", "assumes", "guarantee", "guarantees", "implies", "indicate", "indicates",
    "more", "less", "much", "very", "various", "several", "each", "every", "some", "any", "another", "both", "also",
    "first", "firstly", "second", "secondly", "showing", "demonstrating", "suggesting", "indicating", "proving",
}  # fmt: skip
# A cut must not leave the first half of a pair open ("not only X" without "but also Y", "between X" without "and Y").
_PAIR_OPENS = re.compile(r"\b(not only|one hand|between|both|either|neither)\b", re.I)
_PAIR_CLOSES = {
    opens: re.compile(rf"\b{closes}\b", re.I)
    for opens, closes in (("not only", "but"), ("one hand", "other hand"), ("between", "and"), ("both", "and"),
                          ("either", "or"), ("neither", "nor"))
}  # fmt: skip
_PLURAL = re.compile(r"\b(?!(its|this|thus|various|previous)\b)\w+[^su's]s\b", re.I)
_VERB_FIRST = frozenset({  # a rest opening with one of these leaves its subject in the kept part, its verb cut off
    "is", "are", "was", "were", "can", "could", "may", "might", "will", "would", "shall", "should", "must", "has",
    "have", "had", "does", "do", "did",
})  # fmt: skip
# A word opening another item of a list, not another clause: a name, a noun or an adjective ("depth prediction," |
# "optical flow"); after "and", also an adverb ("integrates convolutional" | "and fully connected layers").
_NAME_OR_NOUN = r"[A-Z'\"‘“(\d].*|.*(ions?|ity|ities|ness|al|ic|ive|ous|ful|able|ible)"
_LIST_ITEM, _AND_ITEM = re.compile(rf"({_NAME_OR_NOUN})$"), re.compile(rf"({_NAME_OR_NOUN}|.*ly)$")
_OPENS_REPORTED = re.compile(  # "we find that by designing X, detectors can …": a comma closes the opener
    r"^(by|if|when|under|given|assuming|while|whereas|although|though|despite|unlike|since|because|once|unless)\b", re.I
)
_ADJECTIVE = re.compile(r".*(al|ic|ive|ous|ful|able|ible)$")
_ASIDE_IN_CLAUSE = re.compile(r"\b(which|that|who|where),\s[^,]*,$")  # "losses, which, besides L^p losses,"
_REPORTED = re.compile(r"\b(show|demonstrate|prove|find|argue|observe|establish|verify|conclude)s? that\b", re.I)
_DASH = re.compile(r"(?<=\s)[–—-](?=\s)|—|-{2,}")  # a dash opening or closing an aside ("X -- namely Y -- Z")
_CLAUSE_WORDS = frozenset({
    "which", "that", "whose", "where", "while", "whereas", "by", "using", "via", "through", "with", "without", "and",
    "but", "thereby", "allowing", "enabling",
})  # fmt: skip
_OPENERS = r"under|given|assuming|while|whereas|if|when|since|because|as|for|with"  # words opening a clause
_SUBORDINATE_OPENING = re.compile(rf"^({_OPENERS})\b", re.I)
_CONJUNCTION_OPENING = re.compile(r"^(and|or|but|nor|yet|so)\b", re.I)
_MAIN_CLAUSE = re.compile(r"\b(we|this (paper|work))\b", re.I)
# Openers of a clause that needs a main clause after it ("Motivated by X, we …", "…: given X, the task is …").
_NEEDS_MAIN = re.compile(
    rf"^({_OPENERS}|motivated|inspired|based|building|following|unlike|although|though|despite|rather than|"
    r"instead of|compared|in contrast|on (the )?one hand)\b",
    re.I,
)


def rule_violations(tldr: str) -> list[str]:
    """The TL;DR rules a sentence breaks: too long, pointing outside itself, result only, background, question,
    fragment."""
    broken = []
    if len(tldr.split()) > MAX_WORDS:
        broken.append("too long")
    if not is_self_contained(tldr) or _find_pointer(tldr):
        broken.append("points outside itself")
    if _RESULT_ONLY.search(tldr) and not _MAIN_CLAUSE.search(tldr):  # "our approach" alone says no more
        broken.append("result only")
    bare = re.sub(r"\s*\([^()]*\)", "", tldr)  # "Graph networks (GNNs) have emerged": the words, not the acronym
    if _BACKGROUND_OPENING.match(bare) or (_FIELD_STATE.search(bare) and not _AUTHORS.search(bare)) or _others(bare):
        broken.append("background")
    if tldr.endswith("?") or _ASKS.search(tldr):
        broken.append("question")
    if (
        tldr.endswith("…")
        or _last_word(tldr) in _NEVER_ENDS
        or not tldr[:1].isupper()
        or _CONJUNCTION_OPENING.match(tldr)
        or (_SUBORDINATE_OPENING.match(tldr) and not _MAIN_CLAUSE.search(tldr) and "," not in tldr)
    ):
        broken.append("fragment")
    return broken


def _others(sentence: str) -> bool:
    """Whether the sentence tells someone else's work ("Gretton et al. show that we can …"), not opening with the
    authors ("We extend the method of Smith et al. …")."""
    return "et al" in sentence and not re.match(rf"{_SUBJECT}", sentence, re.I)


def shorten(sentence: str) -> str:
    """Shorten to MAX_WORDS: drop the opening connective, a clause pointing outside, parentheses, then trailing
    clauses."""
    text = _DISCOURSE.sub("", _LEADING.sub("", sentence).strip())
    if _CONJUNCTION_OPENING.match(text):  # "[Inspired by this idea,] and the rise of X, we propose Y"
        text = _OPENER_BEFORE_SUBJECT.sub("", text)
    text = _unpoint(text)
    if len(text.split()) > MAX_WORDS:  # "Under assumption A, we show B": keep the main clause, not the opener
        text = _OPENER_BEFORE_SUBJECT.sub("", text)
    if "[" in text:
        text = re.sub(r"\s*\[[^\[\]]*\]", "", text)
    if "(" in text:
        text = _ASIDE.sub(lambda m: m.group(0) if _ACRONYM.fullmatch(m.group(1)) else "", text)
        if len(text.split()) > MAX_WORDS:
            text = re.sub(r"\s*\([^()]*\)", "", text)
    words = text.split()
    while len(words) > MAX_WORDS:
        cut = _clause_end(words)
        if cut is None:
            words = [*words[: MAX_WORDS - 1], words[MAX_WORDS - 1].rstrip(",;:.") + "…"]
            break
        words = words[:cut]
    text = " ".join(words).rstrip(",;:-–— ")
    if not text.endswith(("…", ".", "!", "?")):
        text += "."
    return text[0].upper() + text[1:]


def _unpoint(text: str) -> str:
    """Drop the clause holding a phrase that points outside the sentence: the opener ("To solve this problem, we
    …") or a trailing clause of a "we" sentence ("… to address these issues"); unchanged if neither holds it."""
    found = _find_pointer(text)
    if not found:
        return text
    opener = _OPENER_BEFORE_SUBJECT.match(text)
    if opener and found.start() < opener.end():
        text = text[opener.end() :]
        found = _find_pointer(text)
        if not found:
            return text
    words = text.split()
    at = len(text[: found.start()].split())  # the pointing phrase's first word
    cuts = [i for i in range(6, at + 1) if _clause_starts(words, i) and _may_end(words, i)]
    kept = " ".join(words[: cuts[-1]]).rstrip(",;:") if cuts else ""
    return kept + "." if _MAIN_CLAUSE.search(kept) else text


def _clause_starts(words: list[str], i: int) -> bool:
    """Whether a trailing clause may start at words[i]: a clause word, not inside "with respect to", "used in"."""
    word, before = words[i].lower(), words[i - 1].lower()
    if word == "and":
        return before.endswith(",")
    return word in _CUT_BEFORE and not before.endswith("ed") and before not in _KEEPS_NEXT


def _clause_end(words: list[str]) -> int | None:
    """Where to end a long sentence within MAX_WORDS: after the last punctuated clause, else before the last
    clause word ("which", "by", "and", …); never before the 8th word, on a word no sentence ends on, or inside
    a dash aside closed later; None if there is no such place."""
    head = words[:MAX_WORDS]
    punctuated = [i + 1 for i, w in enumerate(head) if w.endswith((",", ";", ":")) and i >= 8]
    joints = [i for i, w in enumerate(head) if i >= 8 and w.lower() in _CLAUSE_WORDS]
    return next((cut for cut in [*punctuated[::-1], *joints[::-1]] if _may_end(words, cut)), None)


def _last_word(text: str) -> str:
    found = re.findall(r"[\w'-]+", text[-40:])
    return found[-1].lower() if found else ""


def _may_end(words: list[str], cut: int) -> bool:
    """Whether a sentence cut before words[cut] ends a whole thought: no fault of _CUT_FAULTS."""
    kept, rest = " ".join(words[:cut]), words[cut:]
    return not any(fault(kept, rest) for fault in _CUT_FAULTS)


def _ends_badly(kept: str, rest: list[str]) -> bool:
    """On a word no sentence ends on ("… and show", "… given by"), or before a verb ("the result" | "may be …")."""
    return _last_word(kept) in _NO_CUT_ENDS or _last_word(rest[0]) in _VERB_FIRST


def _inside_aside(kept: str, rest: list[str]) -> bool:
    """Inside a dash aside the rest closes ("X -- the bit width, the bias" | "-- are …"), or an aside of a clause
    before its verb ("losses, which, besides L^p losses," | "includes …")."""
    open_dash = len(_DASH.findall(f" {kept} ")) % 2 == 1 and bool(_DASH.search(f" {' '.join(rest)} "))
    return open_dash or bool(_ASIDE_IN_CLAUSE.search(kept))


def _inside_pair(kept: str, rest: list[str]) -> bool:
    """With the first half of a pair open ("not only X" | "but also Y", "between X" | "and Y")."""
    opened = {found.group(1).lower(): found.end() for found in _PAIR_OPENS.finditer(kept)}  # each pair's last opening
    if "between" in opened and _PLURAL.search(" ".join(kept[opened["between"] :].split()[:3])):
        del opened["between"]  # "between objects", "between the two paths": no "and" to come
    return any(not _PAIR_CLOSES[pair].search(kept, end) for pair, end in opened.items())


def _inside_list(kept: str, rest: list[str]) -> bool:
    """Between the items of a list ("depth prediction, motion estimation," | "optical flow", "types" | "and direction
    of …", "a ResNet with one neuron per layer" | "and ReLU units can …")."""
    item = rest[0].rstrip(",;:.")
    if kept.endswith(",") and item != "We" and _LIST_ITEM.match(item):
        return True
    after = rest[1].rstrip(",;:.") if len(rest) > 1 else ""
    joined = _AND_ITEM.match(after) or _ADJECTIVE.match(_last_word(kept))  # "from partial" | "and noisy data"
    return item in ("and", "or") and after != "We" and bool(joined)


def _verb_cut_off(kept: str, rest: list[str]) -> bool:
    """With the verb of the kept words' subject after an aside in the rest ("the result" | ", which we call X, may be
    …")."""
    first = next((i for i, word in enumerate(rest) if word.endswith((",", ";", ":"))), len(rest))
    return rest[0].lower() in ("which", "who") and first + 1 < len(rest) and rest[first + 1].lower() in _VERB_FIRST


def _main_clause_cut_off(kept: str, rest: list[str]) -> bool:
    """In an opening clause whose main clause is, or may be, in the rest: a sentence or colon clause opening with one
    is cut after its "we" or MAIN_WORDS words after its comma ("Motivated by X," | "we …", "Because X, the projection"
    | "through Y becomes …", "a two-fold aim: on one hand" | …); nor a reported clause ("we find that by designing X,"
    | "detectors can …")."""
    clause = kept.rsplit(": ", 1)[-1]
    main = clause.split(", ", 1)[1] if ", " in clause else ""  # the main clause after the opener, if any
    if _NEEDS_MAIN.match(clause) and not _MAIN_CLAUSE.search(clause) and len(main.split()) < MAIN_WORDS:
        return True
    reported = kept[found[-1].end() :].strip() if (found := list(_REPORTED.finditer(kept))) else ""
    return bool(_OPENS_REPORTED.match(reported)) and "," not in reported.rstrip(",;:")


_CUT_FAULTS = (_ends_badly, _inside_aside, _inside_pair, _inside_list, _verb_cut_off, _main_clause_cut_off)


def extractive_tldr(abstract: str, title: str = "", keywords: Sequence[str] = ()) -> str | None:
    """The best-scored abstract sentence that, compressed to at most 30 words, breaks no TL;DR rule; None if none.
    Background (what comes before the authors speak) only when nothing else will do. The title and keywords help
    choose (see scoring.py); they are never copied in."""
    candidates = sentences(clean(abstract))
    shown = [shorten(sentence) for sentence in candidates]
    scores = score_sentences(candidates, title, keywords, shown)
    background = background_sentences(candidates, title)
    for index in sorted(range(len(candidates)), key=lambda i: (i in background, -scores[i], i)):
        if is_acceptable(shown[index]):
            return shown[index]
    return None


def background_sentences(found: list[str], title: str) -> set[int]:
    """The sentences before the authors first speak ("we", "this paper"), unless they name or define the paper's
    own contribution ("DeePa is a framework …", a name from the title, "the proposed")."""
    first = next((i for i, sentence in enumerate(found) if _AUTHORS.search(sentence)), len(found))
    names = title_names(title)
    return {
        i for i in range(first)
        if not (_defines_own(found[i], title) or _NOVELTY.search(found[i]) or any(n in found[i] for n in names))
    }  # fmt: skip


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
