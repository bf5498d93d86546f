"""Short snippets around the words that matched, with those words marked `**like this**`."""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from confnav.search.text import terms

_WORD = re.compile(r"\S+")


@lru_cache(maxsize=100_000)
def _token_terms(token: str) -> tuple[str, ...]:
    """The index terms inside one whitespace-separated token, as the keyword index makes them."""
    return tuple(terms(token))


@lru_cache(maxsize=8192)
def _term_positions(text: str) -> dict[str, tuple[int, ...]]:
    """For each index term of a text, the tokens holding it (kept for recent texts: about 5 KiB each)."""
    positions: dict[str, list[int]] = {}
    for i, token in enumerate(_WORD.findall(text)):
        for term in set(_token_terms(token)):
            positions.setdefault(term, []).append(i)
    return {term: tuple(found) for term, found in positions.items()}


def make_snippet(text: str, query_terms: set[str], width: int = 32) -> str:
    """The `width`-word window of `text` holding the most query terms, matches marked with `**`.

    Of equally good windows the earliest wins; only starts where a match enters the window need checking.
    """
    tokens = _WORD.findall(text)
    if not tokens:
        return ""
    positions = _term_positions(text) if query_terms else {}
    matched = sorted({i for term in query_terms for i in positions.get(term, ())})
    last_start = max(0, len(tokens) - width)
    best_start, best = 0, bisect_left(matched, width)
    for position in matched:
        start = min(max(0, position - width + 1), last_start)
        count = bisect_left(matched, start + width) - bisect_left(matched, start)
        if count > best:
            best_start, best = start, count
    chosen = set(matched)
    window = range(best_start, min(best_start + width, len(tokens)))
    marked = [f"**{tokens[i]}**" if i in chosen else tokens[i] for i in window]
    prefix = "… " if best_start > 0 else ""
    suffix = " …" if best_start + width < len(tokens) else ""
    return prefix + " ".join(marked) + suffix
