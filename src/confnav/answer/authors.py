"""People in a question: an author's name the store holds is read as that person (namesakes told apart by their
profile ids, as the author pages do), not as words of a topic; their papers are counted and cited. "Who has the
most papers" is answered from the authors table of the stats report."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from confnav.answer.retrieve import per_state
from confnav.keys import name_key
from confnav.model import Paper
from confnav.people import PeopleIndex, Person
from confnav.reports.stats import AuthorRow, author_rows, counted_papers
from confnav.search.query import parse_query
from confnav.store import PaperFilter
from confnav.store.protocols import PaperReader

_WORD = re.compile(r"[^\W\d_][\w.\-]*(?:'[^\W\d_]+)?")
SPAN = (4, 3, 2)  # words a name spans, longest first (one word alone is too often a topic word)
# "who has the most accepted papers", "which authors have the most papers", "the most prolific authors"
MOST = re.compile(
    r"\b(?:who|whom|which (?:authors?|researchers?|people|persons?))\b.*\bmost\b|\bmost prolific\b|\btop authors?\b",
    re.I,
)


@dataclass
class Named:
    """A name found in a question: the words as written and where they stand."""

    name: str
    start: int
    end: int


def author_names(store: PaperReader) -> frozenset[str]:
    """Every author's normalised name in the store, read once per store state."""
    return per_state(store, "author names", lambda: frozenset(k for _, k in store.author_keys() if k))


def names_in(text: str, known: frozenset[str]) -> list[Named]:
    """The spans of two to four words of `text` that are an author's name in the store (a possessive "'s" left
    out), longest first where they overlap."""
    words = list(_WORD.finditer(text))
    found: list[Named] = []
    taken: set[int] = set()
    for size in SPAN:
        for i in range(len(words) - size + 1):
            if taken & set(range(i, i + size)):
                continue
            start, end = words[i].start(), words[i + size - 1].end()
            name = re.sub(r"'s$", "", text[start:end])
            if " " in name and name_key(name) in known:
                found.append(Named(name, start, end))
                taken |= set(range(i, i + size))
    return sorted(found, key=lambda n: n.start)


def without(text: str, named: Sequence[Named]) -> str:
    """The text with the names found in it left out (a space each), so that they are no words of its topic."""
    for found in reversed(named):
        text = text[: found.start] + " " + text[found.end :]
    return text


def people(store: PaperReader, name: str, venues: Iterable[str]) -> list[Person]:
    """The people of this name with papers in `venues` (all the store's when empty), each with those papers;
    namesakes with different profile ids are different people."""
    wanted = set(venues)
    papers = [p for p in store.papers(PaperFilter(author=name)) if not wanted or p.venue in wanted]
    return PeopleIndex(profiles=store.author_profiles([name_key(name)])).people_named(name, papers)


def papers_of(store: PaperReader, venue: str, name: str, person: str) -> list[Paper]:
    """The papers of `venue` by the person `person` (a PeopleIndex key) of this name: those with an author of this
    name, or of any name the person's profile id is given to, whose key is `person` (as `author_rows` counts)."""
    keys = {name_key(name)}
    if person.startswith("profile:"):
        profile = person.split(":", 1)[1]
        keys |= store.profile_names([profile]).get(profile, set())
    index = PeopleIndex(profiles=store.author_profiles(keys))
    found: dict[str, Paper] = {}
    for key in sorted(keys):
        for paper in store.papers(PaperFilter(venue=venue, author=key)):
            if any(name_key(a.name) in keys and index.key(a) == person for a in paper.authors):
                found.setdefault(paper.id, paper)
    return list(found.values())


def count_of(papers: list[Paper], phrase: str | None, decision: str | None) -> int:
    """The papers with `decision` (any when None) whose title, abstract or keywords hold `phrase` (any when None),
    matched as `confnav search '"PHRASE"'` matches it."""
    where, query = PaperFilter(decision=decision), parse_query(f'"{phrase}"') if phrase else None
    return sum(
        where.admits(p.decision) and (query is None or query.matches(p.title, p.abstract or "", p.keywords, []))
        for p in papers
    )


def most_accepted(store: PaperReader, venue: str) -> list[AuthorRow]:
    """The people of `venue` with the most accepted papers (several when tied), counted as the stats report's
    authors table counts them but telling namesakes apart by the profile ids of the whole store, as the author
    pages and `papers_of` do (so that the answer's check recounts the same papers); empty without accepted papers."""
    papers = counted_papers(store, venue)
    names = {name_key(a.name) for p in papers for a in p.authors}
    rows = author_rows(papers, PeopleIndex(profiles=store.author_profiles(names)))
    return [r for r in rows if r.accepted == rows[0].accepted] if rows else []
