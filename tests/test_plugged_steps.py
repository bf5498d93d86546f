"""Steps of a user's own passed to the library as objects: themes record them, reports built with them verify,
and a plugged step that breaks its protocol's contract is one clear error naming it."""

from __future__ import annotations

import numpy as np
import pytest

from confnav.embed.sparse import SparseEmbedder
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.settings import Settings, Steps
from confnav.store import SqlStore, open_store
from confnav.topics import TopicBuilder, ensure_topics, theme_facts
from confnav.topics.label import ThemeLabel
from tests.conftest import MARKDOWN_PAGE

HERE = __name__


class Halves:
    """A clusterer putting every other paper in the same theme."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit_predict(self, vectors: np.ndarray, low: int, high: int) -> np.ndarray:
        return np.arange(len(vectors)) % 2


class Numbered:
    """A labeler naming each theme by its number."""

    def label(self, papers: object, labels: np.ndarray, taken: object = None, prose: object = None) -> list[ThemeLabel]:
        return [ThemeLabel(f"plugged {c}", [f"word{c}"]) for c in range(int(labels.max()) + 1)]


@pytest.fixture
def indexed(store: SqlStore) -> SqlStore:
    ingest(store, [MARKDOWN_PAGE])
    build_index(store, SparseEmbedder())
    return store


def labels(store: SqlStore, venue: str) -> list[str]:
    return [t.label for t in theme_facts(store, venue, level=1)]


def test_themes_built_by_steps_passed_as_objects_are_theirs_not_the_defaults(indexed: SqlStore) -> None:
    venue = indexed.pick_venue(None)
    assert ensure_topics(indexed, venue)
    default = labels(indexed, venue)
    plugged = TopicBuilder(clusterer=Halves(), labeler=Numbered())
    assert ensure_topics(indexed, venue, builder=plugged)  # not the default themes: built by the steps given
    assert labels(indexed, venue) == ["plugged 0", "plugged 1"]
    steps = indexed.topic_run(venue)[2]["steps"]  # type: ignore[index]
    assert steps == {"clusterer": f"{HERE}:Halves", "labeler": f"{HERE}:Numbered", "layout": "tsne"}
    assert not ensure_topics(indexed, venue, builder=TopicBuilder(clusterer=Halves(), labeler=Numbered()))
    assert ensure_topics(indexed, venue)  # the default steps asked again: the plugged ones' themes are stale
    assert labels(indexed, venue) == default
    chosen = Settings(steps=Steps(clusterer=f"{HERE}:Halves", labeler=f"{HERE}:Numbered"))
    with open_store(indexed.location, settings=chosen) as same:  # chosen by name: a name of the same form
        assert ensure_topics(same, venue) and labels(same, venue) == ["plugged 0", "plugged 1"]
        assert not ensure_topics(same, venue, builder=TopicBuilder(clusterer=Halves(), labeler=Numbered()))
