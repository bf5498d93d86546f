"""People behind author names: profile ids tell apart authors who share a name.

An author with a profile id (OpenReview `~Yang_Song1`, ACL Anthology `/y/yang-song/`)
is that person. An author given by name alone is the one person with a profile
under that name when there is exactly one; where several profiles share the
name, the name alone cannot say who it is, and it stays a person of its own.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from confnav.model import Author, Paper, name_key, named_places


@dataclass
class Person:
    """One person: a stable key, the name shown, the profile id if known, their papers newest first, the
    affiliations their papers give them and their most frequent co-authors (name, shared papers)."""

    key: str
    name: str
    profile: str | None = None
    papers: list[Paper] = field(default_factory=list)
    affiliations: list[str] = field(default_factory=list)
    coauthors: list[tuple[str, int]] = field(default_factory=list)


class PeopleIndex:
    """Resolves each author of a set of papers to a person key."""

    def __init__(self, papers: Iterable[Paper] = (), profiles: Mapping[str, set[str]] | None = None) -> None:
        """From papers' authors, or from `profiles` (normalised name → profile ids) as the store answers them."""
        self.profiles: dict[str, set[str]] = defaultdict(set, profiles or {})
        for paper in papers:
            for author in paper.authors:
                if author.profile:
                    self.profiles[name_key(author.name)].add(author.profile)

    def key(self, author: Author) -> str:
        """`profile:…` for a known person, `name:…` for a name no profile settles."""
        if author.profile:
            return f"profile:{author.profile}"
        known = self.profiles.get(name_key(author.name), set())
        return f"profile:{next(iter(known))}" if len(known) == 1 else f"name:{name_key(author.name)}"

    def people_named(self, name: str, papers: Iterable[Paper]) -> list[Person]:
        """Every person named `name` on these papers, each with their papers (newest venue first)."""
        wanted = name_key(name)
        found: dict[str, Person] = {}
        places: dict[str, Counter[str]] = defaultdict(Counter)
        partners: dict[str, Counter[str]] = defaultdict(Counter)
        for paper in papers:
            for author in paper.authors:
                if name_key(author.name) != wanted:
                    continue
                key = self.key(author)
                profile = key.split(":", 1)[1] if key.startswith("profile:") else None
                person = found.setdefault(key, Person(key, author.name, profile))
                if not person.papers or person.papers[-1] is not paper:
                    person.papers.append(paper)
                    partners[key].update({a.name for a in paper.authors if name_key(a.name) != wanted})
                for place in named_places([author.affiliation]):  # "Unknown Institution" names no place
                    places[key][place] += 1
        for key, person in found.items():
            person.papers.sort(key=lambda p: (-p.year, p.venue, p.title))
            person.affiliations = [place for place, _ in places[key].most_common(5)]
            person.coauthors = partners[key].most_common(12)
        return sorted(found.values(), key=lambda p: (-len(p.papers), p.key))
