"""Build a venue's themes: cluster, split into sub-themes, label, lay out, store — deterministic for a seed."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from confnav.embed import load_embedder
from confnav.embed.base import normalize
from confnav.embed.views import KEYWORD_VIEW, embedder_state_cache, semantic_model
from confnav.errors import ConfnavError, argument
from confnav.gc_pause import collection_paused
from confnav.model import Paper
from confnav.progress import Progress, Silent
from confnav.registry import step_name
from confnav.settings import Settings
from confnav.store.base import serves_requests
from confnav.store.protocols import AnalysisStore
from confnav.store.topics import StoredAssignment, StoredTheme
from confnav.topics.cluster import CLUSTERERS, Clusterer, group_labels
from confnav.topics.fidelity import Prose
from confnav.topics.label import LABELERS, Labeler
from confnav.topics.layout import LAYOUTS, Layout
from confnav.topics.paper_words import one_reading

NO_INDEX = "run 'confnav index' first"
DEFAULT_TOPIC_STEPS = {"clusterer": "leiden", "labeler": "ctfidf-centroid", "layout": "tsne"}
MIN_SUBTHEME = 5  # papers: a smaller part of a theme joins the nearest other part (a paper or two is no theme)


def built_with(params: dict[str, Any]) -> dict[str, str] | None:
    """The steps a stored theme run records; a run of before steps were recorded counts as the defaults' when its
    clusterer was Leiden, else as unknown (None: stale for any builder)."""
    if "steps" in params:
        return dict(params["steps"])
    return dict(DEFAULT_TOPIC_STEPS) if params.get("clusterer") == "LeidenClusterer" else None


def topic_steps(settings: Settings) -> dict[str, str]:
    """The clusterer, labeler and layout the settings choose (`steps.*`), each else its default name."""
    chosen = settings.steps.chosen()
    return {kind: chosen.get(kind, default) for kind, default in DEFAULT_TOPIC_STEPS.items()}


@dataclass
class TopicVectors:
    """A venue's papers with their combined text + keyword vectors (rows aligned)."""

    pks: list[int]
    papers: list[Paper]
    vectors: np.ndarray
    model: str


def text_model(store: AnalysisStore) -> str:
    """The text-view model of the store's semantic index; ConfnavError when there is none."""
    model = semantic_model(store)
    if model is None:
        raise ConfnavError(f"the store has no semantic index: {NO_INDEX}")
    return model


def topic_vectors(store: AnalysisStore, venue: str, rows: list[tuple[int, Paper]] | None = None) -> TopicVectors:
    """Each paper as [text vector, keyword vector], L2-normalised: themes follow both what papers say and
    how their authors filed them. `rows` (the venue's papers by row) saves a read; placeholders are left out."""
    venue = store.get_venue(venue).id
    model = text_model(store)
    rows = [(pk, p) for pk, p in (rows if rows is not None else store.paper_rows(venue)) if not p.placeholder]
    views = []
    for name in (model, model + KEYWORD_VIEW):
        pks, blobs = store.embeddings(name, venue)
        views.append(dict(zip(pks, blobs, strict=True)))
    missing = sum(1 for pk, _ in rows if pk not in views[0] or pk not in views[1])
    if missing:
        raise ConfnavError(f"{missing} papers of {venue} have no embeddings yet: {NO_INDEX}")
    if not rows:
        raise ConfnavError(f"venue {venue} has no papers")
    text = np.frombuffer(b"".join(views[0][pk] for pk, _ in rows), dtype=np.float32).reshape(len(rows), -1)
    keywords = np.frombuffer(b"".join(views[1][pk] for pk, _ in rows), dtype=np.float32).reshape(len(rows), -1)
    return TopicVectors([pk for pk, _ in rows], [p for _, p in rows], normalize(np.hstack([text, keywords])), model)


def theme_range(n: int, themes: int | None = None) -> tuple[int, int]:
    """How many top-level themes to aim for: about 15–40 for a conference, fewer for small lists."""
    if themes is not None:
        if themes < 1:
            raise ConfnavError(f"{argument('themes')} must be at least 1")
        if themes > n:
            raise ConfnavError(f"cannot make {themes} themes from {n} papers; ask for at most {n}")
        return themes, themes
    low = int(np.clip(n // 40, 2, 15))
    return low, int(np.clip(n // 8, low, 40))


@dataclass
class TopicBuild:
    """What building did, with the time of each step."""

    venue: str
    themes: int
    subthemes: int
    low_confidence: int
    papers: int
    seconds: dict[str, float] = field(default_factory=dict)


class TopicBuilder:
    """The topic pipeline with swappable steps (clusterer, labeler, layout), each with a default. `steps` names them
    (registry names from `from_settings` or the defaults, `module:Class` for a step passed as an object); stored
    with the themes, so themes of other steps than the ones asked are stale."""

    def __init__(
        self,
        clusterer: Clusterer | None = None,
        labeler: Labeler | None = None,
        layout: Layout | None = None,
        seed: int = 0,
    ) -> None:
        self.clusterer = clusterer or CLUSTERERS.create("leiden", seed=seed)
        self.labeler = labeler or LABELERS.create(DEFAULT_TOPIC_STEPS["labeler"])
        self.layout = layout or LAYOUTS.create("tsne", seed=seed + 42)
        self.seed = seed
        given = {"clusterer": clusterer, "labeler": labeler, "layout": layout}
        self.steps = {
            kind: step_name(step) if step is not None else DEFAULT_TOPIC_STEPS[kind] for kind, step in given.items()
        }

    @classmethod
    def from_settings(cls, settings: Settings, seed: int = 0) -> TopicBuilder:
        """The builder with the steps the settings choose; a plugged clusterer or layout is called with `seed`,
        a plugged labeler without arguments (as the defaults are)."""
        names = topic_steps(settings)
        builder = cls(
            CLUSTERERS.create(names["clusterer"], seed=seed),
            LABELERS.create(names["labeler"]),
            LAYOUTS.create(names["layout"], seed=seed + 42),
            seed,
        )
        builder.steps = names
        return builder

    def build(
        self, store: AnalysisStore, venue: str, themes: int | None = None, progress: Progress | None = None
    ) -> TopicBuild:
        # Each paper's text is analysed once for all the labels of the build, and what the analysis makes stays
        # alive to the end: a collection pass would walk it all and free nothing (a fifth of the time outside the
        # map, in a process already holding a store's papers).
        with one_reading(), collection_paused():
            return self._build(store, venue, themes, progress or Silent())

    def _build(self, store: AnalysisStore, venue: str, themes: int | None, progress: Progress) -> TopicBuild:
        clock: dict[str, float] = {}
        start = time.perf_counter()
        data = topic_vectors(store, venue)
        n = len(data.papers)
        low, high = theme_range(n, themes)
        progress.start("clustering", 4)
        labels = group_labels(self.clusterer.fit_predict(data.vectors, low, high), n, self.clusterer)
        clock["cluster"] = time.perf_counter() - start
        progress.advance()
        count = int(labels.max()) + 1
        centres = normalize(np.vstack([data.vectors[labels == c].mean(axis=0) for c in range(count)]))
        similarity = data.vectors @ centres.T
        own = similarity[np.arange(n), labels]
        low_confidence = far_from_every_centre(similarity.max(axis=1))
        sub = self._subthemes(data.vectors, labels)
        progress.advance()
        mark = time.perf_counter()
        prose = Prose(data.papers)  # tells sub-themes' labels too whether a phrase is a modifier
        reading = self._reading(store, data)
        top_labels = self.labeler.label(data.papers, labels, prose=prose, **reading(np.arange(n)))
        taken = {t.label for t in top_labels}
        clock["label"] = time.perf_counter() - mark
        progress.advance()
        mark = time.perf_counter()
        xy = self.layout.fit_transform(data.vectors)
        clock["layout"] = time.perf_counter() - mark
        progress.advance()
        stored_themes, sub_ids = self._themes(venue, data, labels, sub, top_labels, taken, own, xy, prose, reading)
        assignments = [
            StoredAssignment(
                pk,
                _theme_id(labels[i]),
                sub_ids[i],
                float(own[i]),
                bool(low_confidence[i]),
                float(xy[i, 0]),
                float(xy[i, 1]),
            )
            for i, pk in enumerate(data.pks)
        ]
        params: dict[str, object] = {
            "seed": self.seed,
            "themes": themes,
            "clusterer": type(self.clusterer).__name__,
            "steps": self.steps,
        }
        with store.transaction():
            store.put_topics(venue, store.venue_generation(venue), data.model, params, stored_themes, assignments)
        clock["total"] = time.perf_counter() - start
        subthemes = sum(1 for t in stored_themes if t.level == 2)
        return TopicBuild(venue, count, subthemes, int(low_confidence.sum()), n, clock)

    def _reading(self, store: AnalysisStore, data: TopicVectors) -> Callable[[np.ndarray], dict[str, Any]]:
        """What a labeler that reads the members as a whole (one whose `label` takes `vectors` and `embed`) gets for
        some rows: their text vectors and the model that made them; nothing for any other labeler."""
        accepts = inspect.signature(self.labeler.label).parameters
        embed = phrase_embedder(store, data.model) if {"vectors", "embed"} <= set(accepts) else None
        if embed is None:
            return lambda rows: {}
        text = data.vectors[:, : data.vectors.shape[1] // 2]
        return lambda rows: {"vectors": text[rows], "embed": embed}

    def _subthemes(self, vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """Within each theme, k-means into 2–6 parts by size; a part under MIN_SUBTHEME papers joins the nearest
        other part (a paper or two is no theme to name), so a theme under twice that size stays whole."""
        from sklearn.cluster import KMeans

        sub = np.zeros(len(labels), dtype=np.int64)
        for theme in range(int(labels.max()) + 1):
            rows = np.flatnonzero(labels == theme)
            k = int(np.clip(round(len(rows) / 40), 2, 6)) if len(rows) >= 2 * MIN_SUBTHEME else 1
            if k > 1:
                parts = _merge_small(
                    KMeans(k, n_init=5, random_state=self.seed).fit_predict(vectors[rows]), vectors[rows]
                )
                kept = sorted(set(parts.tolist()), key=lambda c: (-int((parts == c).sum()), c))
                sub[rows] = np.array([kept.index(c) for c in parts])
        return sub

    def _themes(
        self,
        venue: str,
        data: TopicVectors,
        labels: np.ndarray,
        sub: np.ndarray,
        top_labels: list,
        taken: set[str],
        closeness: np.ndarray,
        xy: np.ndarray,
        prose: Prose,
        reading: Callable[[np.ndarray], dict[str, Any]],
    ) -> tuple[list[StoredTheme], list[str | None]]:
        themes: list[StoredTheme] = []
        sub_ids: list[str | None] = [None] * len(labels)
        for theme, name in enumerate(top_labels):
            rows = np.flatnonzero(labels == theme)
            tid = _theme_id(theme)
            themes.append(
                StoredTheme(venue, tid, 1, None, name.label, _details(data, rows, name.keywords, closeness, xy))
            )
            if sub[rows].max() == 0:
                continue
            sub_labels = self.labeler.label([data.papers[r] for r in rows], sub[rows], taken, prose, **reading(rows))
            if not all(sub_name.named for sub_name in sub_labels):  # a part no words of its papers name: kept whole
                continue
            for part, sub_name in enumerate(sub_labels):
                members = rows[sub[rows] == part]
                sid = f"{tid}.{part + 1}"
                taken.add(sub_name.label)
                details = _details(data, members, sub_name.keywords, closeness, xy)
                themes.append(StoredTheme(venue, sid, 2, tid, sub_name.label, details))
                for r in members:
                    sub_ids[r] = sid
        return themes, sub_ids


def _merge_small(parts: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """The parts with each under MIN_SUBTHEME papers, smallest first, dissolved: each of its papers joins the part
    whose centre is nearest (cosine), as k-means would place it."""
    parts = parts.copy()
    while True:
        sizes = {int(c): int((parts == c).sum()) for c in np.unique(parts)}
        small = min(sizes, key=lambda c: (sizes[c], c))
        if len(sizes) == 1 or sizes[small] >= MIN_SUBTHEME:
            return parts
        others = [c for c in sizes if c != small]
        centres = normalize(np.vstack([vectors[parts == c].mean(axis=0) for c in others]))
        moving = np.flatnonzero(parts == small)
        parts[moving] = np.array(others)[np.argmax(vectors[moving] @ centres.T, axis=1)]


def phrase_embedder(store: AnalysisStore, model: str) -> Callable[[Sequence[str]], np.ndarray] | None:
    """The `embed` of the model that made the store's text vectors (with its fitted state, for a model fitted on the
    corpus), to place phrases among them; None when it cannot be loaded."""
    try:
        embedder = load_embedder(model, imports=not serves_requests(store), cache_dir=store.settings.cache_dir)
        if embedder.fitted_on_corpus:
            cached = store.get_cache(embedder_state_cache(model))
            if cached is None:
                return None
            embedder.loads(cached[1])
    except ConfnavError:
        return None
    return embedder.embed


def far_from_every_centre(best: np.ndarray) -> np.ndarray:
    """Papers whose closest theme centre is unusually far: below Tukey's lower fence (Q1 − 1.5 IQR)."""
    q1, q3 = np.percentile(best, [25, 75])
    return best < q1 - 1.5 * (q3 - q1)


def _theme_id(index: int) -> str:
    return f"t{int(index) + 1:02d}"


def _details(data: TopicVectors, rows: np.ndarray, keywords: list[str], closeness: np.ndarray, xy: np.ndarray) -> dict:
    """Keywords, representative and best-rated papers, and the map position of a theme."""
    central = rows[np.argsort(-closeness[rows], kind="stable")][:5]
    rated = [r for r in rows if data.papers[r].rating_mean is not None]
    rated.sort(key=lambda r: (-(data.papers[r].rating_mean or 0), -len(data.papers[r].ratings), data.papers[r].id))
    return {
        "keywords": keywords,
        "representative": [data.papers[r].id for r in central],
        "best_rated": [data.papers[r].id for r in rated[:5]],
        **dict(zip(("x", "y"), densest_point(xy[rows]), strict=True)),
    }


def densest_point(points: np.ndarray, k: int = 10) -> tuple[float, float]:
    """The member with the closest k neighbours: a theme's label sits on its core, not between islands."""
    if len(points) <= 2:
        return float(points[:, 0].mean()), float(points[:, 1].mean())
    distances = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    k = min(k, len(points) - 1)
    spread = np.sort(distances, axis=1)[:, 1 : k + 1].sum(axis=1)
    best = points[int(np.argmin(spread))]
    return float(best[0]), float(best[1])
