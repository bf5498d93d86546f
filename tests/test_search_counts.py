"""The count of matching papers and the papers listed agree, whatever fields and phrases a query holds."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.search.engine import BROWSE_ORDER, Searcher
from confnav.store import PaperFilter, open_store
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


def test_filters_alone_show_no_relevance_and_say_their_order(iclr2021_db: Location) -> None:
    """A search without words has no relevance: no hit shows a score (it showed 100 + mean rating, e.g. 107.500,
    under "(relevance)"), and the listing says the order it follows; word searches keep their scores."""
    with open_store(iclr2021_db, read_only=True) as store:
        results = Searcher(store).search("", where=PaperFilter(decision="oral"), limit=5)
        assert results.order == BROWSE_ORDER and results.to_dict()["order"] == BROWSE_ORDER
        assert [h.to_dict()["score"] for h in results.hits] == [None] * 5
        assert Searcher(store).search("", where=PaperFilter(decision="oral"), sort="year").order is None
        assert all(isinstance(h.to_dict()["score"], float) for h in Searcher(store).search("attention").hits)
    run = CliRunner().invoke(cli, ["--db", str(iclr2021_db), "search", "", "--decision", "oral", "--limit", "3"])
    assert run.exit_code == 0, run.output
    assert f"showing 1–3 ({BROWSE_ORDER})" in run.stdout and "(relevance)" not in run.stdout
    assert not re.search(r" · \d+\.\d{3}\]", run.stdout), run.stdout
    run = CliRunner().invoke(cli, ["--db", str(iclr2021_db), "--json", "search", "", "--decision", "oral"])
    assert {hit["score"] for hit in json.loads(run.stdout)["hits"]} == {None}


def test_search_json_carries_the_counts_and_the_page_the_text_gives(iclr2021_db: Location) -> None:
    """`search --json` was a bare list of hits: the 860 accepted ICLR 2021 papers the text counts, and how many
    match the words, appeared nowhere; now an object with the hits, both counts, the offset and the limit."""

    def run(*args: str) -> tuple[str, dict[str, object]]:
        base = ["--db", str(iclr2021_db), "search", *args, "--venue", "iclr2021", "--limit", "3", "--offset", "2"]
        text, data = CliRunner().invoke(cli, base), CliRunner().invoke(cli, [*base, "--json"])
        assert text.exit_code == 0 and data.exit_code == 0, (text.output, data.output)
        return text.stdout, json.loads(data.stdout)

    text, data = run("", "--decision", "accepted")
    assert "860 papers meet these filters; showing 3–5" in text
    assert (data["matching"], data["meeting_filters"], data["offset"], data["limit"]) == (860, 860, 2, 3)
    assert len(data["hits"]) == 3 and data["order"] == BROWSE_ORDER  # type: ignore[arg-type]
    text, data = run("graph neural networks", "--mode", "keyword")
    said = re.search(r"([\d,]+) papers match some of these words; showing 3–5", text)
    assert said and data["matching"] == int(said.group(1).replace(",", "")) < 3014, text
    assert (data["meeting_filters"], data["offset"], data["limit"], data["mode"]) == (3014, 2, 3, "keyword")
