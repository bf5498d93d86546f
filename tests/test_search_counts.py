"""The count of matching papers and the papers listed agree, whatever fields and phrases a query holds."""

from __future__ import annotations

import pytest

from confnav.search.engine import Searcher
from confnav.store import open_store
from tests.backends import Location


@pytest.mark.parametrize(
    "query",
    ["title:keyword:", "title:attention", 'title:"graph neural"', '"neural network" robustness', "keyword:graph"],
)
def test_every_paper_counted_is_listed(iclr2021_db: Location, query: str) -> None:
    with open_store(iclr2021_db, read_only=True) as store:
        results = Searcher(store).search(query, mode="keyword", limit=3000)
    assert results.matching == len(results.hits), (results.matching, len(results.hits))
    if query == "title:keyword:":  # the words were in 6 abstracts, in no title: none counted, none shown
        assert results.matching == 0
    else:
        assert results.hits and results.matching > 0


def test_words_no_paper_holds_and_no_index_knows_find_nothing(sparse_template_db: Location) -> None:
    """ICLR 2021 indexed by TF-IDF: a query of unknown words has a zero vector, close to nothing; it lists no
    papers (it listed ten at score 0, in id order), in every mode, and words it knows still find their papers."""
    with open_store(sparse_template_db) as store:
        searcher = Searcher(store)
        for mode in ("hybrid", "semantic", "keyword"):
            results = searcher.search("zzzqqq xylophonics", mode=mode)  # type: ignore[arg-type]
            assert results.hits == [] and results.matching in (0, None), mode
        hits = searcher.search("graph neural networks", limit=50).hits
        assert len(hits) == 50 and all(h.score > 0 for h in hits)
