"""An institution's papers, venues and authors, named as the statistics name it (confnav.institutions), so
its page and the statistics count the same papers.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from confnav.errors import NotFoundError, excerpt
from confnav.institutions import institution_key, institution_keys, institution_names
from confnav.model import Paper, fold, is_placeholder_place, name_key


def paper_affiliations(paper: Paper) -> list[str]:
    """The affiliations a paper counts for: the paper's own list (`Paper.places`), never a guess at whose, nor a
    placeholder that names no institution ("Unknown Institution", "-")."""
    return [place for place in paper.places if not is_placeholder_place(place)]


def institution_index(places: Iterable[tuple[str, int]]) -> dict[str, list[int]]:
    """Each institution key → the row keys of its papers, from the store's (place, paper row) pairs (built
    once per store state by the web app)."""
    index: dict[str, set[int]] = defaultdict(set)
    for place, pk in places:
        if not is_placeholder_place(place):
            for key in institution_keys(place):  # each institution a string lists
                index[key].add(pk)
    return {key: sorted(pks) for key, pks in index.items()}


@dataclass
class VenueCount:
    """An institution's papers at one venue; the acceptance rate only where the venue's data lists rejections."""

    venue: str
    name: str
    year: int
    papers: int = 0
    accepted: int = 0
    decided: int = 0
    rated: bool = False

    @property
    def acceptance(self) -> float | None:
        return self.accepted / self.decided if self.rated and self.decided else None


@dataclass
class Institution:
    """One institution: its counted name, the spellings the data uses, its papers (newest venue first,
    accepted first), per-venue counts and the authors the data places there (name, papers)."""

    name: str
    spellings: list[str] = field(default_factory=list)
    papers: list[Paper] = field(default_factory=list)
    venues: list[VenueCount] = field(default_factory=list)
    authors: list[tuple[str, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "spellings": self.spellings,
            "venues": [{**v.__dict__, "acceptance": v.acceptance} for v in self.venues],
            "authors": [{"name": name, "papers": n} for name, n in self.authors],
            "papers": [
                {
                    "id": p.id,
                    "venue": p.venue,
                    "venue_name": p.venue_name,
                    "year": p.year,
                    "title": p.title,
                    "decision": p.decision.name,
                    "outcome": p.decision.outcome.value,
                }
                for p in self.papers
            ],
        }


def institution_profile(name: str, papers: Iterable[Paper], rated_venues: Collection[str] = ()) -> Institution:
    """The institution `name` (any spelling) from the papers that may be its own (others are passed over);
    `rated_venues` are those whose data lists rejections. NotFoundError when none of the papers is its own."""
    key = institution_key(name)
    spellings: Counter[str] = Counter()
    people: dict[str, Counter[str]] = defaultdict(Counter)
    mine: list[Paper] = []
    venues: dict[str, VenueCount] = {}
    for paper in papers:
        own = [a for a in paper_affiliations(paper) if key in institution_keys(a)]
        if not key or not own:
            continue
        mine.append(paper)
        spellings.update(a.strip() for a in own)
        count = venues.setdefault(paper.venue, VenueCount(paper.venue, paper.venue_name, paper.year))
        count.papers += 1
        count.accepted += paper.decision.accepted
        count.decided += paper.decision.decided
        count.rated = paper.venue in rated_venues
        for author in paper.authors:
            if any(place and key in institution_keys(place) for place in (author.institution, author.affiliation)):
                people[name_key(author.name)][author.name] += 1
    if not mine:
        raise NotFoundError(f"no institution named {excerpt(name)} in the store")
    counted = Counter(n for s in spellings.elements() for n in institution_names(s) if fold(n) == key)
    authors = sorted(
        ((names.most_common(1)[0][0], names.total()) for names in people.values()), key=lambda a: (-a[1], a[0])
    )
    return Institution(
        name=counted.most_common(1)[0][0],
        spellings=[s for s, _ in spellings.most_common()],
        papers=sorted(mine, key=lambda p: (-p.year, p.venue, p.decision.tier, p.title)),
        venues=sorted(venues.values(), key=lambda v: (-v.year, v.venue)),
        authors=authors,
    )
