"""Labelers: a short readable name and top keywords for each theme, from its papers' own words.

The default scores candidate phrases — the authors' keywords and 2–3 word
phrases of titles — by class-based TF-IDF (Grootendorst 2022, BERTopic's
c-TF-IDF): frequent in the theme, rare elsewhere. Labels are distinct across themes.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from confnav.model import Paper
from confnav.search.text import STOPWORDS, stem, words

TOO_GENERIC = frozenset(
    {"deep learning", "machine learning", "neural networks", "neural network", "deep neural networks",
     "deep neural network", "artificial intelligence", "ai", "ml", "dl", "learning", "theory", "empirical study"}
)  # fmt: skip


@dataclass
class ThemeLabel:
    """A theme's name and its most distinctive phrases."""

    label: str
    keywords: list[str]


class Labeler(Protocol):
    """Name each group of papers (`labels[i]` is the group of `papers[i]`)."""

    def label(self, papers: Sequence[Paper], labels: np.ndarray, taken: set[str] | None = None) -> list[ThemeLabel]: ...


def _key(phrase: str) -> str:
    return " ".join(stem(w) for w in phrase.split())


def _display(keyword: str) -> str:
    """A keyword as shown: acronyms kept (GAN, BERT), other words lower case, hyphens kept."""
    tokens = re.findall(r"[\w'-]+", keyword.strip())
    return " ".join(t if len(t) > 1 and t.isupper() else t.lower() for t in tokens)


def _candidates(paper: Paper) -> list[tuple[str, str, float]]:
    """(key, display form, weight) of a paper's candidate phrases, each key once."""
    found: dict[str, tuple[str, float]] = {}
    for keyword in paper.keywords:
        display = _display(keyword)
        if display and len(display) <= 40 and display.lower() not in TOO_GENERIC:
            found.setdefault(_key(" ".join(words(keyword))), (display, 1.0))
    title = words(paper.title)
    for n in (2, 3):
        for i in range(len(title) - n + 1):
            gram = title[i : i + n]
            if gram[0] in STOPWORDS or gram[-1] in STOPWORDS or any(len(w) < 3 or w.isdigit() for w in gram):
                continue
            display = " ".join(gram)
            if display not in TOO_GENERIC:
                found.setdefault(_key(display), (display, 0.5))
    return [(key, display, weight) for key, (display, weight) in found.items()]


class CTfidfLabeler:
    """c-TF-IDF over keywords and title phrases; a label must occur in at least `min_share` of its theme."""

    def __init__(self, top: int = 8, min_share: float = 0.05) -> None:
        self.top = top
        self.min_share = min_share

    def label(self, papers: Sequence[Paper], labels: np.ndarray, taken: set[str] | None = None) -> list[ThemeLabel]:
        groups = int(labels.max()) + 1 if len(labels) else 0
        counts: list[Counter[str]] = [Counter() for _ in range(groups)]
        papers_with: list[Counter[str]] = [Counter() for _ in range(groups)]
        forms: dict[str, Counter[str]] = defaultdict(Counter)
        for paper, group in zip(papers, labels, strict=True):
            for key, display, weight in _candidates(paper):
                counts[group][key] += weight
                papers_with[group][key] += 1
                forms[key][display] += 1
        totals = Counter[str]()
        for c in counts:
            totals.update(c)
        average = sum(sum(c.values()) for c in counts) / max(groups, 1)
        sizes = np.bincount(labels, minlength=groups)
        ranked: list[list[tuple[float, str]]] = []
        for c in counts:
            mass = sum(c.values()) or 1.0
            scored = [((n / mass) * math.log(1 + average / totals[key]), key) for key, n in c.items()]
            ranked.append(sorted(scored, reverse=True))
        used = set(taken or ())
        names: dict[int, str] = {}
        order = sorted(range(groups), key=lambda g: -(ranked[g][0][0] if ranked[g] else 0.0))
        for group in order:
            floor = max(2, self.min_share * sizes[group])
            for _, key in ranked[group]:
                display = forms[key].most_common(1)[0][0]
                if display not in used and papers_with[group][key] >= floor:
                    names[group] = display
                    used.add(display)
                    break
            else:
                names[group] = _fallback(ranked[group], forms, used, group)
                used.add(names[group])
        return [
            ThemeLabel(names[g], [forms[k].most_common(1)[0][0] for _, k in ranked[g][: self.top]])
            for g in range(groups)
        ]


def _fallback(ranked: list[tuple[float, str]], forms: dict[str, Counter[str]], used: set[str], group: int) -> str:
    """Two top phrases joined, or a numbered name, when no single phrase is free."""
    phrases = [forms[k].most_common(1)[0][0] for _, k in ranked[:2]]
    joined = " / ".join(phrases)
    return joined if phrases and joined not in used else f"theme {group + 1}"
