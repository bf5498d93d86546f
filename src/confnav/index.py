"""Build and refresh the semantic index: one embedding per paper of "title. abstract", kept incrementally."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

import numpy as np

from confnav.embed.base import Embedder
from confnav.model import Paper
from confnav.progress import Progress
from confnav.store import SqliteStore

BATCH = 256


def paper_text(paper: Paper) -> str:
    """The text a paper is embedded from: its title, then its abstract when there is one."""
    return f"{paper.title}. {paper.abstract}" if paper.abstract else paper.title


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def embedder_state_cache(model: str) -> str:
    return f"embedder:{model}"


@dataclass
class IndexResult:
    """What `confnav index` did: the model, papers embedded now, and papers already up to date."""

    model: str
    embedded: int
    unchanged: int
    dropped_models: int
    seconds: float

    def to_dict(self) -> dict[str, object]:
        return self.__dict__.copy()


def build_index(
    store: SqliteStore, embedder: Embedder, venue: str | None = None, progress: Progress | None = None
) -> IndexResult:
    """Embed the papers whose text changed since the last run (all of them after a model change)."""
    start = time.perf_counter()
    if venue:
        store.get_venue(venue)
    rows = list(store.paper_rows(venue))
    texts = {pk: paper_text(paper) for pk, paper in rows}
    with store.transaction():
        dropped = store.delete_embeddings(keep_model=embedder.name)
    known = store.embedding_hashes(embedder.name)
    if embedder.fitted_on_corpus:
        known = _prepare_fitted(store, embedder, known)
    todo = [pk for pk, text in texts.items() if known.get(pk) != text_hash(text)]
    todo.sort(key=lambda pk: len(texts[pk]))  # similar lengths batch with little padding
    if progress:
        progress.start(f"embedding with {embedder.name}", len(todo))
    for offset in range(0, len(todo), BATCH):
        batch = todo[offset : offset + BATCH]
        vectors = embedder.embed([texts[pk] for pk in batch]).astype(np.float32)
        with store.transaction():
            store.put_embeddings(
                embedder.name, [(pk, text_hash(texts[pk]), vectors[i].tobytes()) for i, pk in enumerate(batch)]
            )
        if progress:
            progress.advance(len(batch))
    return IndexResult(embedder.name, len(todo), len(texts) - len(todo), dropped, time.perf_counter() - start)


def _prepare_fitted(store: SqliteStore, embedder: Embedder, known: dict[int, str]) -> dict[int, str]:
    """Fit a corpus-fitted embedder on the whole store when the store changed; then all vectors are stale."""
    generation = store.generation()
    cached = store.get_cache(embedder_state_cache(embedder.name))
    if cached and cached[0] == generation:
        embedder.loads(cached[1])
        return known
    embedder.fit([paper_text(p) for _, p in store.paper_rows()])
    state = embedder.dumps()
    with store.transaction():
        if state is not None:
            store.put_cache(embedder_state_cache(embedder.name), generation, state)
    return {}
