"""Theme facts computed from the store: sizes, decisions, acceptance, ratings, shares."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from confnav.errors import ConfnavError, NotFoundError, excerpt, one_of
from confnav.model import Decision, Paper
from confnav.progress import Progress
from confnav.store.base import serves_requests
from confnav.store.protocols import AnalysisStore
from confnav.store.topics import StoredTheme
from confnav.topics.build import TopicBuilder, built_with, text_model, topic_steps

THEME_LEVELS = (1, 2)  # themes, and the sub-themes a theme is split into


@dataclass
class ThemeFacts:
    """A theme with its facts; every number is counted from the papers assigned to it."""

    id: str
    venue: str
    label: str
    level: int
    parent: str | None
    keywords: list[str]
    paper_ids: list[str]
    accepted: int
    accepted_kinds: dict[str, int]  # accepted papers by the venue's kind of acceptance, in tier order ("oral": 3)
    decided: int
    rates: bool
    mean_rating: float | None
    share: float
    low_confidence: int
    representative: list[str] = field(default_factory=list)
    best_rated: list[str] = field(default_factory=list)
    x: float = 0.0
    y: float = 0.0

    @property
    def heading(self) -> str:
        """The label as a heading: its first letter in capitals, the rest as the authors write it."""
        return self.label[:1].upper() + self.label[1:]

    @property
    def size(self) -> int:
        return len(self.paper_ids)

    @property
    def oral(self) -> int:
        return self.accepted_kinds.get("oral", 0)

    @property
    def spotlight(self) -> int:
        return self.accepted_kinds.get("spotlight", 0)

    @property
    def poster(self) -> int:
        return self.accepted_kinds.get("poster", 0)

    @property
    def accepted_as(self) -> str:
        """The accepted papers by kind as a reader sees them: "3 oral, 9 poster"; "8 journal, 23 technical"."""
        return ", ".join(f"{n} {kind}" for kind, n in self.accepted_kinds.items())

    @property
    def acceptance_rate(self) -> float | None:
        """Accepted over the decided submissions that entered review; None where the data has no rejections."""
        return self.accepted / self.decided if self.decided and self.rates else None

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "venue": self.venue,
            "label": self.label,
            "level": self.level,
            "parent": self.parent,
            "keywords": self.keywords,
            "size": self.size,
            "share": round(self.share, 4),
            "accepted": self.accepted,
            "accepted_kinds": self.accepted_kinds,
            "oral": self.oral,
            "spotlight": self.spotlight,
            "poster": self.poster,
            "acceptance_rate": None if self.acceptance_rate is None else round(self.acceptance_rate, 4),
            "mean_rating": None if self.mean_rating is None else round(self.mean_rating, 3),
            "low_confidence": self.low_confidence,
            "representative": self.representative,
            "best_rated": self.best_rated,
            "x": round(self.x, 3),
            "y": round(self.y, 3),
            "paper_ids": self.paper_ids,
        }


class TopicsNotReady(ConfnavError):
    """A venue's themes are needed but not built, and this store builds them only as a background job."""


def ensure_topics(
    store: AnalysisStore,
    venue: str,
    builder: TopicBuilder | None = None,
    progress: Progress | None = None,
    rebuild: bool = False,
    themes: int | None = None,
) -> bool:
    """Build the venue's themes when missing, stale (papers, model or steps changed: `builder`'s, else the ones the
    store's settings choose) or asked differently.

    A store that defers long work to background jobs (a shared web server) never builds here: stale
    themes are used as they are, and missing ones are a `TopicsNotReady` error naming the job to start.
    """
    venue = store.get_venue(venue).id
    run = store.topic_run(venue)
    steps = builder.steps if builder else topic_steps(store.settings)
    fresh = (
        run is not None
        and run[0] == store.venue_generation(venue)
        and run[1] == text_model(store)
        and built_with(run[2]) == steps
    )
    if fresh and not rebuild and (themes is None or run[2].get("themes") == themes):  # type: ignore[index]
        return False
    if serves_requests(store):
        if run is not None:
            return False
        raise TopicsNotReady(
            f"the themes of {venue} are not built yet: start a build with POST /api/jobs"
            f' {{"kind": "topics", "venue": "{venue}"}} or run \'confnav topics --venue {venue}\''
        )
    (builder or TopicBuilder.from_settings(store.settings)).build(store, venue, themes=themes, progress=progress)
    return True


def theme_facts(
    store: AnalysisStore, venue: str, level: int | None = None, papers: dict[int, Paper] | None = None
) -> list[ThemeFacts]:
    """Every theme of a venue (optionally one level: 1 themes, 2 sub-themes) with its facts, in id order; `papers`
    (by row) saves a read."""
    if level is not None:
        one_of("level", level, THEME_LEVELS)
    venue = store.get_venue(venue).id
    themes = store.themes(venue, level)
    if not themes and (level is None or not store.themes(venue)):
        raise NotFoundError(f"venue {venue} has no themes yet: run 'confnav topics --venue {venue}'")
    if not themes:
        return []  # themes, but none of this level (a small venue's themes are not split into sub-themes)
    papers = papers if papers is not None else dict(store.paper_rows(venue))
    members: dict[str, list[tuple[Paper, bool]]] = defaultdict(list)
    for pk, where in store.assignments(venue).items():
        paper = papers.get(pk)
        if paper is None:  # not among the papers given: e.g. one that reads as a placeholder since the build
            continue
        members[where.theme].append((paper, where.low_confidence))
        if where.subtheme:
            members[where.subtheme].append((paper, where.low_confidence))
    counted = [p for p in papers.values() if not p.placeholder]  # as in the themes: placeholders left out
    rates = lists_rejections([p.decision for p in counted])
    return [_facts(theme, members[theme.id], len(counted), rates) for theme in themes]


def get_theme(store: AnalysisStore, venue: str, theme_id: str) -> ThemeFacts:
    venue = store.get_venue(venue).id
    for facts in theme_facts(store, venue):
        if facts.id == theme_id:
            return facts
    known = ", ".join(t.id for t in store.themes(venue, 1))
    raise NotFoundError(f"no theme {excerpt(theme_id)} in {venue} (themes: {known})")


def lists_rejections(decisions: list[Decision]) -> bool:
    """Whether the data covers submissions, not only accepted papers: without rejections there is no rate."""
    return any(d.decided and not d.accepted for d in decisions)


def _by_kind(accepted: list[Decision]) -> dict[str, int]:
    """Accepted papers by kind, in the order `confnav venues` lists a venue's: by tier, then name."""
    return dict(Counter(d.kind for d in sorted(accepted, key=lambda d: (d.tier, d.kind))))


def _facts(theme: StoredTheme, members: list[tuple[Paper, bool]], venue_size: int, rates: bool) -> ThemeFacts:
    papers = sorted((p for p, _ in members), key=lambda p: p.id)
    decisions = [p.decision for p in papers]
    ratings = [m for p in papers if (m := p.reviewed_rating_mean) is not None]  # as `stats` counts them
    return ThemeFacts(
        id=theme.id,
        venue=theme.venue,
        label=theme.label,
        level=theme.level,
        parent=theme.parent,
        keywords=theme.data.get("keywords", []),
        paper_ids=[p.id for p in papers],
        accepted=sum(d.accepted for d in decisions),
        accepted_kinds=_by_kind([d for d in decisions if d.accepted]),
        decided=sum(d.decided for d in decisions),
        rates=rates,
        mean_rating=sum(ratings) / len(ratings) if ratings else None,
        share=len(papers) / venue_size if venue_size else 0.0,
        low_confidence=sum(low for _, low in members),
        representative=theme.data.get("representative", []),
        best_rated=theme.data.get("best_rated", []),
        x=theme.data.get("x", 0.0),
        y=theme.data.get("y", 0.0),
    )
