"""The keyword index kept in the store and brought up to date in proportion to what changed.

The store holds a base (one segment, written whole after a full build or a merge) and a delta: the papers added
or changed since the base, as one small segment, and the base's row keys they replace or that are gone. A
reader applies the delta, then adds the papers the store marks as changed after it (`papers.changed`); a
server refreshes from the index it already holds. Each write replaces one value in one transaction, so a killed
or failed update leaves the previous base and delta, which the next reader brings up to date again.

Each base is written with a random name (`BASE_ID`); the first process to read it writes its arrays to a folder of
that name (mapped.py), which every later process maps instead of reading and holding a copy of its own.
"""

from __future__ import annotations

import io
import uuid
import zipfile
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from confnav.model import Paper
from confnav.search import mapped
from confnav.search.keyword import DEFAULT_FIELD_WEIGHTS, DEFAULT_INDEX, KeywordIndex, TextIndex, make_keyword_index
from confnav.search.segments import Segment
from confnav.store.base import keep_derived, serves_requests
from confnav.store.protocols import CacheStore, SearchStore

BASE_CACHE = "keyword-base-3"  # the number changes with the tokenizer or the layout
DELTA_CACHE = "keyword-delta-3"
BASE_ID = f"{BASE_CACHE}.id"  # the stored base's random name, under the base's generation
BASE_ARRAYS = ("words", "fields", "weights", "settings", "df", "pks", "lengths", "data", "indices", "indptr")
UNREADABLE = (ValueError, OSError, KeyError, EOFError, zipfile.BadZipFile)
Documents = Callable[[], Iterable[tuple[int, dict[str, str]]]]  # every paper's row key and fields, in key order
Written = list[tuple[int, Paper]]  # papers written since a state, with their row keys, in key order


def text_fields(title: str, abstract: str | None, keywords: list[str], authors: list[str]) -> dict[str, str]:
    """The fields the keyword index scores, as text."""
    return {"title": title, "keywords": "; ".join(keywords), "authors": "; ".join(authors), "abstract": abstract or ""}


def keyword_fields(paper: Paper) -> dict[str, str]:
    """A paper's fields that the keyword index scores."""
    return text_fields(paper.title, paper.abstract, paper.keywords, [a.name for a in paper.authors])


def stored_documents(store: SearchStore) -> Iterator[tuple[int, dict[str, str]]]:
    """Every paper's fields as the store keeps them (no whole paper is parsed), in key order."""
    for pk, title, abstract, keywords, authors in store.paper_texts():
        yield pk, text_fields(title, abstract, keywords, authors)


def delta_bytes(index: KeywordIndex) -> bytes:
    """What `index` adds to its base (its first segment): the later segments' live documents as one segment, the
    base's masked row keys, and the vocabulary past the base's."""
    base = index.segments[0]
    rest = [s.select(live) for s, live in zip(index.segments[1:], index.live[1:], strict=True)]
    added = Segment.stack(rest, len(index.vocabulary)) if rest else Segment.empty(len(index.fields), base.width)
    words = sorted(index.vocabulary, key=index.vocabulary.__getitem__)[base.width :]
    buffer = io.BytesIO()
    np.savez(
        buffer,
        allow_pickle=False,
        words=np.array("\n".join(words)),
        removed=base.pks[~index.live[0]],
        generations=np.array([index.generation, index.base_generation], dtype=np.int64),
        **added.to_arrays("d."),
    )
    return buffer.getvalue()


def with_delta(base: KeywordIndex, blob: bytes) -> KeywordIndex:
    """The stored base with a stored delta applied (ValueError when the delta is not of this base)."""
    arrays = np.load(io.BytesIO(blob), allow_pickle=False)  # stores come from anywhere: data only
    generation, base_generation = (int(x) for x in arrays["generations"])
    if base_generation != base.generation or len(base.segments) != 1:
        raise ValueError("a delta of another base")
    words = str(arrays["words"]).split("\n") if str(arrays["words"]) else []
    vocabulary = dict(base.vocabulary) | {w: len(base.vocabulary) + i for i, w in enumerate(words)}
    if len(vocabulary) != len(base.vocabulary) + len(words):
        raise ValueError("inconsistent keyword delta")
    added = Segment.from_arrays(arrays, "d.", len(base.fields))
    if added.width > len(vocabulary):
        raise ValueError("inconsistent keyword delta")
    segment = base.segments[0]
    live = ~np.isin(segment.pks, np.union1d(arrays["removed"], added.pks))
    options = {"k1": base.k1, "b": base.b, "generation": generation, "base_generation": base_generation}
    segments, lives = ([segment, added], [live, np.ones(len(added), dtype=bool)]) if len(added) else ([segment], [live])
    return KeywordIndex.of(vocabulary, base.fields, base.weights, segments, lives, **options)


def base_id(store: CacheStore) -> str | None:
    """The random name of the stored base (None when there is none, or it was stored without one): what names the
    folders of the arrays mapped from this store (mapped.py)."""
    found = store.get_cache(BASE_ID)
    if found is None or found[0] != store.cache_generation(BASE_CACHE):
        return None
    return found[1].decode("ascii", "replace")


def base_arrays(base: KeywordIndex) -> dict[str, np.ndarray]:
    """A one-segment index as the arrays of its mapped folder."""
    words = sorted(base.vocabulary, key=base.vocabulary.__getitem__)
    segment = base.segments[0]
    return {
        "words": np.frombuffer("\n".join(words).encode(), dtype=np.uint8),
        "fields": np.frombuffer("\n".join(base.fields).encode(), dtype=np.uint8),
        "weights": base.weights,
        "settings": np.array([base.k1, base.b]),
        "df": base.df,
    } | {name.removeprefix("s."): array for name, array in segment.to_arrays("s.").items()}


def from_base_arrays(arrays: mapped.Arrays, generation: int) -> KeywordIndex:
    """The base index over mapped arrays: only the vocabulary is read into this process's memory."""
    text = bytes(arrays["words"]).decode()
    words = text.split("\n") if text else []
    fields = tuple(bytes(arrays["fields"]).decode().split("\n"))
    from scipy import sparse

    pks, indptr = arrays["pks"], arrays["indptr"]
    counts = sparse.csc_matrix((arrays["data"], arrays["indices"], indptr), shape=(pks.size, indptr.size - 1))
    segment = Segment(pks, counts, arrays["lengths"])
    if segment.width > len(words) or arrays["df"].size != len(words) or segment.lengths.shape[1] != len(fields):
        raise ValueError("inconsistent keyword index files")
    k1, b = (float(x) for x in arrays["settings"])
    live = (np.ones(len(segment), dtype=bool),)
    vocabulary = {w: i for i, w in enumerate(words)}
    return KeywordIndex(
        vocabulary, fields, arrays["weights"], (segment,), live, arrays["df"], k1, b, generation, generation
    )


def _stored_base(store: SearchStore) -> KeywordIndex | None:
    """The stored base, read whole from the store (None when missing or unreadable)."""
    cached = store.get_cache(BASE_CACHE)
    if cached is None:
        return None
    try:
        base = KeywordIndex.from_bytes(cached[1])
    except UNREADABLE:
        return None  # an unreadable (or crafted) cache is rebuilt from the papers
    if len(base.segments) != 1 or not base.live[0].all() or base.generation != cached[0]:
        return None
    return base


def _mapped_base(store: SearchStore) -> KeywordIndex | None:
    """The stored base mapped from its folder, which the first reader writes; read whole when it has no name."""
    name = base_id(store)
    generation = store.cache_generation(BASE_CACHE)
    if name is None or generation is None:
        return _stored_base(store)
    folder = mapped.home(store) / mapped.name_of("keyword", name)
    found = mapped.load(folder, BASE_ARRAYS)
    if found is None:
        base = _stored_base(store)
        if base is None or base.generation != generation:
            return base  # replaced meanwhile: used once from memory, its own name is read next time
        mapped.write(folder, base_arrays(base))
        if (found := mapped.load(folder, BASE_ARRAYS)) is None:
            return base
    try:
        return from_base_arrays(found, generation)
    except UNREADABLE:
        return _stored_base(store)


def read_stored(store: SearchStore) -> KeywordIndex | None:
    """The stored base with its delta applied (the base alone when the delta is missing or unreadable), or None."""
    base = _mapped_base(store)
    if base is None:
        return None
    delta = store.get_cache(DELTA_CACHE)
    if delta is not None:
        try:
            return with_delta(base, delta[1])
        except UNREADABLE:
            pass  # the base alone: the papers changed since it are read again
    return base


def caught_up(
    store: SearchStore, index: KeywordIndex, generation: int, pks: np.ndarray, written: Written | None = None
) -> KeywordIndex:
    """`index` with the papers written after its generation (`written`, when the caller read them since that
    generation or an earlier one), and rows exactly `pks` (the store's papers now: rows of papers gone are masked
    out, a paper the index lacks is read)."""
    if index.generation >= generation:
        written = []
    elif written is None:
        written = store.papers_changed_since(index.generation)
    known = np.isin(np.array([pk for pk, _ in written], dtype=np.int64), pks)
    changed = [row for row, keep in zip(written, known, strict=True) if keep]  # none added after `pks` was read
    fresh = {pk for pk, _ in changed}
    missing = [int(pk) for pk in _without(pks, index.pks) if int(pk) not in fresh]
    changed += sorted(store.papers_by_pk(missing).items())
    removed = _without(index.pks, pks)
    if not changed and not removed.size and index.generation == generation:
        return index
    documents = [keyword_fields(paper) for _, paper in changed]
    # A stored index newer than `generation` keeps its number: its papers are as of then or later.
    return index.updated([pk for pk, _ in changed], documents, removed, generation=max(generation, index.generation))


def _without(keys: np.ndarray, others: np.ndarray) -> np.ndarray:
    """The row keys of `keys` not in `others` (both unique): `np.setdiff1d` sorts by a unique that took seconds at
    100,000 keys."""
    return np.asarray(keys)[~np.isin(keys, others, assume_unique=True)]


def whole(generation: int, rows: Iterable[tuple[int, dict[str, str]]]) -> KeywordIndex:
    """The index built from every paper at once, as they are read."""
    return KeywordIndex.build_rows(rows, DEFAULT_FIELD_WEIGHTS, generation=generation, base_generation=generation)


def save(store: SearchStore, index: KeywordIndex, stored: KeywordIndex | None) -> None:
    """Write what changed since `stored` (what the store held): the base when it is new, else only the delta;
    never from a server's requests, quietly not into a read-only store."""

    def write() -> None:
        if stored is None or index.base_generation != stored.base_generation:
            base = KeywordIndex.of(index.vocabulary, index.fields, index.weights, index.segments[:1])
            base.generation = index.base_generation
            store.put_cache(BASE_CACHE, index.base_generation, base.to_bytes())
            store.put_cache(BASE_ID, index.base_generation, uuid.uuid4().hex.encode())
        store.put_cache(DELTA_CACHE, index.generation, delta_bytes(index))

    keep_derived(store, write)  # a read-only store: search still works, only slower to start


def keyword_index(
    store: SearchStore,
    generation: int,
    pks: np.ndarray,
    rows: Documents | None = None,
    previous: TextIndex | None = None,
    rebuild: bool = False,
    written: Written | None = None,
) -> TextIndex:
    """The keyword index of the store's papers at `generation` (rows: `pks`, the papers' row keys ascending).
    BM25F's is brought up to date from `previous` (the one a process already holds; `written`: the papers written
    since its state, when the caller read them) or from the store's base and delta, reading only the papers changed
    since; built whole from `rows()` (else the store's papers) when there is none or `rebuild`. Another index
    (`steps.index`) is built whole each time."""
    rows = rows or (lambda: stored_documents(store))
    if (store.settings.steps.index or DEFAULT_INDEX) != DEFAULT_INDEX:
        return make_keyword_index(store.settings, [fields for _, fields in rows()], DEFAULT_FIELD_WEIGHTS)
    stored = None if rebuild else read_stored(store) if not isinstance(previous, KeywordIndex) else None
    start = previous if isinstance(previous, KeywordIndex) and not rebuild else stored
    if start is None:
        index = whole(generation, rows())
    else:
        index = caught_up(store, start, generation, pks, written if start is previous else None)
    if previous is None and (stored is None or index.generation != stored.generation):
        save(store, index, stored)
    elif stored is not None and not serves_requests(store) and base_id(store) is None:
        _name_base(store, stored)
    return index


def _name_base(store: SearchStore, stored: KeywordIndex) -> None:
    """Give a base stored before bases had names its name, so that servers map it (quietly not when read-only)."""
    keep_derived(store, lambda: store.put_cache(BASE_ID, stored.base_generation, uuid.uuid4().hex.encode()))
