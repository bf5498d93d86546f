"""What the web app keeps for its life: a connection per request thread, one writer, a warm Searcher,
background jobs and the write token."""

from __future__ import annotations

import contextlib
import hmac
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, cast, overload

import anyio.to_thread
from fastapi import Request

from confnav.errors import ConfnavError, StoreBusyError
from confnav.navigator import Navigator
from confnav.search.engine import Searcher
from confnav.settings import Settings
from confnav.store import StoreCaches, is_postgres, open_store
from confnav.store.derived import versions_of
from confnav.store.jobs import LEASE_SECONDS
from confnav.store.protocols import NearestNeighbours, Store
from confnav.store.sql import SqlStore
from confnav.summarize.stored import venue_summarizer
from confnav.summarize.tldr import ExtractiveSummarizer
from confnav.web.refresh import Refresher

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R")
MAX_ANSWER_BYTES = 64 << 20  # cached answers together; least recently used go first
MAX_ANSWER_SHARE = 8  # one answer larger than this share of the budget is served but not kept
WRITE_WAIT = 5.0  # seconds a request's write waits for another writer (an ingest) before a 503
STATE_AGE = 0.05  # seconds a read of the store's change counters is trusted for writes made by other processes
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
log = logging.getLogger("confnav.web")


class WriteForbidden(ConfnavError):
    """A write without the token printed at start-up (only required off loopback), or to a read-only server."""


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
        self._opened: list[SqlStore] = []
        self._lock = threading.Lock()
        # SQLite's in-memory papers, decision names, rating scales: one copy for all of this process's connections
        self.caches = StoreCaches()
        self._state: tuple[float, tuple[tuple[str, int], ...]] | None = None
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
                self._opened.append(store)
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
    count_change = OnThread(SqlStore.count_change)
    get_venue = OnThread(SqlStore.get_venue)
    pick_venue = OnThread(SqlStore.pick_venue)
    venues = OnThread(SqlStore.venues)
    get_paper = OnThread(SqlStore.get_paper)
    papers = OnThread(SqlStore.papers)
    iter_papers = OnThread(SqlStore.iter_papers)
    paper_rows = OnThread(SqlStore.paper_rows)
    count_papers = OnThread(SqlStore.count_papers)
    filter_pks = OnThread(SqlStore.filter_pks)
    papers_by_pk = OnThread(SqlStore.papers_by_pk)
    texts_by_pk = OnThread(SqlStore.texts_by_pk)
    author_keys = OnThread(SqlStore.author_keys)
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
        state = self.current().state()
        self._state = (time.monotonic(), state)
        return state

    def close(self) -> None:
        """Stop the watcher first (a connection closed during its query would crash the process), then close."""
        if self._watching is not None:
            stop, watcher = self._watching
            stop.set()
            watcher.join()
            self._watching = None
        with self._lock:
            for store in self._opened:
                store.close()
            self._opened.clear()


class NeighbourThreadStores(ThreadStores):
    """Per-thread stores of a backend that finds nearest neighbours itself (PostgreSQL with pgvector)."""

    nearest = OnThread(NearestNeighbours.nearest)
    vector_scores = OnThread(NearestNeighbours.vector_scores)
    vectors_of = OnThread(NearestNeighbours.vectors_of)


@dataclass
class AppState:
    stores: ThreadStores  # a connection per request thread, and the change counters they share
    searcher: Searcher
    token: str | None = None
    read_only: bool = False
    location: str | Path = ""
    shared: bool = False  # reachable from other machines: each profile opens only with its own secret
    root: InitVar[Navigator | None] = None  # the app's navigator; None: one over `store` and its settings
    navigator: Navigator = field(init=False)
    _writer: threading.Lock = field(default_factory=threading.Lock)
    _answers: OrderedDict[tuple[object, ...], tuple[object, int]] = field(default_factory=OrderedDict)
    _answer_bytes: int = 0
    _answers_lock: threading.Lock = field(default_factory=threading.Lock)
    _computing: dict[tuple[object, ...], threading.Lock] = field(default_factory=dict)
    refresher: Refresher = field(default_factory=Refresher)

    def __post_init__(self, root: Navigator | None) -> None:
        self.navigator = root or Navigator(self.stores.settings, self.stores)

    @property
    def store(self) -> SqlStore:
        """The store as the calling thread sees it: that thread's own connection."""
        return self.stores.current()

    def cached(self, key: tuple[object, ...], compute: Callable[[], T], searched: bool = False) -> T:
        """An answer computed once per store state (papers, vectors, themes, signals), kept within a byte budget
        (least recently used go first); requests asking at once for the same answer wait for one computation.

        The state is `ThreadStores.state`, so a write made through another worker is seen within STATE_AGE;
        a `searched` answer computed while search still loads a new state is served but not kept.
        """
        full = (self.stores.state(), *key)
        with self._answers_lock:
            if full in self._answers:
                self._answers.move_to_end(full)
                return self._answers[full][0]  # type: ignore[return-value]
            computing = self._computing.setdefault(full, threading.Lock())
        with computing:
            with self._answers_lock:
                if full in self._answers:  # another request computed it meanwhile
                    return self._answers[full][0]  # type: ignore[return-value]
            current = not searched or self.searcher.current()
            try:
                value = compute()
            finally:
                with self._answers_lock:
                    self._computing.pop(full, None)
            size = _size(value)
            if current and size <= MAX_ANSWER_BYTES // MAX_ANSWER_SHARE:
                with self._answers_lock:
                    if full not in self._answers:
                        self._answers[full] = (value, size)
                        self._answer_bytes += size
                    while self._answer_bytes > MAX_ANSWER_BYTES:
                        self._answer_bytes -= self._answers.popitem(last=False)[1][1]
        return value

    def refreshed(self, key: tuple[object, ...], compute: Callable[[], T]) -> tuple[T, bool]:
        """(answer, refreshing): the answer for the store's current state when made, else the last one made (True)
        while the refresher makes the current one off the request path; the very first is made here."""
        current = self.stores.state()
        found = self.refresher.latest(key)
        if found is not None and found[0] == current:
            return found[1], False  # type: ignore[return-value]
        if found is None:
            answer = self.cached(key, compute)
            self.refresher.keep(key, current, answer)
            return answer, False

        def remake() -> tuple[object, object]:
            state = self.stores.state()  # read first: a write during the computation makes it stale again
            return state, compute()

        self.refresher.remake(key, remake)
        return found[1], True  # type: ignore[return-value]

    def kept(self, key: tuple[object, ...]) -> object | None:
        """A kept answer, found without touching the store (None when the counters are not freshly known)."""
        known = self.stores.known_state()
        if known is None:
            return None
        with self._answers_lock:
            found = self._answers.get((known, *key))
        return None if found is None else found[0]

    async def answer(self, key: tuple[object, ...], compute: Callable[[], T], searched: bool = False) -> T:
        """`cached` for async endpoints: a kept answer straight from the event loop (a hop to a request thread
        and back costs more than the lookup), anything else in a request thread."""
        found = self.kept(key)
        if found is not None:
            return found  # type: ignore[return-value]
        return await anyio.to_thread.run_sync(self.cached, key, compute, searched)

    def check_write(self, request: Request) -> None:
        """Writes need the start-up token when the app is reachable from other machines; none on a read-only one."""
        if self.read_only:
            raise WriteForbidden("this server is read-only")
        if self.token is None:
            return
        given = request.headers.get("x-confnav-token", "")
        if not hmac.compare_digest(given, self.token):
            raise WriteForbidden("this server needs the token printed at start-up (header X-Confnav-Token) for writes")

    @contextmanager
    def writing(self, request: Request) -> Iterator[Store]:
        """The store for one write, after the token check; one writer at a time in this process. A write waits
        WRITE_WAIT seconds in all, behind this process's writes and another process's (an ingest) together,
        then answers 503: queued writes never add up their waits."""
        self.check_write(request)
        deadline = time.monotonic() + WRITE_WAIT
        if not self._writer.acquire(timeout=WRITE_WAIT):
            raise StoreBusyError(self.store.location, WRITE_WAIT)
        try:
            self.store.wait_for_writers(max(0.0, deadline - time.monotonic()))
            yield self.store
        except StoreBusyError:
            raise StoreBusyError(self.store.location, WRITE_WAIT) from None
        finally:
            self.store.wait_for_writers(WRITE_WAIT)
            self.stores.forget_state()
            self._writer.release()

    def start_topics_job(self, venue: str, rebuild: bool = False) -> dict[str, str]:
        """Build a venue's themes in a background thread with its own connection; the job row says how it went."""
        from confnav.topics import ensure_topics

        self.store.get_venue(venue)
        job, new = self.store.start_job("topics", venue)
        if not new:
            return job

        def run() -> None:
            ended = threading.Event()
            threading.Thread(target=self._keep_lease, args=(job["id"], ended), daemon=True).start()
            try:
                with open_store(self.location, settings=self.stores.settings.replace(serving=False)) as store:
                    ensure_topics(store, venue, rebuild=rebuild)
                    store.finish_job(job["id"], "done", f"themes of {venue} built")
                self.stores.forget_state()
            except Exception as exc:
                log.exception("job %s failed", job["id"])
                with open_store(self.location, settings=self.stores.settings.replace(serving=False)) as store:
                    store.finish_job(
                        job["id"], "failed", str(exc) if isinstance(exc, ConfnavError) else "internal error"
                    )
            finally:
                ended.set()

        threading.Thread(target=run, name=f"job-{job['id']}", daemon=True).start()
        return job

    def _keep_lease(self, job_id: str, ended: threading.Event) -> None:
        """Renew a running job's lease until it ends, on a connection of its own: a job whose process is killed
        stops renewing, and is seen as stopped once its lease runs out (store/jobs.py)."""
        with open_store(self.location, settings=self.stores.settings.replace(serving=False)) as store:
            store.wait_for_writers(LEASE_SECONDS / 3)
            while not ended.wait(LEASE_SECONDS / 3):
                try:
                    store.renew_job(job_id)
                except StoreBusyError:  # another writer held the store: the next turn renews it
                    continue

    def summarizer(self, venue: str) -> ExtractiveSummarizer:
        """The venue's summarizer, holding the TL;DRs kept in the store; read once per store state."""
        return self.cached(("summarizer", venue), lambda: venue_summarizer(self.store, venue))

    def theme_of(self, venue: str, paper_id: str) -> dict[str, str] | None:
        """A paper's theme id and label, when its venue has themes: the venue's map is built once per store
        state by one request (every request of a fresh server building it at once took 5 s each)."""
        return self.cached(("themes by paper", venue), lambda: self._themes_by_paper(venue)).get(paper_id)

    def _themes_by_paper(self, venue: str) -> dict[str, dict[str, str]]:
        themes = {t.id: t.label for t in self.store.themes(venue, 1)}
        assigned = self.store.assignments(venue)
        papers = self.store.papers_by_pk(list(assigned))
        return {
            papers[pk].id: {"id": a.theme, "label": themes.get(a.theme, a.theme)}
            for pk, a in assigned.items()
            if pk in papers
        }


def _size(value: object) -> int:
    """About how many bytes an answer holds: exact for encoded bodies, a generous guess for other values."""
    if isinstance(value, bytes | str):
        return len(value)
    return 64 * 1024


def state_of(request: Request) -> AppState:
    return request.app.state.confnav
