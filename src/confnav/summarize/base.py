"""The Summarizer interface and the table of summarizers by name ("extractive", "llm", or a `module:Class`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from confnav.model import Paper
from confnav.registry import Registry

if TYPE_CHECKING:
    from confnav.summarize.tldr import Tldr

WRITTEN_BY = "written by "  # the label of a TL;DR a summarizer declaring `writes_own_words` wrote: "written by NAME"


class Summarizer(Protocol):
    """A paper's one-sentence TL;DR, with where it came from (author, extractive, llm).

    A summarizer that writes words of its own (neither the abstract's sentences word for word nor confnav's LLM
    client) says so with a class attribute `writes_own_words = True`: its TL;DRs are then labelled
    "written by NAME" (`labelled_tldr`), which the verifier accepts with their numbers checked."""

    def tldr(self, paper: Paper) -> Tldr: ...


SUMMARIZERS: Registry[Summarizer] = Registry("summarizer", ("tldr",))


def writes_own_words(summarizer: object) -> bool:
    """Whether a summarizer declares that its TL;DRs are words of its own (`writes_own_words = True`)."""
    return getattr(summarizer, "writes_own_words", False) is True


def labelled_tldr(summarizer: Summarizer, paper: Paper) -> Tldr:
    """`summarizer.tldr(paper)` under a true label: a summarizer declaring `writes_own_words` gets its name
    ("written by NAME", the registry's name or its `module:Class`) in place of the label it gave, unless it
    gave the store's author TL;DR as it is; any other keeps its own label, which the verifier checks."""
    made = summarizer.tldr(paper)
    if not writes_own_words(summarizer) or (made.source == "author" and made.tldr == paper.tldr):
        return made
    return replace(made, source=f"{WRITTEN_BY}{SUMMARIZERS.name_of(summarizer)}")
