"""Answers refreshed off the request path: after a write, the first reader of a statistics page or a ranking gets
the answer made before it (marked as refreshing) while one background thread makes the new one."""

from __future__ import annotations

import logging
import queue
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

log = logging.getLogger("confnav.web")
REFRESHING_HEADER = "X-Confnav-Refreshing"  # "1" on an answer made before the store's last write
MAX_LATEST = 256  # answers kept for refreshing (venues × kinds × modes); least recently used go first


class Refresher:
    """The last answer per key with the store state it was made for, and one thread that remakes stale ones, each
    key at most once at a time (its own connection, reused: a thread per refresh would open one each time)."""

    def __init__(self) -> None:
        self._latest: OrderedDict[Hashable, tuple[object, object]] = OrderedDict()
        self._pending: set[Hashable] = set()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._work: queue.Queue[tuple[Hashable, Callable[[], None]] | None] = queue.Queue()
        self._thread: threading.Thread | None = None

    def latest(self, key: Hashable) -> tuple[object, object] | None:
        """(state, answer) last made for `key`, or None."""
        with self._lock:
            found = self._latest.get(key)
            if found is not None:
                self._latest.move_to_end(key)
            return found

    def keep(self, key: Hashable, state: object, answer: object) -> None:
        with self._lock:
            self._latest[key] = (state, answer)
            self._latest.move_to_end(key)
            while len(self._latest) > MAX_LATEST:
                self._latest.popitem(last=False)

    def remake(self, key: Hashable, make: Callable[[], tuple[object, object]]) -> None:
        """Queue `make` (returning the state it read first and the answer) unless `key` is already queued."""
        with self._lock:
            if key in self._pending:
                return
            self._pending.add(key)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="refresher", daemon=True)
                self._thread.start()
        self._work.put((key, lambda: self.keep(key, *make())))

    def _run(self) -> None:
        while (item := self._work.get()) is not None:
            key, work = item
            try:
                work()
            except Exception:  # the stale answer stays; the next reader asks again
                log.exception("refreshing %s failed", key)
            finally:
                with self._idle:
                    self._pending.discard(key)
                    self._idle.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until nothing is queued or being made (tests, benchmarks); False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._pending, timeout)

    def close(self) -> None:
        """Stop the thread after what it is making (queued work is dropped with the process)."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._work.put(None)
            thread.join(timeout=30)
