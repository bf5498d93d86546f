"""How many malloc arenas a serving process keeps. glibc gives each thread that allocates under contention an arena of
its own, and each keeps what was freed in it: a server's request threads held about 150 MB per worker that way
(benchmarks/scale.py, 500,000 papers, 50 clients: unique memory 505–512 MB per worker, 355–356 MB with two arenas)."""

from __future__ import annotations

import ctypes
import sys

M_ARENA_MAX = -8  # glibc's mallopt parameter
SERVING_ARENAS = 2


def bound_malloc_arenas(arenas: int = SERVING_ARENAS) -> bool:
    """Let glibc's malloc make at most `arenas` arenas from now on (call it before the request threads start);
    False where the C library has no such setting (nothing changes)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, arenas))
