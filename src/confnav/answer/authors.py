"""People in a question: an author's name the store holds is read as that person (namesakes told apart by their
profile ids, as the author pages do), not as words of a topic; their papers are counted and cited. "Who has the
most papers" is answered from the authors table of the stats report."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from confnav.answer.retrieve import per_state
from confnav.keys import name_key
from confnav.model import Paper
from confnav.people import PeopleIndex, Person
from confnav.reports.model import plain
from confnav.reports.stats import author_table, counted_papers
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
NAMESAKES = "named:"  # a count's person key for every author of a name, as the stats report counts them


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


def without(text: str, named: list[Named]) -> str:
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
    """The papers of `venue` by the person `person` (a PeopleIndex key, or NAMESAKES + name key: anyone of the name)."""
    key = name_key(name)
    index = PeopleIndex(profiles=store.author_profiles([key]))
    found = []
    for paper in store.papers(PaperFilter(venue=venue, author=name)):
        same = [a for a in paper.authors if name_key(a.name) == key]
        if any(person == f"{NAMESAKES}{key}" or index.key(a) == person for a in same):
            found.append(paper)
    return found


def count_of(papers: list[Paper], phrase: str | None, decision: str | None) -> int:
    """The papers with `decision` (any when None) whose title, abstract or keywords hold `phrase` (any when None),
    matched as `confnav search '"PHRASE"'` matches it."""
    where, query = PaperFilter(decision=decision), parse_query(f'"{phrase}"') if phrase else None
    return sum(
        where.admits(p.decision) and (query is None or query.matches(p.title, p.abstract or "", p.keywords, []))
        for p in papers
    )


def most_accepted(store: PaperReader, venue: str) -> tuple[int, list[str]]:
    """The most accepted papers an author of `venue` has and the names of those who have that many, as the stats
    report's authors table counts them; (0, []) when the data holds no accepted paper."""
    rows = author_table(counted_papers(store, venue)).rows
    if not rows:
        return 0, []
    accepted = [int(str(plain(row[1]))) for row in rows]
    return accepted[0], [str(row[0]) for row, n in zip(rows, accepted, strict=True) if n == accepted[0]]
