"""Whose entry is whose in a paperlists record whose profile-derived lists follow `or_profile`'s order.

OpenReview-sourced paperlists files give per-author lists twice: `authorids` in the byline's order, and
`or_profile` with what was read from each profile (`aff`, `aff_domain`, `position`, …) in the order the profiles
came, which is not always the byline's (CoRL 2023: 36 of 199 records). A profile is matched to its author by the
same id in `authorids`, else by the name its id spells (`~Andrea_Victoria_Bajcsy1` → Andrea Bajcsy).
"""

from __future__ import annotations

import re

from confnav.keys import fold, name_key

_ID_NUMBER = re.compile(r"\d+$")


def byline_order(names: list[str], authorids: list[str], profiles: list[str]) -> list[int] | None:
    """For each author of the byline, the position of their entry in the profile-ordered lists; None when the
    profiles cannot all be matched to one author each (their lists then say nothing of whose is whose)."""
    n = len(names)
    if len(profiles) != n:
        return None
    order: list[int | None] = [None] * n
    free = set(range(n))
    ids = authorids if len(authorids) == n else [""] * n
    for j, profile in enumerate(profiles):  # the same id as the byline's own: certain
        i = next((i for i in free if profile and ids[i] == profile), None)
        if i is not None:
            order[i] = j
            free.discard(i)
    unplaced = [j for j in range(n) if j not in order]
    for j in unplaced:  # else by the name the id spells
        scores = {i: _likeness(profiles[j], names[i]) for i in free}
        best = max(scores.values(), default=0)
        chosen = [i for i, s in scores.items() if s == best]
        if best > 0 and len(chosen) == 1:
            order[chosen[0]] = j
            free.discard(chosen[0])
    left = [j for j in range(n) if j not in order]
    if len(left) == 1 and len(free) == 1:  # one entry and one author left (both blank, or a changed name)
        order[free.pop()] = left[0]
    if any(j is None for j in order):
        return None
    return [int(j) for j in order if j is not None]


def _likeness(profile: str, name: str) -> int:
    """How many words a profile id's name shares with an author's name, the family name counting twice."""
    if not profile.startswith("~"):
        return 0
    spelt = fold(_ID_NUMBER.sub("", profile[1:]).replace("_", " ")).split()
    words = name_key(name).split()
    if not spelt or not words:
        return 0
    shared = len(set(spelt) & set(words))
    return shared + (spelt[-1] == words[-1]) if shared else 0


def reordered(values: list[str], order: list[int]) -> list[str]:
    """A profile-ordered list in the byline's order (a list of another length is left as it is)."""
    return [values[j] for j in order] if len(values) == len(order) else values
