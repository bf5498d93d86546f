"""Short snippets around the words that matched, with those words marked `**like this**`."""

from __future__ import annotations

import re
from bisect import bisect_left

from confnav.search.text import token_terms

_WORD = re.compile(r"\S+")


def make_snippet(text: str, query_terms: set[str], width: int = 32) -> str:
    """The `width`-word window of `text` holding the most query terms, matches marked with `**`.

    Of equally good windows the earliest wins; only starts where a match enters the window need checking. Only
    the query's terms are looked for: a hit's text is rarely shown twice for the same query.
    """
    tokens = _WORD.findall(text)
    if not tokens:
        return ""
    isdisjoint = query_terms.isdisjoint
    matched = [i for i, held in enumerate(map(token_terms, tokens)) if not isdisjoint(held)] if query_terms else []
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
