"""What a paper's reviewers agreed and disagreed on, extractively: sentences taken verbatim from the reviews and the
meta-review, each naming the review it comes from.

The method, for any venue's review form:
1. Each text field is split into lines (a bullet's mark dropped) and sentences; a line such as "Weaknesses:" opens
   a section. Questions, and sentences under 5 or over 60 words, are left out; each review gives at most
   `MAX_SENTENCES`, read from the first `MAX_READ` characters of each field.
2. A sentence's polarity comes from its section or field name when that says strengths or weaknesses (`PRAISING`,
   `CRITICAL`), else from a small lexicon of positive and negative words (`POSITIVE`, `NEGATIVE`; a negation
   within three words before a positive word makes it negative); neither, or a sentence reporting a disagreement
   (`REPORTED`: "the reviewers disagree on whether…"): neutral.
3. Sentences are compared by the cosine of their TF-IDF vectors (stemmed content words, IDF over the paper's
   sentences).
4. Agreement: an opinion (a sentence with a polarity; a neutral one describes the paper) said alike (cosine ≥
   `ALIKE`, same polarity) in at least two different reviews; the opinions shared by most reviews come first, each
   shown with the closest sentence of every other review that says it. Disagreement: two sentences of different
   reviews on the same aspect (cosine ≥ `SAME_ASPECT`) with opposite polarity. At most `MAX_POINTS` of each; a
   sentence is used once.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from confnav.search.text import stem, terms, words
from confnav.summarize.text import sentences

ALIKE = 0.3
SAME_ASPECT = 0.2
MAX_POINTS = 3
MAX_SENTENCES = 80
MAX_READ = 20_000  # characters of a field read for sentences: far more than MAX_SENTENCES take
MIN_WORDS, MAX_WORDS = 5, 60
PRAISING = ("strength", "pros", "positive", "merit", "advantage")
CRITICAL = ("weakness", "cons", "negative", "limitation", "concern", "drawback", "shortcoming")
# A lexicon of evaluative words of reviews (stemmed when used); documented here so that the method is plain.
POSITIVE = frozenset(
    """
    clear clearly well convincing convinced strong novel interesting thorough solid good easy impressive significant
    insightful elegant comprehensive sound compelling original useful valuable nice excellent rigorous extensive
    promising
    """.split()  # noqa: SIM905
)
NEGATIVE = frozenset(
    """
    limited weak unclear missing lack lacks lacking insufficient unconvincing confusing hard difficult poor incremental
    marginal fails fail wrong problematic issue concern concerns questionable misleading overclaim overstated unfair
    narrow small trivial outdated
    """.split()  # noqa: SIM905
)
NEGATIONS = frozenset({"not", "no", "never", "hardly", "barely", "nt", "isn", "aren", "doesn", "don", "without"})
REPORTED = frozenset({"disagree", "disagreed", "disagreement", "whether", "mixed", "divided", "split", "debated"})
_POSITIVE, _NEGATIVE = frozenset(map(stem, POSITIVE)), frozenset(map(stem, NEGATIVE))
_BULLET = re.compile(r"^\s*(?:[-*•]|\(?\d{1,2}[.)]|\(?[a-z][.)])\s+")
# A section's heading: a line "Weaknesses:", "**Strengths**", "## Summary of the paper", or "Cons: …" opening a line
# (at most three words before the colon then, so that a sentence with a colon is not taken for one).
_SECTION = re.compile(
    r"^\s*(?:#+\s*(?P<marked>[^#]{1,60}?)|\*\*(?P<bold>[^*]{1,60})\*\*:?"
    r"|(?P<alone>[A-Za-z][\w&/-]*(?: [\w&/-]+){0,5})\s*:)\s*$"
    r"|^\s*\**(?P<inline>[A-Za-z][\w&/-]*(?: [\w&/-]+){0,2})\**\s*:\s*(?=\S)"
)
METHOD = (
    "Sentences taken verbatim from the reviews: agreement where at least two reviews say alike (TF-IDF cosine),"
    " disagreement where two reviews speak of the same aspect with opposite polarity (strengths against weaknesses,"
    " or a lexicon of positive and negative words)."
)


@dataclass(frozen=True)
class Statement:
    """One review's text, as the summary reads it."""

    review_id: str
    anchor: str
    reviewer: str
    kind: str
    fields: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Quote:
    """A sentence as written in a review, with the review it links to."""

    text: str
    review_id: str
    anchor: str
    reviewer: str
    field: str
    polarity: int  # 1 praise, -1 criticism, 0 neither

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ReviewSummary:
    """Points the reviewers agreed on (each quote from another review) and disagreed on (praise, then criticism)."""

    agreed: list[list[Quote]] = field(default_factory=list)
    disagreed: list[list[Quote]] = field(default_factory=list)
    method: str = METHOD

    def to_dict(self) -> dict[str, Any]:
        return {
            "agreed": [[q.to_dict() for q in point] for point in self.agreed],
            "disagreed": [[q.to_dict() for q in point] for point in self.disagreed],
            "method": self.method,
        }


def summarize_reviews(statements: list[Statement]) -> ReviewSummary:
    """What the reviews agreed and disagreed on, each point made of their own sentences (see the module's method)."""
    quotes = [quote for statement in statements for quote in _quotes(statement)]
    if len({q.review_id for q in quotes}) < 2:
        return ReviewSummary()
    similar = _similarities([terms(q.text) for q in quotes])
    return ReviewSummary(_agreed(quotes, similar), _disagreed(quotes, similar))


def polarity(sentence: str, section: str) -> int:
    """1 for praise, -1 for criticism, 0 for neither: by the section's name, else by the lexicon."""
    named = section.lower()
    if any(word in named for word in PRAISING):
        return 1
    if any(word in named for word in CRITICAL):
        return -1
    score, tokens = 0, words(sentence)
    if REPORTED & set(tokens):
        return 0
    for i, token in enumerate(tokens):
        stemmed = stem(token)
        if stemmed in _POSITIVE:
            score += -1 if NEGATIONS & set(tokens[max(0, i - 3) : i]) else 1
        elif stemmed in _NEGATIVE:
            score -= 1
    return (score > 0) - (score < 0)


def _quotes(statement: Statement) -> list[Quote]:
    found: list[Quote] = []
    for name, text in statement.fields:
        section = name
        for line in text[:MAX_READ].splitlines():
            line = _BULLET.sub("", line)
            if heading := _SECTION.match(line):
                section, line = next(name for name in heading.groups() if name), line[heading.end() :]
            for sentence in sentences(line):
                count = len(sentence.split())
                if sentence.endswith("?") or not MIN_WORDS <= count <= MAX_WORDS or sentence not in text:
                    continue
                found.append(
                    Quote(
                        sentence,
                        statement.review_id,
                        statement.anchor,
                        statement.reviewer,
                        name,
                        polarity(sentence, section),
                    )
                )
                if len(found) >= MAX_SENTENCES:
                    return found
    return found


def _similarities(bags: list[list[str]]) -> np.ndarray:
    """Cosine similarities of the sentences' TF-IDF vectors (IDF smoothed, over these sentences)."""
    vocabulary = {term: k for k, term in enumerate(sorted({t for bag in bags for t in bag}))}
    counts = np.zeros((len(bags), max(1, len(vocabulary))))
    for row, bag in enumerate(bags):
        for term, n in Counter(bag).items():
            counts[row, vocabulary[term]] = n
    idf = np.log((1 + len(bags)) / (1 + (counts > 0).sum(axis=0))) + 1
    vectors = counts * idf
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return np.asarray(vectors @ vectors.T)


def _agreed(quotes: list[Quote], similar: np.ndarray) -> list[list[Quote]]:
    """Opinions said alike by other reviews, the most widely shared first; each with its closest echo per review."""
    reviews = np.array([q.review_id for q in quotes])
    polarities = np.array([q.polarity for q in quotes])
    alike = (similar >= ALIKE) & (np.outer(polarities, polarities) > 0)
    echoes: list[list[int]] = [[] for _ in quotes]  # per sentence: the closest alike sentence of each other review
    for review in np.unique(reviews):
        members = np.flatnonzero(reviews == review)
        scores = np.where(alike[:, members], similar[:, members], -1.0)
        best, found = members[scores.argmax(axis=1)], scores.max(axis=1) >= ALIKE
        for i in np.flatnonzero(found & (reviews != review)).tolist():
            echoes[i].append(int(best[i]))
    candidates = sorted(
        ((-len(e), -float(sum(similar[i, j] for j in e)), i) for i, e in enumerate(echoes) if e),
    )
    covered = np.zeros(len(quotes), dtype=bool)  # alike to a sentence already shown
    points: list[list[Quote]] = []
    for _, _, i in candidates:
        if covered[i]:
            continue
        points.append([quotes[i]] + [quotes[j] for j in echoes[i]])
        covered |= (similar[[i, *echoes[i]]] >= ALIKE).any(axis=0)
        if len(points) == MAX_POINTS:
            break
    return points


def _disagreed(quotes: list[Quote], similar: np.ndarray) -> list[list[Quote]]:
    """Pairs of sentences of different reviews on one aspect, one praising and one criticising, the closest first."""
    reviews = np.array([q.review_id for q in quotes])
    polarities = np.array([q.polarity for q in quotes])
    opposed = np.outer(polarities > 0, polarities < 0) & (reviews[:, None] != reviews[None, :])
    praise, criticism = np.nonzero(opposed & (similar >= SAME_ASPECT))
    order = np.lexsort((criticism, praise, -similar[praise, criticism]))
    praise, criticism = praise[order], criticism[order]
    points: list[list[Quote]] = []
    while len(praise) and len(points) < MAX_POINTS:
        i, j = int(praise[0]), int(criticism[0])
        points.append([quotes[i], quotes[j]])
        covered: np.ndarray = np.any(similar[[i, j]] >= ALIKE, axis=0)  # this aspect is shown: pairs on it go
        kept = ~(covered[praise] | covered[criticism])
        praise, criticism = praise[kept], criticism[kept]
    return points
