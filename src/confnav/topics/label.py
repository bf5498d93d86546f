"""Labelers: a short readable name and top keywords for each theme, from its papers' own words.

The default shortlists candidate phrases — the authors' keywords and 2–3 word phrases of titles —
by class-based TF-IDF (Grootendorst 2022, BERTopic's c-TF-IDF): frequent in the theme, rare
elsewhere. Among them the label is the phrase most members contain (fidelity.py) and few others
do; a complete phrase (no "shot learning", no bare modifier like "adversarial"), written out
("neural architecture search", not "NAS"); for a mixed theme, two phrases ("interpretability and
object detection"). Labels are distinct across themes, synonyms and order included, and shown as
the authors write their words mid-sentence ("Q-learning", "Gaussian processes").
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, islice
from typing import Protocol

import numpy as np

from confnav.model import Paper
from confnav.registry import Registry
from confnav.search.text import stem, words
from confnav.topics.candidates import KEYWORD_WEIGHT, candidates, title_words
from confnav.topics.candidates import TOO_GENERIC as TOO_GENERIC  # named from here too
from confnav.topics.candidates import AuthorsCasing as AuthorsCasing
from confnav.topics.fidelity import PAIR, PhraseUse, Prose
from confnav.topics.label_words import (
    SUPPORT,
    CommonSpelling,
    class_tfidf,
    distinct,
    fallback_label,
    fuller,
    label_names,
    merit,
    plain_phrase,
    whole,
    word_scores,
)
from confnav.topics.paper_words import one_reading
from confnav.topics.phrases import nested, spelled_alike


@dataclass
class ThemeLabel:
    """A theme's name and its most distinctive phrases."""

    label: str
    keywords: list[str]
    named: bool = True  # False: no phrase or word two of its papers share, the label is its number ("theme 3")


class Labeler(Protocol):
    """Name each group of papers (`labels[i]` is the group of `papers[i]`), no group by a name in `taken`; `prose`
    is the venue's own writing, when the papers are one theme's (default: these papers')."""

    def label(
        self, papers: Sequence[Paper], labels: np.ndarray, taken: set[str] | None = None, prose: Prose | None = None
    ) -> list[ThemeLabel]: ...


class CTfidfLabeler:
    """c-TF-IDF over keywords and title phrases shortlists each theme's phrases; the label is the one most of
    the theme's papers use and few others do (at least `min_share` of the theme must use it). A mixed theme,
    where no phrase reaches `broad` of its papers, is named by two phrases when the second reaches `mixed` more."""

    def __init__(
        self,
        top: int = 8,
        min_share: float = 0.05,
        shortlist: int = 30,
        coverage_weight: float = 0.5,
        broad: float = 0.5,
        mixed: float = 0.1,
    ) -> None:
        self.top = top
        self.min_share = min_share
        self.shortlist = shortlist
        self.coverage_weight = coverage_weight
        self.broad = broad
        self.mixed = mixed

    def label(
        self, papers: Sequence[Paper], labels: np.ndarray, taken: set[str] | None = None, prose: Prose | None = None
    ) -> list[ThemeLabel]:
        with one_reading():  # each paper is read for the venue and again for its theme: analysed once
            return self._label(papers, labels, taken, prose)

    def _label(
        self, papers: Sequence[Paper], labels: np.ndarray, taken: set[str] | None, prose: Prose | None
    ) -> list[ThemeLabel]:
        groups = int(labels.max()) + 1 if len(labels) else 0
        counts: list[Counter[str]] = [Counter() for _ in range(groups)]
        keyword_forms: dict[str, Counter[str]] = defaultdict(Counter)  # as authors write them (hyphens kept)
        title_forms: dict[str, Counter[str]] = defaultdict(Counter)
        for paper, group in zip(papers, labels, strict=True):
            for key, display, weight in candidates(paper):
                counts[group][key] += weight
                (keyword_forms if weight == KEYWORD_WEIGHT else title_forms)[key][display] += 1
        shown = {key: (keyword_forms.get(key) or title_forms[key]).most_common(1)[0][0] for c in counts for key in c}
        sizes = np.bincount(labels, minlength=groups)
        typical = word_scores(papers, labels, groups, sizes)
        ranked: list[list[tuple[float, str]]] = []
        phrase_scores = class_tfidf(counts, [sum(c.values()) for c in counts])
        for scored, words_of_theme in zip(phrase_scores, typical, strict=True):
            ties = {key: sum(words_of_theme.get(w, 0.0) for w in key.split()) for key in scored}
            ranked.append([(scored[key], key) for key in sorted(scored, key=lambda k: (-scored[k], -ties[k], k))])
        used = {name for label in taken or () for name in label_names(label)}
        uses = PhraseUse(papers, prose)
        usable = [self._usable(ranked[g], shown, uses, labels == g) for g in range(groups)]  # read as needed
        shown_beside = [list(islice(found, self.top)) for found in usable]
        names: dict[int, str] = {}
        member_uses: dict[int, PhraseUse] = {}
        spelling = CommonSpelling(counts, shown)
        unnamed: set[int] = set()
        for group in sorted(range(groups), key=lambda g: -sizes[g]):  # the largest themes choose first
            shortlist = [key for _, key in ranked[group][: self.shortlist]]
            keywords = [shown[key] for key in shortlist if key in keyword_forms]
            own = labels == group
            # A label is judged whole as the fidelity measure judges it: on the theme's own papers and prose too.
            members = member_uses[group] = PhraseUse([p for p, mine in zip(papers, own, strict=True) if mine])
            names[group] = (  # authors' keywords are whole phrases; title word runs only when no keyword serves
                self._best(keywords, uses, own, used, members)
                or self._best([shown[key] for key in shortlist], uses, own, used, members, from_titles=True)
                or fallback_label(
                    self._supported(self._keywords(ranked[group], shown, uses, own, SUPPORT), uses, own), used
                )
                or self._word(papers, own, typical[group], uses, used, members)  # no phrase two titles share
                or ""
            )
            if not names[group]:  # not even a word two of its papers share: no name is made up
                names[group] = f"theme {group + 1}"
                unnamed.add(group)
            names[group] = spelling.of(names[group], used)
            used.update(label_names(names[group]))
        casing = AuthorsCasing(papers)
        beside = [  # the phrases beside a label are judged whole as it is: on the theme's own papers and prose too
            distinct(
                (p for p in chain(shown_beside[g], usable[g]) if whole(p, member_uses[g])),
                uses,
                labels == g,
                self.top,
            )
            for g in range(groups)
        ]
        return [
            ThemeLabel(casing.apply(names[g]), [casing.apply(k) for k in beside[g]], g not in unnamed)
            for g in range(groups)
        ]

    def _keywords(
        self,
        ranked: list[tuple[float, str]],
        shown: dict[str, str],
        uses: PhraseUse,
        own: np.ndarray,
        evidence: int = 0,
    ) -> list[str]:
        """A theme's top phrases (`top` of them, see _usable)."""
        return list(islice(self._usable(ranked, shown, uses, own, evidence), self.top))

    def _usable(
        self,
        ranked: list[tuple[float, str]],
        shown: dict[str, str],
        uses: PhraseUse,
        own: np.ndarray,
        evidence: int = 0,
    ) -> Iterator[str]:
        """A theme's phrases in rank order: no cut phrase ("graph neural", "shot learning"), no second spelling of
        one already given ("multitask learning" after "multi-task learning"); with `evidence`, none from title
        words alone in fewer titles."""
        kept: list[str] = []
        for phrase in (shown[key] for _, key in ranked if not uses.incomplete(shown[key], own, evidence=evidence)):
            if not any(spelled_alike(phrase, other) for other in kept):
                kept.append(phrase)
                yield phrase

    @staticmethod
    def _supported(phrases: Iterable[str], uses: PhraseUse, own: np.ndarray) -> list[str]:
        """The phrases SUPPORT of the theme's papers use or more."""
        return [phrase for phrase in phrases if int(uses.of(phrase)[own].sum()) >= SUPPORT]

    def _word(
        self,
        papers: Sequence[Paper],
        own: np.ndarray,
        typical: dict[str, float],
        uses: PhraseUse,
        used: set[str],
        members: PhraseUse,
    ) -> str | None:
        """Where no phrase is in SUPPORT of a theme's titles: the one title word ("re-identification" is one) that
        is, scored as a phrase is (share × lift), among the theme's most typical words (their c-TF-IDF); no stop word,
        generic word, label taken or modifier: none its titles mostly follow by a word ("local" arrangements)."""
        found: Counter[str] = Counter()
        for paper in (p for p, mine in zip(papers, own, strict=True) if mine):
            found.update(set(title_words(paper.title)))
        ranked = sorted(
            (word for word, n in found.items() if n >= SUPPORT and plain_phrase(word) and word not in TOO_GENERIC),
            key=lambda word: (-sum(typical.get(stem(w), 0.0) for w in words(word)), -found[word], word),
        )
        names = [word for word in ranked if not uses.runs_on_in_titles(word, own)][: self.shortlist]
        scored = self._scored(names, uses, own, used, members=members)
        return max(scored, key=merit)[2] if scored else None

    def _best(
        self,
        phrases: list[str],
        uses: PhraseUse,
        own: np.ndarray,
        used: set[str],
        members: PhraseUse | None = None,
        from_titles: bool = False,
    ) -> str | None:
        """The most distinctive of these phrases, weighed by how many members use it (in their keywords or title,
        see fidelity.py), paired with a second for a mixed theme; never a cut phrase, never a sibling's label.
        `from_titles`: no author keyword served, so the evidence is title words (a labeler may read more)."""
        scored = self._scored(phrases, uses, own, used, members=members)
        if not scored:
            return None
        top = max(scored, key=merit)  # on a tie, the phrase ranked first
        score, share, best = max((row for row in scored if fuller(row, top, uses, own)), key=merit, default=top)
        if share >= self.broad:
            return best
        pairs = [
            (s, f"{best}{PAIR}{phrase}")
            for s, inside, phrase in self._scored(
                [p for _, _, p in scored if not nested(p, best)], uses, own, used, best, members
            )
            if s > score
        ]
        return max(pairs, key=lambda pair: pair[0])[1] if pairs else best

    def _scored(
        self,
        phrases: list[str],
        uses: PhraseUse,
        own: np.ndarray,
        used: set[str],
        first: str | None = None,
        members: PhraseUse | None = None,
    ) -> list[tuple[float, float, str]]:
        """(score, share of the theme using it, phrase) of each usable phrase: share × log(1 + share / overall).
        With `first`, each phrase is scored as the second part of a label after it, when it adds `mixed` members."""
        base = float(uses.of(first)[own].mean()) if first else 0.0
        scored: list[tuple[float, float, str]] = []
        for phrase in phrases:
            label = f"{first}{PAIR}{phrase}" if first else phrase
            if label_names(label, taking=False) & used or uses.incomplete(phrase, own, evidence=SUPPORT):
                continue
            if members is not None and members.incomplete(phrase):  # cut where the theme's papers use it
                continue
            if int(uses.of(phrase)[own].sum()) < SUPPORT:  # one paper's phrase names that paper, not a theme
                continue
            using = uses.of(label)
            inside, overall = float(using[own].mean()), float(using.mean())
            if inside < max(self.min_share, base + (self.mixed if first else 0.0)):
                continue
            scored.append((inside**self.coverage_weight * math.log(1 + inside / max(overall, 1e-9)), inside, phrase))
        return scored


LABELERS: Registry[Labeler] = Registry("labeler", ("label",))
LABELERS.register("ctfidf", CTfidfLabeler)
