"""A cold start: when a profile has too little to learn from, ask for marks on a few papers of the venue that
teach the model the most (active learning) instead of guessing.

Without a usable model: papers spread over the venue (farthest-first from its most typical paper), so each
mark covers a different region. With one: the papers the model is least sure of — the candidates ranked around
the edge of what it would show — again spread out, so the marks do not all say the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from confnav.errors import ConfnavError
from confnav.model import Paper
from confnav.personal.profiles import DEFAULT_PROFILE
from confnav.personal.recommend import RecommendStore, apply_taste, load_profile, model_of, venue_vectors
from confnav.personal.taste import DEFAULT_PARAMS, TasteParams, farthest_first

COLD = 5  # a profile with fewer items and marks than this asks for marks
EDGE = 50  # with a model: the papers ranked around this position are the uncertain ones


@dataclass(frozen=True)
class Ask:
    """Papers to mark, why they were picked, and whether the profile is still cold."""

    profile: str
    venue: str
    cold: bool
    size: int  # items and marks the profile has
    papers: list[Paper]
    why: str

    def commands(self, paper: Paper) -> list[str]:
        flag = "" if self.profile == DEFAULT_PROFILE else f" --profile {self.profile}"
        return [f"confnav profile {how} {paper.id}{flag}" for how in ("like", "dislike")]

    def to_dict(self) -> dict[str, object]:
        return {
            "profile": self.profile,
            "venue": self.venue,
            "cold": self.cold,
            "size": self.size,
            "why": self.why,
            "ask": [
                {"id": p.id, "venue": p.venue, "title": p.title, "commands": self.commands(p)} for p in self.papers
            ],
        }


def is_cold(store: RecommendStore, profile: str) -> bool:
    """Whether the profile has fewer than COLD items and marks (a missing profile is cold)."""
    names = {name: items + marks for name, items, marks in store.profiles()}
    return names.get(profile, 0) < COLD


def papers_to_mark(
    store: RecommendStore,
    venue: str,
    profile: str = DEFAULT_PROFILE,
    count: int = 5,
    params: TasteParams = DEFAULT_PARAMS,
) -> Ask:
    """`count` accepted papers of `venue` whose marks would teach the profile's model the most."""
    if count < 1:
        raise ConfnavError("ask for at least one paper to mark")
    model = model_of(store)
    stored = venue_vectors(store, model, venue)
    known = {name: items + marks for name, items, marks in store.profiles()}
    size = known.get(profile, 0)
    person = load_profile(store, profile, model) if profile in known else None
    if person is not None and len(person.positives):
        taste = apply_taste(person, stored, False, params)
        order = np.argsort(-taste.scores, kind="stable")
        edge = order[max(0, EDGE - 2 * count) : EDGE + 2 * count]
        picks = [int(edge[i]) for i in farthest_first(taste.vectors[edge], count, 0)] if len(edge) else []
        papers = [taste.papers[i] for i in picks]
        why = "the papers your model is least sure of, spread over their topics"
    else:
        excluded = person.excluded if person is not None else set()
        rows = np.flatnonzero(stored.accepted & stored.eligible)
        rows = np.array([r for r in rows if (stored.papers[r].venue, stored.papers[r].id) not in excluded], dtype=int)
        if not len(rows):
            rows = np.flatnonzero(stored.eligible)
        vectors = stored.matrix[rows]
        typical = int(np.argmax(vectors @ stored.mean)) if len(rows) else 0
        papers = [stored.papers[rows[i]] for i in farthest_first(vectors, count, typical)] if len(rows) else []
        why = "papers spread over the venue's topics"
    return Ask(profile, venue, size < COLD, size, papers, why)
