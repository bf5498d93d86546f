"""What the labeler and the fidelity measure read of one paper, worked out once per theme build.

A theme build reads each paper's title, keywords and prose several times (for the venue, its theme and sub-theme,
and to check each label on the members); what it reads depends on the text alone, so within `one_reading()` (a
build) it is remembered by that text and shared, and forgotten when the build ends. Outside, it is worked out anew.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps
from typing import TypeVar, cast

from confnav.model import Paper
from confnav.search.text import STOPWORDS, stem, words

LONGEST = 6  # runs of up to this many words are indexed; a longer phrase is looked for by a scan
BREAK = re.compile(r"[^\w\s'-]+")  # punctuation: a phrase never runs across it ("VRSTC: Occlusion-Free …")
CAPITALS = re.compile(r"\b([A-Z]{2,6})s?\b")
_SHORT_KEYWORD = re.compile(r"\s*[A-Za-z]{2,6}\s*")
_NOT_WORD = re.compile(r"[^\w-]+")
_ASCII_RUN_WORDS = re.compile(r"[a-z0-9]+|\|")


@dataclass(frozen=True)
class PaperWords:
    """One paper's title and keywords as PhraseUse indexes them (see fidelity.py)."""

    stems: tuple[str, ...]  # each run of up to LONGEST stemmed words of the title and the keywords, once
    runs: tuple[str, ...]  # the title and each keyword, stemmed words joined by spaces
    acronyms: tuple[str, ...]  # the abbreviations it writes
    spelled: tuple[tuple[str, tuple[str, ...]], ...]  # each acronym (and less its "s"): its initials' runs, stemmed
    keywords: tuple[str, ...]  # each keyword in plain words (plain)
    in_keywords: tuple[str, ...]  # each run of up to LONGEST plain words of each keyword, repeats kept
    ending_keywords: tuple[str, ...]  # each run of plain words ending a keyword, repeats kept
    title: tuple[str, ...]  # the title's words
    joints: tuple[bool, ...]  # for each title word, whether a hyphen joins it to the one before


T = TypeVar("T")
_MEMO: ContextVar[dict[tuple[Hashable, ...], object] | None] = ContextVar("paper_words", default=None)


@contextmanager
def one_reading() -> Iterator[None]:
    """Within, each text's analysis (by `remembered` functions) is worked out once; forgotten on leaving."""
    token = _MEMO.set({}) if _MEMO.get() is None else None  # nested: the outer reading's
    try:
        yield
    finally:
        if token is not None:
            _MEMO.reset(token)


def remembered(function: Callable[..., T]) -> Callable[..., T]:
    """`function` of texts (hashable arguments), its results remembered within `one_reading()`."""

    @wraps(function)
    def once(*args: Hashable) -> T:
        memo = _MEMO.get()
        if memo is None:
            return function(*args)
        key = (function, *args)
        if key not in memo:
            memo[key] = function(*args)
        return cast(T, memo[key])

    return once


def paper_words(paper: Paper) -> PaperWords:
    """The paper's title and keywords analysed (remembered by their text)."""
    return _analysed(paper.title, tuple(paper.keywords))


def plain(text: str) -> list[str]:
    """Words with a plural "s" dropped, not stemmed: "causality" is a name where "causal" is a modifier."""
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words(text)]


@remembered
def _analysed(title: str, keywords: tuple[str, ...]) -> PaperWords:
    runs = [words(text) for text in (title, *keywords)]
    found: list[str] = []
    stemmed: list[str] = []
    by_initials: dict[str, set[str]] = {}
    for run in runs:
        stems, letters = [stem(w) for w in run], "".join(w[0] for w in run)
        stemmed.append(" ".join(stems))
        for n in range(1, min(LONGEST, len(run)) + 1):
            for start in range(len(run) - n + 1):
                key = sys.intern(" ".join(stems[start : start + n]))  # shared by the papers using it
                found.append(key)
                if n > 1:
                    by_initials.setdefault(letters[start : start + n], set()).add(key)
    whole: list[str] = []
    inside: list[str] = []
    ending: list[str] = []
    for keyword in keywords:
        words_of = plain(keyword)
        whole.append(sys.intern(" ".join(words_of)))
        for n in range(1, min(LONGEST, len(words_of)) + 1):
            inside.extend(sys.intern(" ".join(words_of[start : start + n])) for start in range(len(words_of) - n + 1))
            ending.append(sys.intern(" ".join(words_of[-n:])))
    acronyms = tuple(_acronyms(title, keywords))
    spelled = tuple(
        (form, tuple(by_initials.get(form, ())))
        for short in acronyms
        for form in {short, short.removesuffix("s")} - {""}
    )
    return PaperWords(
        tuple(dict.fromkeys(found)),
        tuple(stemmed),
        acronyms,
        spelled,
        tuple(whole),
        tuple(inside),
        tuple(ending),
        tuple(runs[0]),
        tuple(_joints(title, len(runs[0]))),
    )


def _acronyms(title: str, keywords: tuple[str, ...]) -> set[str]:
    """Abbreviations a paper writes: capitalised words ("GANs" → gan) and one-word keywords ("gnn")."""
    texts = [t for t in (title, *keywords) if not t.isupper()]  # an all-capitals title says nothing
    found = {m.lower() for text in texts for m in CAPITALS.findall(text)}
    found.update(k.strip().lower() for k in keywords if _SHORT_KEYWORD.fullmatch(k))
    return found - STOPWORDS


def _joints(title: str, count: int) -> list[bool]:
    """For each of a title's `count` words, whether a hyphen joins it to the word before ("Few-Shot" → shot)."""
    joined: list[bool] = []
    for chunk in _NOT_WORD.split(title):
        before = 0  # words of this chunk so far: a hyphen with none before it joins nothing
        for piece in chunk.split("-"):
            found = len(words(piece))
            joined += [before > 0 and j == 0 for j in range(found)]
            before += found
    return joined if len(joined) == count else [False] * count


@remembered
def prose_runs(text: str) -> str:
    """A text's folded words, runs between punctuation marks separated by " | " (one pass for ASCII text)."""
    if text.isascii():  # one pass
        return " ".join(_ASCII_RUN_WORDS.findall(BREAK.sub(" | ", text.lower())))
    return " | ".join(" ".join(words(run)) for run in BREAK.split(text))
