"""Serving workers check a query's phrases and `title:` words on files every worker maps, not on texts read from
the store per candidate: their answers (papers, order, scores, counts) are a single process's, before and after a
paper changes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from confnav.search.engine import Searcher
from confnav.search.mapped import home
from confnav.search.stored import LeanCorpus
from confnav.store import PaperFilter, open_store
from tests.backends import Location
from tests.test_stateless_workers import indexed, serving

QUERIES: list[tuple[str, str, dict[str, Any]]] = [
    ('"graph neural networks"', "hybrid", {}),
    ('"reinforcement learning" offline', "keyword", {"min_rating": 6}),
    ('title:"neural" "adversarial examples"', "hybrid", {"decision": "accepted"}),
    ('"meta-learning" keyword:"few-shot"', "hybrid", {}),
    ('"state-of-the-art" author:Sergey Levine', "keyword", {}),
    ('"self-supervised"', "semantic", {"min_rating": 7}),
    ('"large-scale" language models', "hybrid", {"year": 2021}),
    ('"ü-net" "über" segmentation', "keyword", {}),
]


def answers(searcher: Searcher, queries: list[tuple[str, str, dict[str, Any]]] = QUERIES) -> list[Any]:
    """Each query's count of matches and its hits: paper id and scores, exactly as computed."""
    found = []
    for text, mode, where in queries:
        results = searcher.search(text, mode=mode, where=PaperFilter(**where), limit=20)  # type: ignore[arg-type]
        found.append(
            [results.matching, [(h.paper.id, h.score, h.keyword_score, h.semantic_score) for h in results.hits]]
        )
    return found


def test_phrases_are_checked_on_mapped_files_as_one_process_checks_them(
    sparse_template_db: Location, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A serving worker answers phrase, `title:` and filtered queries exactly as a process holding every paper,
    reading no paper's text from the store to check them."""
    location = indexed(sparse_template_db, tmp_path)
    with open_store(location, settings=serving()) as store:
        assert any(folder.name.startswith("texts-") for folder in home(store).iterdir())  # written by the index
    with open_store(location) as store:
        alone = answers(Searcher(store))
    assert all(matching for matching, _ in alone[:4]) and sum(bool(hits) for _, hits in alone) >= 5
    with open_store(location, settings=serving()) as store:
        searcher = Searcher(store)
        searcher.warm()
        corpus = searcher.corpus
        assert isinstance(corpus, LeanCorpus) and corpus.checks is not None
        assert (np.asarray(corpus.checks.slots) >= 0).all()  # every paper is as the keyword base holds it

        def unread(pks: list[int]) -> dict[int, Any]:
            raise AssertionError(f"texts of {len(pks)} papers read from the store")

        monkeypatch.setattr(store, "texts_by_pk", unread)
        assert answers(searcher) == alone


def test_a_paper_changed_since_the_keyword_base_is_checked_as_stored(
    sparse_template_db: Location, tmp_path: Path
) -> None:
    """A paper written while a worker serves is checked on its new text (read from the store, the files holding
    the old one), the others still on the files."""
    location = indexed(sparse_template_db, tmp_path)
    with open_store(location, settings=serving()) as store, open_store(location) as writer:
        searcher = Searcher(store)
        paper = next(p for _, p in writer.paper_rows("iclr2021") if p.abstract and len(p.title.split()) > 3)
        old, new = f'title:"{paper.title}"', '"zyxwvut qqxjvbk"'
        assert [h.paper.id for h in searcher.search(old, mode="keyword").hits] == [paper.id]
        with writer.transaction():
            writer.put_papers([replace(paper, title="Zyxwvut qqxjvbk tessellations")])
        searcher.search("warm up")  # a server answers from the state it holds while it loads the new one
        searcher.wait_for_refresh()
        corpus = searcher.corpus
        assert isinstance(corpus, LeanCorpus) and corpus.checks is not None
        slots = np.asarray(corpus.checks.slots)
        row = corpus.find(paper.id, paper.venue)
        assert row is not None and slots[row] == -1 and (slots >= 0).sum() == len(corpus) - 1
        assert searcher.search(old, mode="keyword").matching == 0
        assert [h.paper.id for h in searcher.search(new, mode="keyword").hits] == [paper.id]
        queries = [(old, "keyword", {}), (new, "hybrid", {}), *QUERIES]
        with open_store(location) as fresh:
            assert answers(searcher, queries) == answers(Searcher(fresh), queries)


@pytest.mark.parametrize(
    ("title", "abstract", "keywords"),
    [
        ("Graph Nets", "We study GNNs.", ["graphs", "message passing"]),
        ("Über U-Net", "\u0301Accents é and a mark opening the abstract.", ["Ⅻ ﬁne", "ｆｕｌｌ width"]),
        ("生成模型", "模型の学習 and English", ["生成", "モデル"]),
        ("Title", None, []),
        ("", "", [""]),
    ],
)
def test_a_papers_checked_words_are_those_of_its_joined_text(
    title: str, abstract: str | None, keywords: list[str]
) -> None:
    """The words a phrase is checked on, built from the title, abstract and keywords split one by one (as the
    keyword index splits them), are those of the three joined as a query's matching joins them."""
    from confnav.search.mapped_texts import TextArrays
    from confnav.search.text import split_words

    made = TextArrays()
    made.add(1, title, abstract, keywords, ["Ana Pérez"])
    assert made.chunks[0] == split_words(" ".join([title, abstract or "", *keywords]))
    assert made.chunks[1] == split_words(title)


def test_many_rows_are_checked_at_once_as_one_by_one(sparse_template_db: Location, tmp_path: Path) -> None:
    """The byte search of phrases and `title:` words over many rows agrees with the paper-by-paper check on every
    row: words cut short, words at a text's first and last place, phrases across two words, other scripts."""
    from confnav.search.query import parse_query

    location = indexed(sparse_template_db, tmp_path)
    with open_store(location, settings=serving()) as store:
        searcher = Searcher(store)
        searcher.warm()
        corpus = searcher.corpus
        assert isinstance(corpus, LeanCorpus) and corpus.checks is not None
        checks, rows = corpus.checks, list(range(len(corpus)))
        split = [bytes(checks.data[a:b]).decode() for a, b in zip(checks.bounds[:-1], checks.bounds[1:], strict=False)]
        first_words = [s.split(" ")[0] for s in split[:200:2] if s]
        last_words = [s.split(" ")[-1] for s in split[:200:2] if s]
        phrases = ["neural", "neura", "eural", "graph neural", "learning", "über", "生成", "the the"]
        phrases += first_words[:5] + last_words[:5]
        for text in [f'"{p}"' for p in phrases] + [f'title:"{p}"' for p in phrases] + ['"deep" title:"learning"']:
            query = parse_query(text)
            assert checks.meeting(query, rows) == [checks.meets(query, row) for row in rows], text


def test_a_warmed_worker_knows_every_venues_rating_scale(
    sparse_template_db: Location, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A serving worker learns every venue's rating scale when it warms (one read), so its first searches, asked
    at once, count none again; the scales are those a single process shows."""
    location = indexed(sparse_template_db, tmp_path)
    with open_store(location) as store:
        alone = Searcher(store)
        venues = [venue.id for venue in store.venue_list()]
        expected = {venue: alone.corpus.rating_scale(venue) for venue in venues}
    with open_store(location, settings=serving()) as store:
        searcher = Searcher(store)
        searcher.warm()

        def counted(*args: object) -> object:
            raise AssertionError("a rating scale counted after the warm-up")

        monkeypatch.setattr(store, "rating_scales", counted)
        assert venues and {venue: searcher.corpus.rating_scale(venue) for venue in venues} == expected
        assert searcher.search("graph neural networks", limit=20).hits


def test_a_phrase_asked_again_checks_only_papers_not_checked_for_it(
    sparse_template_db: Location, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A phrase asked again with other words or filters answers as a single process does, and checks only the
    papers its earlier asking did not reach."""
    import confnav.search.mapped_texts as mapped_texts

    location = indexed(sparse_template_db, tmp_path)
    queries: list[tuple[str, str, dict[str, Any]]] = [
        ('"neural" adversarial robustness', "hybrid", {"min_rating": 6}),
        ('"neural" linear attention', "hybrid", {"min_rating": 6}),
        ('"neural" graphs', "keyword", {}),
    ]
    with open_store(location) as store:
        alone = answers(Searcher(store), queries)
    calls: list[int] = []
    follows = mapped_texts._follows
    monkeypatch.setattr(mapped_texts, "_follows", lambda *args: calls.append(1) or follows(*args))
    with open_store(location, settings=serving()) as store:
        searcher = Searcher(store)
        searcher.warm()
        counts = []
        for query in queries:
            before = len(calls)
            assert answers(searcher, [query]) == alone[queries.index(query) : queries.index(query) + 1]
            counts.append(len(calls) - before)
        holding = int(searcher.corpus.keyword.containing("neural").sum())
    assert counts[0] > 0 and counts[1] == 0 and sum(counts) <= holding
