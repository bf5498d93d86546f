"""Whether a theme's label names its papers: the share of members whose own keywords or title use it.

A paper uses a label when every word of the label (stemmed, any order) is among the words of the
paper's title and keywords, or when the label is an acronym the paper spells out ("GAN" for
"generative adversarial networks"). The labeler chooses with it (PhraseUse), and
benchmarks/topics_eval.py reports it (coverage).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from confnav.model import Paper
from confnav.search.text import stem, words


def paper_words(paper: Paper) -> frozenset[str]:
    """The stemmed words of a paper's title and keywords."""
    return frozenset(stem(w) for w in words(" ".join([paper.title, *paper.keywords])))


def _initials(paper: Paper) -> frozenset[str]:
    """Initials of the paper's keywords and of its title's runs of words ("generative adversarial networks" → gan)."""
    found = set()
    for phrase in [*paper.keywords, paper.title]:
        parts = words(phrase)
        for n in range(2, 6):
            found.update("".join(w[0] for w in parts[i : i + n]) for i in range(len(parts) - n + 1))
    return frozenset(found)


class PhraseUse:
    """Which of a set of papers use a phrase, by word postings: the one rule the labeler and the fidelity
    measure share."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self.papers = papers
        self.postings: dict[str, np.ndarray] = {}
        for i, paper in enumerate(papers):
            for word in paper_words(paper):
                self.postings.setdefault(word, np.zeros(len(papers), dtype=bool))[i] = True
        self._initials: list[frozenset[str]] | None = None  # built the first time an acronym is asked for

    def of(self, phrase: str) -> np.ndarray:
        """A mask of the papers using the phrase: all its words, or, for an acronym ("GAN"), its spelled-out form."""
        needed = {stem(w) for w in words(phrase)}
        mask = np.full(len(self.papers), bool(needed))
        for word in needed:
            mask &= self.postings.get(word, np.zeros(len(self.papers), dtype=bool))
        compact = "".join(words(phrase))
        if len(needed) == 1 and compact.isalpha() and phrase.strip().isupper():
            if self._initials is None:
                self._initials = [_initials(p) for p in self.papers]
            mask |= np.array([compact in found for found in self._initials], dtype=bool)
        return mask

    def members(self, own: np.ndarray) -> list[Paper]:
        return [self.papers[i] for i in np.flatnonzero(own)]


def coverage(label: str, members: Sequence[Paper]) -> float:
    """The share of members that use the label."""
    return float(PhraseUse(members).of(label).mean()) if members else 0.0


def is_cut(phrase: str, members: Sequence[Paper], share: float = 0.7) -> bool:
    """A phrase cut out of a longer one: where its words occur together in members' titles, the same word
    mostly comes right before or after ("shot learning" in "few-shot learning", "graph neural" + networks)."""
    target = words(phrase)
    n = len(target)
    if n < 2:
        return False
    seen, around = 0, Counter[tuple[str, str]]()
    for paper in members:
        title = words(paper.title)
        for i in range(len(title) - n + 1):
            if title[i : i + n] == target:
                seen += 1
                if i + n < len(title):
                    around["after", title[i + n]] += 1
                if i > 0:
                    around["before", title[i - 1]] += 1
    return seen >= 3 and max(around.values(), default=0) >= share * seen
