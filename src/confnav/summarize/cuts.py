"""Where a sentence too long for a TL;DR may be cut: where a trailing clause starts, where a clause ends within
MAX_WORDS, and the faults that make a cut leave half a thought (inside a list, an aside or a pair such as "not only
… but also", between a subject and its verb, in an opening clause before its main one)."""

from __future__ import annotations

import re

from confnav.summarize.cut_words import CUT_BEFORE, KEEPS_NEXT, NO_CUT_ENDS

MAX_WORDS = 30

MAIN_WORDS = 6  # after an opening clause ("When pre-trained on X, …"), a cut keeps this many words of the main clause

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


def clause_starts(words: list[str], i: int) -> bool:
    """Whether a trailing clause may start at words[i]: a clause word, not inside "with respect to", "used in"."""
    word, before = words[i].lower(), words[i - 1].lower()
    if word == "and":
        return before.endswith(",")
    return word in CUT_BEFORE and not before.endswith("ed") and before not in KEEPS_NEXT


def clause_end(words: list[str]) -> int | None:
    """Where to end a long sentence within MAX_WORDS: after the last punctuated clause, else before the last
    clause word ("which", "by", "and", …); never before the 8th word, on a word no sentence ends on, or inside
    a dash aside closed later; None if there is no such place."""
    head = words[:MAX_WORDS]
    punctuated = [i + 1 for i, w in enumerate(head) if w.endswith((",", ";", ":")) and i >= 8]
    joints = [i for i, w in enumerate(head) if i >= 8 and w.lower() in _CLAUSE_WORDS]
    return next((cut for cut in [*punctuated[::-1], *joints[::-1]] if may_end(words, cut)), None)


def last_word(text: str) -> str:
    found = re.findall(r"[\w'-]+", text[-40:])
    return found[-1].lower() if found else ""


def may_end(words: list[str], cut: int) -> bool:
    """Whether a sentence cut before words[cut] ends a whole thought: no fault of _CUT_FAULTS."""
    kept, rest = " ".join(words[:cut]), words[cut:]
    return not any(fault(kept, rest) for fault in _CUT_FAULTS)


def _ends_badly(kept: str, rest: list[str]) -> bool:
    """On a word no sentence ends on ("… and show", "… given by"), or before a verb ("the result" | "may be …")."""
    return last_word(kept) in NO_CUT_ENDS or last_word(rest[0]) in _VERB_FIRST


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


# A verb whose object is followed by the infinitive it controls ("enables machines" | "to acquire …"), and a
# copula before its complement, with only adverbs between ("the representation is in fact," | "contact itself").
_CONTROLS = re.compile(
    r"\b(?:enabl|allow|help|let|caus|forc|requir|teach|encourag|permit|empower|ask|want|need|prompt|guid|"
    r"instruct|invit|urg|expect|tell)(?:e|es|s|ed|ing)?\b(?:\s+[\w'-]+){1,4},?$",
    re.I,
)
_BARE_COPULA = re.compile(
    r"\b(?:is|are|was|were|be|been|being|becomes?|remains?|seems?)"
    r"(?:\s+(?:in fact|actually|also|then|thus|therefore|not|indeed|essentially|simply|often|always|now|still))*,?$",
    re.I,
)


def _complement_cut_off(kept: str, rest: list[str]) -> bool:
    """With a verb's complement in the rest: the infinitive a verb like "enable" controls ("a framework that enables
    machines" | "to acquire …"), what a copula says ("the representation is in fact," | "contact itself"), or a
    participle's agent ("formations at which tools grasped" | "by the robot should meet …")."""
    first = rest[0].lower()
    if first == "by" and not kept.endswith((",", ";", ":")) and last_word(kept).endswith("ed"):
        return True
    return (first == "to" and bool(_CONTROLS.search(kept))) or bool(_BARE_COPULA.search(kept))


_CUT_FAULTS = (
    _ends_badly,
    _complement_cut_off,
    _inside_aside,
    _inside_pair,
    _inside_list,
    _verb_cut_off,
    _main_clause_cut_off,
    _reported_without_verb,
)
