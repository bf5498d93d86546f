"""How two phrases relate: one inside the other, the same head noun, one spelling of the other, an acronym of it.

The labeler uses these so that a label's two parts name two things and a theme's keywords show each phrase once.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from confnav.search.text import stem, words

GENERIC_HEADS = frozenset(stem(w) for w in ("learning", "network", "model", "method", "system", "algorithm", "data"))


def stems(phrase: str) -> set[str]:
    """A phrase's words, stemmed."""
    return {stem(w) for w in words(phrase)}


def nested(phrase: str, other: str) -> bool:
    """One phrase inside the other, by its words, written as one ("multitask" in "multi-task learning") or
    abbreviated ("VAE" for "variational autoencoders"); the same head noun ("self-attention" and "attention
    mechanisms") or a variant spelling ("explainability", "explanability"): no second part that repeats the first."""
    a, b = sorted((phrase, other), key=lambda p: len(words(p)))
    return (
        stems(a) <= stems(b)
        or _joined(a, b)
        or (len(words(a)) == 1 and abbreviates(a.lower().rstrip("s"), b))
        or _same_head(a, b)
        or _variant_spelling(a, b)
    )


def _same_head(phrase: str, other: str) -> bool:
    """Whether one phrase's last word, unless a generic one ("learning", "networks"), is among the other's."""
    heads = {stem(w[-1]) for w in (words(phrase), words(other)) if w} - GENERIC_HEADS
    return any(head in stems(phrase) and head in stems(other) for head in heads)


def spelled_alike(phrase: str, other: str) -> bool:
    """Whether the phrases are one phrase spelled two ways: the same letters, hyphens and spaces aside
    ("multi-task", "multitask"), or near-identical spellings of their long words."""
    return "".join(words(phrase)) == "".join(words(other)) or _variant_spelling(phrase, other)


def one_letter_apart(phrase: list[str], other: list[str]) -> bool:
    """Whether two phrases (their words) are one spelled two ways, strictly: the same letters, hyphens and spaces
    aside, or long words (6 letters or more) a letter apart ("modelling", "explanability"); not "clarification"
    for "classification", which `spelled_alike` takes as near-identical."""
    if "".join(phrase) == "".join(other):
        return True
    return len(phrase) == len(other) and all(
        x == y or (min(len(x), len(y)) >= 6 and _one_letter(x, y)) for x, y in zip(phrase, other, strict=True)
    )


def _one_letter(word: str, other: str) -> bool:
    """Whether one letter inserted, removed or changed turns `word` into `other`."""
    if abs(len(word) - len(other)) > 1:
        return False
    short, long = sorted((word, other), key=len)
    start = 0
    while start < len(short) and short[start] == long[start]:
        start += 1
    rest = 1 if len(short) == len(long) else 0  # a change skips a letter in both, an insertion only in the longer
    return short[start + rest :] == long[start + 1 :]


def _variant_spelling(phrase: str, other: str) -> bool:
    """Whether the phrases differ only by near-identical spellings of their long words."""
    a, b = words(phrase), words(other)
    if len(a) != len(b) or a == b:
        return False
    return all(x == y or (min(len(x), len(y)) >= 6 and _close(x, y)) for x, y in zip(a, b, strict=True))


def _close(word: str, other: str) -> bool:
    return SequenceMatcher(None, word, other).ratio() >= 0.85


def abbreviates(short: str, phrase: str) -> bool:
    """Whether the letters spell the phrase's words in order, each word giving its first letter and maybe some
    later ones ("gnn": graph neural networks; "vae": variational autoencoders)."""
    tokens = words(phrase)

    def fits(letter: int, word: int) -> bool:
        if word == len(tokens):
            return letter == len(short)
        if letter == len(short) or short[letter] != tokens[word][0]:
            return False
        rest, end = tokens[word][1:], letter + 1
        while True:
            if fits(end, word + 1):
                return True
            if end == len(short) or short[end] not in rest:
                return False
            rest, end = rest[rest.index(short[end]) + 1 :], end + 1

    return len(tokens) > 1 and fits(0, 0)


def _joined(phrase: str, other: str) -> bool:
    """Whether one phrase, its words run together, is a run of the other's words run together."""
    a, b = sorted((words(phrase), words(other)), key=len)
    return any("".join(b[i:j]) == "".join(a) for i in range(len(b)) for j in range(i + 1, len(b) + 1))
