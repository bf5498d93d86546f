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
