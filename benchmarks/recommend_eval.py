"""Recommendations that learn, measured on real researchers (`recommend --for` against same-run baselines).

People who published at ICLR 2018, NeurIPS 2018 or ICLR 2020 and had a paper accepted at ICLR 2021 (matched by
OpenReview profile id where both venues give one, else by normalised name; names two ICLR 2021 profiles share
are left out). Each profile holds their earlier papers only (matched papers of the store); ICLR 2021 is stored
without any author field, so only content can find their papers. Measure: recall@50 of their accepted ICLR
2021 papers among the venue's accepted papers, macro-averaged over people, for
- the venue's must-read order (the ranker, the same list for everyone),
- the cosine to the centroid of the profile's vectors, and to its best single paper (max cosine),
- the previous default (the `blend` of meaning alone, chosen on the choosing half of these people),
- `recommend_for` with the library's default: the fitted model, whose weights were fitted on another venue
  (benchmarks/fit_taste.py: ICLR 2020 from ICLR 2018 and NeurIPS 2018), so neither half of ICLR 2021 chose it.
Figures are given on both halves (split by a hash of the person's key) and on everyone.
Then 10 marks per person: from the 50 papers the model shows, like the 5 closest to their ICLR 2021 papers and
dislike the 5 highest-ranked others; recall@50 of their (never marked) ICLR 2021 papers before and after.
The built store is kept under artifacts/recommend-eval/ so reruns are fast.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _people import LATER, Person, build_store, people
from _util import ROOT, machine
from confnav.personal.recommend import Profile, VenueVectors, apply_taste, load_profile, recommend_for, venue_vectors
from confnav.personal.taste import DEFAULT_PARAMS, TasteParams, unit
from confnav.personal.words import paper_words
from confnav.rank import WeightedRanker
from confnav.store import SqliteStore
from confnav.store.profiles import ProfileItem

TOP = 50
CACHE = ROOT / "artifacts" / "recommend-eval"
MARKS = 5  # likes, and as many dislikes


@dataclass
class Case:
    """One person in the store: their profile's vectors and their later papers' ids."""

    person: Person
    name: str  # the profile's name in the store
    profile: Profile
    targets: set[str]


def half(person: Person) -> str:
    return "choose" if hashlib.sha1(person.key.encode()).digest()[0] % 2 == 0 else "report"


def load_cases(store: SqliteStore, everyone: list[Person], model: str) -> list[Case]:
    """A profile per person (their earlier papers), written to the store once."""
    have = {name for name, _, _ in store.profiles()}
    cases = []
    for n, person in enumerate(everyone):
        name = f"p{n}"
        if name not in have:
            items = []
            for venue, paper_id in person.earlier:
                paper = store.get_paper(paper_id, venue)
                items.append(ProfileItem(paper.title, None, paper.year or None, venue, paper_id))
            store.add_profile_items(name, items)
        profile = load_profile(store, name, model)
        if len(profile.positives):
            cases.append(Case(person, name, profile, set(person.later)))
    return cases


def recall(order: list[str], targets: set[str]) -> float:
    return len(targets & set(order[:TOP])) / len(targets)


Scorer = Callable[[Case, VenueVectors], list[str]]


def by_score(scores: np.ndarray, ids: list[str]) -> list[str]:
    return [ids[i] for i in np.argsort(-scores, kind="stable")[:TOP]]


def method(params: TasteParams) -> Scorer:
    def order(case: Case, stored: VenueVectors) -> list[str]:
        taste = apply_taste(case.profile, stored, False, params)
        return by_score(taste.scores, [p.id for p in taste.papers])

    return order


def centroid(case: Case, stored: VenueVectors) -> list[str]:
    rows = np.flatnonzero(stored.accepted & stored.eligible)
    scores = stored.matrix[rows] @ unit(case.profile.positives.mean(axis=0))
    return by_score(scores, [stored.papers[r].id for r in rows])


def max_cosine(case: Case, stored: VenueVectors) -> list[str]:
    rows = np.flatnonzero(stored.accepted & stored.eligible)
    scores = (stored.matrix[rows] @ case.profile.positives.T).max(axis=1)
    return by_score(scores, [stored.papers[r].id for r in rows])


def mean_recall(cases: list[Case], stored: VenueVectors, scorer: Scorer) -> float:
    return float(np.mean([recall(scorer(case, stored), case.targets) for case in cases]))


BLEND = TasteParams(method="blend")  # the previous default, chosen on the choosing half


def with_marks(case: Case, stored: VenueVectors, params: TasteParams) -> tuple[Case, list[str]]:
    """The person after marking the model's top 50: likes for the 5 closest to their later papers, dislikes for
    the 5 highest-ranked others; also the liked ids (baselines add them as positives)."""
    shown = method(params)(case, stored)
    row = {p.id: i for i, p in enumerate(stored.papers)}
    later = stored.matrix[[row[i] for i in case.targets if i in row]]
    closeness = {i: float((later @ stored.matrix[row[i]]).max()) for i in shown if i not in case.targets}
    liked = sorted(closeness, key=lambda i: -closeness[i])[:MARKS]
    disliked = [i for i in shown if i in closeness and i not in liked][:MARKS]
    profile = replace(
        case.profile,
        labels=case.profile.labels + liked,
        years=case.profile.years + [2021] * len(liked),
        positives=np.vstack([case.profile.positives, stored.matrix[[row[i] for i in liked]]]),
        texts=case.profile.texts + [paper_words(stored.papers[row[i]]) for i in liked],
        negatives=stored.matrix[[row[i] for i in disliked]],
        excluded=case.profile.excluded | {(LATER, i) for i in liked + disliked},
        marks=len(liked) + len(disliked),
    )
    return replace(case, profile=profile), liked + disliked


def marks_table(cases: list[Case], stored: VenueVectors, params: TasteParams) -> dict[str, float]:
    before, after, cen, top = [], [], [], []
    for case in cases:
        marked, ids = with_marks(case, stored, params)
        drop = set(ids)
        before.append(recall([i for i in method(params)(case, stored) if i not in drop], case.targets))
        after.append(recall(method(params)(marked, stored), case.targets))
        likes_only = replace(marked, profile=replace(marked.profile, negatives=marked.profile.negatives[:0]))
        cen.append(recall([i for i in centroid(likes_only, stored) if i not in drop], case.targets))
        top.append(recall([i for i in max_cosine(likes_only, stored) if i not in drop], case.targets))
    return {
        "before": np.mean(before),
        "after": np.mean(after),
        "centroid+likes": np.mean(cen),
        "max+likes": np.mean(top),
    }


def main() -> None:
    started = time.perf_counter()
    cached = build_store(CACHE)
    everyone = people()
    path = CACHE / "profiles.db"  # the store with everyone's profile (the evaluation only reads it)
    if not path.exists():
        shutil.copy(cached, CACHE / "profiles.tmp")
        with SqliteStore(CACHE / "profiles.tmp") as store:
            load_cases(store, everyone, next(iter(store.embedding_models())))
        (CACHE / "profiles.tmp").rename(path)
    with SqliteStore(path) as store:
        model = next(iter(store.embedding_models()))
        cases = load_cases(store, everyone, model)
        stored = venue_vectors(store, model, LATER)
        ranked = [r.paper.id for r in WeightedRanker().rank(store, LATER).papers if r.paper.decision.accepted]
        halves = {name: [c for c in cases if half(c.person) == name] for name in ("choose", "report")}
        halves["all"] = cases
        print(f"# recommend --for on real researchers ({machine()})")
        print(f"model {model}; {len(cases)} people ({len(halves['choose'])} choose, {len(halves['report'])} report)")
        print(f"library default: {DEFAULT_PARAMS}")
        columns = ("ranker", "centroid", "max cos", "blend", "default")
        print(f"\n{'half':<8} {'people':>6} " + " ".join(f"{c:>8}" for c in columns) + f" {'ratio':>6}")
        for name, group in halves.items():
            baselines = [
                float(np.mean([recall(ranked, c.targets) for c in group])),
                mean_recall(group, stored, centroid),
                mean_recall(group, stored, max_cosine),
            ]
            blend = mean_recall(group, stored, method(BLEND))
            default = float(
                np.mean(
                    [recall([r.paper.id for r in recommend_for(store, c.name, LATER, TOP)], c.targets) for c in group]
                )
            )
            print(
                f"{name:<8} {len(group):>6} "
                + " ".join(f"{v:>8.3f}" for v in [*baselines, blend, default])
                + f" {default / max(baselines):>5.2f}x"
            )
        print("\n10 marks (5 likes of shown papers closest to their later work, 5 dislikes of the top others):")
        print(f"{'half':<8} {'before':>7} {'after':>7} {'centroid+likes':>14} {'max+likes':>9}")
        for name, group in halves.items():
            table = marks_table(group, stored, DEFAULT_PARAMS)
            print(f"{name:<8} " + " ".join(f"{v:>7.3f}" for v in table.values()))
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
