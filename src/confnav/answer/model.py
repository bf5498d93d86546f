"""What `ask` answers: paragraphs of sentences, each citing the retrieved papers it rests on, and the numbers it
shows, each counted from the store."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from confnav.model import Paper
from confnav.reports.model import decision_words
from confnav.store import PaperFilter
from confnav.summarize.checked import Sentence

DOES_NOT_SAY = "The store does not say"
# How a sentence ends on the papers of a decision ("12 of them were accepted"); other kinds "have the decision K".
DECIDED_WORDS = {
    "accepted": "were accepted",
    "not-accepted": "were not accepted",
    "reject": "were rejected",
    "desk-reject": "were desk-rejected",
    "withdrawn": "were withdrawn",
    "reviewed": "entered review",
}


def decided(decision: str | None, n: int = 2) -> str:
    """The decision as the end of a sentence about `n` papers: "were not accepted", "was accepted" (one), "have
    the decision oral"."""
    verb = DECIDED_WORDS.get(PaperFilter(decision=decision).decision_key(), f"have the decision {decision}")
    return re.sub(r"^(were|have)\b", lambda m: {"were": "was", "have": "has"}[m.group(1)], verb) if n == 1 else verb


__all__ = ["DOES_NOT_SAY", "Answer", "Count", "Part", "Retrieved", "Sentence"]


@dataclass
class Part:
    """A paragraph: an optional heading (a theme or a shared phrase) and its sentences."""

    heading: str | None
    sentences: list[Sentence]

    def to_dict(self) -> dict[str, object]:
        return {"heading": self.heading, "sentences": [s.to_dict() for s in self.sentences]}


@dataclass
class Retrieved:
    """A paper retrieved for the question and relevant enough to cite: its search score, the share of the
    question's weight its text covers, its one-line statement (author TL;DR or an abstract sentence), its group,
    and for a profile the paper of the profile it is closest to."""

    paper: Paper
    score: float
    relevance: float
    statement: str | None
    statement_source: str
    group: str
    close_to: str | None = None
    rated: bool = False  # asked for as a best-rated paper: its decision and reviewers' mean are said beside it

    def sentence(self) -> Sentence:
        """The paper's extractive sentence: its title (with its decision and mean rating when `rated`) and its own
        statement, citing it."""
        title = self.paper.title.rstrip(". ")
        if self.rated:
            mean = self.paper.rating_mean
            rated = "no ratings" if mean is None else f"mean rating {mean:.2f}"
            title += f" ({decision_words(self.paper.decision)}; {rated})"
        return Sentence(f"{title}: {self.statement}" if self.statement else f"{title}.", [self.paper.id], "paper")

    def to_dict(self) -> dict[str, object]:
        p = self.paper
        return {
            "id": p.id,
            "venue": p.venue,
            "title": p.title,
            "decision": p.decision.name,
            "score": round(self.score, 6),
            "relevance": round(self.relevance, 4),
            "statement": self.statement,
            "statement_source": self.statement_source,
            "group": self.group,
            "close_to": self.close_to,
        }


@dataclass
class Count:
    """A counting fact: how many papers of `venue` (with `decision`, if any) contain `phrase` (None: all papers);
    for a person, only the papers of `author` (the name asked) that are the person `person` (a PeopleIndex key);
    for an institution, only the papers listing an affiliation of `institution` (its key); with `award`, only the
    papers the venue's data names an award for; a `scope` count says how many papers the answer's filter keeps."""

    venue: str
    phrase: str | None
    decision: str | None
    value: int
    author: str | None = None
    person: str | None = None
    institution: str | None = None
    award: bool = False  # only the papers the venue's data names an award for
    scope: bool = False  # the venue's papers, and those the answer's filter keeps: said of the filter (scope.py)

    def to_dict(self) -> dict[str, object]:
        counted: dict[str, object] = {
            "venue": self.venue,
            "phrase": self.phrase,
            "decision": self.decision,
            "value": self.value,
        }
        counted |= {"author": self.author, "person": self.person} if self.author else {}
        counted |= {"institution": self.institution} if self.institution else {}
        return counted | ({"award": True} if self.award else {}) | ({"scope": True} if self.scope else {})


@dataclass
class Answer:
    """The answer to a question: its paragraphs, the papers they may cite, the counts they show; `unanswered`
    holds why the store does not say (then there are no paragraphs). With an LLM, how many of its sentences
    were generated, dropped and replaced by their extractive form; the profile its papers are ordered for."""

    question: str
    venues: list[str]
    parts: list[Part] = field(default_factory=list)
    papers: list[Retrieved] = field(default_factory=list)
    counts: list[Count] = field(default_factory=list)
    unanswered: str | None = None
    mode: str = "extractive"
    generated: int = 0
    dropped: int = 0
    replaced: int = 0
    notices: list[str] = field(default_factory=list)
    profile: str | None = None
    facts: dict[str, str] = field(default_factory=dict)  # "VENUE NAME": a venue's fact shown (its acceptance rate)

    @property
    def sentences(self) -> list[Sentence]:
        return [s for part in self.parts for s in part.sentences]

    def to_dict(self) -> dict[str, object]:
        return {
            "question": self.question,
            "venues": self.venues,
            "answered": self.unanswered is None,
            "unanswered": self.unanswered,
            "mode": self.mode,
            "parts": [p.to_dict() for p in self.parts],
            "papers": [r.to_dict() for r in self.papers],
            "counts": [c.to_dict() for c in self.counts],
            "generated": self.generated,
            "dropped": self.dropped,
            "replaced": self.replaced,
            "notices": self.notices,
            "profile": self.profile,
            "facts": self.facts,
        }
