"""Reading a question: the venues it names (known to the store or not), whether it asks for a count and of
which decision or stage of a venue's life cycle (submitted, reviewed, accepted, …, negated or not), the topic
left once those words are taken out, and whether it is broad."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from confnav.model import Venue, find_venue
from confnav.search.text import stem, terms

# A conference and a year: "ICLR 2021", "NeurIPS'19", "cvpr-2023". Only words with two capitals or more count as a
# conference when the store does not know it ("in 2021" is no venue).
_MENTION = re.compile(r"\b([A-Za-z][A-Za-z&]{1,20})[\s\-']{0,2}((?:19|20)\d{2}|'?\d{2})\b")
_COUNT_CUE = re.compile(r"\b(how many|number of|count of|how much)\b", re.I)
# Decision words as the store's filter reads them (PaperFilter.decision): an outcome or a kind of decision; each
# venue's own decision names (Findings, Workshop, …) are added from the store.
DECISION_WORDS = {
    "accepted": "accepted",
    "rejected": "reject",  # the kind: withdrawn and desk-rejected papers were not rejected
    "withdrawn": "withdrawn",
    "oral": "oral",
    "orals": "oral",
    "spotlight": "spotlight",
    "spotlights": "spotlight",
    "poster": "poster",
    "posters": "poster",
    "pending": "pending",
    "rejects": "reject",
    "talk": "oral",  # ICLR 2020's name for its orals
    "talks": "oral",
    "desk-reject": "desk-reject",
    "not-accepted": "not-accepted",
}
SUBMITTED = "submitted"  # every paper of the venue: its submissions, when its data lists rejections
REVIEWED = "reviewed"  # the papers that entered review (the store's filter: any known decision but a desk reject)
# A venue's life cycle by the stem of its verbs and their nouns ("submit", "submitted", "submissions", "accepts",
# "acceptance", "withdrew", …): what papers a question asks about when it uses them. Presented and published
# papers are the accepted ones, but papers that present or publish something are papers about it.
STAGES = {
    "submit": SUBMITTED,
    "submiss": SUBMITTED,
    "review": REVIEWED,
    "accept": "accepted",
    "present": "accepted",
    "publish": "accepted",
    "reject": "reject",
    "withdraw": "withdrawn",
}
IRREGULAR = {"withdrawn": "withdraw", "withdrew": "withdraw"}
PARTICIPLE_ONLY = frozenset({"present", "publish"})
_NOT_A_STAGE = re.compile(r"(?:ers?|ors?|abl[ey]|abilit(?:y|ies)|ives?|ively)$")  # reviewers, acceptable
_NEGATED_PREFIX = re.compile(r"^(?:non-?|un)(?=\w{4})")  # "unaccepted", "non-accepted"
# The opposite of a decision, where the store's filter has one; a negated stage without one is refused.
OPPOSITE = {"accepted": "not-accepted", "not-accepted": "accepted"}
NEGATIONS = frozenset({"not", "never", "no"})
# Words between a negation and its verb: "were not ever accepted", "did not get in".
_BETWEEN = frozenset(
    "be been being was were is are get got gotten ever even yet finally eventually actually officially".split()  # noqa: SIM905
)
_CONTRACTED = re.compile(r"\b(\w+?)(n?)['’]t\b", re.I)  # "weren't", "didn't", "can't", "won't"
# Idioms of being accepted, read as the verb: "didn't get in", "made the cut".
_IDIOMS = re.compile(
    r"\b(?:get|gets|got|gotten|getting)\s+in\b|\b(?:make|makes|made)\s+(?:the\s+cut|it\s+in(?:to)?)\b", re.I
)
# Words of the question itself rather than of its topic, left out of the topic and of relevance.
QUESTION_WORDS = frozenset(
    """
    how many much number count which what who whom whose why where when papers paper submissions submission work
    receive received receives get gets got
    works articles article there exist exists did does do conference venue year accepted rejected withdrawn oral
    orals spotlight spotlights poster posters pending list give tell find show me please study studies studied
    address addresses tackle tackles differ different difference differences compare contribute contributions
    main key recent best latest known researchers people use uses using used apply applies applying propose
    proposes proposing mention mentions mentioning theme themes topic topics trend trends overview landscape area
    areas direction directions field fields have has had publish publishes published write writes wrote written
    author authors authored coauthored co-authored most prolific top
    present presents presented presenting given appear appeared appears compared comparison versus vs change
    changed changes changing invited total overall altogether
    """.split()  # noqa: SIM905
)
EDGE_WORDS = frozenset(
    "on about in at for of with to the a an that are were is and or from by as".split()  # noqa: SIM905
)
# Function words and light verbs: trimmed from a topic's edges like EDGE_WORDS, so that a run of them alone is no
# topic ("not", "make").
FUNCTION_WORDS = EDGE_WORDS | frozenset(
    """
    not never no be been being was will would can could should may might must shall it its they them their this
    these those there here so than then into onto yet ever even also just still only ones one any all some
    make makes made making take takes took taken send sends sent
    """.split()  # noqa: SIM905
)
# "the best-rated papers on X", "with the highest ratings": the papers asked for in their reviewers' order.
_RATED = re.compile(
    r"\b(?:best|highest|top)[\s\-]+(?:rated|scored|reviewed)\b|\b(?:highest|best|top)\s+(?:ratings?|scores?)\b"
    r"|\brated\s+(?:highest|best)\b",
    re.I,
)
BROAD_CUES = re.compile(r"\b(themes?|topics?|trends?|overview|landscape|areas?|directions?)\b", re.I)
BROAD_TERMS = 1  # a question with at most this many topic terms is broad: its themes answer it too


@dataclass
class Question:
    """A question read: its text, venues it names that the store holds and that it does not, the decision it asks
    about, whether it asks for a count, about the submissions, its topic words and their index terms; `refused`
    names a negated stage the store cannot count ("not rejected")."""

    text: str
    venues: list[str] = field(default_factory=list)
    unknown_venues: list[str] = field(default_factory=list)
    decision: str | None = None
    counting: bool = False
    rated: bool = False  # the papers asked for are the best rated
    submitted: bool = False  # asks about the venue's submissions: all its papers, if its data lists rejections
    refused: str | None = None
    topic: str = ""
    topic_terms: list[str] = field(default_factory=list)

    @property
    def broad(self) -> bool:
        return bool(BROAD_CUES.search(self.text)) or len(set(self.topic_terms)) <= BROAD_TERMS


def _mentioned(word: str, year: str, known: Sequence[Venue]) -> tuple[str | None, bool]:
    """The store's venue a mention names, or None; and whether the mention looks like a venue at all."""
    digits = year.lstrip("'")
    full = int(digits) if len(digits) == 4 else 2000 + int(digits)
    if found := find_venue(f"{word} {full}", known):
        return found.id, True
    try:
        venue = Venue.parse(f"{word} {full}")
    except ValueError:
        return None, False
    series = {v.conference for v in known}
    return None, venue.conference in series or sum(c.isupper() for c in word) >= 2


_DESK_REJECT = re.compile(r"\bdesk[\s\-]+reject(?:ed|s|ions?)?\b", re.I)


def _expanded(text: str) -> str:
    """The text with negations spelt out ("weren't": "were not") and idioms of acceptance read as the verb."""

    def spelt(match: re.Match[str]) -> str:
        word, n = match.group(1), match.group(2)
        if not n:  # no negation ("'t" alone)
            return match.group(0)
        return {"ca": "can", "wo": "will", "sha": "shall"}.get(word.lower(), word) + " not"  # "can't", "won't"

    return _IDIOMS.sub(" accepted ", _CONTRACTED.sub(spelt, text))


def stage(word: str) -> tuple[str, bool] | None:
    """The life-cycle stage a word names and whether it is negated by a prefix ("unaccepted"), by its stem, so
    that every form of the verb and its noun is read alike; None for other words ("reviewer", "acceptable")."""
    low = word.lower()
    bare = _NEGATED_PREFIX.sub("", low)
    for candidate, negated in ((low, False), (bare, True)):
        if _NOT_A_STAGE.search(candidate):
            continue
        root = IRREGULAR.get(candidate) or stem(candidate)
        if root in PARTICIPLE_ONLY and not _verb_form(candidate):
            continue
        found = STAGES.get(root)
        if found and (not negated or candidate != low):
            return found, negated
    return None


def _verb_form(word: str) -> bool:
    """A participle ("submitted", "withdrawn"): always the stage, never a word of a topic."""
    return word.lower().endswith("ed") or word.lower() in IRREGULAR


def read_question(text: str, known: Sequence[Venue], decisions: Sequence[str] = ()) -> Question:
    """The question's parts; `known` are the store's venues, `decisions` the names of the decisions they gave."""
    question = Question(" ".join(text.split()))
    rest = _expanded(question.text)
    for match in list(_MENTION.finditer(rest)):
        venue, looks = _mentioned(match.group(1), match.group(2), known)
        if venue:
            question.venues.append(venue)
        elif looks:
            question.unknown_venues.append(match.group(0).strip())
        if venue or looks:
            rest = rest.replace(match.group(0), " ")
    series = {v.conference: [k.id for k in known if k.conference == v.conference] for v in known}
    for match in list(re.finditer(r"\b[A-Za-z][A-Za-z&]{1,20}\b", rest)):  # a series without its year: all of it
        if match.group(0).lower() in series and sum(c.isupper() for c in match.group(0)) >= 2:
            question.venues += series[match.group(0).lower()]
            rest = rest.replace(match.group(0), " ", 1)
    question.venues = list(dict.fromkeys(question.venues))
    question.counting = bool(_COUNT_CUE.search(rest))
    question.rated = bool(_RATED.search(rest))
    rest = _RATED.sub(" ", rest)
    rest = _DESK_REJECT.sub("desk-reject", rest)  # "desk rejected", "desk-rejects": one decision
    words = re.findall(r"[\w\-]+|[^\w\s]", rest)
    named = {n.lower(): n.lower() for n in decisions if n.strip() and " " not in n.strip()}
    vocabulary = {**named, **{f"{n}s": n for n in named}, **DECISION_WORDS}
    said = _stages(words, vocabulary)
    understood = {i for i, _, _ in said} | _parts_of(words, [i for i, _, _ in said])
    if said:  # of several, the narrowest: "submitted papers that were accepted as orals": orals
        _, word, meaning = max(said, key=lambda s: _NARROW.get(s[2], len(_NARROW)))
        if meaning.startswith("not "):
            meaning = meaning.removeprefix("not ")
            if meaning not in OPPOSITE:
                question.refused = word
            meaning = OPPOSITE.get(meaning, meaning)
        question.submitted = meaning == SUBMITTED or any(m == SUBMITTED for _, _, m in said)
        question.decision = None if meaning == SUBMITTED else meaning
    question.topic = _topic(words, understood)
    question.topic_terms = terms(question.topic)
    return question


_NARROW = {SUBMITTED: 0, f"not {SUBMITTED}": 0, REVIEWED: 1, "accepted": 2}  # others: narrower still


def _stages(words: list[str], vocabulary: dict[str, str]) -> list[tuple[int, str, str]]:
    """The words that name a decision or a stage of the venue's life cycle: their place, the word and its meaning
    ("not accepted" when negated). A noun or a verb's bare form beside a word of the topic stays in the topic
    ("peer review", "presentation attacks"); a participle never does."""

    def topical(j: int) -> bool:
        if not 0 <= j < len(words) or not re.match(r"[\w\-]", words[j]):
            return False
        low = words[j].lower()
        return not (low in QUESTION_WORDS or low in FUNCTION_WORDS or low in vocabulary or stage(low))

    def at(j: int) -> str:
        return words[j].lower() if 0 <= j < len(words) else ""

    def linked(j: int, step: int) -> bool:
        """A topic word next to j, or past a word that links them (articles between the stage word and "of"
        skipped); a part of a whole before "of" ("share of submissions") links nothing: it counts the stage."""
        near = j + step
        if topical(near):
            return True
        while at(near) in _ARTICLES:
            near += step
        if at(near) not in _LINKS[step]:
            return False
        link, near = at(near), near + step
        while step > 0 and at(near) in _ARTICLES:
            near += step
        return topical(near) and not (link == "of" and at(near) in _PART_OF)

    found = []
    for i, word in enumerate(words):
        low, staged = word.lower(), stage(word)
        if staged and not _verb_form(word) and (linked(i, -1) or linked(i, 1)):
            continue  # "peer review", "reject option", "learning to reject", "withdrawal of consent": the topic
        if (
            staged
            and low not in IRREGULAR
            and stem(low) in PARTICIPLE_ONLY
            and topical(i + 1)
            and not _passive(words, i)
        ):
            continue  # "papers that presented new benchmarks": an active verb and its object, a topic
        if low in vocabulary:
            meaning, negated = vocabulary[low], False
        elif staged:
            meaning, negated = staged
        else:
            continue
        before = [w.lower() for w in words[max(0, i - 4) : i]]
        while before and before[-1] in _BETWEEN:
            before.pop()
        negated ^= bool(before) and before[-1] in NEGATIONS
        found.append((i, word, f"not {meaning}" if negated else meaning))
    return found


# Words that link a stage word to a topic word beyond them: before it, "to" ("learning to reject"), a
# coordination ("defer and reject") or "of" ("a survey of reviews"); after it, "of" ("withdrawal of consent").
_LINKS = {-1: frozenset({"to", "and", "or", "of"}), 1: frozenset({"of"})}
_ARTICLES = frozenset("the a an these those this".split())  # noqa: SIM905
# Parts of a whole: before "of", the stage word names the whole they count ("the share of submissions", "half of
# the reviewed papers", "out of the submissions"), not a topic.
_PART_OF = frozenset(
    """
    share shares fraction fractions proportion proportions percentage percentages percent ratio ratios rate rates
    majority minority half third quarter part parts portion rest remainder bulk out each none any many most all
    some number numbers count total
    """.split()  # noqa: SIM905
)
_BE = frozenset("be been being was were is are".split())  # noqa: SIM905


def _parts_of(words: list[str], said: list[int]) -> set[int]:
    """The places of the parts of a whole that a stage word names ("share" in "the share of submissions"): words
    of the question, not of its topic."""
    found = set()
    for i in said:
        j = i - 1
        while j >= 0 and words[j].lower() in _ARTICLES:
            j -= 1
        if j >= 1 and words[j].lower() == "of" and words[j - 1].lower() in _PART_OF:
            found.add(j - 1)
    return found


def _passive(words: list[str], i: int) -> bool:
    """Whether the participle at `i` follows a form of "be" ("were presented"): the papers' stage, not a verb
    of what they do."""
    return i > 0 and words[i - 1].lower() in _BE


def _topic(words: list[str], understood: set[int]) -> str:
    """The longest run of the question's own words between the words of the question itself and those it was
    understood to ask (its venues were taken out before), function words trimmed: "papers on adversarial examples
    were accepted at V compared to W" is about "adversarial examples"; "were not accepted" is about nothing."""
    runs: list[list[str]] = [[]]
    for i, word in enumerate(words):
        if word.lower() in QUESTION_WORDS or i in understood:
            runs.append([])
        elif re.match(r"[\w\-]", word):  # punctuation is no word, nor a break ("K1, K2 and K3")
            runs[-1].append(word)
    trimmed = []
    for run in runs:
        while run and run[0].lower() in FUNCTION_WORDS:
            run.pop(0)
        while run and run[-1].lower() in FUNCTION_WORDS:
            run.pop()
        trimmed.append(run)
    return " ".join(sorted(trimmed, key=len, reverse=True)[0])  # the first of the longest
