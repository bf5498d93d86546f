"""Recommendations that learn a researcher's taste: a per-profile model over the papers' stored vectors.

Positives are the profile's matched papers, its own texts (embedded with the store's model) and its likes;
negatives its dislikes. The model (taste.py) is refitted on every call: it is a few matrix products over
vectors kept in memory per store state, so a new mark shows at once. Each hit names the nearest profile item.

For other surfaces (web, personal must-read): `profile_taste` scores every candidate of a venue once;
`recommend_for` keeps its best `limit`.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from confnav.embed import load_embedder
from confnav.embed.base import Embedder, embed_checked
from confnav.embed.views import embedder_state_cache, semantic_model, text_hash
from confnav.errors import ConfnavError
from confnav.model import Paper, title_key
from confnav.personal.profiles import DEFAULT_PROFILE
from confnav.personal.taste import (
    DEFAULT_PARAMS,
    TasteParams,
    Words,
    centred_scores,
    item_weights,
    taste_features,
    unit,
)
from confnav.personal.venue_vectors import VenueVectors, venue_vectors
from confnav.personal.words import paper_words, words_of
from confnav.store.base import keep_derived, serves_requests
from confnav.store.protocols import ProfileStore, SearchStore

OWN_CACHE = "profile-texts:"  # + model: the vectors of profiles' own texts, by text hash


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


_embedders: dict[str, Embedder] = {}
_own: dict[tuple[object, str], dict[str, np.ndarray]] = {}


def _label(title: str, year: int | None) -> str:
    return f"'{title}'" + (f" ({year})" if year else "")


def _embedder(store: RecommendStore, model: str) -> Embedder:
    """The model that made the stored vectors, with its fitted state if it has one."""
    embedder = _embedders.get(model) or load_embedder(model, 1, cache_dir=store.settings.cache_dir)
    if not embedder.fitted_on_corpus:
        _embedders[model] = embedder  # a pretrained model is loaded once per process
        return embedder
    cached = store.get_cache(embedder_state_cache(model))
    if cached is None:
        raise ConfnavError(f"the {model} index has no fitted state: run 'confnav index' again")
    embedder.loads(cached[1])
    return embedder


def _own_vectors(store: RecommendStore, model: str, texts: list[str]) -> np.ndarray:
    """The profile's own texts embedded by the store's model; each text is embedded once and its vector kept in
    memory and in the store's cache (not by a server's requests, which never write)."""
    state = store.get_cache(embedder_state_cache(model))
    stamp = str(state[0]) if state else ""
    keys = [text_hash(text, stamp) for text in texts]
    known = _own.setdefault((getattr(store, "location", id(store)), model), {})
    if any(key not in known for key in keys):
        known.update(_read_own(store, model))
    missing = [(key, text) for key, text in dict(zip(keys, texts, strict=True)).items() if key not in known]
    if missing:
        embedder = _embedder(store, model)
        vectors = embed_checked(embedder, [text for _, text in missing])
        known.update((key, vector) for (key, _), vector in zip(missing, vectors, strict=True))
        if not serves_requests(store):  # a read-only store: embedded again next time
            buffer = io.BytesIO()
            np.savez(buffer, keys=np.array(list(known)), vectors=np.vstack(list(known.values())))
            keep_derived(store, lambda: store.put_cache(OWN_CACHE + model, 0, buffer.getvalue()))
    return np.vstack([known[key] for key in keys])


def _read_own(store: RecommendStore, model: str) -> dict[str, np.ndarray]:
    cached = store.get_cache(OWN_CACHE + model)
    if cached is None:
        return {}
    try:
        with np.load(io.BytesIO(cached[1]), allow_pickle=False) as saved:
            return dict(zip(saved["keys"].tolist(), saved["vectors"], strict=True))
    except (ValueError, OSError, KeyError, EOFError, zipfile.BadZipFile):
        return {}  # unreadable (or crafted): embedded again


@dataclass
class Profile:
    """A profile's examples as vectors and texts: positives with their labels and years, negatives, the texts of
    its collaborators' papers, and what to leave out."""

    labels: list[str]
    years: list[int | None]
    positives: np.ndarray
    negatives: np.ndarray
    excluded: set[tuple[str, str]]  # (venue, paper id) of its own and marked papers
    titles: set[str]  # title keys of its items
    marks: int
    texts: list[str]  # the positives' words, in their order
    collaborators: list[str]  # the words of other papers by the authors of its stored papers

    @property
    def size(self) -> int:
        return len(self.labels) + self.marks


def load_profile(store: RecommendStore, profile: str, model: str) -> Profile:
    """The profile's items and marks as vectors of `model` (items without a stored vector are left out)."""
    items, marks = store.profile_items(profile), store.profile_marks(profile)
    labels: list[str] = []
    years: list[int | None] = []
    vectors: list[np.ndarray] = []
    texts: list[str] = []
    stored_pks: list[int] = []
    negatives: list[np.ndarray] = []
    excluded: set[tuple[str, str]] = set()
    own: list[tuple[str, int | None, str]] = []
    indexed: dict[str, VenueVectors | None] = {}

    def vector_of(venue: str, paper_id: str) -> tuple[np.ndarray, Paper, int] | None:
        excluded.add((venue, paper_id))
        if venue not in indexed:
            try:
                indexed[venue] = venue_vectors(store, model, venue)
            except ConfnavError:  # a venue no longer stored, or not indexed
                indexed[venue] = None
        stored = indexed[venue]
        rows = stored.rows_of.get((venue, paper_id), []) if stored else []  # no query per item: ids are unique
        return (stored.matrix[rows[0]], stored.papers[rows[0]], stored.pks[rows[0]]) if stored and rows else None

    for item in items:
        if item.paper_id and item.venue:
            found = vector_of(item.venue, item.paper_id)
            if found is not None:
                labels.append(_label(item.title, item.year))
                years.append(item.year)
                vectors.append(found[0])
                texts.append(paper_words(found[1]))
                stored_pks.append(found[2])
        elif not item.paper_id:
            own.append((_label(item.title, item.year), item.year, f"{item.title}. {item.abstract or ''}".strip()))
    if own:
        embedded = unit(_own_vectors(store, model, [text for _, _, text in own]))
        for (label, year, text), vector in zip(own, embedded, strict=True):
            labels.append(label)
            years.append(year)
            vectors.append(vector)
            texts.append(text)
    for venue, paper_id, how in marks:
        found = vector_of(venue, paper_id)
        if found is None:
            continue
        if how == "like":
            labels.append(_label(found[1].title, found[1].year or None))
            years.append(found[1].year or None)
            vectors.append(found[0])
            texts.append(paper_words(found[1]))
        else:
            negatives.append(found[0])
    dimension = vectors[0].shape[0] if vectors else (negatives[0].shape[0] if negatives else 0)
    return Profile(
        labels,
        years,
        np.vstack(vectors) if vectors else np.zeros((0, dimension), dtype=np.float32),
        np.vstack(negatives) if negatives else np.zeros((0, dimension), dtype=np.float32),
        excluded,
        {title_key(item.title) for item in items},
        len(marks),
        texts,
        _collaborators(store, stored_pks),
    )


def _collaborators(store: RecommendStore, pks: list[int]) -> list[str]:
    """The words of other papers by the authors of the profile's stored papers (the store's own reads)."""
    if not pks:
        return []
    texts = store.texts_by_pk(store.coauthored(pks))
    return [words_of(title, abstract, keywords) for title, abstract, keywords, _ in texts.values()]


def model_of(store: SearchStore) -> str:
    model = semantic_model(store)
    if model is None:
        raise ConfnavError("the store has no semantic index: run 'confnav index' first")
    return model


@dataclass
class Taste:
    """A profile's model applied to a venue: every candidate paper with its score, best first on request."""

    profile: Profile
    papers: list[Paper]
    vectors: np.ndarray  # unit rows of the candidates
    scores: np.ndarray

    def reason(self, index: int) -> str:
        """Why candidate `index` is close: the profile item nearest to it."""
        nearest = int(np.argmax(self.profile.positives @ self.vectors[index]))
        return f"close to your {self.profile.labels[nearest]}"

    def best(self, limit: int) -> list[Recommendation]:
        order = np.argsort(-self.scores, kind="stable")[:limit]
        return [Recommendation(self.papers[i], float(self.scores[i]), self.reason(int(i))) for i in order]


def no_positives(profile: str) -> ConfnavError:
    return ConfnavError(
        f"profile {profile!r} has no papers or likes yet: add some with 'confnav profile like ID'"
        " or 'confnav profile import FILE' (papers to start with: 'confnav recommend --for NAME --venue V --ask 5')"
    )


def profile_taste(
    store: RecommendStore,
    profile: str = DEFAULT_PROFILE,
    venue: str | None = None,
    include_rejected: bool = False,
    params: TasteParams = DEFAULT_PARAMS,
) -> Taste:
    """The profile's model fitted now and applied to every paper of `venue` (None: the whole store), leaving
    out the profile's own and marked papers; rejected ones only with `include_rejected`."""
    store.profile_marks(profile)  # an unknown profile is named before anything else is asked of the store
    model = model_of(store)
    person = load_profile(store, profile, model)
    if not len(person.positives):
        raise no_positives(profile)
    return apply_taste(person, venue_vectors(store, model, venue), include_rejected, params)


def apply_taste(person: Profile, stored: VenueVectors, include_rejected: bool, params: TasteParams) -> Taste:
    """A loaded profile's model over a venue's vectors (the evaluation reuses both across settings)."""
    rows = candidate_rows(person, stored, include_rejected)
    if not len(rows):
        return Taste(person, [], stored.matrix[:0], np.zeros(0))
    weights, shift, centred, words = _inputs(person, stored, rows, params)
    scores = centred_scores(person.positives, weights, person.negatives, centred, shift, params, words)
    return Taste(person, [stored.papers[r] for r in rows], stored.matrix[rows], scores)


def taste_matrix(person: Profile, stored: VenueVectors, params: TasteParams = DEFAULT_PARAMS) -> TasteMatrix:
    """The fitted method's features of each accepted candidate: what benchmarks/fit_taste.py fits weights on."""
    rows = candidate_rows(person, stored, False)
    weights, shift, centred, words = _inputs(person, stored, rows, replace(params, method="fitted"))
    positives = unit(person.positives - shift).astype(centred.dtype)
    return TasteMatrix(rows, taste_features(positives, weights, centred, words, params.neighbours))


@dataclass
class TasteMatrix:
    """Candidate rows of a venue and their features (a row each, FEATURES order)."""

    rows: np.ndarray
    features: np.ndarray


def candidate_rows(person: Profile, stored: VenueVectors, include_rejected: bool) -> np.ndarray:
    """The venue's rows a profile may be shown: titled, accepted unless asked, none of its own or marked."""
    keep = stored.eligible & (stored.accepted | include_rejected)
    keys: list[tuple[str, str] | str] = [*person.excluded, *person.titles]
    for key in keys:
        keep[stored.rows_of.get(key, [])] = False
    return np.flatnonzero(keep)


def _inputs(
    person: Profile, stored: VenueVectors, rows: np.ndarray, params: TasteParams
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Words | None]:
    """The model's inputs: item weights, the shift, the candidates' centred rows and (fitted method) words."""
    weights = item_weights(person.years, params)
    shift = stored.mean if params.center else np.zeros_like(stored.mean)
    centred = stored.centred[rows] if params.center else unit(stored.matrix[rows])
    words = None
    if params.method == "fitted":
        space = stored.words
        words = Words(space.matrix[rows], space.vectors(person.texts), space.vectors(person.collaborators))
    return weights, shift, centred, words


def recommend_for(
    store: RecommendStore,
    profile: str = DEFAULT_PROFILE,
    venue: str | None = None,
    limit: int = 10,
    include_rejected: bool = False,
    params: TasteParams = DEFAULT_PARAMS,
) -> list[Recommendation]:
    """The `limit` papers the profile's model scores highest, never the profile's own or marked ones."""
    return profile_taste(store, profile, venue, include_rejected, params).best(limit)
