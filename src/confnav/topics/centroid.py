"""A labeler that reads a theme's members as a whole: candidate phrases scored against the theme's centre in the
embedding space (as BERTopic's KeyBERT-inspired representation does), verified against the members' own words.

The candidates are the c-TF-IDF shortlist of label.py (the authors' keywords and title phrases distinctive of the
theme); only phrases enough members use in their own keywords or title pass (fidelity.py, the same rule the
fidelity measure applies), none cut or taken by another theme. Among them the label is the phrase whose embedding
lies closest to the mean of the members' text vectors: the one the theme as a whole is about, not the one a tight
cluster of its papers repeats. A mixed theme, whose first phrase most members do not use, gets as second part the
phrase closest to the centre of the members the first leaves out ("attention and convolutional networks" beside
"interpretability"), when it adds enough members. Without vectors (a plugged pipeline) it labels as c-TF-IDF does.

The default labeler (`ctfidf-centroid`) reads the centre only where no author keyword can name a theme: there the
evidence is title words, a few titles per phrase (4 of 48 papers say "blind deconvolution", 4 say "matrix
factorization"), too few for the members' counts to tell a theme's subject from a tight cluster's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from confnav.embed.base import normalize
from confnav.model import Paper
from confnav.topics.fidelity import PAIR, PhraseUse, Prose
from confnav.topics.label import LABELERS, CTfidfLabeler, ThemeLabel
from confnav.topics.phrases import nested

Embed = Callable[[Sequence[str]], np.ndarray]


class CentroidLabeler(CTfidfLabeler):
    """c-TF-IDF candidates, verified by the members' use (`min_share` of them at least), chosen by cosine
    similarity to the theme's centre times the share of members using the phrase to the power `coverage_weight`
    (as c-TF-IDF weighs its lift; the same parameters as CTfidfLabeler)."""

    def __init__(self, titles_only: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.titles_only = titles_only  # read the centre only when title words are the evidence, else c-TF-IDF's
        self._vectors: np.ndarray | None = None
        self._embed: Embed | None = None
        self._phrases: dict[str, np.ndarray] = {}

    def label(
        self,
        papers: Sequence[Paper],
        labels: np.ndarray,
        taken: set[str] | None = None,
        prose: Prose | None = None,
        vectors: np.ndarray | None = None,
        embed: Embed | None = None,
    ) -> list[ThemeLabel]:
        """As CTfidfLabeler.label, with `vectors` (the papers' text vectors, rows aligned) and `embed` (the model
        that made them) to score phrases by; without them, c-TF-IDF's choice."""
        self._vectors = None if vectors is None or embed is None else normalize(np.asarray(vectors, dtype=np.float32))
        self._embed = embed
        try:
            return super().label(papers, labels, taken, prose)
        finally:
            self._vectors, self._embed = None, None

    def _vectors_of(self, phrases: list[str]) -> np.ndarray:
        missing = [p for p in dict.fromkeys(phrases) if p not in self._phrases]
        if missing and self._embed is not None:
            for phrase, vector in zip(missing, normalize(self._embed(missing)), strict=True):
                self._phrases[phrase] = vector
        return np.vstack([self._phrases[p] for p in phrases])

    def _centre(self, members: np.ndarray) -> np.ndarray:
        assert self._vectors is not None
        return normalize(self._vectors[members].mean(axis=0, keepdims=True))[0]

    def _closest(self, scored: list[tuple[float, float, str]], centre: np.ndarray) -> tuple[float, float, str]:
        """The verified phrase nearest the centre, nudged by how many members use it: (score, share, phrase)."""
        similarity = self._vectors_of([phrase for _, _, phrase in scored]) @ centre
        ranked = [
            (float(s) * share**self.coverage_weight, share, phrase)
            for s, (_, share, phrase) in zip(similarity, scored, strict=True)
        ]
        return max(ranked, key=lambda row: (row[0], row[1]))

    def _best(
        self,
        phrases: list[str],
        uses: PhraseUse,
        own: np.ndarray,
        used: set[str],
        members: PhraseUse | None = None,
        from_titles: bool = False,
    ) -> str | None:
        if self._vectors is None or (self.titles_only and not from_titles):
            return super()._best(phrases, uses, own, used, members)
        scored = self._scored(phrases, uses, own, used, members=members)
        if not scored:
            return None
        _, share, best = self._closest(scored, self._centre(own))
        if share >= self.broad:
            return best
        left = own & ~uses.of(best)  # the members the first phrase does not name
        second = self._scored([p for _, _, p in scored if not nested(p, best)], uses, own, used, best, members)
        if not second or not left.any():
            return best
        return f"{best}{PAIR}{self._closest(second, self._centre(left))[2]}"


def keywords_then_centre(**kwargs: Any) -> CentroidLabeler:
    """c-TF-IDF's choice where the authors' keywords name a theme, the centre's where only titles can."""
    return CentroidLabeler(titles_only=True, **kwargs)


LABELERS.register("centroid", CentroidLabeler)
LABELERS.register("ctfidf-centroid", keywords_then_centre)
