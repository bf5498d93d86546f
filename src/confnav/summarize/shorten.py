"""Shortening a sentence to a TL;DR's 30 words, cut only where a whole thought ends.

The leading connective ("In this paper, we" → "We"), a clause pointing outside the sentence ("To address these
issues, we …", "… to solve this problem") and parentheses other than a defined name ("(GANs)") are dropped, then
trailing clauses until the sentence fits, never inside a list, an aside or a pair such as "not only … but also",
nor between a subject and its verb. No word is added.
"""

from __future__ import annotations

import re

from confnav.search.text import STOPWORDS

MAX_WORDS = 30

MAIN_WORDS = 6  # after an opening clause ("When pre-trained on X, …"), a cut keeps this many words of the main clause

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
_CUT_BEFORE = frozenset(
    {  # where a trailing clause holding a pointing phrase may be cut off
        "to",
        "for",
        "which",
        "thereby",
        "and",
        "so",
        "thus",
        "in",
        "while",
        "whereas",
        "where",
        "using",
        "via",
        "through",
        "with",
        "allowing",
        "enabling",
    }
)
_KEEPS_NEXT = frozenset(
    {  # words that do not end a clause: "with respect to", "tries to", "able to"
        "respect",
        "due",
        "according",
        "tries",
        "try",
        "aims",
        "aim",
        "seeks",
        "seek",
        "able",
        "unable",
        "needs",
        "need",
        "wants",
        "want",
        "learns",
        "learn",
        "attempts",
        "attempt",
        "how",
        "order",
        "has",
        "have",
        "allows",
        "allow",
        "helps",
        "help",
        "tends",
        "tend",
        "fails",
        "fail",
        "is",
        "are",
        "way",
        "ways",
        "leads",
        "lead",
        "led",
        "leading",
        "contributes",
        "contribute",
        "refers",
        "refer",
        "corresponds",
        "correspond",
        "belongs",
        "belong",
        "amounts",
    }
)
# Words a shortened sentence must not end on ("… and show.", "… given by.", "… the exponent bias, and the."); the
# first group never ends an English sentence, so a TL;DR ending on one is a fragment (rule_violations).
NEVER_ENDS = frozenset(
    {
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "nor",
        "whose",
        "whereas",
        "than",
        "such",
        "including",
        "via",
        "namely",
        "between",
        "by",
        "its",
        "their",
        "our",
        "show",
        "shows",
        "prove",
        "proves",
        "demonstrate",
        "demonstrates",
        "observe",
        "observes",
        "reveal",
        "reveals",
        "because",
        "unless",
        "although",
        "whether",
        "whenever",
    }
)
_NO_CUT_ENDS = NEVER_ENDS | {
    "that",
    "which",
    "where",
    "while",
    "however",
    "of",
    "to",
    "for",
    "with",
    "from",
    "in",
    "on",
    "at",
    "as",
    "into",
    "onto",
    "is",
    "are",
    "be",
    "find",
    "finds",
    "argue",
    "argues",
    "suggest",
    "suggests",
    "require",
    "requires",
    "ensure",
    "ensures",
    "assume",
    "assumes",
    "guarantee",
    "guarantees",
    "implies",
    "indicate",
    "indicates",
    "more",
    "less",
    "much",
    "very",
    "various",
    "several",
    "each",
    "every",
    "some",
    "any",
    "another",
    "both",
    "also",
    "first",
    "firstly",
    "second",
    "secondly",
    "showing",
    "demonstrating",
    "suggesting",
    "indicating",
    "proving",
    "when",
    "if",
    "since",
    "though",
    "until",
    "denoted",
    "called",
    "named",
    "termed",
    "dubbed",
}
# A cut must not leave the first half of a pair open ("not only X" without "but also Y", "between X" without "and Y").
_PAIR_OPENS = re.compile(r"\b(not only|one hand|between|both|either|neither)\b", re.I)
_PAIR_CLOSES = {
    opens: re.compile(rf"\b{closes}\b", re.I)
    for opens, closes in (
        ("not only", "but"),
        ("one hand", "other hand"),
        ("between", "and"),
        ("both", "and"),
        ("either", "or"),
        ("neither", "nor"),
    )
}
_PLURAL = re.compile(r"\b(?!(its|this|thus|various|previous)\b)\w+[^su's]s\b", re.I)
_VERB_FIRST = frozenset(
    {  # a rest opening with one of these leaves its subject in the kept part, its verb cut off
        "is",
        "are",
        "was",
        "were",
        "can",
        "could",
        "may",
        "might",
        "will",
        "would",
        "shall",
        "should",
        "must",
        "has",
        "have",
        "had",
        "does",
        "do",
        "did",
    }
)
# A word opening another item of a list, not another clause: a name, a noun or an adjective ("depth prediction," |
# "optical flow"); after "and", also an adverb ("integrates convolutional" | "and fully connected layers").
_ADJECTIVE_ENDINGS = "al|ic|ive|ous|ful|able|ible"
_NAME_OR_NOUN = rf"[A-Z'\"‘“(\d].*|.*(ions?|ity|ities|ness|{_ADJECTIVE_ENDINGS})"
_LIST_ITEM, _AND_ITEM = re.compile(rf"({_NAME_OR_NOUN})$"), re.compile(rf"({_NAME_OR_NOUN}|.*ly)$")
_NAME_ITEM = re.compile(r"\w,\s+[A-Z\d][\w-]*,?$")  # a list's item that is one name, its next one cut off
_NEXT_NAME_ITEM = re.compile(r",\s+and\s+[\w-]*[A-Z\d][\w-]*")
_ADJECTIVE = re.compile(rf".*({_ADJECTIVE_ENDINGS}|wise)$")  # before "and": "group-wise" | "and property-wise"
# A list of examples cut after its first ("including word embeddings," | "context encoders, and …"; not "such as X
# and Y,", whose list is whole).
_EXAMPLES = re.compile(r"\b(including|such as|e\.g\.,?)\s(?![^,;:()]*\b(and|or)\b)[^,;:()]*,$", re.I)
_ASIDE_IN_CLAUSE = re.compile(r"\b(which|that|who|where),\s[^,]*,$")  # "losses, which, besides L^p losses,"
_REPORTED = re.compile(r"\b(show|demonstrate|prove|find|argue|observe|establish|verify|conclude)s? that\b", re.I)
# A word that may be a reported clause's verb: an auxiliary, or a word ending as a finite verb may ("outperforms",
# "learned"); lenient, so that only a clause with surely no verb counts as cut before it ("that precise detection").
_MAY_BE_VERB = re.compile(
    r"\b(is|are|was|were|be|can|could|may|might|will|would|shall|should|must|has|have|had|does|do|did|\w+[^s\W]s|"
    r"\w+ed)\b",
    re.I,
)
_DASH = re.compile(r"(?<=\s)[–—-](?=\s)|—|-{2,}")  # a dash opening or closing an aside ("X -- namely Y -- Z")
_CLAUSE_WORDS = frozenset(
    {
        "which",
        "that",
        "whose",
        "where",
        "while",
        "whereas",
        "by",
        "using",
        "via",
        "through",
        "with",
        "without",
        "and",
        "but",
        "thereby",
        "allowing",
        "enabling",
    }
)
OPENERS = r"under|given|assuming|while|whereas|if|when|since|because|as|for|with"  # words opening a clause
CONJUNCTION_OPENING = re.compile(r"^(and|or|but|nor|yet|so)\b", re.I)
MAIN_CLAUSE = re.compile(r"\b(we|this (paper|work))\b", re.I)
# A reported clause opening with a clause of its own: "we find that by designing X, detectors can …".
_OPENS_REPORTED = re.compile(
    rf"^({OPENERS}|by|in|during|after|before|once|unless|although|though|despite|unlike|compared)\b", re.I
)
# Openers of a clause that needs a main clause after it ("Motivated by X, we …", "…: given X, the task is …").
_NEEDS_MAIN = re.compile(
    rf"^({OPENERS}|motivated|inspired|based|building|following|unlike|although|though|despite|rather than|"
    r"instead of|compared|in contrast|on (the )?one hand)\b",
    re.I,
)


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
        cut = _clause_end(words)
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
    cuts = [i for i in range(6, at + 1) if _clause_starts(words, i) and _may_end(words, i)]
    kept = " ".join(words[: cuts[-1]]).rstrip(",;:") if cuts else ""
    return kept + "." if MAIN_CLAUSE.search(kept) else text


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


def last_word(text: str) -> str:
    found = re.findall(r"[\w'-]+", text[-40:])
    return found[-1].lower() if found else ""


def _may_end(words: list[str], cut: int) -> bool:
    """Whether a sentence cut before words[cut] ends a whole thought: no fault of _CUT_FAULTS."""
    kept, rest = " ".join(words[:cut]), words[cut:]
    return not any(fault(kept, rest) for fault in _CUT_FAULTS)


def _ends_badly(kept: str, rest: list[str]) -> bool:
    """On a word no sentence ends on ("… and show", "… given by"), or before a verb ("the result" | "may be …")."""
    return last_word(kept) in _NO_CUT_ENDS or last_word(rest[0]) in _VERB_FIRST


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
    if _NAME_ITEM.search(kept) and _NEXT_NAME_ITEM.search(" ".join(rest)):  # "its inaccuracies, 42D," | "a challenge
        return True  # set …, and hardEN, …"; not an appositive name ("a novel framework, GMAC," | "which …")
    if kept.endswith(",") and (_EXAMPLES.search(kept) or ("-" in last_word(kept) and "-" in item)):
        return True  # "including word embeddings," | "context encoders, …"; "real-world," | "large-scale graphs"
    after = rest[1].rstrip(",;:.") if len(rest) > 1 else ""
    before = last_word(kept)  # "from partial" | "and noisy data", "on labeled" | "and unlabeled data"
    joined = _AND_ITEM.match(after) or _ADJECTIVE.match(before) or (before.endswith("ed") and after.endswith("ed"))
    return item in ("and", "or") and after.lower() != "we" and bool(joined)


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
    if _NEEDS_MAIN.match(clause) and not MAIN_CLAUSE.search(clause) and len(main.split()) < MAIN_WORDS:
        return True
    if (inserted := _INSERTED_OPENER.search(kept)) and _OPENS_REPORTED.match(inserted.group(1)):
        return True  # "we select X and, by building upon Y," | "we obtain …"
    reported = _reported_clause(kept)
    return bool(_OPENS_REPORTED.match(reported)) and "," not in reported.rstrip(",;:")


_INSERTED_OPENER = re.compile(r"\b(?:and|but|or),\s+([^,]+),$")  # "… and, by building upon Y," before its main clause


def _reported_without_verb(kept: str, rest: list[str]) -> bool:
    """In a reported clause before its verb ("we show that precise object detection" | "in such scenes remains …",
    "we demonstrate that anyone with access to the classifier," | "…, can construct …")."""
    reported = _reported_clause(kept)
    return bool(reported) and not _MAY_BE_VERB.search(reported)


def _reported_clause(kept: str) -> str:
    """The words after the last "we show / find / … that" of the kept words, or "" if there is none."""
    found = list(_REPORTED.finditer(kept))
    return kept[found[-1].end() :].strip(" ,") if found else ""


_CUT_FAULTS = (
    _ends_badly,
    _inside_aside,
    _inside_pair,
    _inside_list,
    _verb_cut_off,
    _main_clause_cut_off,
    _reported_without_verb,
)
