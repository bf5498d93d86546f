"""The store as each request thread of the web app sees it: a connection per thread, the store methods the
searcher reads through, and the change counters they share (read at most every STATE_AGE seconds)."""

from __future__ import annotations

import contextlib
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, cast, overload

from confnav.settings import Settings
from confnav.store import StoreCaches, is_postgres, open_store
from confnav.store.derived import versions_of
from confnav.store.protocols import NearestNeighbours
from confnav.store.sql import SqlStore

P = ParamSpec("P")
R = TypeVar("R")
WRITE_WAIT = 5.0  # seconds a request's write waits for another writer (an ingest) before a 503
STATE_AGE = 0.05  # seconds a read of the store's change counters is trusted for writes made by other processes


class OnThread(Generic[P, R]):
    """A store method of `ThreadStores`, called on the calling thread's own store with the method's signature."""

    def __init__(self, method: Callable[Concatenate[Any, P], R]) -> None:
        self.name = method.__name__

    @overload
    def __get__(self, stores: None, owner: type) -> OnThread[P, R]: ...

    @overload
    def __get__(self, stores: ThreadStores, owner: type) -> Callable[P, R]: ...

    def __get__(self, stores: ThreadStores | None, owner: type) -> OnThread[P, R] | Callable[P, R]:
        if stores is None:
            return self
        return cast(Callable[P, R], getattr(stores.current(), self.name))


class ThreadStores:
    """The store as each request thread sees it: `current()` is that thread's own connection, and the store
    methods listed below (what the searcher's readers call) go to it.

    Long work (topic builds) is never done inline by these connections: it runs as a background job.
    The change counters (`state`) are read at most every STATE_AGE seconds, by a watcher thread once started:
    a read per request made every request thread wait for the interpreter lock after each query.
    """

    def __new__(cls, location: str | Path, read_only: bool = False, settings: Settings | None = None) -> ThreadStores:
        """A backend whose store searches vectors itself gets the stores that say so (`NeighbourThreadStores`)."""
        chosen = NeighbourThreadStores if cls is ThreadStores and is_postgres(location) else cls
        return super().__new__(chosen)

    def __init__(self, location: str | Path, read_only: bool = False, settings: Settings | None = None) -> None:
        # `location` itself (the name messages use, without a password) comes from the store, like every method
        self.path_or_url, self.read_only = location, read_only
        self.settings = (settings or Settings()).replace(serving=True, read_only=read_only)
        self._local = threading.local()
        # held weakly: a thread that ends takes its connection with it (a test client runs each request on a new
        # thread; holding every one until the app closed ran a test server out of connections)
        self._opened: weakref.WeakSet[SqlStore] = weakref.WeakSet()
        self._lock = threading.Lock()
        # SQLite's in-memory papers, decision names, rating scales: one copy for all of this process's connections
        self.caches = StoreCaches()
        self._state: tuple[float, tuple[tuple[str, int], ...]] | None = None
        self._forgotten = 0  # how many times `forget_state` ran: a read begun before it is not kept
        self._watching: tuple[threading.Event, threading.Thread] | None = None
        self.current()  # fail at start-up, not on the first request, when the store cannot be opened

    def current(self) -> SqlStore:
        store: SqlStore | None = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = open_store(
                self.path_or_url, read_only=self.read_only, settings=self.settings, caches=self.caches
            )
            store.wait_for_writers(WRITE_WAIT)
            with self._lock:
                self._opened.add(store)
        return store

    @property
    def location(self) -> str:
        """What messages call the store (without a password), as the store itself says."""
        return self.current().location

    # What the searcher, the ask answers and the experts read through the store they were given: each is the
    # store's own method, called on the calling thread's connection.
    transaction = OnThread(SqlStore.transaction)
    generation = OnThread(SqlStore.generation)
    venue_generation = OnThread(SqlStore.venue_generation)
    venue_vectors_generation = OnThread(SqlStore.venue_vectors_generation)
    count_change = OnThread(SqlStore.count_change)
    get_venue = OnThread(SqlStore.get_venue)
    pick_venue = OnThread(SqlStore.pick_venue)
    venues = OnThread(SqlStore.venues)
    venue_summary = OnThread(SqlStore.venue_summary)
    venue_list = OnThread(SqlStore.venue_list)
    get_paper = OnThread(SqlStore.get_paper)
    papers = OnThread(SqlStore.papers)
    iter_papers = OnThread(SqlStore.iter_papers)
    paper_rows = OnThread(SqlStore.paper_rows)
    count_papers = OnThread(SqlStore.count_papers)
    filter_pks = OnThread(SqlStore.filter_pks)
    papers_by_pk = OnThread(SqlStore.papers_by_pk)
    texts_by_pk = OnThread(SqlStore.texts_by_pk)
    author_keys = OnThread(SqlStore.author_keys)
    author_profiles = OnThread(SqlStore.author_profiles)
    profile_names = OnThread(SqlStore.profile_names)
    coauthored = OnThread(SqlStore.coauthored)
    keywords_in = OnThread(SqlStore.keywords_in)
    pks_with = OnThread(SqlStore.pks_with)
    papers_changed_since = OnThread(SqlStore.papers_changed_since)
    paper_texts = OnThread(SqlStore.paper_texts)
    paper_places = OnThread(SqlStore.paper_places)
    pks_of = OnThread(SqlStore.pks_of)
    row_facts = OnThread(SqlStore.row_facts)
    placeholder_pks = OnThread(SqlStore.placeholder_pks)
    venues_of = OnThread(SqlStore.venues_of)
    decision_names = OnThread(SqlStore.decision_names)
    decision_counts = OnThread(SqlStore.decision_counts)
    decision_labels = OnThread(SqlStore.decision_labels)
    paper_decisions = OnThread(SqlStore.paper_decisions)
    rating_scales = OnThread(SqlStore.rating_scales)
    get_cache = OnThread(SqlStore.get_cache)
    cache_generation = OnThread(SqlStore.cache_generation)
    files_home = OnThread(SqlStore.files_home)
    put_cache = OnThread(SqlStore.put_cache)
    embedding_hashes = OnThread(SqlStore.embedding_hashes)
    put_embeddings = OnThread(SqlStore.put_embeddings)
    copy_embeddings = OnThread(SqlStore.copy_embeddings)
    vector_size = OnThread(SqlStore.vector_size)
    drop_vectors = OnThread(SqlStore.drop_vectors)
    delete_embeddings = OnThread(SqlStore.delete_embeddings)
    embedding_models = OnThread(SqlStore.embedding_models)
    embeddings = OnThread(SqlStore.embeddings)
    index_vectors = OnThread(SqlStore.index_vectors)
    themes = OnThread(SqlStore.themes)
    themes_of = OnThread(SqlStore.themes_of)
    assignments = OnThread(SqlStore.assignments)
    profile_items = OnThread(SqlStore.profile_items)
    profile_marks = OnThread(SqlStore.profile_marks)

    def state(self) -> tuple[tuple[str, int], ...]:
        """The change counters: writes made through this process are seen at once (they `forget_state`),
        writes of other processes (workers, an ingest) within STATE_AGE."""
        known = self.known_state()
        if known is None:
            known = self._read_state()
        return known

    def versions(self) -> tuple[int, int]:
        """(generation, vectors) out of the remembered counters: the searcher asks before every search."""
        return versions_of(self.state())

    def known_state(self) -> tuple[tuple[str, int], ...] | None:
        """The counters if read within STATE_AGE, without a query; else None."""
        known = self._state
        return None if known is None or time.monotonic() - known[0] > STATE_AGE else known[1]

    def forget_state(self) -> None:
        """After a write through this process: the next `state` reads the counters again."""
        self._forgotten += 1
        self._state = None

    def watch_state(self) -> None:
        """Read the counters in a background thread twice per STATE_AGE, so `known_state` is always fresh."""
        stop = threading.Event()

        def watch() -> None:
            while not stop.wait(STATE_AGE / 2):
                with contextlib.suppress(Exception):  # a busy store: requests read it themselves
                    self._read_state()

        watcher = threading.Thread(target=watch, name="store-state", daemon=True)
        self._watching = (stop, watcher)
        watcher.start()

    def _read_state(self) -> tuple[tuple[str, int], ...]:
        """Read the counters and keep them, aged from when the read began; not kept when `forget_state` ran
        meanwhile (the watcher's read may have begun before the write it was told of)."""
        began, forgotten = time.monotonic(), self._forgotten
        state = self.current().state()
        if forgotten == self._forgotten:
            self._state = (began, state)
        return state

    def close(self) -> None:
        """Stop the watcher first (a connection closed during its query would crash the process), then close."""
        if self._watching is not None:
            stop, watcher = self._watching
            stop.set()
            watcher.join()
            self._watching = None
        with self._lock:
            for store in list(self._opened):
                store.close()
            self._opened.clear()


class NeighbourThreadStores(ThreadStores):
    """Per-thread stores of a backend that finds nearest neighbours itself (PostgreSQL with pgvector)."""

    nearest = OnThread(NearestNeighbours.nearest)
    vector_scores = OnThread(NearestNeighbours.vector_scores)
    vectors_of = OnThread(NearestNeighbours.vectors_of)
