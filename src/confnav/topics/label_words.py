"""The phrase tests and scores the c-TF-IDF labeler (label.py) chooses with: class-based TF-IDF, a phrase's lift
in its theme, whether it is whole and plain enough to name one, the names a label takes from the others, and the
commonest spelling of a phrase written several ways."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from confnav.model import Paper
from confnav.search.text import STOPWORDS, stem, words
from confnav.topics.candidates import phrase_key
from confnav.topics.fidelity import PAIR, PhraseUse, acronym, initials, parts
from confnav.topics.phrases import abbreviates, nested, one_letter_apart, stems

SPECIFIC = 0.6  # a longer phrase replaces a shorter label it contains when this share of its users use it
SUPPORT = 2  # each part of a label must be in this many of its theme's papers (titles or keywords), or it names one


# Words that join a phrase to the rest of its title, so a phrase holding one is rarely a name of its own.
JOINING = STOPWORDS | {
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


class CommonSpelling:
    """The spelling most of the papers use of a phrase written several ways ("explainability" for a label found as
    "explanability"): the fidelity measure counts every variant spelling as a use, so the label's choice cannot
    tell a rare misspelling from the usual form, and the rarer one looks the more distinctive."""

    def __init__(self, counts: list[Counter[str]], shown: dict[str, str]) -> None:
        totals: Counter[str] = Counter()
        for found in counts:
            totals.update(found)
        self._uses: dict[str, float] = defaultdict(float)
        self._alike: dict[tuple[int, str], list[tuple[str, list[str]]]] = defaultdict(list)  # by words, first letter
        for key, used in totals.items():
            display = shown[key]
            self._uses[display] += used
        for display in self._uses:
            if tokens := words(display):
                self._alike[len(tokens), tokens[0][:1]].append((display, tokens))

    def of(self, label: str, taken: set[str]) -> str:
        """The label with each part in its commonest spelling, unless that would take a name already taken."""
        respelled = PAIR.join(self._commonest(part) for part in parts(label))
        return respelled if respelled == label or not label_names(respelled, taking=False) & taken else label

    def _commonest(self, phrase: str) -> str:
        tokens = words(phrase)
        if not tokens:
            return phrase
        forms = [
            other for other, its in self._alike.get((len(tokens), tokens[0][:1]), []) if one_letter_apart(its, tokens)
        ]
        best = max(forms, key=self._uses.__getitem__, default=phrase)
        return best if self._uses.get(best, 0.0) > self._uses.get(phrase, 0.0) else phrase


def merit(row: tuple[float, float, str]) -> tuple[float, float]:
    """A scored phrase's score, then its share of the theme."""
    return row[0], row[1]


def class_tfidf(counts: list[Counter[str]], sizes: Sequence[float]) -> list[dict[str, float]]:
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


def word_scores(papers: Sequence[Paper], labels: np.ndarray, groups: int, sizes: np.ndarray) -> list[dict[str, float]]:
    """Each theme's words (stemmed, from titles and keywords) by c-TF-IDF over the members using them. A phrase's
    words added up break ties between phrases as frequent: "vortical flow simulation" over "wet foam" among
    simulation papers, not the alphabet."""
    used: list[Counter[str]] = [Counter() for _ in range(groups)]
    for paper, group in zip(papers, labels, strict=True):
        text = " ".join([paper.title, *paper.keywords])
        used[group].update({stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 2})
    return class_tfidf(used, [float(size) for size in sizes])


def fuller(row: tuple[float, float, str], best: tuple[float, float, str], uses: PhraseUse, own: np.ndarray) -> bool:
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
    return float(added[short_users & own].mean()) >= SPECIFIC and lift(added, own) >= lift(short_users, own)


def lift(using: np.ndarray, own: np.ndarray) -> float:
    """How much more often the theme's papers use something than the venue's papers do."""
    return float(using[own].mean()) / max(float(using.mean()), 1e-9)


def label_names(label: str, taking: bool = True) -> set[str]:
    """What a label takes (or, not `taking`, what it would clash with): its parts, stemmed, in any order ("A and
    B" is "B and A"), and for one phrase its short form ("graph neural networks" takes "GNN", "GAN" takes
    "generative adversarial networks"; "representation learning" does not take "reinforcement learning")."""
    found = {"|".join(sorted(phrase_key(" ".join(words(part))) for part in parts(label)))}
    short = acronym(label)
    if short or (PAIR not in label and initials(label)):
        spelled = bool(short) != taking  # the phrase a taken acronym stands for, or the acronym a phrase has
        found.add(f"{'spelled' if spelled else 'short'} {short or initials(label)}")
    return found


def whole(phrase: str, members: PhraseUse) -> bool:
    """Whether a phrase can be shown beside a theme's label: not cut where the members use it, and, from one title
    only, ending where its title's phrase does ("multi-person articulated" is cut from "… tracking")."""
    if members.incomplete(phrase):
        return False
    return int(members.of(phrase).sum()) >= SUPPORT or "after" not in members.open_ends(phrase)


def distinct(phrases: Iterable[str], uses: PhraseUse, own: np.ndarray, most: int) -> list[str]:
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


def plain_phrase(phrase: str) -> bool:
    """Whether a phrase holds no joining word ("without ground truth" does): one that can stand as a name."""
    return not JOINING.intersection(words(phrase))


def fallback_label(phrases: list[str], used: set[str], most: int = 2) -> str | None:
    """The two (or `most`) top whole phrases no other theme has taken, the second not repeating the first,
    joined; None when there are none."""
    free = [p for p in phrases if not label_names(p, taking=False) & used]
    chosen = free[:1] + [p for p in free[1:] if not nested(p, free[0])][: most - 1]
    joined = PAIR.join(chosen)
    return joined if chosen and not label_names(joined, taking=False) & used else None
