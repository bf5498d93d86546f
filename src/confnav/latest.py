"""Values kept for the newest state of the store only: once the store has moved on, no reader asks for an older
state again, so keeping one (a venue's vectors, a ranking: tens of MB each) only holds memory."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

S = TypeVar("S", bound=Hashable)
T = TypeVar("T")


class LatestPerKey(Generic[S, T]):
    """At most `size` keys, each with the value made for one state; a value for a new state of a key replaces the
    old one, and the least recently used key goes first. Thread-safe."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[Hashable, tuple[S, T]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, state: S) -> T | None:
        """The value kept for `key` in `state`, or None (none kept, or one made for another state)."""
        with self._lock:
            found = self._kept.get(key)
            if found is None or found[0] != state:
                return None
            self._kept.move_to_end(key)
            return found[1]

    def latest(self, key: Hashable) -> tuple[S, T] | None:
        """(state, value) kept for `key`, whatever its state: what a new state can build on."""
        with self._lock:
            return self._kept.get(key)

    def put(self, key: Hashable, state: S, value: T) -> None:
        with self._lock:
            self._kept[key] = (state, value)
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)
