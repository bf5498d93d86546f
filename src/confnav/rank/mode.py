"""The two questions a must-read ranking answers, one notion every surface (CLI, reports, web, API) passes through.

- at the conference: only what was known when the venue opened (decision, reviews, authors' record,
  predicted impact); the venue's own citation counts and imported signals are never read;
- looking back: everything the store holds, led by the venue's citation counts.

The default is looking back when the venue has citation counts, at the conference otherwise.
"""

from __future__ import annotations

from enum import StrEnum

from confnav.errors import ConfnavError, excerpt
from confnav.store.protocols import AnalysisStore


class RankMode(StrEnum):
    """A ranking mode, named as the CLI and the web write it."""

    AT_CONFERENCE = "at-conference"
    LOOKING_BACK = "looking-back"

    @property
    def label(self) -> str:
        """The mode in words, as every surface shows it."""
        return "at the conference" if self is RankMode.AT_CONFERENCE else "looking back"

    @property
    def heading(self) -> str:
        """The mode's words with a capital, as a switch or title shows them."""
        return self.label[0].upper() + self.label[1:]

    @property
    def other(self) -> RankMode:
        return RankMode.LOOKING_BACK if self is RankMode.AT_CONFERENCE else RankMode.AT_CONFERENCE


MODE_NAMES = tuple(m.value for m in RankMode)


def parse_mode(text: str | None, at_conference: bool = False) -> RankMode | None:
    """The mode a user asked for (`at_conference` is the older spelling of at-conference); None: the default.
    An unknown name, or no text, is a one-line error listing the known ones."""
    if text is not None and not isinstance(text, str):
        raise ConfnavError(f"ranking mode {excerpt(text)}: give a RankMode or one of {', '.join(MODE_NAMES)}")
    if text is None or not text.strip():
        return RankMode.AT_CONFERENCE if at_conference else None
    name = text.strip().lower().replace("_", "-").replace(" ", "-")
    if name not in MODE_NAMES:
        raise ConfnavError(f"unknown ranking mode {text.strip()[:40]!r} (modes: {', '.join(MODE_NAMES)})")
    mode = RankMode(name)
    if at_conference and mode is RankMode.LOOKING_BACK:
        raise ConfnavError("asked for both modes: 'at_conference' and mode 'looking-back'")
    return mode


def default_mode(store: AnalysisStore, venue: str) -> RankMode:
    """Looking back when the venue's papers have citation counts (ingested, fetched or supplied), else at-conference."""
    return RankMode.LOOKING_BACK if store.has_citation_counts(venue) else RankMode.AT_CONFERENCE


def resolve_mode(store: AnalysisStore, venue: str, mode: RankMode | str | None) -> RankMode:
    """The mode asked for, or the venue's default."""
    if mode is None:
        return default_mode(store, venue)
    return mode if isinstance(mode, RankMode) else RankMode(mode)
