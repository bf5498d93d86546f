"""News for a profile: watches (a query, an author, a theme, a venue's decisions) and, after each ingest or fetch,
what is new or changed in the papers they follow — new papers, new reviews, changed ratings, decisions.

Only the papers a write added or changed are looked at (ingest tells the recorder, inside its transaction),
so the cost of a watch follows the size of the change, not of the store.
"""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Protocol

from confnav.errors import ConfnavError, NotFoundError, argument, excerpt
from confnav.ingest import PaperChange
from confnav.model import Outcome, Paper, name_key
from confnav.search.query import parse_query
from confnav.search.text import terms
from confnav.store.news import NewsItem, Watch, now
from confnav.store.protocols import NewsStore, PaperReader, ProfileStore, TopicStore


class NewsPapers(NewsStore, PaperReader, TopicStore, ProfileStore, Protocol):
    """What news needs of a store: watches and news, papers, venues and their themes."""


def add_watch(
    store: NewsPapers,
    profile: str,
    *,
    query: str | None = None,
    author: str | None = None,
    theme: str | None = None,
    venue: str | None = None,
    decisions: bool = False,
) -> Watch:
    """Follow a query, an author (name or profile id), a theme of a venue, or the decisions a venue's pending papers
    receive; checked before anything is kept."""
    given = [(k, v) for k, v in (("query", query), ("author", author), ("theme", theme)) if v is not None]
    if len(given) + decisions != 1:
        raise ConfnavError(
            f"watch one thing: a {argument('query')}, an {argument('author')}, a {argument('theme')} or"
            f" {argument('decisions', True)} of a {argument('venue')}"
        )
    if venue is not None:
        venue = store.get_venue(venue).id  # NotFoundError names an unknown venue
    if decisions:
        if venue is None:
            raise ConfnavError(
                f"{argument('decisions', True)}: name the venue whose decisions to watch ({argument('venue')})"
            )
        return store.add_watch(profile, "decisions", venue, venue)
    kind, value = given[0][0], given[0][1].strip()
    if kind == "query":
        _QueryWatch(value)  # a query that cannot be searched is refused here
    elif kind == "author" and not name_key(value):
        raise ConfnavError(f"{argument('author', value)}: give a name or a profile id (~First_Last1)")
    elif kind == "theme":
        venue = store.pick_venue(venue)
        known = {t.id: t.label for t in store.themes(venue)}
        if not known:
            raise ConfnavError(
                f"{argument('theme', value)}: {venue} has no themes yet; run 'confnav topics --venue {venue}'"
            )
        if value not in known:
            raise ConfnavError(
                f"{argument('theme', value)}: no such theme of {venue} ('confnav topics --venue {venue}' lists them)"
            )
        value = f"{value}{THEME_LABEL}{known[value]}"  # followed by its name: themes built again are numbered anew
    return store.add_watch(profile, kind, value, venue)


THEME_LABEL = ": "  # between a theme watch's theme id and the theme's label


def followed_theme(store: NewsPapers, watch: Watch, labels: dict[str, str] | None = None) -> str | None:
    """The id the theme a watch follows has now: the theme of its label (themes built again are numbered anew),
    or its id for a watch made before labels were kept; None when no theme has that label any more. `labels`
    (lower-case label → id) saves reading the venue's themes again."""
    theme_id, _, label = watch.value.partition(THEME_LABEL)
    if not label or not watch.venue:
        return theme_id
    if labels is None:
        labels = {t.label.lower(): t.id for t in store.themes(watch.venue)}
    return labels.get(label.lower())


def profile_news(store: NewsPapers, profile: str, since: str | None = None) -> list[NewsItem]:
    """A profile's news, newest first; `since` is a date (2024-05-01) or a time (2024-05-01T09:00, UTC unless
    it names its offset)."""
    if profile not in {name for name, _, _ in store.profiles()}:
        raise NotFoundError(f"no profile named {excerpt(profile)}: 'confnav watch add' makes one with its first watch")
    return store.news(profile, since=since_time(since) if since else None)


def since_time(text: str) -> str:
    """A --since value as the stored times are written (UTC, RFC 3339), or a one-line error."""
    text = text.strip()
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ConfnavError(
            f"{argument('since', text)}: give a date (2024-05-01) or a time (2024-05-01T09:00)"
        ) from None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def describe(watch: Watch) -> str:
    """A watch in a few words: `"graph neural networks"`, `author Yoshua Bengio`, `theme t03 in iclr2021`,
    `decisions of iclr2021`."""
    if watch.kind == "decisions":
        return f"decisions of {watch.value}"
    theme_id, _, label = watch.value.partition(THEME_LABEL)
    theme = f"theme {theme_id}" + (f" ({label})" if label else "")
    what = {"query": f'"{watch.value}"', "author": f"author {watch.value}", "theme": theme}
    venue = f" in {watch.venue}" if watch.venue else ""
    return what[watch.kind] + venue


class _QueryWatch:
    """A query watch: every word of the query (stemmed, as keyword search reads it) in the paper's title, abstract
    or keywords, and every phrase or field condition of the query language met."""

    def __init__(self, raw: str, stored: bool = False) -> None:
        # QueryError (one line) for an empty or malformed query; a stored one was accepted when added, and an
        # ingest never fails on it: `foo:bar` kept before every lowercase `name:word` was a field stays words
        self.query = parse_query(raw, listed_fields_only=stored)
        self.terms = set(terms(" ".join(self.query.free)))
        if not self.terms and not self.query.narrows:
            raise ConfnavError(f"query {excerpt(raw)} has only common words; a watch needs words that pick papers")

    def matches(self, paper: Paper, paper_terms: set[str]) -> bool:
        if not self.terms <= paper_terms:
            return False
        names = [a.name for a in paper.authors]
        return self.query.matches(paper.title, paper.abstract or "", paper.keywords, names)


def _by_author(value: str, paper: Paper) -> bool:
    """The paper has an author with this profile id, or whose name holds every word of `value`."""
    tokens = name_key(value).split()
    for author in paper.authors:
        if author.profile and author.profile == value:
            return True
        words = set(name_key(author.name).split())
        if tokens and all(t in words for t in tokens):
            return True
    return False


def what_changed(change: PaperChange) -> tuple[str, str] | None:
    """(kinds, summary) of a change watchers care about: new paper, new reviews, changed ratings, decision."""
    after, before = change.after, change.before
    if before is None:
        decided = f" ({after.decision.label})" if after.decision.label else ""
        rated = f"; {len(after.ratings)} reviews, mean rating {after.rating_mean:.2f}" if after.ratings else ""
        return "new", f"new paper{decided}{rated}"
    kinds, parts = [], []
    old, new = before.ratings, after.ratings
    if len(new) > len(old):
        kinds.append("reviews")
        added = len(new) - len(old)
        moved = f"{_mean(before)} → {_mean(after)}" if old else _mean(after)
        parts.append(f"{added} new review{'s' * (added > 1)}, mean rating {moved}")
    if Counter(old) - Counter(new) if len(new) > len(old) else sorted(new) != sorted(old):  # an earlier one moved
        kinds.append("ratings")
        parts.append(f"ratings changed: {_listed(old)} → {_listed(new)} (mean {_mean(before)} → {_mean(after)})")
    if before.decision.label != after.decision.label:
        kinds.append("decision")
        was = f"{before.decision.label} → " if before.decision.label else ""
        parts.append(f"decision: {was}{after.decision.label or 'none'}")
    return ("+".join(kinds), "; ".join(parts)) if kinds else None


def decision_arrived(change: PaperChange) -> bool:
    """Whether a stored paper's decision changed to one that decides (not pending, not unknown): what a venue's
    decision watch reports, from the first fetch that brings decisions."""
    before, after = change.before, change.after
    final = after.decision.outcome not in (Outcome.PENDING, Outcome.UNKNOWN)
    return before is not None and final and before.decision.label != after.decision.label


def pending_decided(change: PaperChange) -> bool:
    """Whether a paper pending (or without a decision) when the store last had it now has a decision, a withdrawal
    not being one: what a fetch counts as decided since the fetch before it."""
    before = change.before
    waiting = before is not None and before.decision.outcome in (Outcome.PENDING, Outcome.UNKNOWN)
    return waiting and change.after.decision.kind != "withdrawn" and decision_arrived(change)


def _mean(paper: Paper) -> str:
    return f"{paper.rating_mean:.2f}" if paper.rating_mean is not None else "none"


def _listed(ratings: Sequence[float]) -> str:
    return "[" + ", ".join(f"{r:g}" for r in ratings) + "]" if ratings else "none"


@dataclass
class NewsRecorder:
    """The ingest's ChangeWatcher: evaluates every watch against the papers a write added or changed and keeps
    what it found as news items, in the ingest's own transaction."""

    store: NewsPapers

    def __post_init__(self) -> None:
        self._watches: list[Watch] | None = None

    def watching(self) -> bool:
        self._watches = self.store.watches()
        return bool(self._watches)

    def record(self, changes: list[PaperChange]) -> None:
        watches = self._watches if self._watches is not None else self.store.watches()
        if not changes or not watches:
            return
        queries = {w.id: _QueryWatch(w.value, stored=True) for w in watches if w.kind == "query"}
        themes: dict[str, dict[str, tuple[str, ...]]] = defaultdict(dict)
        for venue in {w.venue for w in watches if w.kind == "theme" and w.venue}:
            themes[venue] = self.store.themes_of(venue, [c.after.id for c in changes if c.after.venue == venue])
        labels = {v: {t.label.lower(): t.id for t in self.store.themes(v)} for v in themes}  # each venue read once
        followed = {
            w.id: followed_theme(self.store, w, labels.get(w.venue or "")) for w in watches if w.kind == "theme"
        }
        stamp, found = now(), []
        for change in changes:
            what = what_changed(change)
            if what is None:
                continue
            paper, paper_terms = change.after, None
            for watch in watches:
                if watch.venue and watch.venue != paper.venue:
                    continue
                if watch.kind == "query":
                    if paper_terms is None:
                        paper_terms = set(terms(" ".join([paper.title, paper.abstract or "", *paper.keywords])))
                    hit = queries[watch.id].matches(paper, paper_terms)
                elif watch.kind == "decisions":
                    hit = decision_arrived(change)
                elif watch.kind == "author":
                    hit = _by_author(watch.value, paper)
                else:
                    hit = followed[watch.id] in themes[paper.venue].get(paper.id, ())
                if hit:
                    item = (watch.id, watch.profile, paper.venue, paper.id, paper.title, *what, stamp)
                    found.append(NewsItem(str(uuid.uuid4()), *item))
        if found:
            self.store.put_news(found)
