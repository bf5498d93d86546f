"""Cyclic garbage collection paused during bulk work that builds many objects which all stay alive.

A collection pass during such work finds nothing to free but walks every object, which made ranking
a 10,000-paper venue about a quarter slower. Safe across threads: collection resumes when the last
pause ends, and only if it was on before the first.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_resume = False


@contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic collection inside the block (reference counting still frees memory as usual)."""
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()
