"""Year-over-year trends between two venues of a conference: theme shares and keyword shares.

Papers of the earlier venue are placed in the later venue's themes by their
nearest theme centre (text + keyword vectors), which works for title-only records
such as ICLR 2020's as well.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from confnav.embed.base import normalize
from confnav.errors import ConfnavError, argument
from confnav.model import Paper, Venue, fold
from confnav.store.protocols import AnalysisStore
from confnav.topics.build import TopicVectors, topic_vectors
from confnav.topics.facts import ThemeFacts, theme_facts
from confnav.topics.spellings import Spellings


@dataclass
class ShareChange:
    """A theme or keyword's share of papers in both venues."""

    name: str
    before: float
    after: float
    count_before: int
    count_after: int
    id: str | None = None

    @property
    def change(self) -> float:
        return self.after - self.before

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "share_from": round(self.before, 4),
            "share_to": round(self.after, 4),
            "change": round(self.change, 4),
            "count_from": self.count_before,
            "count_to": self.count_after,
        }


@dataclass
class Trends:
    """Themes and keywords that grew or shrank from one venue to the next, and new keywords."""

    source: str
    target: str
    themes: list[ShareChange]
    keywords_grown: list[ShareChange]
    keywords_shrunk: list[ShareChange]
    keywords_new: list[ShareChange]
    notice: str | None = None  # said when the two venues are of different series

    def to_dict(self) -> dict[str, object]:
        return {
            "from": self.source,
            "to": self.target,
            "notice": self.notice,
            "themes": [t.to_dict() for t in self.themes],
            "keywords_grown": [k.to_dict() for k in self.keywords_grown],
            "keywords_shrunk": [k.to_dict() for k in self.keywords_shrunk],
            "keywords_new": [k.to_dict() for k in self.keywords_new],
        }


def comparison_notice(source: Venue, target: Venue) -> str | None:
    """Trends run forward in time: a `source` later than `target` is refused; venues of two series are compared
    with a notice saying so (their fields and keywords differ), and None when both are of one series."""
    if source.id == target.id:
        raise ConfnavError(f"{argument('source')} and {argument('target')} name the same venue")
    if source.year > target.year:
        raise ConfnavError(
            f"{source.name} is later than {target.name}: trends run forward in time "
            f"({argument('source', target.id)} {argument('target', source.id)})"
        )
    if source.conference != target.conference:
        return (
            f"{source.name} and {target.name} are different conferences: shares of their themes and keywords "
            "differ by field, not only by year"
        )
    return None


def earlier_in_series(venues: list[Venue], venue: Venue) -> list[Venue]:
    """The venues a trend to `venue` may start from: the same series, earlier years, latest first."""
    earlier = [v for v in venues if v.conference == venue.conference and v.year < venue.year]
    return sorted(earlier, key=lambda v: -v.year)


def trends(store: AnalysisStore, source: str, target: str, top: int = 15, min_count: int = 8) -> Trends:
    """Compare `source` (earlier) with `target`, whose themes must exist (see comparison_notice)."""
    earlier, later = store.get_venue(source), store.get_venue(target)
    source, target, notice = earlier.id, later.id, comparison_notice(earlier, later)
    before, after = topic_vectors(store, source), topic_vectors(store, target)
    themes = theme_changes(store, source, target, before, after)
    if len(themes) > 2 * top:  # the `top` biggest gains and losses, biggest gain first, as the keyword lists
        themes = [*themes[:top], *themes[-top:]]
    grown, shrunk, new = keyword_changes(before.papers, after.papers, top, min_count)
    return Trends(source, target, themes, grown, shrunk, new, notice)


def theme_changes(
    store: AnalysisStore,
    source: str,
    target: str,
    before: TopicVectors,
    after: TopicVectors,
    facts: list[ThemeFacts] | None = None,
) -> list[ShareChange]:
    """Each theme of `target` with its share of papers there and among `source`'s papers, biggest gain first
    (`facts`: the target's level-1 theme facts, when the caller already has them)."""
    if source == target:
        raise ConfnavError(f"{argument('source')} and {argument('target')} name the same venue")
    facts = facts or theme_facts(store, target, level=1)
    ids = [f.id for f in facts]
    assigned_after = _assignments(store, target, after.pks, ids)
    centres = normalize(np.vstack([after.vectors[assigned_after == i].mean(axis=0) for i in range(len(ids))]))
    assigned_before = np.argmax(before.vectors @ centres.T, axis=1)
    themes = [
        ShareChange(
            f.label,
            float(np.mean(assigned_before == i)),
            float(np.mean(assigned_after == i)),
            int(np.sum(assigned_before == i)),
            int(np.sum(assigned_after == i)),
            id=f.id,
        )
        for i, f in enumerate(facts)
    ]
    return sorted(themes, key=lambda t: -t.change)


def _assignments(store: AnalysisStore, venue: str, pks: list[int], ids: list[str]) -> np.ndarray:
    stored = store.assignments(venue)
    index = {theme: i for i, theme in enumerate(ids)}
    return np.array([index[stored[pk].theme] for pk in pks])


def _keyword_shares(papers: list[Paper], spellings: Spellings) -> Counter[str]:
    """Papers per keyword group: a paper giving two spellings of one keyword counts once."""
    counts: Counter[str] = Counter()
    for paper in papers:
        counts.update({spellings.group(k) for k in paper.keywords if fold(k)})
    return counts


def keyword_changes(
    before: list[Paper], after: list[Paper], top: int, min_count: int
) -> tuple[list[ShareChange], list[ShareChange], list[ShareChange]]:
    """Keyword shares in both venues, spelling variants merged (see confnav.topics.spellings)."""
    spellings = Spellings([*before, *after])
    counts_before, counts_after = _keyword_shares(before, spellings), _keyword_shares(after, spellings)
    changes = [
        ShareChange(
            spellings.display(k),
            counts_before[k] / len(before),
            counts_after[k] / len(after),
            counts_before[k],
            counts_after[k],
        )
        for k in set(counts_before) | set(counts_after)
        if max(counts_before[k], counts_after[k]) >= min_count
    ]
    grown = sorted((c for c in changes if c.change > 0), key=lambda c: (-c.change, c.name))[:top]
    shrunk = sorted((c for c in changes if c.change < 0), key=lambda c: (c.change, c.name))[:top]
    new = sorted((c for c in changes if c.count_before == 0), key=lambda c: (-c.count_after, c.name))[:top]
    return grown, shrunk, new
