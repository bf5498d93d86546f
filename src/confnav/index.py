"""The index job: one embedding per paper of "title. abstract" (and of its keywords), kept incrementally, then
the keyword index, so that a server's requests only read it (the venues' TL;DRs are the next step,
`summarize.stored.keep_tldrs`, run after this one by `Navigator.index`)."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from confnav.embed import check_name
from confnav.embed.base import Embedder, embed_checked
from confnav.embed.views import PRIMARY_CACHE, VIEWS, embedder_state_cache, paper_text, semantic_model, text_hash
from confnav.errors import ConfnavError, argument
from confnav.model import Paper
from confnav.progress import Progress
from confnav.search.stored import build_keyword_index
from confnav.store.protocols import SearchStore

BATCH = 256


@dataclass
class IndexResult:
    """What `confnav index` did: the model, papers embedded now, papers already up to date (of the venue given,
    else of the store), and every vector it dropped."""

    model: str
    embedded: int
    unchanged: int
    dropped_vectors: int  # of other models, and (`refit_dropped`) a refitted model's vectors of another size
    seconds: float
    tldrs: int = 0  # TL;DRs made by the step after this job (`Navigator.index`), with its time in `seconds`
    texts: int = 0  # distinct texts embedded now
    reused: int = 0  # vectors given from the same text (another venue's copy of a paper, or the other view)
    other_venues: int = 0  # of `embedded`: papers outside the venue given, re-embedded for a corpus-fitted model's fit
    refit_dropped: int = 0  # of `dropped_vectors`: the old fit's vectors, of another size (their papers re-embedded)

    def to_dict(self) -> dict[str, object]:
        return self.__dict__.copy()


def build_index(
    store: SearchStore,
    embedder: Embedder,
    venue: str | None = None,
    progress: Progress | None = None,
    add: bool = False,
) -> IndexResult:
    """Embed the papers whose text changed since the last run (all of them after a model change); `add` keeps
    the other models' vectors beside this one's (search sends each query to a model that reads its language).
    With `venue`, a corpus-fitted model still covers the whole store: the vectors of one fit compare only with
    each other, so the other venues' papers an earlier fit embedded are re-embedded with this one."""
    start = time.perf_counter()
    check_name(embedder, store.settings.cache_dir)  # before the old index is dropped
    if venue:
        venue = store.get_venue(venue).id
    rows = list(store.paper_rows(venue))
    size = None if embedder.fitted_on_corpus else _probe(store, embedder)  # before the old index is dropped
    main = (semantic_model(store) if add else None) or embedder.name  # an added model never becomes the main one
    keep = [embedder.name + view for view in VIEWS] + (list(store.embedding_models()) if add else [])
    if venue:
        _keep_other_venues(store, venue, embedder.name, {pk for pk, _ in rows}, keep)
    with store.transaction():
        dropped = store.delete_embeddings(keep_models=keep)
        store.put_cache(PRIMARY_CACHE, 0, main.encode())
    stamp, refit_dropped = _prepare_fitted(store, embedder) if embedder.fitted_on_corpus else ("", 0)
    size = size or embed_checked(embedder, ["size"]).shape[1]
    whole = list(store.paper_rows()) if venue and embedder.fitted_on_corpus else rows
    todo, copies = _work(store, embedder, whole, stamp)
    if copies:  # before any vector is replaced: a copy's source may be re-embedded below
        with store.transaction():
            for view, pairs in copies.items():
                store.copy_embeddings(embedder.name + view, pairs)
    texts = sorted(todo, key=len)  # similar lengths batch with little padding
    papers = len({pk for targets in todo.values() for _, pk in targets})
    if progress:
        progress.start(f"embedding {len(texts):,} texts of {papers:,} papers with {embedder.name}", len(texts))
    for offset in range(0, len(texts), BATCH):
        batch = texts[offset : offset + BATCH]
        vectors = embed_checked(embedder, batch, size=size)
        with store.transaction():
            for view in VIEWS:
                rows_of_view = [
                    (pk, text_hash(text, stamp), vectors[i].tobytes())
                    for i, text in enumerate(batch)
                    for v, pk in todo[text]
                    if v == view
                ]
                store.put_embeddings(embedder.name + view, rows_of_view)
        if progress:
            progress.advance(len(batch))
    store.index_vectors(embedder.name)  # PostgreSQL: the HNSW index, once the vectors are in
    build_keyword_index(store, rebuild=False)  # stored here, so that a server's requests only read it
    copied = {pk for pairs in copies.values() for _, pk in pairs}
    done = {pk for targets in todo.values() for _, pk in targets} | copied
    asked = {pk for pk, _ in rows}
    reused = sum(len(p) for p in copies.values()) + sum(len(targets) - 1 for targets in todo.values())
    return IndexResult(
        model=embedder.name,
        embedded=len(done),
        unchanged=len(asked - done),
        dropped_vectors=dropped + refit_dropped,
        seconds=time.perf_counter() - start,
        texts=len(texts),
        reused=reused,
        other_venues=len(done - asked),
        refit_dropped=refit_dropped,
    )


def _probe(store: SearchStore, embedder: Embedder) -> int:
    """The size of a pretrained embedder's vectors, from one text: a model that cannot load, or gives vectors that
    are no use (see `embed_checked`) or of another size than its stored ones, fails here, before anything is written."""
    size = int(embed_checked(embedder, ["load check"]).shape[1])
    stored = store.vector_size(embedder.name)
    if stored not in (None, size):
        raise ConfnavError(
            f"embedder {embedder.name!r} gives vectors of {size} numbers, but the store's vectors of that name have"
            f" {stored}: give the changed model another name (a new name re-embeds every paper)"
        )
    return size


def _keep_other_venues(store: SearchStore, venue: str, new: str, pks: set[int], keep: list[str]) -> None:
    """Refuse a run over one venue's papers (`pks`) that would drop other venues' vectors: a store's venues share
    one model, and embedding one venue with another would leave the rest without a semantic index."""
    for model in store.embedding_models():  # a text view sorts before its keyword view, which goes with it
        if model in keep:
            continue
        others = sum(1 for pk in store.embedding_hashes(model) if pk not in pks)
        if others:
            raise ConfnavError(
                f"the store's other venues are embedded with {model!r} ({others:,} papers), and embedding {venue} "
                f"with {new!r} would drop their vectors: give {argument('model', model)} to embed {venue} as they are, "
                f"index every venue with {new!r} (no {argument('venue')}), or keep both models with"
                f" {argument('add', True)}"
            )


def _work(
    store: SearchStore, embedder: Embedder, rows: list[tuple[int, Paper]], stamp: str
) -> tuple[dict[str, list[tuple[str, int]]], dict[str, list[tuple[int, int]]]]:
    """What this run must do: each text to embed with the (view, paper) vectors it becomes, and per view the
    (from, to) papers whose stored vector of the same text is copied. A text is embedded once per model however
    many papers (a paper in several venues) and views hold it."""
    todo: dict[str, list[tuple[str, int]]] = {}
    copies: dict[str, list[tuple[int, int]]] = {}
    for view, make_text in VIEWS.items():
        known = store.embedding_hashes(embedder.name + view)
        held = {digest: pk for pk, digest in known.items()}
        for pk, paper in rows:
            digest = text_hash(text := make_text(paper), stamp)
            if known.get(pk) == digest:
                continue
            if digest in held:
                copies.setdefault(view, []).append((held[digest], pk))
            else:
                todo.setdefault(text, []).append((view, pk))
    return todo, copies


def _prepare_fitted(store: SearchStore, embedder: Embedder) -> tuple[str, int]:
    """Load a corpus-fitted embedder, refitting on the whole store when it changed (or its state is unreadable);
    returns the state's stamp, which every vector made from it carries, so an interrupted run's mix of old and new
    vectors is finished by the next run rather than taken as up to date, and how many old vectors it dropped."""
    generation = store.generation()
    cached = store.get_cache(embedder_state_cache(embedder.name))
    state: bytes | None = None
    if cached and cached[0] == generation:
        try:
            embedder.loads(cached[1])
            state = cached[1]
        except ConfnavError:
            state = None
    dropped = 0
    if state is None:
        embedder.fit([paper_text(p) for _, p in store.paper_rows()])
        state = embedder.dumps() or b""
        size = embed_checked(embedder, ["size"]).shape[1]
        with store.transaction():
            for view in VIEWS:  # vectors of another size cannot stand beside the new ones
                if store.vector_size(embedder.name + view) not in (None, size):
                    dropped += store.drop_vectors(embedder.name + view)
            store.put_cache(embedder_state_cache(embedder.name), generation, state)
    return hashlib.sha1(state).hexdigest()[:12], dropped
