"""A serving process bounds glibc's malloc arenas (where the C library has the setting), and nothing breaks."""

from __future__ import annotations

import sys

from confnav.malloc_arenas import bound_malloc_arenas


def test_arenas_are_bounded_on_glibc_and_allocation_goes_on() -> None:
    assert bound_malloc_arenas() or not sys.platform.startswith("linux")  # glibc (the CI's Debian) has it
    assert len(bytearray(64 << 20)) == 64 << 20
