"""Author filtering in memory: the same rule as the store's SQL filter, without a scan of every author."""

from __future__ import annotations

import bisect
from collections.abc import Iterable

import numpy as np

from confnav.model import Paper, name_key

AUTHOR_ARRAYS = ("tokens", "ends", "starts", "postings", "owner")
EMPTY = np.zeros(0, dtype=np.int64)


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

    def postings_of(self, token: str) -> np.ndarray:
        """The authors (ascending) whose name holds this token."""
        return self.postings.get(token, EMPTY)

    def mask(self, name: str) -> np.ndarray:
        """Rows admitted by the filter `author=name` (all rows when the name has no tokens, as in the store)."""
        tokens = set(name_key(name).split())
        if not tokens:
            return np.ones(self.rows, dtype=bool)
        lists = sorted((self.postings_of(t) for t in tokens), key=len)
        authors = lists[0]
        for other in lists[1:]:
            authors = np.intersect1d(authors, other, assume_unique=True)
        selected = np.zeros(self.rows, dtype=bool)
        owners = self.owner[authors]
        selected[owners[owners >= 0]] = True
        return selected


def author_arrays(keys: Iterable[tuple[int, str]], pks: np.ndarray) -> dict[str, np.ndarray]:
    """The author index of (row key, normalised name) pairs over the rows `pks` (ascending), as arrays: the sorted
    tokens (UTF-8, `ends` where each stops), each token's authors (`postings` from `starts`), each author's row."""
    owners: list[int] = []
    postings: dict[str, list[int]] = {}
    for pk, key in keys:
        for token in set(key.split()):
            postings.setdefault(token, []).append(len(owners))
        owners.append(pk)
    wanted = np.array(owners, dtype=np.int64)
    at = np.minimum(np.searchsorted(pks, wanted), max(pks.size - 1, 0))
    rows = np.where(pks[at] == wanted, at, -1) if pks.size else np.full(wanted.size, -1)  # -1: added since `pks`
    words = sorted(postings)
    encoded = [w.encode() for w in words]
    lists = [np.array(postings[w], dtype=np.int64) for w in words]
    return {
        "tokens": np.frombuffer(b"".join(encoded), dtype=np.uint8),
        "ends": np.cumsum([len(e) for e in encoded], dtype=np.int64),
        "starts": np.concatenate([[0], np.cumsum([len(found) for found in lists])]).astype(np.int64),
        "postings": np.concatenate(lists) if lists else EMPTY,
        "owner": rows.astype(np.int64),
    }


class MappedAuthors(AuthorIndex):
    """The author index over arrays every process maps (author_arrays): a token is found by binary search."""

    def __init__(self, arrays: dict[str, np.ndarray], rows: int) -> None:
        self.rows, self.arrays, self.owner = rows, arrays, arrays["owner"]

    def _word(self, i: int) -> str:
        ends = self.arrays["ends"]
        return bytes(self.arrays["tokens"][int(ends[i - 1]) if i else 0 : int(ends[i])]).decode()

    def postings_of(self, token: str) -> np.ndarray:
        count = int(self.arrays["ends"].size)
        i = bisect.bisect_left(range(count), token, key=self._word)
        if i == count or self._word(i) != token:
            return EMPTY
        starts = self.arrays["starts"]
        return np.asarray(self.arrays["postings"][int(starts[i]) : int(starts[i + 1])])
