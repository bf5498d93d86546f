"""Reading a question: the venues it names (known to the store or not), whether it asks for a count and of
which decision, the topic left once those words are taken out, and whether it is broad."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from confnav.model import Venue, find_venue
from confnav.search.text import terms

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
}
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
    about, whether it asks for a count, its topic words and their index terms."""

    text: str
    venues: list[str] = field(default_factory=list)
    unknown_venues: list[str] = field(default_factory=list)
    decision: str | None = None
    counting: bool = False
    rated: bool = False  # the papers asked for are the best rated
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


def read_question(text: str, known: Sequence[Venue], decisions: Sequence[str] = ()) -> Question:
    """The question's parts; `known` are the store's venues, `decisions` the names of the decisions they gave."""
    question = Question(" ".join(text.split()))
    rest = question.text
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
    said = [w.lower() for w in words if w.lower() in vocabulary]  # "accepted as orals": the narrower one
    if said:
        word = next((w for w in said if vocabulary[w] != "accepted"), said[0])
        question.decision = vocabulary[word]
    question.topic = _topic(words, set(said))
    question.topic_terms = terms(question.topic)
    return question


def _topic(words: list[str], decided: set[str]) -> str:
    """The longest run of the question's own words between the words of the question itself (its venues were
    taken out before), edge words trimmed: "papers on adversarial examples were accepted at V compared to W" is
    about "adversarial examples"."""
    runs: list[list[str]] = [[]]
    for word in words:
        if word.lower() in QUESTION_WORDS or word.lower() in decided:
            runs.append([])
        elif re.match(r"[\w\-]", word):  # punctuation is no word, nor a break ("K1, K2 and K3")
            runs[-1].append(word)
    trimmed = []
    for run in runs:
        while run and run[0].lower() in EDGE_WORDS:
            run.pop(0)
        while run and run[-1].lower() in EDGE_WORDS:
            run.pop()
        trimmed.append(run)
    return " ".join(sorted(trimmed, key=len, reverse=True)[0])  # the first of the longest
