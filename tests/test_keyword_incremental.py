"""The keyword index kept up to date in proportion to the change: after papers are added, changed or removed,
search scores equal a whole rebuild's, on the real ICLR 2021 store (both backends); a failed or killed update
leaves an index that the next reader brings up to date."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import confnav.search.keyword as keyword_module
from confnav.model import Paper
from confnav.search.corpus import Corpus
from confnav.search.keyword import KeywordIndex
from confnav.search.keyword_store import BASE_CACHE, DELTA_CACHE, keyword_fields, keyword_index, stored_documents
from confnav.search.stored import build_keyword_index
from confnav.store import SqlStore, open_store
from tests.backends import Location, clone, freeze

QUERIES = [
    "graph neural networks",
    "adversarial robustness certified defense",
    "contrastive self-supervised representation learning",
    "zebra crossing detection",  # words only the changed papers hold
    "transformer attention efficient long sequences",
    "reinforcement learning offline",
]


@pytest.fixture(scope="module")
def iclr_indexed(iclr2021_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """The ICLR 2021 store with its keyword index stored (a base, as `confnav index` leaves it), built once for
    the module; copy before writing."""
    location = clone(iclr2021_db, tmp_path_factory.mktemp("keyword"), "keyword")
    with open_store(location) as store:
        build_keyword_index(store)
    return freeze(location)


@pytest.fixture
def iclr(iclr_indexed: Location, tmp_path: Path) -> Iterator[SqlStore]:
    """A private copy of it for one test."""
    with open_store(clone(iclr_indexed, tmp_path)) as store:
        yield store


def whole(store: SqlStore) -> KeywordIndex:
    """The index built whole from the store's papers as they are now."""
    rows = list(store.paper_rows())
    return KeywordIndex.build([keyword_fields(p) for _, p in rows], pks=[pk for pk, _ in rows])


def assert_same(index: object, expected: KeywordIndex) -> None:
    """The same rows, the same scores (up to float error) and the same best hits for every query."""
    assert isinstance(index, KeywordIndex)
    assert np.array_equal(index.pks, expected.pks)
    for query in QUERIES:
        got, want = index.score(query), expected.score(query)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert list(np.argsort(-got, kind="stable")[:10]) == list(np.argsort(-want, kind="stable")[:10])
        assert np.array_equal(index.containing(query), expected.containing(query))


def edited(papers: list[Paper], note: str) -> list[Paper]:
    return [
        replace(p, title=f"{p.title} {note}", abstract=f"{p.abstract or ''} zebra crossing detection") for p in papers
    ]


def change(store: SqlStore, start: int, count: int, note: str) -> None:
    """Edit `count` papers from the `start`-th and add as many new ones (copies under new ids)."""
    papers = [p for _, p in store.paper_rows()][start : start + count]
    added = [replace(p, id=f"{p.id}-{note}", title=f"{note}: {p.title}") for p in papers]
    with store.transaction():
        store.put_papers(edited(papers, note) + added)


def no_whole_read(store: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make reading every paper fail: an update must read only the changed ones."""

    def refuse(*args: object) -> object:
        raise AssertionError("the whole store was read for an update")

    monkeypatch.setattr(store, "paper_rows", refuse)
    monkeypatch.setattr(store, "paper_texts", refuse)


def test_changed_and_added_papers_score_as_a_whole_rebuild(iclr: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:
    change(iclr, 100, 50, "revisited")
    expected = whole(iclr)
    with monkeypatch.context() as patched:
        no_whole_read(iclr, patched)
        updated = keyword_index(iclr, iclr.generation(), expected.pks)
    assert_same(updated, expected)
    assert isinstance(updated, KeywordIndex) and len(updated.segments) == 2  # the base and the changed papers
    assert iclr.get_cache(DELTA_CACHE)[0] == iclr.generation()  # type: ignore[index]
    assert iclr.get_cache(BASE_CACHE)[0] < iclr.generation()  # type: ignore[index]
    reread = keyword_index(iclr, iclr.generation(), expected.pks)  # base and delta as stored
    assert_same(reread, expected)


def test_a_held_index_is_updated_change_after_change(iclr: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:
    held = Corpus.load(iclr).keyword  # as a server holds it: updated from memory, never written
    stored = iclr.get_cache(DELTA_CACHE)
    for round_, note in enumerate(("first", "second", "third", "fourth", "fifth", "sixth")):
        change(iclr, 200 + 10 * round_, 20, note)
        expected = whole(iclr)
        with monkeypatch.context() as patched:
            no_whole_read(iclr, patched)
            held = keyword_index(iclr, iclr.generation(), expected.pks, previous=held)
        assert_same(held, expected)
    assert isinstance(held, KeywordIndex) and len(held.segments) <= 1 + keyword_module.MAX_SEGMENTS
    assert iclr.get_cache(DELTA_CACHE) == stored


def test_removed_papers_are_masked_out(iclr: SqlStore) -> None:
    rows = list(iclr.paper_rows())
    kept = [(pk, p) for i, (pk, p) in enumerate(rows) if i % 60]  # 51 papers gone
    expected = KeywordIndex.build([keyword_fields(p) for _, p in kept], pks=[pk for pk, _ in kept])
    updated = keyword_index(iclr, iclr.generation(), expected.pks)
    assert_same(updated, expected)


def test_past_a_share_of_the_base_the_changes_merge_into_a_new_base(
    iclr: SqlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyword_module, "MERGE_SHARE", 0.01)
    change(iclr, 300, 40, "merged")
    expected = whole(iclr)
    updated = keyword_index(iclr, iclr.generation(), expected.pks)
    assert isinstance(updated, KeywordIndex) and len(updated.segments) == 1
    assert iclr.get_cache(BASE_CACHE)[0] == iclr.generation()  # type: ignore[index]
    assert_same(updated, expected)
    assert_same(keyword_index(iclr, iclr.generation(), expected.pks), expected)


def test_a_failed_update_leaves_a_usable_index(iclr: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:
    change(iclr, 400, 30, "before")
    keyword_index(iclr, iclr.generation(), whole(iclr).pks)  # a delta stored
    stored = {name: iclr.get_cache(name) for name in (BASE_CACHE, DELTA_CACHE)}
    change(iclr, 500, 30, "killed")
    expected = whole(iclr)
    put = iclr.put_cache

    def dies(name: str, generation: int, data: bytes) -> None:
        put(name, generation, data[: len(data) // 2])  # half written, then the process is gone
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(iclr, "put_cache", dies)
        with pytest.raises(KeyboardInterrupt):
            keyword_index(iclr, iclr.generation(), expected.pks)
    assert {name: iclr.get_cache(name) for name in stored} == stored  # rolled back: the last update stands
    assert_same(keyword_index(iclr, iclr.generation(), expected.pks), expected)


def test_a_damaged_delta_falls_back_to_the_base(iclr: SqlStore) -> None:
    change(iclr, 600, 25, "damaged")
    with iclr.transaction():
        iclr.put_cache(DELTA_CACHE, iclr.generation(), b"PK\x03\x04 not a delta")
    expected = whole(iclr)
    assert_same(keyword_index(iclr, iclr.generation(), expected.pks), expected)


def test_a_whole_build_reads_the_fields_papers_hold(iclr: SqlStore) -> None:
    change(iclr, 700, 10, "fields")  # rewritten papers too: their authors and keywords rows written again
    assert list(stored_documents(iclr)) == [(pk, keyword_fields(p)) for pk, p in iclr.paper_rows()]


def test_a_reloaded_corpus_reads_only_the_changed_papers(iclr: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:
    held = Corpus.load(iclr)
    change(iclr, 800, 30, "reloaded")
    with monkeypatch.context() as patched:
        no_whole_read(iclr, patched)
        reloaded = Corpus.load(iclr, held)
    fresh = Corpus.load(iclr)
    assert [p.to_dict() for p in reloaded.papers] == [p.to_dict() for p in fresh.papers]
    assert np.array_equal(reloaded.pks, fresh.pks) and np.array_equal(reloaded.hidden, fresh.hidden)
    assert np.array_equal(reloaded.ratings, fresh.ratings) and np.array_equal(reloaded.standing, fresh.standing)
    assert_same(reloaded.keyword, whole(iclr))
