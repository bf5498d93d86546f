"""The phrases a paper offers as a theme label — its authors' keywords and the 2–3 word phrases of its title, as
the title writes them — and the casing the authors give their words."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import chain, product

from confnav.model import Paper
from confnav.search.text import STOPWORDS, stem, words
from confnav.topics.fidelity import BREAK, acronym

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
    found: dict[str, tuple[str, float]] = {}
    for keyword in paper.keywords:
        display = _display(keyword)
        generic = display.lower().replace("-", " ") in TOO_GENERIC  # "deep-learning" too
        if display and len(display) <= 40 and not generic and "and" not in words(display):
            found.setdefault(phrase_key(" ".join(words(keyword))), (display, KEYWORD_WEIGHT))
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
                found.setdefault(phrase_key(display), (_as_written(paper.title, gram) or display, TITLE_WEIGHT))
    if not paper.title.isupper():  # a name the title writes ("StyleGAN", "NeRF"; not an acronym): a one-word phrase
        for name in _NAME.findall(title_text):
            if not acronym(name):
                found.setdefault(phrase_key(name.lower()), (name, TITLE_WEIGHT))
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
