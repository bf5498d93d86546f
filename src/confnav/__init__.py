"""confnav: turn a conference's paper list into a navigator a researcher can trust."""

from __future__ import annotations

__version__ = "0.1.0"
