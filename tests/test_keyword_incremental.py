"""The keyword index kept up to date in proportion to the change: after papers are added, changed or removed,
search scores equal a whole rebuild's, on the real ICLR 2021 store (both backends); a failed or killed update
leaves an index that the next reader brings up to date; a searcher that held the store before a write answers as
one started after it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import confnav.search.keyword as keyword_module
from confnav.model import Paper
from confnav.search.corpus import FACTS, Corpus
from confnav.search.engine import Searcher
from confnav.search.keyword import KeywordIndex
from confnav.search.keyword_store import BASE_CACHE, DELTA_CACHE, keyword_fields, keyword_index, stored_documents
from confnav.search.stored import LeanCorpus, build_keyword_index, row_arrays
from confnav.search.text import terms
from confnav.settings import Settings
from confnav.store import PaperFilter, SqlStore, open_store
from confnav.store.derived import venue_generation_key
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


def refuse(*args: object) -> object:
    raise AssertionError("the whole store was read for an update")


def no_whole_read(store: SqlStore, monkeypatch: pytest.MonkeyPatch, more: tuple[str, ...] = ()) -> None:
    """Make reading every paper (or every paper's row facts, or `more`) fail: an update must read only the changed
    ones."""
    for name in ("paper_rows", "paper_texts", "row_facts", "placeholder_pks", *more):
        monkeypatch.setattr(store, name, refuse)


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


def refacted(store: SqlStore, start: int) -> None:
    """Change what search knows of papers without reading them: an abstract gone, a title only holding a place
    (withdrawn), other ratings, the opposite decision."""
    papers = [p for _, p in store.paper_rows()][start : start + 8]
    decisions = {p.decision.outcome: p.decision for _, p in store.paper_rows()}
    opposite = {a: b for a, b in zip(decisions, list(decisions)[1:] + list(decisions)[:1], strict=True)}
    made = [replace(p, abstract=None) for p in papers[:2]] + [replace(p, title="Withdrawn") for p in papers[2:4]]
    made += [replace(p, ratings=[1.5, 2.0]) for p in papers[4:6]]  # a value the venue's scale lacked
    made += [replace(p, decision=decisions[opposite[p.decision.outcome]]) for p in papers[6:]]
    with store.transaction():
        store.put_papers(made)


def removed(store: SqlStore, count: int) -> None:
    """Remove `count` papers spread over the store (their filter rows go with them); no store verb removes one."""
    rows = list(store.paper_rows())[7::53][:count]
    pks = [pk for pk, _ in rows]
    with store.transaction():
        store.conn.execute(f"DELETE FROM papers WHERE pk IN ({', '.join('?' * len(pks))})", pks)
        for counter in ["generation", *{venue_generation_key(p.venue) for _, p in rows}]:
            store.count_change(counter)


def answers(searcher: Searcher) -> list[object]:
    """What a searcher says, exactly: hits with scores and rating scales, match counts, a filtered and a phrase
    search, and the papers like one found by id."""
    asked = [(q, PaperFilter()) for q in QUERIES] + [("learning", PaperFilter(decision="poster"))]
    asked.append(('"zebra crossing" detection', PaperFilter()))
    found: list[object] = []
    for text, where in asked:
        results = searcher.search(text, mode="keyword", where=where, limit=15)
        hits = [(h.paper.id, h.paper.title, h.score, h.keyword_score, h.rating_scale) for h in results.hits]
        found.append((results.matching, hits))
    hits = searcher.search("revised warmed", mode="keyword", limit=100).hits
    added = max((h.paper.id for h in hits if h.paper.id.endswith(("-warmed", "-revised"))), key=lambda i: "-r" in i)
    like = searcher.similar(added, limit=10)  # found by id: the latest paper added
    return [*found, [(h.paper.id, h.score) for h in like.hits]]


@pytest.mark.parametrize("serving", [False, True], ids=["process", "server"])
def test_a_held_searcher_answers_as_a_new_one_after_writes(
    iclr_indexed: Location, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, serving: bool
) -> None:
    """After papers are changed, added, then removed, a searcher that held the store before answers exactly as
    one built from scratch; for a change or an addition it reads only the papers written (server or not)."""
    location = clone(iclr_indexed, tmp_path)
    with open_store(location) as writer:
        change(writer, 900, 10, "warmed")  # the stored index has a delta to apply
    settings = Settings.load().replace(serving=serving)
    with open_store(location, settings=settings) as store, open_store(location) as writer:
        searcher = Searcher(store)
        answers(searcher)  # what it derives from every paper (rating scales, ids) is held too
        steps = [(lambda: change(writer, 30, 25, "revised"), True), (lambda: refacted(writer, 70), True)]
        for step, proportional in [*steps, (lambda: removed(writer, 12), False)]:
            step()
            with monkeypatch.context() as patched:
                if proportional:  # 25 papers changed, 25 added
                    no_whole_read(store, patched)
                searcher.search("warm up", mode="keyword")
                searcher.wait_for_refresh()
                assert searcher.current()
                held = answers(searcher)
            with open_store(location) as fresh:
                new = Searcher(fresh)
                assert held == answers(new)
                for name in ("pks", *FACTS):
                    assert np.array_equal(getattr(searcher.corpus, name), getattr(new.corpus, name)), name
                if isinstance(searcher.corpus, LeanCorpus):
                    made = row_arrays(fresh)  # not the files the held searcher wrote, which the new one maps
                    assert all(np.array_equal(getattr(searcher.corpus, n), made[n]) for n in made)


@pytest.mark.parametrize("serving", [False, True], ids=["process", "server"])
def test_a_held_searcher_extends_its_vectors_after_a_write(
    sparse_template_db: Location, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, serving: bool
) -> None:
    """With a semantic index, the vectors a searcher holds are extended with rows for the papers added since (no
    vector is stored for them yet) instead of every vector read again; its hybrid answers are a new searcher's."""
    location = clone(sparse_template_db, tmp_path)
    with open_store(location) as writer:
        build_keyword_index(writer, rebuild=False)
    queries = ["zebra crossing detection", "graph neural networks", "offline reinforcement learning"]

    def hybrid(searcher: Searcher) -> list[object]:
        found = [searcher.search(q, mode="hybrid", limit=15).hits for q in queries]
        return [[(h.paper.id, h.score, h.keyword_score, h.semantic_score) for h in hits] for hits in found]

    settings = Settings.load().replace(serving=serving)
    with open_store(location, settings=settings) as store, open_store(location) as writer:
        searcher = Searcher(store)
        assert any(h[3] is not None for h in hybrid(searcher)[1])
        change(writer, 40, 20, "vectored")
        with monkeypatch.context() as patched:
            no_whole_read(store, patched, ("embeddings", "embedding_hashes"))
            searcher.search("warm up", mode="keyword")
            searcher.wait_for_refresh()
            held = hybrid(searcher)
        with open_store(location) as fresh:
            assert held == hybrid(Searcher(fresh))


VARIED = [
    "Generative models: 生成模型 for Übersetzung — naïve café",
    "Ελληνικά κείμενα and Кириллица, THE of AND",
    "ภาษาไทย ข้อความ; 한국어 텍스트",
    "a\x00b nul\x00inside, under_score 3D-CNNs 2x",
    "",
    "ALL CAPS Attention-Is-All-You-Need (v2) e.g. i.i.d.",
]


def test_a_build_counts_the_terms_of_each_field_of_each_paper(iclr: SqlStore) -> None:
    """The index built from split texts at once counts, for every paper and field, exactly the terms `terms` finds
    in it, and each field's length, whatever the script (on the real papers and texts of other scripts)."""
    documents = [fields for _, fields in stored_documents(iclr)]
    documents += [
        {"title": t, "abstract": a, "keywords": t, "authors": a} for t, a in zip(VARIED, VARIED[::-1], strict=True)
    ]
    index = KeywordIndex.build(documents)
    segment, fields = index.segments[0], index.fields
    words = sorted(index.vocabulary, key=index.vocabulary.__getitem__)
    found: dict[tuple[int, str], list[int]] = {}
    for column, word in enumerate(words):
        docs, counts = segment.postings(column)
        for doc, count in zip(docs.tolist(), counts.T.astype(int).tolist(), strict=True):
            found[(doc, word)] = count
    expected: dict[tuple[int, str], list[int]] = {}
    for doc, document in enumerate(documents):
        for f, name in enumerate(fields):
            found_terms = terms(document.get(name) or "")
            assert segment.lengths[doc, f] == len(found_terms)
            for term in found_terms:
                expected.setdefault((doc, term), [0] * len(fields))[f] += 1
    assert found == expected


def test_warming_scores_the_commonest_terms_as_queries_would(iclr: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server's start scores the terms most papers hold, most first, within the share of the kept pairs; a
    query's scores are the same after it."""
    index = whole(iclr)
    cold = index.score("learning neural networks with graph data")
    monkeypatch.setattr(keyword_module, "TERM_CACHE", 100_000)
    fresh = whole(iclr)
    warmed = fresh.warm(0.5)
    kept = list(fresh._terms)
    assert 0 < warmed == len(kept) and fresh._kept <= 50_000
    assert kept == np.argsort(-fresh.df, kind="stable")[:warmed].tolist()
    assert np.array_equal(fresh.score("learning neural networks with graph data"), cold)
