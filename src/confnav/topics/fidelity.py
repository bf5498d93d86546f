"""Whether a theme's label names its papers: the share of members whose own keywords or title use it.

A label covers a paper when every word of the label (stemmed, any order) is among the words of the
paper's title and keywords, or when the label is an acronym the paper spells out ("GAN" for
"generative adversarial networks"). The labeler checks its choices with it, and
benchmarks/topics_eval.py reports it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

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


def covers(label: str, paper: Paper, known: frozenset[str] | None = None) -> bool:
    """Whether the label's words are all in the paper's title and keywords (or it is their acronym)."""
    needed = {stem(w) for w in words(label)}
    if not needed:
        return False
    if needed <= (known if known is not None else paper_words(paper)):
        return True
    compact = "".join(words(label))
    return len(needed) == 1 and compact.isalpha() and label.strip().isupper() and compact in _initials(paper)


def coverage(label: str, members: Sequence[Paper], known: Iterable[frozenset[str]] | None = None) -> float:
    """The share of members the label covers."""
    if not members:
        return 0.0
    sets = list(known) if known is not None else [paper_words(p) for p in members]
    return sum(covers(label, p, k) for p, k in zip(members, sets, strict=True)) / len(members)


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
