"""How likely each abstract sentence is the paper's TL;DR: a linear score of plain features.

The weights were fitted (ridge regression on each sentence's ROUGE-1 against the authors'
own TL;DR) on ICLR 2018 and CoRL 2023; `benchmarks/tldr_eval.py --fit` refits them and reports
each venue with the weights fitted on the other one. The strongest cue is sharing words with
the title; contribution phrases ("we propose") and centrality in the abstract follow.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from confnav.search.text import terms

_CONTRIBUTION = re.compile(
    r"\b(we (propose|introduce|present|develop|design|show|demonstrate|prove|derive|find|study|provide|establish|"
    r"formulate|analy[sz]e|investigate|learn|identify|argue|report|extend|generalize)|this (paper|work|study)|"
    r"in this (paper|work)|our (method|approach|model|framework|algorithm|results?)|here,? we)\b",
    re.I,
)
_BACKGROUND = re.compile(
    r"\b(recent(ly)?|has been|have been|however|although|despite|existing|prior|previous|traditional(ly)?|"
    r"typically|commonly|widely|remains?|challenging|popular|state-of-the-art methods)\b",
    re.I,
)
_PROPOSE = re.compile(r"\bwe (propose|introduce|present|develop|design)\b", re.I)
_SHOW = re.compile(r"\bwe (show|prove|demonstrate|find|observe)\b", re.I)
_WE = re.compile(r"\bwe\b", re.I)
_RESULTS = re.compile(r"\b(results|experiments)\b", re.I)

FEATURES = (
    "title words", "keyword words", "centrality", "we propose", "we show", "we", "contribution cues",
    "background cues", "results", "position", "first", "second", "last", "length", "short", "long", "title name",
)  # fmt: skip
# Fitted by `benchmarks/tldr_eval.py --fit` (1,718 sentences… of 939 abstracts; see BENCHMARKS.md).
WEIGHTS = {
    "title words": 0.1556, "keyword words": 0.0965, "centrality": 0.1064, "we propose": 0.0479, "we show": -0.0143,
    "we": 0.0389, "contribution cues": 0.0138, "background cues": -0.0092, "results": -0.0073, "position": -0.0086,
    "first": 0.018, "second": 0.0023, "last": 0.0084, "length": 0.0625, "short": -0.0403, "long": -0.0376,
    "title name": 0.0028,
}  # fmt: skip


@dataclass(frozen=True)
class Context:
    """What a sentence is compared with: the paper's title and keyword terms, and names in its title ("GAN")."""

    title: frozenset[str]
    keywords: frozenset[str]
    names: frozenset[str]

    @classmethod
    def of(cls, title: str, keywords: Sequence[str]) -> Context:
        names = {w.strip(":,()") for w in title.split() if sum(c.isupper() for c in w) >= 2} - {""}
        return cls(frozenset(terms(title)), frozenset(terms(" ".join(keywords))), frozenset(names))


def sentence_features(sentence: str, own: set[str], position: int, count: int, context: Context,
                      others: set[str]) -> list[float]:  # fmt: skip
    """The features of one sentence (its terms `own`), in FEATURES order; `others`: the other sentences' terms."""
    words = len(sentence.split())
    return [
        len(own & context.title) / max(1, len(context.title)),
        len(own & context.keywords) / max(1, len(context.keywords)),
        len(own & others) / max(1, len(own)),
        float(bool(_PROPOSE.search(sentence))),
        float(bool(_SHOW.search(sentence))),
        float(bool(_WE.search(sentence))),
        float(len(_CONTRIBUTION.findall(sentence))),
        float(len(_BACKGROUND.findall(sentence))),
        float(bool(_RESULTS.search(sentence))),
        position / max(1, count - 1),
        float(position == 0),
        float(position == 1),
        float(position == count - 1),
        min(words, 50) / 50,
        float(words < 8),
        float(words > 35),
        float(any(name in sentence for name in context.names)),
    ]


def features_of(found: list[str], title: str = "", keywords: Sequence[str] = ()) -> list[list[float]]:
    """The features of every sentence of an abstract."""
    context = Context.of(title, keywords)
    term_sets = [set(terms(s)) for s in found]
    counts = Counter(t for own in term_sets for t in own)
    everything = set(counts)
    rows = []
    for i, (sentence, own) in enumerate(zip(found, term_sets, strict=True)):
        others = everything - {t for t in own if counts[t] == 1}  # terms some other sentence has
        rows.append(sentence_features(sentence, own, i, len(found), context, others))
    return rows


def score_sentences(found: list[str], title: str = "", keywords: Sequence[str] = ()) -> list[float]:
    """The score of each sentence of an abstract (higher: more like the authors' own TL;DR)."""
    weights = [WEIGHTS[name] for name in FEATURES]
    return [sum(w * v for w, v in zip(weights, row, strict=True)) for row in features_of(found, title, keywords)]
