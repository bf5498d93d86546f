"""The composition root: the settings, the store and the steps they choose, held by one object.

The CLI builds one `Navigator` per run and the web app one per process; the library below takes its steps as
arguments, or makes the ones its store's settings choose (`store.settings.steps`) through the same helpers
these methods call, so a step chosen in the config file reaches every caller.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from confnav.embed import EMBEDDERS, Embedder, choose_embedder
from confnav.errors import ConfnavError
from confnav.index import IndexResult, build_index
from confnav.progress import Progress
from confnav.rank import RANKERS, Ranker, RankMode, make_ranker
from confnav.registry import Registry
from confnav.search.keyword import DEFAULT_FIELD_WEIGHTS, INDEXES, TextIndex, make_keyword_index
from confnav.settings import Settings
from confnav.store import SqlStore, StoreCaches, open_store
from confnav.store.protocols import CacheStore, SearchStore
from confnav.summarize import SUMMARIZERS
from confnav.summarize.base import Summarizer
from confnav.summarize.llm import make_summarizer
from confnav.summarize.stored import keep_tldrs, venue_summarizer
from confnav.summarize.tldr import ExtractiveSummarizer
from confnav.topics import CLUSTERERS, LABELERS, LAYOUTS, TopicBuilder
from confnav.topics.cluster import Clusterer
from confnav.topics.label import Labeler
from confnav.topics.layout import Layout

REGISTRIES: dict[str, Registry[Any]] = {
    "embedder": EMBEDDERS,
    "index": INDEXES,
    "clusterer": CLUSTERERS,
    "labeler": LABELERS,
    "layout": LAYOUTS,
    "ranker": RANKERS,
    "summarizer": SUMMARIZERS,
}


def check_steps(settings: Settings) -> None:
    """Every chosen step's name resolves in its kind's registry (a `module:Class` is imported and checked for its
    members and the keywords it is made with), or a one-line ConfnavError naming the setting: a wrong step fails
    at start-up, not halfway through a command."""
    for kind, name in settings.steps.chosen().items():
        try:
            REGISTRIES[kind].check(name)
        except ConfnavError as exc:
            raise ConfnavError(f"setting steps.{kind} ([steps] {kind} or ${_variable(kind)}): {exc}") from None


def _variable(kind: str) -> str:
    return f"CONFNAV_STEP_{kind.upper()}"


class Navigator:
    """The settings of a run, its store (given, or opened by `opened`) and a maker for each kind of step."""

    def __init__(self, settings: Settings, store: Any = None) -> None:
        check_steps(settings)
        self.settings = settings
        self._store = store

    @property
    def store(self) -> Any:
        """The open store (a `SqlStore`, or the web app's per-thread stores)."""
        if self._store is None:
            raise ConfnavError("no store is open")
        return self._store

    @contextmanager
    def opened(
        self,
        location: str | Path | None = None,
        create: bool = False,
        read_only: bool = False,
        caches: StoreCaches | None = None,
    ) -> Iterator[SqlStore]:
        """Open the store at `location` (None: the settings' `db`) with these settings, held here until closed."""
        with open_store(location, create, read_only, settings=self.settings, caches=caches) as store:
            self._store = store
            try:
                yield store
            finally:
                self._store = None

    def embedder(self, model: str | None = None) -> tuple[Embedder, str | None]:
        """The embedder for indexing: `model` (a flag), else `steps.embedder`, else the default; and a notice
        when the default falls back to the sparse one."""
        return choose_embedder(model or self.settings.steps.embedder, self.settings.cache_dir)

    def index(
        self,
        store: SearchStore,
        embedder: Embedder,
        venue: str | None = None,
        progress: Progress | None = None,
        add: bool = False,
    ) -> IndexResult:
        """`confnav index`: the vectors and the keyword index (`build_index`), then the TL;DR step (`keep_tldrs`) for
        the same venues, so that a server's requests only read what both keep; the result counts both."""
        result = build_index(store, embedder, venue, progress, add=add)
        start = time.perf_counter()
        tldrs = keep_tldrs(store, venue, progress)
        return dataclasses.replace(result, tldrs=tldrs, seconds=result.seconds + time.perf_counter() - start)

    def topic_builder(self, seed: int = 0) -> TopicBuilder:
        """The theme pipeline with the chosen clusterer, labeler and layout."""
        return TopicBuilder.from_settings(self.settings, seed)

    def clusterer(self, seed: int = 0) -> Clusterer:
        return self.topic_builder(seed).clusterer

    def labeler(self) -> Labeler:
        return self.topic_builder().labeler

    def layout(self, seed: int = 0) -> Layout:
        return self.topic_builder(seed).layout

    def ranker(self, weights: dict[str, float] | None = None, mode: RankMode | str | None = None) -> Ranker:
        """The chosen ranker in `mode` (None: the venue's default), with `weights` overriding the mode's."""
        return make_ranker(self.settings, weights, mode)

    def summarizer(self, store: CacheStore | None = None, venue: str | None = None) -> Summarizer:
        """The chosen summarizer; by default the LLM one when an endpoint is configured, else the extractive one,
        which answers from `venue`'s TL;DRs kept in `store` when given (as the web app's does)."""
        made = make_summarizer(self.settings)
        if store is not None and venue is not None and type(made) is ExtractiveSummarizer:
            return venue_summarizer(store, venue)
        return made

    def keyword_index(
        self, documents: Sequence[Mapping[str, str]], weights: Mapping[str, float] = DEFAULT_FIELD_WEIGHTS
    ) -> TextIndex:
        """The chosen keyword index over `documents` (field name → text)."""
        return make_keyword_index(self.settings, documents, weights)
