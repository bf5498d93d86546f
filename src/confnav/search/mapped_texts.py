"""What a query's exact conditions check of every paper of the stored keyword base (the words of its text and of its
title, split as phrases are, its keywords and author names), in files every serving process maps (mapped.py): a
phrase or `title:` query checks its candidates there, with no store read and no splitting of text. The files are
written once per base (a full index build or a merge), so a paper changed or added since is checked from the store:
the index says which (its base's live rows).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable
from itertools import pairwise

import numpy as np

from confnav.search import mapped
from confnav.search.keyword import KeywordIndex, TextIndex
from confnav.search.keyword_store import BASE_CACHE, base_id
from confnav.search.query import Query
from confnav.search.text import split_words, words
from confnav.store.base import serves_requests
from confnav.store.protocols import SearchStore

TEXT_ARRAYS = ("pks", "starts", "keywords", "bounds", "data")
CHECKED_CONDITIONS = 32  # phrases whose per-paper outcome is kept (a byte each per paper: 0.5 MB at 500,000)


TextRow = tuple[int, str, str | None, list[str], list[str]]  # a paper's row key, title, abstract, keywords, authors


class TextArrays:
    """What papers are checked on, gathered one paper at a time (in key order) into the arrays of TEXT_ARRAYS: every
    paper's strings (the words of its text, of its title, its keywords and authors) as UTF-8 in one array, with where
    each string ends (`bounds`), each paper's first string (`starts`) and its number of keywords."""

    def __init__(self) -> None:
        self.pks: list[int] = []
        self.counts: list[int] = []
        self.sizes: list[int] = []  # strings per paper
        self.chunks: list[bytes] = []

    def add(self, pk: int, title: str, abstract: str | None, keywords: list[str], authors: list[str]) -> None:
        # The words of title, abstract and keywords as Query.matches joins them: a join of each one's words, since
        # words never span the space between texts; split as the keyword index splits its fields (text.py keeps a
        # folded text's words for the other), the title's once.
        heading = split_words(title)
        split = b" ".join(
            part for part in (heading, split_words(abstract or ""), split_words("; ".join(keywords))) if part
        )
        self.chunks += [split, heading, *(t.encode("utf-8", "surrogatepass") for t in (*keywords, *authors))]
        self.pks.append(pk)
        self.counts.append(len(keywords))
        self.sizes.append(2 + len(keywords) + len(authors))

    def arrays(self) -> mapped.Arrays:
        ends = np.cumsum(np.fromiter(map(len, self.chunks), dtype=np.int64, count=len(self.chunks)))
        return {
            "pks": np.array(self.pks, dtype=np.int64),
            "starts": np.concatenate([[0], np.cumsum(np.array(self.sizes, dtype=np.int64))]),
            "keywords": np.array(self.counts, dtype=np.int32),
            "bounds": np.concatenate([[0], ends]).astype(np.int64),
            "data": np.frombuffer(b"".join(self.chunks), dtype=np.uint8),
        }


def text_arrays(rows: Iterable[TextRow], wanted: np.ndarray) -> mapped.Arrays:
    """What the papers whose row keys are `wanted` are checked on (TextArrays), from the store's rows in key order."""
    keep = set(np.asarray(wanted).tolist())
    made = TextArrays()
    for row in rows:
        if row[0] in keep:
            made.add(*row)
    return made.arrays()


class MappedTexts:
    """What the corpus rows whose papers are unchanged since the stored keyword base are checked on, from its files."""

    def __init__(self, arrays: mapped.Arrays, slots: np.ndarray) -> None:
        # Item by item through memory views: indexing a mapped array costs more than the decoding it leads to.
        self.starts, self.bounds, self.data, self.keywords = (
            np.ascontiguousarray(arrays[name]).data for name in ("starts", "bounds", "data", "keywords")
        )
        self.slots = np.ascontiguousarray(slots).data  # per corpus row, its paper in the files (-1: not there)
        self.papers = int(np.asarray(arrays["starts"]).shape[0])
        # per recent condition, per paper of the files: 0 not checked yet, 1 met, 2 not met
        self._checked: OrderedDict[tuple[int, bytes], np.ndarray] = OrderedDict()

    def meeting(self, query: Query, rows: list[int]) -> list[bool | None]:
        """`meets` for many rows. A query of phrases and `title:` alone (the usual one) is checked on the files'
        bytes, each phrase found by one search per paper, with nothing decoded: a one-word phrase may have
        thousands of candidates."""
        sought = _sought(query)
        if sought is None:
            return [self.meets(query, row) for row in rows]
        slots = np.asarray(self.slots)[rows]  # the memory views as arrays again, without a copy
        first = np.asarray(self.starts)[np.maximum(slots, 0)]
        bounds = np.asarray(self.bounds)
        text, title, end = (bounds[first + i].tolist() for i in range(3))  # the text's and the title's bytes
        live = slots >= 0
        for kind, (conditions, starts, ends) in enumerate(((sought[0], text, title), (sought[1], title, end))):
            for pattern, size in conditions:
                checked = self._checks_of(kind, pattern.pattern)
                todo = np.flatnonzero(live & (checked[np.maximum(slots, 0)] == 0)).tolist()
                for i, slot in zip(todo, slots[todo].tolist(), strict=True):
                    checked[slot] = 1 if _follows(self.data, pattern, size, starts[i], ends[i]) else 2
                live &= checked[np.maximum(slots, 0)] == 1
        return [None if slot < 0 else bool(ok) for slot, ok in zip(slots.tolist(), live.tolist(), strict=True)]

    def _checks_of(self, kind: int, pattern: bytes) -> np.ndarray:
        """What is known of one condition (a phrase, or `title:` words) for each paper of the files: a phrase
        asked again, with other words or filters, checks only the papers not checked for it before."""
        key = (kind, pattern)
        found = self._checked.get(key)
        if found is None:
            found = np.zeros(self.papers, dtype=np.int8)
            self._checked[key] = found
            while len(self._checked) > CHECKED_CONDITIONS:
                self._checked.popitem(last=False)
        return found

    @classmethod
    def of(
        cls,
        store: SearchStore,
        keyword: TextIndex,
        pks: np.ndarray,
        write: bool | None = None,
        made: mapped.Arrays | None = None,
    ) -> MappedTexts | None:
        """The files of the store's keyword base for rows `pks`, written when missing if `write` (by default: by a
        server), from `made` when it holds the base's papers (gathered while the base was built); None when the
        index is not built on the stored base (another kind of index, a store not indexed yet, a base merged since)
        or there are no files to read."""
        name = base_id(store)
        if name is None or not isinstance(keyword, KeywordIndex) or not keyword.segments:
            return None
        if keyword.base_generation != store.cache_generation(BASE_CACHE):
            return None
        base, folder = keyword.segments[0].pks, mapped.home(store) / mapped.name_of("texts", name)
        if serves_requests(store) if write is None else write:  # a one-off search uses them when written
            if made is None or not np.array_equal(made["pks"], base):
                made = None
            arrays = mapped.mapped(folder, TEXT_ARRAYS, lambda: made or text_arrays(store.paper_texts(), base))
        elif (held := mapped.load(folder, TEXT_ARRAYS)) is not None:
            arrays = held
        else:
            return None
        found = arrays["pks"]
        if not found.size:
            return cls(arrays, np.full(len(pks), -1, dtype=np.int64))
        at = np.minimum(np.searchsorted(found, pks), found.size - 1)
        unchanged = (found[at] == pks) & np.isin(pks, base[keyword.live[0]])
        return cls(arrays, np.where(unchanged, at, -1).astype(np.int64))

    def meets(self, query: Query, row: int) -> bool | None:
        """Whether a corpus row's paper meets every condition of `query`; None when it must be read from the store."""
        slot = self.slots[row]
        if slot < 0:
            return None
        last = self.starts[slot + 1] if query.keywords or query.authors else self.starts[slot] + 2  # what it checks
        bounds = self.bounds[self.starts[slot] : last + 1].tolist()
        raw, at = bytes(self.data[bounds[0] : bounds[-1]]), bounds[0]
        parts = [raw[a - at : b - at].decode("utf-8", "surrogatepass") for a, b in pairwise(bounds)]
        keywords = self.keywords[slot]
        return query.meets(parts[0], parts[1], parts[2 : 2 + keywords], parts[2 + keywords :])


Sought = tuple[re.Pattern[bytes], int]  # a phrase's words joined by spaces, as a search, and its length in bytes


def _sought(query: Query) -> tuple[list[Sought], list[Sought]] | None:
    """A query's phrases and `title:` conditions as byte searches of the files' texts and titles; None when it
    has other conditions, or a condition without words (checked by `Query.meets`)."""
    if query.keywords or query.authors:
        return None
    made: list[list[Sought]] = [[], []]
    for kind, conditions in enumerate((query.phrases, query.titles)):
        for condition in conditions:
            split = words(condition)
            if not split:
                return None
            joined = " ".join(split).encode("utf-8", "surrogatepass")
            made[kind].append((re.compile(re.escape(joined)), len(joined)))
    return made[0], made[1]


def _follows(data: memoryview, pattern: re.Pattern[bytes], size: int, start: int, end: int) -> bool:
    """Whether the words of `pattern` occur one after another in the space-joined words at data[start:end]: as
    `text.follows`, without decoding them."""
    at = start
    while (found := pattern.search(data, at, end)) is not None:
        begin = found.start()
        if (begin == start or data[begin - 1] == 32) and (begin + size == end or data[begin + size] == 32):
            return True
        at = begin + 1
    return False
