"""The phrases a paper offers as a theme label — its authors' keywords and the 2–3 word phrases of its title, as
the title writes them — and the casing the authors give their words."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import chain, product

from confnav.model import Paper
from confnav.search.text import STOPWORDS, stem, words
from confnav.topics.fidelity import acronym
from confnav.topics.paper_words import BREAK, remembered

KEYWORD_WEIGHT, TITLE_WEIGHT = 1.0, 0.5  # an author's keyword counts twice a phrase cut from a title
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


def phrase_key(phrase: str) -> str:
    return " ".join(stem(w) for w in phrase.split())


def _display(keyword: str) -> str:
    """A keyword as shown: acronyms kept (GAN, GNNs, BERT), other words lower case, hyphens kept."""
    tokens = re.findall(r"[\w'-]+", keyword.strip())
    return " ".join(t if len(t) > 1 and (t.isupper() or acronym(t)) else t.lower() for t in tokens)


def candidates(paper: Paper) -> list[tuple[str, str, float]]:
    """(key, display form, weight) of a paper's candidate phrases, each key once; none with "and", which
    joins the two parts of a label, nor across a title's punctuation, nor from the name a title opens with."""
    return list(_candidates(paper.title, tuple(paper.keywords)))


@remembered
def _candidates(title: str, keywords: tuple[str, ...]) -> tuple[tuple[str, str, float], ...]:
    """The candidates of a title and keywords (remembered by their text: a build reads each paper's twice)."""
    found: dict[str, tuple[str, float]] = {}
    for keyword in keywords:
        display = _display(keyword)
        generic = display.lower().replace("-", " ") in TOO_GENERIC  # "deep-learning" too
        if display and len(display) <= 40 and not generic and "and" not in words(display):
            found.setdefault(phrase_key(" ".join(words(keyword))), (display, KEYWORD_WEIGHT))
    title_text = _PAPER_NAME.sub("", title)
    for gram in _title_phrases(title_text):
        display = " ".join(text for _, text in gram)
        key = phrase_key(" ".join(w for unit, _ in gram for w in unit))
        if display not in TOO_GENERIC:
            found.setdefault(key, (display, TITLE_WEIGHT))
    if not title.isupper():  # a name the title writes ("StyleGAN", "NeRF"; not an acronym): a one-word phrase
        for name in _NAME.findall(title_text):
            if not acronym(name):
                found.setdefault(phrase_key(name.lower()), (name, TITLE_WEIGHT))
    return tuple((key, display, weight) for key, (display, weight) in found.items())


_DIMENSION = re.compile(r"\d[a-z]")  # "3d", "2d", "6d"
_DIMENSION_WORD = re.compile(r"(?<![\w.-])\d[dD](?![\w])")
_NAME = re.compile(r"(?<![\w'-])([A-Z][a-z]*[A-Z][A-Za-z]*)(?![\w'])")  # two capitals or more, hyphen after allowed
_PAPER_NAME = re.compile(r"^\s*[\w'-]+\s*:")  # "DuLa-Net: A Dual-Projection Network …": the paper's own name


@remembered
def title_words(title: str) -> tuple[str, ...]:
    """A title's words as written, hyphens kept ("re-identification"), past the name it opens with; a stop word, a
    short word or a number is none."""
    units = (_unit(chunk) for run in BREAK.split(_PAPER_NAME.sub("", title)) for chunk in run.split())
    return tuple(text for unit, text in units if unit and _joinable(unit, end=True) and len(text) > 2)


def _title_phrases(title: str) -> list[list[tuple[list[str], str]]]:
    """The 2–3 word phrases of a title, as (words, written form) of each word, where a hyphenated word is one word
    ("person re-identification", "few-shot learning"; never "shot learning" or "person re"); none ends or starts
    with a stop word, holds "and", runs across punctuation, or holds a short word that is no dimension ("3D")."""
    phrases = []
    for run in BREAK.split(title):
        units = [unit for chunk in run.split() if (unit := _unit(chunk))[0]]
        for n, i in product((2, 3), range(len(units))):
            gram = units[i : i + n]
            if len(gram) == n and all(_joinable(unit, at in (0, n - 1)) for at, (unit, _) in enumerate(gram)):
                phrases.append(gram)
    return phrases


def _unit(chunk: str) -> tuple[list[str], str]:
    """A title's word as its folded words and its written form, hyphens kept ("Re-Identification" →
    (["re", "identification"], "re-identification"))."""
    pieces = [" ".join(words(piece)) for piece in chunk.split("-")]
    return words(chunk), "-".join(piece for piece in pieces if piece)


def _joinable(unit: list[str], end: bool) -> bool:
    """Whether a title's word can be part of a phrase (at its `end`, a first or last word: no stop word)."""
    if len(unit) > 1:  # a hyphenated word is a word of its own, whatever its parts ("non-line-of-sight")
        return not all(w.isdigit() for w in unit)
    word = unit[0]
    if word == "and" or (end and word in STOPWORDS):
        return False
    return not ((len(word) < 3 and not _DIMENSION.fullmatch(word)) or word.isdigit())


class AuthorsCasing:
    """How the papers' authors write each word mid-sentence in their abstracts ("Q-learning", "Bayesian",
    "Wasserstein"), or in their titles when a capital there is no title case ("NAS", "AutoML", "BRDFs"): labels
    are built from folded words and shown in the authors' usual casing."""

    MID_SENTENCE = re.compile(r"(?<=[a-z0-9,;:)] )[A-Za-z][\w'-]*")
    IN_TITLE = re.compile(r"(?<![\w'-])[A-Za-z][\w']+(?![\w'-])")  # a word no hyphen joins ("Few-Shot" is title case)

    def __init__(self, papers: Sequence[Paper]) -> None:
        self.written = Counter(chain.from_iterable(_mid_sentence(p.abstract or "") for p in papers))
        self.written.update(chain.from_iterable(_cased_in_title(p.title) for p in papers if not p.title.isupper()))
        self.capitalised: dict[str, list[str]] = defaultdict(list)  # a word → its forms with a capital
        for form in [form for form in self.written if not form.islower()]:
            self.capitalised[form.lower()].append(form)

    def word(self, word: str) -> str:
        """The form most authors write, when it is not lower case and more than half of at least two uses."""
        if not word.islower() or word not in self.capitalised:
            return word
        forms = Counter({form: self.written[form] for form in [word, *self.capitalised[word]] if form in self.written})
        form, n = forms.most_common(1)[0]
        return form if not form.islower() and n >= 2 and n > forms.total() / 2 else word

    def apply(self, phrase: str) -> str:
        """The phrase with each word in its authors' casing ("3D" too); spacing and joining words kept."""
        phrase = _DIMENSION_WORD.sub(lambda m: m.group(0).upper(), phrase)
        return re.sub(r"[A-Za-z][\w'-]*", lambda m: self.word(m.group(0)), phrase)


@remembered
def _mid_sentence(abstract: str) -> tuple[str, ...]:
    """The words an abstract writes mid-sentence, as written."""
    return tuple(AuthorsCasing.MID_SENTENCE.findall(abstract))


@remembered
def _cased_in_title(title: str) -> tuple[str, ...]:
    """The words of a title with a capital past their first letter ("NAS", "AutoML"), as written."""
    return tuple(w for w in AuthorsCasing.IN_TITLE.findall(title) if any(c.isupper() for c in w[1:]))
