"""The Summarizer interface and the table of summarizers by name ("extractive", "llm", or a `module:Class`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from confnav.model import Paper
from confnav.registry import Registry

if TYPE_CHECKING:
    from confnav.summarize.tldr import Tldr


class Summarizer(Protocol):
    """A paper's one-sentence TL;DR, with where it came from (author, extractive, llm)."""

    def tldr(self, paper: Paper) -> Tldr: ...


SUMMARIZERS: Registry[Summarizer] = Registry("summarizer", ("tldr",))
