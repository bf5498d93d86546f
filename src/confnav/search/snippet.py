"""Short snippets around the words that matched, with those words marked `**like this**`."""

from __future__ import annotations

import re
from functools import lru_cache

from confnav.model import fold
from confnav.search.text import STOPWORDS, stem

_WORD = re.compile(r"\S+")
_CORE = re.compile(r"[A-Za-z0-9\u00C0-\u024F]+")


@lru_cache(maxsize=100_000)
def _token_terms(token: str) -> tuple[str, ...]:
    """The index terms inside one whitespace-separated token (punctuation stripped)."""
    return tuple(stem(w) for w in _CORE.findall(fold(token)) if w not in STOPWORDS)


def _matches(token: str, wanted: set[str]) -> bool:
    return any(term in wanted for term in _token_terms(token))


def make_snippet(text: str, query_terms: set[str], width: int = 32) -> str:
    """The `width`-word window of `text` holding the most query terms, matches marked with `**`."""
    tokens = _WORD.findall(text)
    if not tokens:
        return ""
    hits = [1 if query_terms and _matches(t, query_terms) else 0 for t in tokens]
    best_start, best = 0, -1
    running = sum(hits[:width])
    for start in range(max(1, len(tokens) - width + 1)):
        if start:
            running += (hits[start + width - 1] if start + width - 1 < len(tokens) else 0) - hits[start - 1]
        if running > best:
            best_start, best = start, running
    window = tokens[best_start : best_start + width]
    marked = [f"**{t}**" if hits[best_start + i] else t for i, t in enumerate(window)]
    prefix = "… " if best_start > 0 else ""
    suffix = " …" if best_start + width < len(tokens) else ""
    return prefix + " ".join(marked) + suffix
