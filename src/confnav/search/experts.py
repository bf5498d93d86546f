"""Experts on a topic: the people whose papers best match it, each scored by a weighted sum of their evidence.

The POOL papers most relevant to the topic (hybrid search) each get their share of the best paper's score. The
candidates are the authors of pooled papers and of papers with an author keyword holding every word of the topic;
their evidence: `relevance`, the sum of their best TOP_K shares, the i-th weighted DECAY**i (a body of close work
outranks one very close paper); `papers`, how many of their papers match either way, log-scaled; `keyword`, how
many carry such an author keyword, log-scaled. The score is the sum of WEIGHTS times the evidence, the weights
fitted by `benchmarks/experts_eval.py` on half of its people. People are told apart by profile ids as on author
pages.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from confnav.errors import ConfnavError
from confnav.institutions import institution_names
from confnav.model import Author, Outcome, Paper, name_key
from confnav.people import PeopleIndex
from confnav.search.engine import Searcher
from confnav.search.text import terms
from confnav.store import PaperFilter

POOL = 200  # the papers most relevant to the topic that count; beyond them a paper is barely on topic
TOP_K = 5  # an author's best papers that count towards their relevance
DECAY = 0.8  # weight of the i-th best of them: DECAY ** i
MIN_SHARE = 0.2  # a paper below this share of the best paper's score counts for nothing
PLACES_SHOWN = 3
EVIDENCE = ("relevance", "papers", "keyword")
# Fitted on the fit half of the evaluation's people with the default semantic model (TF-IDF's fit: 0.75, 0, 3.19).
WEIGHTS = {"relevance": 0.97, "papers": 0.0, "keyword": 3.0}


@dataclass
class Expert:
    """One person: the key telling them apart, the name shown, the profile id if known, their score and its
    evidence, their papers matching the topic (best first) with the shares that counted (0 for a paper matched
    by its author keywords alone), and in the searched scope their paper and accepted counts and most frequent
    affiliations."""

    key: str
    name: str
    profile: str | None
    score: float = 0.0
    evidence: dict[str, float] = field(default_factory=dict)
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
    venue = _scope(searcher, topic, venue)
    found, people = _candidates(searcher, topic, venue)
    for expert in found.experts:
        expert.score = sum(WEIGHTS[name] * value for name, value in expert.evidence.items())
    found.experts = sorted(found.experts, key=lambda e: (-e.score, e.key))[:limit]
    _describe(searcher, venue, {e.key: e for e in found.experts}, people)
    return found


def candidates(searcher: Searcher, topic: str, venue: str | None = None) -> tuple[Experts, PeopleIndex]:
    """Every author of a paper on `topic` with their evidence (unscored, unordered), and the people index: what
    find_experts weighs, and what the evaluation fits the weights on. Only the papers on the topic are read:
    those the search pools and those the keyword table finds, never every paper of the scope."""
    return _candidates(searcher, topic, _scope(searcher, topic, venue))


def _scope(searcher: Searcher, topic: str, venue: str | None) -> str | None:
    """The venue's id, after checking the question: an empty topic first, then an unknown venue, each named."""
    if not topic.strip():
        raise ConfnavError("experts needs a topic, e.g. confnav experts 'graph neural networks'")
    return searcher.store.get_venue(venue).id if venue else None  # unknown: NotFoundError naming it


def _candidates(searcher: Searcher, topic: str, venue: str | None) -> tuple[Experts, PeopleIndex]:
    store = searcher.store
    where = PaperFilter(venue=venue) if venue else PaperFilter()
    results = searcher.search(topic, where=where, limit=POOL, sort="match")
    hits = results.hits
    found = Experts(topic, [], results.mode, results.notices)
    if not hits or hits[0].score <= 0:
        return found, PeopleIndex()
    best = hits[0].score
    shares = {(h.paper.venue, h.paper.id): h.score / best for h in hits if h.score / best >= MIN_SHARE}
    wanted = set(terms(topic))
    keywords = [k for k in store.keywords_in(venue) if wanted <= set(terms(k))] if wanted else []
    tagged_papers = store.papers_by_pk(sorted(store.pks_with(keywords=keywords, venue=venue))).values()
    tagged = {(p.venue, p.id) for p in tagged_papers}
    on_topic = {(h.paper.venue, h.paper.id): h.paper for h in hits if (h.paper.venue, h.paper.id) in shares}
    on_topic.update({(p.venue, p.id): p for p in tagged_papers})
    people = PeopleIndex(profiles=store.author_profiles(_names(on_topic.values())))
    rows: dict[str, Expert] = {}
    for paper in sorted(on_topic.values(), key=lambda p: (-shares.get((p.venue, p.id), 0.0), p.venue, p.id)):
        for key, author in _people(paper, people).items():
            profile = key.split(":", 1)[1] if key.startswith("profile:") else None
            expert = rows.setdefault(key, Expert(key, author.name, profile))
            expert.matching.append((paper, shares.get((paper.venue, paper.id), 0.0)))
    for expert in rows.values():
        pooled = [s for _, s in expert.matching if s > 0]
        expert.evidence = {
            "relevance": sum(s * DECAY**i for i, s in enumerate(pooled[:TOP_K])),
            "papers": math.log1p(len(expert.matching)),
            "keyword": math.log1p(sum((p.venue, p.id) in tagged for p, _ in expert.matching)),
        }
    found.experts = list(rows.values())
    return found, people


def _names(papers: Iterable[Paper]) -> set[str]:
    return {name_key(author.name) for paper in papers for author in paper.authors}


def _people(paper: Paper, people: PeopleIndex) -> dict[str, Author]:
    """A paper's people, each once (by key) with the first author entry naming them."""
    found: dict[str, Author] = {}
    for author in paper.authors:
        found.setdefault(people.key(author), author)
    return found


def _describe(searcher: Searcher, venue: str | None, experts: dict[str, Expert], people: PeopleIndex) -> None:
    """Each expert's paper and accepted counts and most frequent affiliations in the searched scope (`venue`, or
    the whole store), over the papers of the names they go by (read by the author table's index)."""
    store = searcher.store
    names = {key.split(":", 1)[1] for key in experts if key.startswith("name:")}
    for carried in store.profile_names([e.profile for e in experts.values() if e.profile]).values():
        names |= carried  # a profile's every name: a name-only author resolves to it by name
    theirs = store.papers_by_pk(sorted(store.pks_with(name_keys=names, venue=venue))).values()
    people.profiles.update(store.author_profiles(names))
    places: dict[str, Counter[str]] = defaultdict(Counter)
    for paper in theirs:
        for key in dict.fromkeys(people.key(a) for a in paper.authors):
            if (expert := experts.get(key)) is None:
                continue
            expert.papers += 1
            expert.accepted += paper.decision.outcome is Outcome.ACCEPTED
            for author in paper.authors:
                place = author.place  # never a placeholder such as "Unknown Institution"
                if place and people.key(author) == key:  # named as `stats` and `ask` name them; no department
                    places[key].update(institution_names(place))
    for key, expert in experts.items():
        counted = sorted(places[key].items(), key=lambda item: (-item[1], item[0]))  # ties alphabetical
        expert.institutions = [place for place, _ in counted[:PLACES_SHOWN]]
