"""Institution names as the statistics count them: one documented table of spellings → one name.

The first pattern that matches (case-insensitive) names the institution; anything
else keeps its own text with duplicated parts removed ("X, X" → "X"). An
institution's profile (its papers, venues and authors) follows the same rule, so
its page and the statistics count the same papers.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from confnav.errors import NotFoundError
from confnav.model import Paper, fold, is_placeholder_place, name_key

INSTITUTIONS: list[tuple[str, str]] = [
    (r"deepmind", "DeepMind"),
    (r"\bgoogle\b", "Google"),
    (r"facebook|\bmeta\b|\bfair\b", "Meta"),
    (r"microsoft", "Microsoft"),
    (r"massachusetts institute of technology|\bmit\b", "MIT"),
    (r"carnegie mellon|\bcmu\b", "Carnegie Mellon University"),
    (r"stanford", "Stanford University"),
    (r"berkeley", "UC Berkeley"),
    (r"los angeles|\bucla\b", "UCLA"),
    (r"san diego|\bucsd\b", "UC San Diego"),
    (r"tsinghua", "Tsinghua University"),
    (r"peking university", "Peking University"),
    (
        r"\bmila\b|montreal institute for learning algorithms|universit[ée] de montr[ée]al|university of montreal",
        "Mila / Université de Montréal",
    ),
    (r"university of toronto|vector institute", "University of Toronto / Vector Institute"),
    (r"university of oxford|\boxford\b", "University of Oxford"),
    (r"university of cambridge", "University of Cambridge"),
    (r"eth z[uü]rich|swiss federal institute of technology z", "ETH Zurich"),
    (r"\bepfl\b|polytechnique f[ée]d[ée]rale de lausanne|swiss federal institute of technology lausanne", "EPFL"),
    (r"\bibm\b", "IBM"),
    (r"nvidia", "NVIDIA"),
    (r"amazon", "Amazon"),
    (r"openai", "OpenAI"),
    (r"alibaba", "Alibaba"),
    (r"baidu", "Baidu"),
    (r"tencent", "Tencent"),
    (r"huawei", "Huawei"),
    (r"samsung", "Samsung"),
    (r"princeton", "Princeton University"),
    (r"\bkaist\b|korea advanced institute of science", "KAIST"),
    (r"national university of singapore", "National University of Singapore"),
    (r"new york university|\bnyu\b", "New York University"),
    (r"university of washington", "University of Washington"),
    (r"harvard", "Harvard University"),
    (r"cornell", "Cornell University"),
    (r"university of illinois|\buiuc\b", "UIUC"),
    (r"georgia institute of technology|georgia tech", "Georgia Tech"),
    (r"university of michigan", "University of Michigan"),
    (r"university of texas at austin|\but austin\b", "UT Austin"),
    (r"shanghai jiao ?tong", "Shanghai Jiao Tong University"),
    (r"zhejiang university", "Zhejiang University"),
    (r"max planck|max-planck", "Max Planck Institutes"),
    (r"university college london|\bucl\b", "University College London"),
    (r"columbia university", "Columbia University"),
    (r"university of tokyo", "University of Tokyo"),
    (r"seoul national university", "Seoul National University"),
    (r"technion", "Technion"),
    (r"chinese academy of sciences", "Chinese Academy of Sciences"),
]
_COMPILED = [(re.compile(pattern, re.I), name) for pattern, name in INSTITUTIONS]


@lru_cache(maxsize=1 << 16)  # affiliations repeat: each distinct text is matched once
def normalize_institution(text: str) -> str:
    """The counted name of an affiliation string."""
    for pattern, name in _COMPILED:
        if pattern.search(text):
            return name
    parts = list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    return ", ".join(parts)


def listed_institution(text: str) -> bool:
    """Whether the table above names this text's institution by whole words ("Google Research", not
    "Meta-learning"), rather than the text being kept as its own name."""
    return _table_match(text) is not None


def whole_institution(text: str) -> bool:
    """Whether the table above names this text's institution by the whole text ("Stanford", "DeepMind")."""
    return (found := _table_match(text)) is not None and found.group() == text.strip()


def _table_match(text: str) -> re.Match[str] | None:
    """The table's first match in the text, if it stands as whole words."""
    for pattern, _ in _COMPILED:
        if found := pattern.search(text):
            before, after = text[found.start() - 1 : found.start()], text[found.end() : found.end() + 1]
            return None if before.strip() or after.strip() else found
    return None


@lru_cache(maxsize=1 << 16)
def institution_key(text: str) -> str:
    """The key pages and links match on: the counted name, folded (case, accents and punctuation aside)."""
    return fold(normalize_institution(text))


def paper_affiliations(paper: Paper) -> list[str]:
    """The affiliations a paper counts for: the paper's own list (`Paper.places`), never a guess at whose, nor a
    placeholder that names no institution ("Unknown Institution", "-")."""
    return [place for place in paper.places if not is_placeholder_place(place)]


def institution_index(places: Iterable[tuple[str, int]]) -> dict[str, list[int]]:
    """Each institution key → the row keys of its papers, from the store's (place, paper row) pairs (built
    once per store state by the web app)."""
    index: dict[str, set[int]] = defaultdict(set)
    for place, pk in places:
        if not is_placeholder_place(place) and (key := institution_key(place)):
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
        own = [a for a in paper_affiliations(paper) if institution_key(a) == key]
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
            if any(place and institution_key(place) == key for place in (author.institution, author.affiliation)):
                people[name_key(author.name)][author.name] += 1
    if not mine:
        raise NotFoundError(f"no institution named {name!r} in the store")
    counted = Counter(normalize_institution(s) for s in spellings.elements())
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
