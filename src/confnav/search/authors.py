"""Author filtering in memory: the same rule as the store's SQL filter, without a scan of every author."""

from __future__ import annotations

import numpy as np

from confnav.model import Paper, name_key


class AuthorIndex:
    """Rows with an author whose normalised name holds every token of the asked name (any order, any form)."""

    def __init__(self, papers: list[Paper]) -> None:
        owners: list[int] = []
        postings: dict[str, list[int]] = {}
        for row, paper in enumerate(papers):
            for author in paper.authors:
                for token in set(name_key(author.name).split()):
                    postings.setdefault(token, []).append(len(owners))
                owners.append(row)
        self.rows = len(papers)
        self.owner = np.array(owners, dtype=np.int64)
        self.postings = {token: np.array(found, dtype=np.int64) for token, found in postings.items()}

    def mask(self, name: str) -> np.ndarray:
        """Rows admitted by the filter `author=name` (all rows when the name has no tokens, as in the store)."""
        tokens = set(name_key(name).split())
        if not tokens:
            return np.ones(self.rows, dtype=bool)
        empty = np.zeros(0, dtype=np.int64)
        lists = sorted((self.postings.get(t, empty) for t in tokens), key=len)
        authors = lists[0]
        for other in lists[1:]:
            authors = np.intersect1d(authors, other, assume_unique=True)
        selected = np.zeros(self.rows, dtype=bool)
        selected[self.owner[authors]] = True
        return selected
