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
from confnav.topics.fidelity import PhraseUse, is_cut

KEYWORD_WEIGHT, TITLE_WEIGHT = 1.0, 0.5  # an author's keyword counts twice a phrase cut from a title
SPECIFIC = 0.6  # a longer phrase replaces a shorter label it contains when this share of its users use it
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
            found.setdefault(_key(" ".join(words(keyword))), (display, KEYWORD_WEIGHT))
    title = words(paper.title)
    for n in (2, 3):
        for i in range(len(title) - n + 1):
            gram = title[i : i + n]
            if gram[0] in STOPWORDS or gram[-1] in STOPWORDS or any(len(w) < 3 or w.isdigit() for w in gram):
                continue
            display = " ".join(gram)
            if display not in TOO_GENERIC:
                found.setdefault(_key(display), (display, TITLE_WEIGHT))
    return [(key, display, weight) for key, (display, weight) in found.items()]


class CTfidfLabeler:
    """c-TF-IDF over keywords and title phrases shortlists each theme's phrases; the label is the one most of
    the theme's papers use and few others do (at least `min_share` of the theme must use it)."""

    def __init__(
        self, top: int = 8, min_share: float = 0.05, shortlist: int = 30, coverage_weight: float = 0.5
    ) -> None:
        self.top = top
        self.min_share = min_share
        self.shortlist = shortlist
        self.coverage_weight = coverage_weight

    def label(self, papers: Sequence[Paper], labels: np.ndarray, taken: set[str] | None = None) -> list[ThemeLabel]:
        groups = int(labels.max()) + 1 if len(labels) else 0
        keyword_keys: set[str] = set()  # phrases some paper gives as a keyword (complete by construction)
        counts: list[Counter[str]] = [Counter() for _ in range(groups)]
        papers_with: list[Counter[str]] = [Counter() for _ in range(groups)]
        forms: dict[str, Counter[str]] = defaultdict(Counter)
        for paper, group in zip(papers, labels, strict=True):
            for key, display, weight in _candidates(paper):
                if weight == KEYWORD_WEIGHT:
                    keyword_keys.add(key)
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
        uses = PhraseUse(papers)
        members = [labels == g for g in range(groups)]
        names: dict[int, str] = {}
        for group in sorted(range(groups), key=lambda g: -sizes[g]):  # the largest themes choose first
            shortlist = [key for _, key in ranked[group][: self.shortlist]]
            names[group] = (  # authors' keywords are whole phrases; title word runs only when no keyword serves
                self._best([k for k in shortlist if k in keyword_keys], forms, uses, members[group], used)
                or self._best(shortlist, forms, uses, members[group], used)
                or _fallback(ranked[group], forms, used, group)
            )
            used.add(names[group])
        return [
            ThemeLabel(names[g], [forms[k].most_common(1)[0][0] for _, k in ranked[g][: self.top]])
            for g in range(groups)
        ]

    def _best(
        self, keys: list[str], forms: dict[str, Counter[str]], uses: PhraseUse, own: np.ndarray, used: set[str]
    ) -> str | None:
        """The most distinctive of these phrases, weighed by how many members use it (in their keywords or title,
        see fidelity.py); never a cut phrase, never a sibling's label; None if none serves."""
        scored = self._scored(keys, forms, uses, own, used)
        if not scored:
            return None
        _, share, best = max(scored)
        # One word is vague ("graphs"): a longer phrase with its word that most of the same papers use wins.
        longer = [(score, phrase) for score, inside, phrase in scored if len(words(phrase)) > len(words(best))
                  and set(_key(best).split()) <= set(_key(phrase).split()) and inside >= SPECIFIC * share]  # fmt: skip
        return max(longer)[1] if longer else best

    def _scored(
        self, keys: list[str], forms: dict[str, Counter[str]], uses: PhraseUse, own: np.ndarray, used: set[str]
    ) -> list[tuple[float, float, str]]:
        """(score, share of the theme using it, phrase) of each usable phrase: share × log(1 + share / overall)."""
        scored: list[tuple[float, float, str]] = []
        for key in keys:
            display = forms[key].most_common(1)[0][0]
            if display in used:
                continue
            using = uses.of(display)
            inside, overall = float(using[own].mean()), float(using.mean())
            if inside < self.min_share or is_cut(display, uses.members(own)):
                continue
            scored.append((inside**self.coverage_weight * math.log(1 + inside / max(overall, 1e-9)), inside, display))
        return scored


def _fallback(ranked: list[tuple[float, str]], forms: dict[str, Counter[str]], used: set[str], group: int) -> str:
    """Two top phrases joined, or a numbered name, when no single phrase is free."""
    phrases = [forms[k].most_common(1)[0][0] for _, k in ranked[:2]]
    joined = " / ".join(phrases)
    return joined if phrases and joined not in used else f"theme {group + 1}"
