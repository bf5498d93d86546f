"""Writes a transaction sends from a second thread while its caller goes on computing: PostgreSQL applies one venue's
rows on its own core while the client merges the next venue's. Anything else that uses the connection waits for
them first, so statements still run in the order they were made, and a failed write fails the transaction."""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

PENDING_LIMIT = 8  # writes waiting at most: each holds its rows in memory until sent
# While writes are in flight the interpreter hands its lock between threads every 1 ms instead of 5 ms: the sending
# thread wakes each time the server has taken a buffer, and at 5 ms a turn the server sat idle. On a 96,000-paper
# ingest the caller waited 14 s for the sender at 5 ms, about 5 s at 0.5 ms; 0.2, 0.5 and 1 ms gave 47.2, 45.5 and
# 44.5 s in all (two runs each), the shorter turns costing more CPU in switches.
SWITCH_INTERVAL = 0.001


class DeferredWrites:
    """Jobs run one at a time, in order, on one thread; `settle` waits for all of them and raises the first error."""

    def __init__(self, limit: int = PENDING_LIMIT) -> None:
        self.limit = limit
        self._pool: ThreadPoolExecutor | None = None
        self._pending: deque[Future[None]] = deque()
        self._interval: float | None = None  # the interpreter's switch interval before writes were in flight

    def submit(self, job: Callable[[], None]) -> None:
        """Queue a job (waiting first for the oldest while `limit` are pending)."""
        while len(self._pending) >= self.limit:
            self._finish_oldest()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="confnav-writes")
        if self._interval is None:
            self._interval = sys.getswitchinterval()
            sys.setswitchinterval(min(self._interval, SWITCH_INTERVAL))
        self._pending.append(self._pool.submit(job))

    def settle(self) -> None:
        """Wait for every queued job; the first that failed raises its error once all have stopped."""
        while self._pending:
            self._finish_oldest()
        self._restore()

    def discard(self) -> None:
        """Wait for every queued job and drop their errors (the transaction is being rolled back anyway)."""
        while self._pending:
            self._pending.popleft().exception()
        self._restore()

    def _restore(self) -> None:
        if self._interval is not None:
            sys.setswitchinterval(self._interval)
            self._interval = None

    def close(self) -> None:
        self.discard()
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def _finish_oldest(self) -> None:
        error = self._pending.popleft().exception()
        if error is not None:
            self.discard()  # later jobs fail too, on the aborted transaction: the first error is the one to tell
            raise error
