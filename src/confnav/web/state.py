"""What the web app keeps for its life: a connection per request thread (`ThreadStores`), one writer, a warm
Searcher, answers kept per store state, background jobs and the write token."""

from __future__ import annotations

import hmac
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import TypeVar

import anyio
import anyio.to_thread
from fastapi import Request

from confnav.errors import ConfnavError, StoreBusyError
from confnav.navigator import Navigator
from confnav.search.engine import Searcher
from confnav.store import open_store
from confnav.store.jobs import LEASE_SECONDS
from confnav.store.protocols import Store
from confnav.store.sql import SqlStore
from confnav.summarize.stored import venue_summarizer
from confnav.summarize.tldr import ExtractiveSummarizer
from confnav.web.refresh import Refresher
from confnav.web.thread_stores import STATE_AGE, WRITE_WAIT, ThreadStores

__all__ = ["LOOPBACK_HOSTS", "STATE_AGE", "WRITE_WAIT", "AppState", "ThreadStores", "WriteForbidden", "state_of"]

T = TypeVar("T")
MAX_ANSWER_BYTES = 64 << 20  # cached answers together; least recently used go first
MAX_ANSWER_SHARE = 8  # one answer larger than this share of the budget is served but not kept
# Quick answers (a search, a paper) computed at once in one worker; the rest wait their turn, first come first
# served. Eight at once shared the interpreter lock and the cores by turns, so under 50 clients of new searches
# every answer took as long as all of them together. Two did best there, but behind them the first-time answers
# of a mostly cached load waited in line (web_load.py p99 120 -> 208 ms); four keep both: benchmarks/scale.py,
# never-asked searches, p99 about 200 -> 147 ms at 10,000 papers, and web_load.py's repeated queries p99 139 ms.
QUICK_LANE = 4
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
log = logging.getLogger("confnav.web")


class WriteForbidden(ConfnavError):
    """A write without the token printed at start-up (only required off loopback), or to a read-only server."""


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
    _quick_lane: anyio.CapacityLimiter | None = None  # made in the event loop by the first quick answer

    def __post_init__(self, root: Navigator | None) -> None:
        self.navigator = root or Navigator(self.stores.settings, self.stores)

    @property
    def store(self) -> SqlStore:
        """The store as the calling thread sees it: that thread's own connection."""
        return self.stores.current()

    def cached(
        self, key: tuple[object, ...], compute: Callable[[], T], searched: bool = False, depends: object = None
    ) -> T:
        """An answer computed once per store state (papers, vectors, themes, signals), kept within a byte budget
        (least recently used go first); requests asking at once for the same answer wait for one computation.

        The state is `ThreadStores.state`, so a write made through another worker is seen within STATE_AGE;
        a `searched` answer computed while search still loads a new state is served but not kept. `depends`: the
        part of the state the answer depends on (one venue's counter), when less than all of it.
        """
        full = (self.stores.state() if depends is None else ("part", depends), *key)
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

    async def answer(
        self, key: tuple[object, ...], compute: Callable[[], T], searched: bool = False, quick: bool = False
    ) -> T:
        """`cached` for async endpoints: a kept answer straight from the event loop (a hop to a request thread
        and back costs more than the lookup), anything else in a request thread; a `quick` one (milliseconds of
        this process's work, no wait on an outside service) in its turn, QUICK_LANE at a time."""
        found = self.kept(key)
        if found is not None:
            return found  # type: ignore[return-value]
        if not quick:
            return await anyio.to_thread.run_sync(self.cached, key, compute, searched)
        if self._quick_lane is None:
            self._quick_lane = anyio.CapacityLimiter(QUICK_LANE)
        return await anyio.to_thread.run_sync(self.cached, key, compute, searched, limiter=self._quick_lane)

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
        then answers 503: queued writes never add up their waits. Where the time went is told in the answer's
        Server-Timing header (see `write_timing`)."""
        self.check_write(request)
        entered = time.perf_counter()
        deadline = time.monotonic() + WRITE_WAIT
        if not self._writer.acquire(timeout=WRITE_WAIT):
            raise StoreBusyError(self.store.location, WRITE_WAIT)
        store = self.store
        queued, store.lock_waited = time.perf_counter() - entered, 0.0
        try:
            store.write_deadline = deadline  # one deadline for each of the write's transactions
            yield store
        except StoreBusyError:
            raise StoreBusyError(self.store.location, WRITE_WAIT) from None
        finally:
            store.write_deadline = None
            self.stores.forget_state()
            self._writer.release()
            arrived = getattr(request.state, "arrived", entered)
            request.state.server_timing = write_timing(arrived, entered, queued, store.lock_waited)

    def start_topics_job(self, venue: str, rebuild: bool = False) -> dict[str, str]:
        """Build a venue's themes in a background thread with its own connection; the job row says how it went."""
        from confnav.topics import ensure_topics

        venue = self.store.get_venue(venue).id
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


def write_timing(arrived: float, entered: float, queued: float, locked: float) -> str:
    """A write's Server-Timing value (W3C), in milliseconds: from its arrival to its start (`start`: the body
    read, a free request thread), its wait behind this process's writes (`queue`) and for the store's writer
    lock (`lock`: another process's ingest), and the rest of its own work (`work`)."""
    parts = {
        "start": entered - arrived,
        "queue": queued,
        "lock": locked,
        "work": time.perf_counter() - entered - queued - locked,
    }
    return ", ".join(f"{name};dur={seconds * 1000:.1f}" for name, seconds in parts.items())


def state_of(request: Request) -> AppState:
    return request.app.state.confnav
