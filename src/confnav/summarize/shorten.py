"""Shortening a sentence to a TL;DR's 30 words, cut only where a whole thought ends.

The leading connective ("In this paper, we" → "We"), a clause pointing outside the sentence ("To address these
issues, we …", "… to solve this problem") and parentheses other than a defined name ("(GANs)") are dropped, then
trailing clauses until the sentence fits, never inside a list, an aside or a pair such as "not only … but also",
nor between a subject and its verb. No word is added.
"""

from __future__ import annotations

import re

from confnav.search.text import STOPWORDS
from confnav.summarize.cuts import MAIN_CLAUSE, MAX_WORDS, clause_end, clause_starts, may_end

_LEADING = re.compile(
    r"^(however|in this (paper|work|study)|here|to this end|"
    r"(to (address|tackle|solve|overcome|fill|mitigate|alleviate|bridge|remedy|resolve|circumvent)|motivated by|"
    r"inspired by|based on) (this|these|that|the|such|both)\b[^,;]{0,60}?(,|(?= we\b))|"
    r"specifically|therefore|thus|hence|finally|moreover|furthermore|in addition(?! to\b)|additionally|"
    r"consequently|as a result|in particular|concretely|overall)\s*,?\s+"
    r"(in this (paper|work|study)\s*,?\s+)?",
    re.I,
)
# Discourse openers dropped only before a comma or "we" ("First, we …", "Then we …"; not "First-order methods").
_DISCOURSE = re.compile(
    r"^(first(ly)?|second(ly)?|third(ly)?|next|then|further|instead|lastly|importantly|most importantly|crucially|"
    r"notably|(perhaps )?surprisingly|interestingly|differently|herein|alternatively|accordingly|empirically|"
    r"experimentally|subsequently|meanwhile|together|"
    r"more specifically|in (this|our) (article|work|paper)|in the paper|to the best of our knowledge|in response|"
    r"to (do (this|so)|that end|this aim)|for this purpose|doing so|in contrast)"
    r"(\s*,\s*|\s+(?=we\b))",
    re.I,
)

_ACRONYM = re.compile(r"[A-Z][\w-]*[A-Z][\w-]*")  # "(DIVE)", "(GraphSAGE)": a name the sentence defines
_ASIDE = re.compile(r"(?:^|\s+)\(([^()]*)\)")  # a parenthesis after a space; "Ω(d^2)", "f(x)" are formulas

# "in this way", "under such settings": an adverbial pointing outside that leaves a whole sentence when dropped (not
# "in such a way that …", whose clause needs it).
_POINTING_ADVERBIAL = re.compile(
    r"(?P<before>,\s*)?\b(in|under) (this|these|such)( a)? (way|manner|fashion|regard|cases?|settings?|contexts?|"
    r"scenarios?|regimes?|situations?)\b(?!\s+(that|as)\b)(?P<after>\s*,)?",
    re.I,
)
_POINTED_NOUN = re.compile(r"(?:this|these|those|such)\s+([a-z][\w-]+)", re.I)  # the noun a pointing phrase names
_POINTING = re.compile(  # "this reliance", "such effects"; not "this paper", "such as"
    r"\b(this|these|those|such)\s+(?!(paper|work|study|article|submission|end|as|that)\b)[a-z]", re.I
)

# A clause holding the pointing phrase: the opener before the main clause, or where a trailing clause may be cut.
SUBJECT = r"(we|our|this (paper|work|study|article))\b"
_OPENER_BEFORE_SUBJECT = re.compile(rf"^(?!{SUBJECT})[^;]{{3,400}}?,\s*(?=({SUBJECT}|here\b))", re.I)
_POINTER_PATTERN = (
    rf"{_POINTING.pattern}|\b(this|these|those)\s*[,;:.]|\bthe above\b|\b(aforementioned|above-?mentioned)\b|"
    r"\bthat (gap|issue|problem|challenge|limitation|shortcoming|question|goal)\b|"
    r"\b(both|the two) (concerns|issues|problems|limitations|"
    r"challenges|shortcomings|drawbacks)\b"
)
_POINTER_LOWER, _POINTER_ANY_CASE = re.compile(_POINTER_PATTERN), re.compile(_POINTER_PATTERN, re.I)


def find_pointer(text: str) -> re.Match[str] | None:
    """The first phrase pointing outside the sentence (searched in lower case: several times faster); not one whose
    noun the sentence named before ("We learn dense representations …, then use those representations …"), nor
    "those" of the sentence's own ("those of a group of experts")."""
    lowered = text.lower()  # where lower case changes a length ("İ"), the text itself, searched ignoring case
    source, pattern = (lowered, _POINTER_LOWER) if len(lowered) == len(text) else (text, _POINTER_ANY_CASE)
    for found in pattern.finditer(source):
        noun = _POINTED_NOUN.match(source, found.start())
        word = noun.group(1).lower() if noun else ""
        if word in STOPWORDS and noun and noun.group(0).lower().startswith("those"):
            continue  # "a subset of those in the target domain": the sentence's own
        named = "" if word in STOPWORDS else word  # "these with X": no noun
        stem = named[: max(5, len(named) - 2)]  # "representations", "biases"
        if not (stem and re.search(rf"\b{re.escape(stem)}", source[: found.start()], re.I)):
            return found
    return None


# "We address this issue by proposing X", "This paper fills that gap by introducing X": a deed that answers an
# earlier sentence's problem. _DEEDS: the gerunds that may be told as the deed itself, and their base form.
_ADDRESSED_BY = re.compile(
    r"(?P<subject>we|this (paper|work))\s+(\w+\s+)?(address|tackle|solve|bridge|fill|close|overcome|alleviate|"
    r"mitigate|remedy|circumvent|resolve|handle|approach)(es|s)?\s+(this|these|that|those|the above|such|both)\b"
    r"[^.;,]{0,60}?,?\s+by\s+(?P<deed>\w+ing)\s+",
    re.I,
)
_DEEDS = {
    gerund: base
    for base in (
        "propose",
        "introduce",
        "develop",
        "leverage",
        "provide",
        "analyze",
        "analyse",
        "use",
        "present",
        "construct",
        "study",
        "combine",
        "generate",
        "characterize",
        "formulate",
        "prove",
        "design",
        "learn",
        "exploit",
        "incorporate",
        "employ",
        "adopt",
        "apply",
        "build",
        "extend",
        "train",
        "derive",
        "devise",
        "reformulate",
        "cast",
        "define",
        "identify",
        "establish",
        "augment",
        "replace",
        "impose",
        "enforce",
        "add",
        "model",
        "explore",
        "investigate",
        "conduct",
        "consider",
    )
    for gerund in ((base[:-1] if base.endswith("e") else base) + "ing", "modelling" if base == "model" else "")
    if gerund
}
CONJUNCTION_OPENING = re.compile(r"^(and|or|but|nor|yet|so)\b", re.I)


def shorten(sentence: str) -> str:
    """Shorten to MAX_WORDS: drop the opening connective, a clause pointing outside, parentheses, then trailing
    clauses."""
    text = _DISCOURSE.sub("", _LEADING.sub("", sentence).strip())
    if CONJUNCTION_OPENING.match(text):  # "[Inspired by this idea,] and the rise of X, we propose Y"
        text = _OPENER_BEFORE_SUBJECT.sub("", text)
    text = _unpoint(_by_doing(_drop_pointing_adverbials(text)))
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
        cut = clause_end(words)
        if cut is None:
            words = [*words[: MAX_WORDS - 1], words[MAX_WORDS - 1].rstrip(",;:.") + "…"]
            break
        words = words[:cut]
    text = " ".join(words).rstrip(",;:-–— ")
    if not text.endswith(("…", ".", "!", "?")):
        text += "."
    return text[0].upper() + text[1:]


def _by_doing(text: str) -> str:
    """ "We address this issue by proposing X" → "We propose X": the authors' deed, without the problem it points
    back to; unchanged when the verb is not one of _DEEDS."""
    found = _ADDRESSED_BY.match(text)
    if not found or found.group("deed").lower() not in _DEEDS:
        return text
    deed = _DEEDS[found.group("deed").lower()]
    if found.group("subject").lower() != "we":  # "This paper addresses … by proposing" → "This paper proposes"
        deed = third_person(deed)
    return f"{found.group('subject')} {deed} {text[found.end() :]}"


def _drop_pointing_adverbials(text: str) -> str:
    """ "We show that learning primitives in this way can …" → "… primitives can …"; "We find, in this case, that"
    → "We find that"."""
    dropped, found = _POINTING_ADVERBIAL.subn(_adverbial_gap, text)
    if not found:
        return text
    dropped = re.sub(r"\s+(?=[.,;:])", "", re.sub(r"\s{2,}", " ", dropped)).strip(" ,")
    return dropped[:1].upper() + dropped[1:]


def _adverbial_gap(found: re.Match[str]) -> str:
    """What a dropped adverbial leaves: an opener's closing comma ("To improve X in this setting, we"), else a space."""
    return "," if found.group("after") and not found.group("before") and found.start() > 0 else " "


def third_person(verb: str) -> str:
    """The third person: "propose" → "proposes", "study" → "studies"; a past tense stays ("proposed")."""
    if verb.endswith("ed"):
        return verb
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + ("es" if verb.endswith(("sh", "ch", "s", "x", "z", "o")) else "s")


def _unpoint(text: str) -> str:
    """Drop the clause holding a phrase that points outside the sentence: the opener ("To solve this problem, we
    …") or a trailing clause of a "we" sentence ("… to address these issues"); unchanged if neither holds it."""
    found = find_pointer(text)
    if not found:
        return text
    opener = _OPENER_BEFORE_SUBJECT.match(text)
    if opener and found.start() < opener.end():
        text = text[opener.end() :]
        found = find_pointer(text)
        if not found:
            return text
    words = text.split()
    at = len(text[: found.start()].split())  # the pointing phrase's first word
    cuts = [i for i in range(6, at + 1) if clause_starts(words, i) and may_end(words, i)]
    kept = " ".join(words[: cuts[-1]]).rstrip(",;:") if cuts else ""
    return kept + "." if MAIN_CLAUSE.search(kept) else text
