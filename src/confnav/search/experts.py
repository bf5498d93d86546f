"""Experts on a topic: the people whose papers best match it, from the hybrid search's relevance.

Each paper of the POOL most relevant to the topic adds to its authors' scores; an author's score is the sum of
their best TOP_K paper scores (each relative to the best paper's), the i-th best weighted DECAY**i, so a body of
close work outranks one very close paper. People are told apart by profile ids as on author pages.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from confnav.errors import ConfnavError
from confnav.model import Outcome, Paper
from confnav.people import PeopleIndex
from confnav.search.engine import Searcher
from confnav.store import PaperFilter

POOL = 200  # the papers most relevant to the topic that count; beyond them a paper is barely on topic
TOP_K = 5  # an author's best papers that count
DECAY = 0.8  # weight of the i-th best of them: DECAY ** i
MIN_SHARE = 0.2  # a paper below this share of the best paper's score counts for nothing
PLACES_SHOWN = 3


@dataclass
class Expert:
    """One person: the key telling them apart, the name shown, the profile id if known, their score, their papers
    matching the topic (best first) with the scores that counted, and in the searched scope their paper and
    accepted counts and most frequent affiliations."""

    key: str
    name: str
    profile: str | None
    score: float = 0.0
    matching: list[tuple[Paper, float]] = field(default_factory=list)
    papers: int = 0
    accepted: int = 0
    institutions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "profile": self.profile,
            "score": round(self.score, 6),
            "papers": self.papers,
            "accepted": self.accepted,
            "institutions": self.institutions,
            "matching": [
                {"id": p.id, "venue": p.venue, "title": p.title, "decision": p.decision.name, "score": round(s, 6)}
                for p, s in self.matching
            ],
        }


@dataclass
class Experts:
    """The people found, best first, with the search's mode and notices (e.g. no semantic index yet)."""

    topic: str
    experts: list[Expert]
    mode: str
    notices: list[str]

    def to_dict(self) -> dict[str, object]:
        return {
            "topic": self.topic,
            "mode": self.mode,
            "notices": self.notices,
            "experts": [e.to_dict() for e in self.experts],
        }


def find_experts(searcher: Searcher, topic: str, venue: str | None = None, limit: int = 10) -> Experts:
    """The `limit` people whose papers (of `venue`, or the whole store) best match `topic`, best first."""
    if not topic.strip():
        raise ConfnavError("experts needs a topic, e.g. confnav experts 'graph neural networks'")
    if venue:
        venue = searcher.store.get_venue(venue).id  # an unknown venue: NotFoundError naming it
    where = PaperFilter(venue=venue) if venue else PaperFilter()
    scope = searcher.store.papers(where)
    results = searcher.search(topic, where=where, limit=POOL, sort="match")
    hits = results.hits
    if not hits or hits[0].score <= 0:
        return Experts(topic, [], results.mode, results.notices)
    best = hits[0].score
    people = PeopleIndex(searcher.store.iter_papers())  # profiles from every venue resolve name-only authors
    found: dict[str, Expert] = {}
    for hit in hits:
        share = hit.score / best
        if share < MIN_SHARE:
            break
        for key in dict.fromkeys(people.key(a) for a in hit.paper.authors):
            author = next(a for a in hit.paper.authors if people.key(a) == key)
            profile = key.split(":", 1)[1] if key.startswith("profile:") else None
            found.setdefault(key, Expert(key, author.name, profile)).matching.append((hit.paper, share))
    for expert in found.values():
        expert.score = sum(s * DECAY**i for i, (_, s) in enumerate(expert.matching[:TOP_K]))
    ranked = sorted(found.values(), key=lambda e: (-e.score, e.key))[:limit]
    _describe({e.key: e for e in ranked}, people, scope)
    return Experts(topic, ranked, results.mode, results.notices)


def _describe(experts: dict[str, Expert], people: PeopleIndex, scope: list[Paper]) -> None:
    """Each expert's paper and accepted counts and most frequent affiliations in the searched scope."""
    places: dict[str, Counter[str]] = defaultdict(Counter)
    for paper in scope:
        for key in dict.fromkeys(people.key(a) for a in paper.authors):
            if (expert := experts.get(key)) is None:
                continue
            expert.papers += 1
            expert.accepted += paper.decision.outcome is Outcome.ACCEPTED
            for author in paper.authors:
                place = (author.institution or author.affiliation or "").strip()
                if place and people.key(author) == key:
                    places[key][place] += 1
    for key, expert in experts.items():
        expert.institutions = [place for place, _ in places[key].most_common(PLACES_SHOWN)]
