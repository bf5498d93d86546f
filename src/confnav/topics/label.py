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
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, islice, product
from typing import Protocol

import numpy as np

from confnav.model import Paper
from confnav.registry import Registry
from confnav.search.text import STOPWORDS, stem, words
from confnav.topics.fidelity import BREAK, PAIR, PhraseUse, Prose, acronym, initials, parts
from confnav.topics.phrases import abbreviates, nested, spelled_alike, stems

KEYWORD_WEIGHT, TITLE_WEIGHT = 1.0, 0.5  # an author's keyword counts twice a phrase cut from a title
SPECIFIC = 0.6  # a longer phrase replaces a shorter label it contains when this share of its users use it
TITLE_EVIDENCE = 2  # a label from title words alone must be in this many of its theme's titles (else: too few to judge)
TOO_GENERIC = frozenset(
    {
        "deep learning",
        "machine learning",
        "neural networks",
        "neural network",
        "deep neural networks",
        "deep neural network",
        "artificial intelligence",
        "ai",
        "ml",
        "dl",
        "learning",
        "theory",
        "empirical study",
    }
)


# Words that join a phrase to the rest of its title, so a phrase holding one is rarely a name of its own.
_JOINING = STOPWORDS | {
    "without",
    "yet",
    "more",
    "most",
    "very",
    "also",
    "using",
    "towards",
    "toward",
    "via",
    "versus",
    "beyond",
    "through",
    "across",
    "within",
    "into",
    "among",
    "against",
}


@dataclass
class ThemeLabel:
    """A theme's name and its most distinctive phrases."""

    label: str
    keywords: list[str]


class Labeler(Protocol):
    """Name each group of papers (`labels[i]` is the group of `papers[i]`), no group by a name in `taken`; `prose`
    is the venue's own writing, when the papers are one theme's (default: these papers')."""

    def label(
        self, papers: Sequence[Paper], labels: np.ndarray, taken: set[str] | None = None, prose: Prose | None = None
    ) -> list[ThemeLabel]: ...


def _key(phrase: str) -> str:
    return " ".join(stem(w) for w in phrase.split())


def _display(keyword: str) -> str:
    """A keyword as shown: acronyms kept (GAN, GNNs, BERT), other words lower case, hyphens kept."""
    tokens = re.findall(r"[\w'-]+", keyword.strip())
    return " ".join(t if len(t) > 1 and (t.isupper() or acronym(t)) else t.lower() for t in tokens)


def _candidates(paper: Paper) -> list[tuple[str, str, float]]:
    """(key, display form, weight) of a paper's candidate phrases, each key once; none with "and", which
    joins the two parts of a label, nor across a title's punctuation, nor from the name a title opens with."""
    found: dict[str, tuple[str, float]] = {}
    for keyword in paper.keywords:
        display = _display(keyword)
        generic = display.lower().replace("-", " ") in TOO_GENERIC  # "deep-learning" too
        if display and len(display) <= 40 and not generic and "and" not in words(display):
            found.setdefault(_key(" ".join(words(keyword))), (display, KEYWORD_WEIGHT))
    title_text = _PAPER_NAME.sub("", paper.title)
    runs = [words(run) for run in BREAK.split(title_text)]
    for title, n in product(runs, (2, 3)):
        for i in range(len(title) - n + 1):
            gram = title[i : i + n]
            if gram[0] in STOPWORDS or gram[-1] in STOPWORDS or "and" in gram:
                continue
            if any((len(w) < 3 and not _DIMENSION.fullmatch(w)) or w.isdigit() for w in gram):  # "3D" stays
                continue
            display = " ".join(gram)
            if display not in TOO_GENERIC:
                found.setdefault(_key(display), (_as_written(paper.title, gram) or display, TITLE_WEIGHT))
    if not paper.title.isupper():  # a name the title writes ("StyleGAN", "NeRF"; not an acronym): a one-word phrase
        for name in _NAME.findall(title_text):
            if not acronym(name):
                found.setdefault(_key(name.lower()), (name, TITLE_WEIGHT))
    return [(key, display, weight) for key, (display, weight) in found.items()]


_DIMENSION = re.compile(r"\d[a-z]")  # "3d", "2d", "6d"
_DIMENSION_WORD = re.compile(r"(?<![\w.-])\d[dD](?![\w])")
_NAME = re.compile(r"(?<![\w'-])([A-Z][a-z]*[A-Z][A-Za-z]*)(?![\w'])")  # two capitals or more, hyphen after allowed
_PUNCTUATION = re.compile(r"[^\w\s-]")
_PAPER_NAME = re.compile(r"^\s*[\w'-]+\s*:")  # "DuLa-Net: A Dual-Projection Network …": the paper's own name


def _as_written(title: str, gram: list[str]) -> str | None:
    """The words as the title joins them, hyphens kept ("Few-Shot Learning" → "few-shot learning"); None when
    the title has no hyphen there."""
    if "-" not in title:
        return None
    text = " " + " ".join(_PUNCTUATION.sub(" ", title.lower()).split()) + " "
    for joints in product(" -", repeat=len(gram) - 1):
        written = gram[0] + "".join(joint + word for joint, word in zip(joints, gram[1:], strict=True))
        at = text.find(written)
        while at >= 0:  # whole words: a space or a hyphen on each side ("zero-shot sketch-based")
            if text[at - 1] in " -" and text[at + len(written)] in " -":
                return written
            at = text.find(written, at + 1)
    return None


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
        groups = int(labels.max()) + 1 if len(labels) else 0
        counts: list[Counter[str]] = [Counter() for _ in range(groups)]
        keyword_forms: dict[str, Counter[str]] = defaultdict(Counter)  # as authors write them (hyphens kept)
        title_forms: dict[str, Counter[str]] = defaultdict(Counter)
        for paper, group in zip(papers, labels, strict=True):
            for key, display, weight in _candidates(paper):
                counts[group][key] += weight
                (keyword_forms if weight == KEYWORD_WEIGHT else title_forms)[key][display] += 1
        shown = {key: (keyword_forms.get(key) or title_forms[key]).most_common(1)[0][0] for c in counts for key in c}
        sizes = np.bincount(labels, minlength=groups)
        typical = _word_scores(papers, labels, groups, sizes)
        ranked: list[list[tuple[float, str]]] = []
        phrase_scores = _class_tfidf(counts, [sum(c.values()) for c in counts])
        for scored, words_of_theme in zip(phrase_scores, typical, strict=True):
            ties = {key: sum(words_of_theme.get(w, 0.0) for w in key.split()) for key in scored}
            ranked.append([(scored[key], key) for key in sorted(scored, key=lambda k: (-scored[k], -ties[k], k))])
        used = {name for label in taken or () for name in _names(label)}
        uses = PhraseUse(papers, prose)
        usable = [self._usable(ranked[g], shown, uses, labels == g) for g in range(groups)]  # read as needed
        shown_beside = [list(islice(found, self.top)) for found in usable]
        names: dict[int, str] = {}
        member_uses: dict[int, PhraseUse] = {}
        for group in sorted(range(groups), key=lambda g: -sizes[g]):  # the largest themes choose first
            shortlist = [key for _, key in ranked[group][: self.shortlist]]
            keywords = [shown[key] for key in shortlist if key in keyword_forms]
            own = labels == group
            # A label is judged whole as the fidelity measure judges it: on the theme's own papers and prose too.
            members = member_uses[group] = PhraseUse([p for p, mine in zip(papers, own, strict=True) if mine])
            names[group] = (  # authors' keywords are whole phrases; title word runs only when no keyword serves
                self._best(keywords, uses, own, used, members)
                or self._best([shown[key] for key in shortlist], uses, own, used, members)
                or _fallback(self._keywords(ranked[group], shown, uses, own, TITLE_EVIDENCE), used)
                or _fallback(  # from one title
                    _whole_first([p for p in shown_beside[group] if _plain_phrase(p)], uses, own), used, most=1
                )
                or f"theme {group + 1}"
            )
            used.update(_names(names[group]))
        casing = AuthorsCasing(papers)
        beside = [  # the phrases beside a label are judged whole as it is: on the theme's own papers and prose too
            _distinct(
                (p for p in chain(shown_beside[g], usable[g]) if not member_uses[g].incomplete(p)),
                uses,
                labels == g,
                self.top,
            )
            for g in range(groups)
        ]
        return [ThemeLabel(casing.apply(names[g]), [casing.apply(k) for k in beside[g]]) for g in range(groups)]

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

    def _best(
        self, phrases: list[str], uses: PhraseUse, own: np.ndarray, used: set[str], members: PhraseUse | None = None
    ) -> str | None:
        """The most distinctive of these phrases, weighed by how many members use it (in their keywords or title,
        see fidelity.py), paired with a second for a mixed theme; never a cut phrase, never a sibling's label."""
        scored = self._scored(phrases, uses, own, used, members=members)
        if not scored:
            return None
        top = max(scored, key=_merit)  # on a tie, the phrase ranked first
        score, share, best = max((row for row in scored if _fuller(row, top, uses, own)), key=_merit, default=top)
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
            if _names(label, taking=False) & used or uses.incomplete(phrase, own, evidence=TITLE_EVIDENCE):
                continue
            if members is not None and members.incomplete(phrase):  # cut where the theme's papers use it
                continue
            using = uses.of(label)
            inside, overall = float(using[own].mean()), float(using.mean())
            if inside < max(self.min_share, base + (self.mixed if first else 0.0)):
                continue
            scored.append((inside**self.coverage_weight * math.log(1 + inside / max(overall, 1e-9)), inside, phrase))
        return scored


def _merit(row: tuple[float, float, str]) -> tuple[float, float]:
    """A scored phrase's score, then its share of the theme."""
    return row[0], row[1]


def _class_tfidf(counts: list[Counter[str]], sizes: Sequence[float]) -> list[dict[str, float]]:
    """Class-based TF-IDF of each class's terms: the term's count over its class's size, times log(1 + the
    average class size over the term's count in all classes)."""
    totals = Counter[str]()
    for c in counts:
        totals.update(c)
    average = sum(sizes) / max(len(sizes), 1)
    return [
        {term: (n / (size or 1.0)) * math.log(1 + average / totals[term]) for term, n in c.items()}
        for c, size in zip(counts, sizes, strict=True)
    ]


def _word_scores(papers: Sequence[Paper], labels: np.ndarray, groups: int, sizes: np.ndarray) -> list[dict[str, float]]:
    """Each theme's words (stemmed, from titles and keywords) by c-TF-IDF over the members using them. A phrase's
    words added up break ties between phrases as frequent: "vortical flow simulation" over "wet foam" among
    simulation papers, not the alphabet."""
    used: list[Counter[str]] = [Counter() for _ in range(groups)]
    for paper, group in zip(papers, labels, strict=True):
        text = " ".join([paper.title, *paper.keywords])
        used[group].update({stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 2})
    return _class_tfidf(used, [float(size) for size in sizes])


class AuthorsCasing:
    """How the papers' authors write each word mid-sentence in their abstracts ("Q-learning", "Bayesian",
    "Wasserstein"), or in their titles when a capital there is no title case ("NAS", "AutoML", "BRDFs"): labels
    are built from folded words and shown in the authors' usual casing."""

    MID_SENTENCE = re.compile(r"(?<=[a-z0-9,;:)] )[A-Za-z][\w'-]*")
    IN_TITLE = re.compile(r"(?<![\w'-])[A-Za-z][\w']+(?![\w'-])")  # a word no hyphen joins ("Few-Shot" is title case)

    def __init__(self, papers: Sequence[Paper]) -> None:
        found = Counter(chain.from_iterable(self.MID_SENTENCE.findall(p.abstract or "") for p in papers))
        titles = (p.title for p in papers if not p.title.isupper())
        found.update(w for t in titles for w in self.IN_TITLE.findall(t) if any(c.isupper() for c in w[1:]))
        self.forms: dict[str, Counter[str]] = defaultdict(Counter)
        for form, n in found.items():
            self.forms[form.lower()][form] = n

    def word(self, word: str) -> str:
        """The form most authors write, when it is not lower case and more than half of at least two uses."""
        forms = self.forms.get(word.lower()) if word.islower() else None
        if not forms:
            return word
        form, n = forms.most_common(1)[0]
        return form if not form.islower() and n >= 2 and n > forms.total() / 2 else word

    def apply(self, phrase: str) -> str:
        """The phrase with each word in its authors' casing ("3D" too); spacing and joining words kept."""
        phrase = _DIMENSION_WORD.sub(lambda m: m.group(0).upper(), phrase)
        return re.sub(r"[A-Za-z][\w'-]*", lambda m: self.word(m.group(0)), phrase)


def _fuller(row: tuple[float, float, str], best: tuple[float, float, str], uses: PhraseUse, own: np.ndarray) -> bool:
    """Whether a phrase says more than the best one and should replace it: one word is vague ("graphs" →
    "graph neural networks"), an acronym terse ("NAS"), when SPECIFIC of the same share uses the fuller
    phrase; or its added words qualify what most of the best one's users mean, and are as distinctive of
    the theme ("robustness" → "adversarial robustness"; not "pruning" → "network pruning")."""
    _, inside, phrase = row
    _, share, short = best
    tokens = words(phrase)
    if len(tokens) <= len(words(short)):
        return False
    if acronym(short):
        return abbreviates(acronym(short), phrase) and inside >= SPECIFIC * share
    if not stems(short) <= stems(phrase):
        return False
    if inside >= SPECIFIC * share:
        return True
    added = uses.with_words(stems(phrase) - stems(short))
    short_users = uses.of(short)
    return float(added[short_users & own].mean()) >= SPECIFIC and _lift(added, own) >= _lift(short_users, own)


def _lift(using: np.ndarray, own: np.ndarray) -> float:
    """How much more often the theme's papers use something than the venue's papers do."""
    return float(using[own].mean()) / max(float(using.mean()), 1e-9)


def _names(label: str, taking: bool = True) -> set[str]:
    """What a label takes (or, not `taking`, what it would clash with): its parts, stemmed, in any order ("A and
    B" is "B and A"), and for one phrase its short form ("graph neural networks" takes "GNN", "GAN" takes
    "generative adversarial networks"; "representation learning" does not take "reinforcement learning")."""
    found = {"|".join(sorted(_key(" ".join(words(part))) for part in parts(label)))}
    short = acronym(label)
    if short or (PAIR not in label and initials(label)):
        spelled = bool(short) != taking  # the phrase a taken acronym stands for, or the acronym a phrase has
        found.add(f"{'spelled' if spelled else 'short'} {short or initials(label)}")
    return found


def _whole_first(phrases: list[str], uses: PhraseUse, own: np.ndarray) -> list[str]:
    """Phrases from one title, those starting and ending where its words do first ("clustered vector textures"
    before "efficiency-aware multiple" importance sampling); else in rank order."""
    return sorted(phrases, key=lambda phrase: len(uses.open_ends(phrase, own)))


def _distinct(phrases: Iterable[str], uses: PhraseUse, own: np.ndarray, most: int) -> list[str]:
    """The first `most` phrases less any inside another kept before it, or holding it, used by the same members:
    one title gives "nonlinear ray tracing" and "ray tracing", one phrase to show."""
    kept: list[tuple[str, set[str], np.ndarray]] = []
    for phrase in phrases:
        words_of, users = stems(phrase), uses.of(phrase) & own
        if not any((words_of <= w or w <= words_of) and np.array_equal(users, u) for _, w, u in kept):
            kept.append((phrase, words_of, users))
        if len(kept) == most:
            break
    return [phrase for phrase, _, _ in kept]


def _plain_phrase(phrase: str) -> bool:
    """Whether a phrase holds no joining word ("without ground truth" does): one that can stand as a name."""
    return not _JOINING.intersection(words(phrase))


def _fallback(phrases: list[str], used: set[str], most: int = 2) -> str | None:
    """The two (or `most`) top whole phrases no other theme has taken, the second not repeating the first,
    joined; None when there are none."""
    free = [p for p in phrases if not _names(p, taking=False) & used]
    chosen = free[:1] + [p for p in free[1:] if not nested(p, free[0])][: most - 1]
    joined = PAIR.join(chosen)
    return joined if chosen and not _names(joined, taking=False) & used else None


LABELERS: Registry[Labeler] = Registry("labeler", ("label",))
LABELERS.register("ctfidf", CTfidfLabeler)
