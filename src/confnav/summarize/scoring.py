"""How likely each abstract sentence is the paper's TL;DR: a linear score of plain features.

Each sentence is scored together with the shortened form a TL;DR would show. The weights were
fitted by ridge regression on how much better than its abstract's average each shown sentence's
ROUGE-1 against the authors' own TL;DR is (ICLR 2018 and CoRL 2023); `benchmarks/tldr_eval.py
--fit` refits them and reports each venue with the weights fitted on the other one. The strongest
cues are sharing words with the title, contribution phrases ("we propose") and centrality.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from operator import mul

from confnav.search.text import token_terms

_PROPOSE = re.compile(r"\bwe (propose|introduce|present|develop|design)\b")
_SHOW = re.compile(r"\bwe (show|prove|demonstrate|find|observe)\b")
_CONTRIBUTION = re.compile(
    r"\b(we (propose|introduce|present|develop|design|show|demonstrate|prove|derive|find|study|provide|establish|"
    r"formulate|analy[sz]e|investigate|learn|identify|argue|report|extend|generalize)|this (paper|work|study)|"
    r"our (method|approach|model|framework|algorithm|results?))\b"
)
_WORD = re.compile(r"[a-z][a-z-]*")
_BACKGROUND_WORDS = frozenset(
    {
        "recent",
        "recently",
        "however",
        "although",
        "despite",
        "existing",
        "prior",
        "previous",
        "traditional",
        "traditionally",
        "typically",
        "commonly",
        "widely",
        "remain",
        "remains",
        "challenging",
        "popular",
    }
)
_NOVELTY_WORDS = frozenset({"novel", "new", "simple", "first"})
_ARTIFACT_WORDS = frozenset(
    {
        f"{w}{s}"
        for w in (
            "method",
            "approach",
            "framework",
            "algorithm",
            "model",
            "architecture",
            "technique",
            "system",
            "dataset",
            "benchmark",
        )
        for s in ("", "s")
    }
)
_AUTHORS = re.compile(r"\b(we|this (paper|work))\b", re.I)
_OPENS_WITH_AUTHORS = re.compile(r"^(we|this (paper|work|study))\b", re.I)
_OPENS_WITH_PROPOSAL = re.compile(
    r"^(we|this (paper|work|study)) (propose|introduce|present|develop|design|describe)", re.I
)
_DEFINED_NAME = re.compile(r"\(([A-Z][\w-]*[A-Z][\w-]*)\)")  # "… networks (GANs)"
_CONTRAST = re.compile(r"^(however|but|yet|unfortunately|despite|although|while)\b", re.I)

FEATURES = (
    "title words",
    "keyword words",
    "centrality",
    "we propose",
    "we show",
    "we",
    "contribution cues",
    "background cues",
    "results",
    "position",
    "first",
    "second",
    "last",
    "length",
    "short",
    "long",
    "title name",
    "first we sentence",
    "opens with we",
    "opens with a proposal",
    "novelty",
    "artifact",
    "defines a name",
    "title bigrams",
    "shortened",
    "after a contrast",
    "centrality with title",
    "title words shown",
    "title share of shown",
)
# Fitted by `benchmarks/tldr_eval.py --fit` (939 abstracts of ICLR 2018 and CoRL 2023; see BENCHMARKS.md).
WEIGHTS = {
    "title words": -0.0697,
    "keyword words": 0.0619,
    "centrality": 0.0565,
    "we propose": 0.029,
    "we show": 0.0062,
    "we": 0.0197,
    "contribution cues": -0.0018,
    "background cues": -0.014,
    "results": -0.0112,
    "position": -0.0311,
    "first": 0.0264,
    "second": 0.0037,
    "last": 0.0025,
    "length": 0.0763,
    "short": -0.0353,
    "long": -0.0276,
    "title name": 0.0067,
    "first we sentence": 0.0485,
    "opens with we": 0.0083,
    "opens with a proposal": 0.0065,
    "novelty": 0.0156,
    "artifact": 0.0076,
    "defines a name": -0.0138,
    "title bigrams": 0.0069,
    "shortened": -0.0089,
    "after a contrast": -0.0061,
    "centrality with title": 0.0142,
    "title words shown": 0.145,
    "title share of shown": 0.0442,
}


@dataclass(frozen=True)
class Context:
    """What a sentence is compared with: the paper's title and keyword terms, and names in its title ("GAN")."""

    title: frozenset[str]
    title_pairs: frozenset[tuple[str, str]]
    keywords: frozenset[str]
    names: frozenset[str]

    @classmethod
    def of(cls, title: str, keywords: Sequence[str]) -> Context:
        names = title_names(title)
        title_terms = _terms(title)
        return cls(
            frozenset(title_terms),
            frozenset(_pairs(title_terms)),
            frozenset(_terms(" ".join(keywords))),
            frozenset(names),
        )


def _terms(text: str) -> list[str]:
    """The index terms of a text, word by word (cached: the same words recur across sentences and venues)."""
    return [term for token in text.split() for term in token_terms(token)]


_NAME = re.compile(r"[\w-]*[A-Z][\w-]*[A-Z][\w-]*")  # "GAN", "DeePa", "BERT-style"


@lru_cache(maxsize=10_000)  # asked for by scoring, by the background rule and by choosing, for the same title
def title_names(title: str) -> frozenset[str]:
    """Names in a title: words with two capitals or more ("GAN", "DeePa"), and the one word a title opens with before
    its colon ("Rotograd: …")."""
    opening = title.split(":", 1)[0].strip() if ":" in title else ""
    return frozenset(_NAME.findall(title)) | ({opening} if opening and " " not in opening else set())


def _pairs(found: list[str]) -> set[tuple[str, str]]:
    return set(pairwise(found))


@dataclass(frozen=True)
class Sentence:
    """One abstract sentence as the scorer sees it: its text and terms, the shortened form a TL;DR would show and
    its terms, and where the sentence stands in the abstract."""

    text: str
    terms: list[str]
    own: set[str]
    shown: str
    shown_terms: set[str]
    position: int
    count: int


def sentence_features(
    sentence: Sentence, context: Context, counts: Counter[str], first_we: bool, after_contrast: bool
) -> list[float]:
    """The features of one sentence, in FEATURES order; `counts`: in how many sentences of the abstract each term is."""
    text, own, shown = sentence.text, sentence.own, sentence.shown
    lower = text.lower()
    tokens = set(_WORD.findall(lower))
    authors = "we" in tokens or "this" in tokens or "our" in tokens  # else no contribution phrase can be there
    words, position, count = len(text.split()), sentence.position, sentence.count
    central = shared = 0
    for term in own:  # in how many other sentences (at most 3), and twice more for a title word
        elsewhere = counts[term] - 1
        central += elsewhere > 0
        shared += (elsewhere if elsewhere < 3 else 3) + (2 if term in context.title else 0)
    return [
        len(own & context.title) / max(1, len(context.title)),
        len(own & context.keywords) / max(1, len(context.keywords)),
        central / max(1, len(own)),
        float(authors and bool(_PROPOSE.search(lower))),
        float(authors and bool(_SHOW.search(lower))),
        float("we" in tokens),
        float(len(_CONTRIBUTION.findall(lower)) if authors else 0),
        float(len(tokens & _BACKGROUND_WORDS) + lower.count("has been") + lower.count("have been")),
        float("results" in tokens or "experiments" in tokens),
        position / max(1, count - 1),
        float(position == 0),
        float(position == 1),
        float(position == count - 1),
        min(words, 50) / 50,
        float(words < 8),
        float(words > 35),
        float(any(name in text for name in context.names)),
        float(first_we),
        float(bool(_OPENS_WITH_AUTHORS.match(shown))),
        float(bool(_OPENS_WITH_PROPOSAL.match(shown))),
        float(bool(tokens & _NOVELTY_WORDS)),
        float(bool(tokens & _ARTIFACT_WORDS)),
        float("(" in text and bool(_DEFINED_NAME.search(text))),
        len(_pairs(sentence.terms) & context.title_pairs) / max(1, len(context.title_pairs)),
        float(len(shown.split()) < words - 3),
        float(after_contrast),
        shared / max(5, len(own)),
        len(sentence.shown_terms & context.title) / max(1, len(context.title)),
        len(sentence.shown_terms & context.title) / max(1, len(sentence.shown_terms)),
    ]


def features_of(
    found: list[str], title: str = "", keywords: Sequence[str] = (), shown: Sequence[str] | None = None
) -> list[list[float]]:
    """The features of every sentence of an abstract; `shown`: the shortened form of each (default: as found)."""
    context = Context.of(title, keywords)
    shown = list(shown) if shown is not None else found
    term_lists = [_terms(s) for s in found]
    counts = Counter(t for own in term_lists for t in set(own))
    first_we = next((i for i, s in enumerate(found) if _AUTHORS.search(s)), None)
    rows = []
    for i, (text, short, own) in enumerate(zip(found, shown, term_lists, strict=True)):
        own_set = set(own)
        shown_terms = own_set if short == text else {t for token in short.split() for t in token_terms(token)}
        sentence = Sentence(text, own, own_set, short, shown_terms, i, len(found))
        contrast = bool(_CONTRAST.match(text)) or (i > 0 and bool(_CONTRAST.match(found[i - 1])))
        rows.append(sentence_features(sentence, context, counts, i == first_we, contrast))
    return rows


def score_sentences(
    found: list[str], title: str = "", keywords: Sequence[str] = (), shown: Sequence[str] | None = None
) -> list[float]:
    """The score of each sentence of an abstract (higher: more like the authors' own TL;DR)."""
    weights = [WEIGHTS[name] for name in FEATURES]
    return [sum(map(mul, weights, row)) for row in features_of(found, title, keywords, shown)]
