"""Recommendations that learn a researcher's taste: a per-profile model over the papers' stored vectors.

Positives are the profile's matched papers, its own texts (embedded with the store's model) and its likes;
negatives its dislikes. With dislikes, a logistic-regression classifier on the vectors (as arxiv-sanity did);
without, the cosine to the positives' centroid. Each hit names the nearest profile item as its reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from confnav.embed import load_embedder
from confnav.embed.views import embedder_state_cache, semantic_model
from confnav.errors import ConfnavError
from confnav.model import Outcome, Paper, is_placeholder_title, title_key
from confnav.personal.profiles import DEFAULT_PROFILE
from confnav.store.protocols import ProfileStore, SearchStore

BACKGROUND = 1000  # other papers sampled as weak negatives, so that a few dislikes do not set the whole direction


class RecommendStore(SearchStore, ProfileStore, Protocol):
    """Profiles, papers and their vectors."""


@dataclass(frozen=True)
class Recommendation:
    """A recommended paper, its score under the profile's model, and why: the nearest profile item."""

    paper: Paper
    score: float
    reason: str

    def to_dict(self) -> dict[str, object]:
        paper = self.paper
        return {"id": paper.id, "venue": paper.venue, "title": paper.title, "score": self.score, "reason": self.reason}


@dataclass(frozen=True)
class _Example:
    label: str  # "'Title' (2019)": how a reason names it
    vector: np.ndarray


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _label(title: str, year: int | None) -> str:
    return f"'{title}'" + (f" ({year})" if year else "")


def _embed_texts(store: RecommendStore, model: str, texts: list[str]) -> np.ndarray:
    """The profile's own texts embedded by the model that made the stored vectors (its fitted state, if any)."""
    embedder = load_embedder(model, 1)
    if embedder.fitted_on_corpus:
        cached = store.get_cache(embedder_state_cache(model))
        if cached is None:
            raise ConfnavError(f"the {model} index has no fitted state: run 'confnav index' again")
        embedder.loads(cached[1])
    return np.asarray(embedder.embed(texts), dtype=np.float32)


def recommend_for(
    store: RecommendStore,
    profile: str = DEFAULT_PROFILE,
    venue: str | None = None,
    limit: int = 10,
    include_rejected: bool = False,
) -> list[Recommendation]:
    """The papers the profile's model scores highest, never the profile's own or marked ones."""
    items, marks = store.profile_items(profile), store.profile_marks(profile)
    model = semantic_model(store)
    if model is None:
        raise ConfnavError("the store has no semantic index: run 'confnav index' first")
    pks, blobs = store.embeddings(model)
    matrix = _unit(np.vstack([np.frombuffer(b, dtype=np.float32) for b in blobs])) if blobs else None
    if matrix is None:
        raise ConfnavError("the store has no semantic index: run 'confnav index' first")
    row_of = {pk: row for row, pk in enumerate(pks)}
    key_of = {(p.venue, p.id): pk for pk, p in store.paper_rows()}
    papers = store.papers_by_pk(pks)

    positives: list[_Example] = []
    own_texts: list[tuple[str, str]] = []
    excluded: set[int] = set()
    own_titles: set[str] = set()
    for item in items:
        own_titles.add(title_key(item.title))
        pk = key_of.get((item.venue or "", item.paper_id or ""))
        if pk is not None:
            excluded.add(pk)
            if pk in row_of:
                positives.append(_Example(_label(item.title, item.year), matrix[row_of[pk]]))
        elif not item.paper_id:
            text = f"{item.title}. {item.abstract}" if item.abstract else item.title
            own_texts.append((_label(item.title, item.year), text))
    if own_texts:
        vectors = _unit(_embed_texts(store, model, [t for _, t in own_texts]))
        positives += [_Example(label, v) for (label, _), v in zip(own_texts, vectors, strict=True)]
    negatives: list[np.ndarray] = []
    for mark_venue, paper_id, how in marks:
        pk = key_of.get((mark_venue, paper_id))
        if pk is None:
            continue
        excluded.add(pk)
        if pk in row_of:
            paper = papers[pk]
            if how == "like":
                positives.append(_Example(_label(paper.title, paper.year or None), matrix[row_of[pk]]))
            else:
                negatives.append(matrix[row_of[pk]])
    if not positives:
        raise ConfnavError(
            f"profile {profile!r} has no papers or likes yet: add some with 'confnav profile like ID'"
            " or 'confnav profile import FILE'"
        )

    candidates = [
        row
        for row, pk in enumerate(pks)
        if pk not in excluded
        and (venue is None or papers[pk].venue == venue)
        and title_key(papers[pk].title) not in own_titles
        and not is_placeholder_title(papers[pk].title)
        and (include_rejected or papers[pk].decision.outcome is not Outcome.NOT_ACCEPTED)
    ]
    if not candidates:
        return []
    scores = _scores(np.vstack([e.vector for e in positives]), negatives, matrix[candidates])
    best = np.argsort(-scores, kind="stable")[:limit]
    examples = np.vstack([e.vector for e in positives])
    results = []
    for index in best:
        row = candidates[int(index)]
        nearest = int(np.argmax(examples @ matrix[row]))
        paper = papers[pks[row]]
        results.append(Recommendation(paper, float(scores[index]), f"close to your {positives[nearest].label}"))
    return results


def _scores(positives: np.ndarray, negatives: list[np.ndarray], candidates: np.ndarray) -> np.ndarray:
    """With dislikes, a logistic regression of the positives against the dislikes and a sample of the other
    papers as background (each group weighing as much as the positives); without, the cosine to the
    positives' centroid. Higher is more to the profile's taste."""
    if not negatives:
        return candidates @ _unit(positives.mean(axis=0))
    from sklearn.linear_model import LogisticRegression

    generator = np.random.default_rng(0)
    background = candidates[generator.permutation(len(candidates))[:BACKGROUND]]
    x = np.vstack([positives, np.vstack(negatives), background])
    y = np.r_[np.ones(len(positives)), np.zeros(len(negatives) + len(background))]
    weight = np.r_[
        np.ones(len(positives)),
        np.full(len(negatives), len(positives) / len(negatives)),
        np.full(len(background), len(positives) / max(1, len(background))),
    ]
    classifier = LogisticRegression(C=10.0, max_iter=1000)
    classifier.fit(x, y, sample_weight=weight)
    return np.asarray(classifier.decision_function(candidates), dtype=np.float64)
