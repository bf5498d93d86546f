"""Library calls given a wrong value or type raise confnav's own error, naming the argument, never a ValueError,
TypeError or AttributeError, and never quietly do something else: on CoRL 2023 from its real paperlists file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from confnav.errors import ConfnavError
from confnav.ingest import IngestError, ingest
from confnav.rank import WeightedRanker
from confnav.rank.weights import load_weights
from confnav.reports.digest import build_digest
from confnav.reports.overview import build_overview
from confnav.search.engine import Searcher
from confnav.store import SqlStore, open_store
from confnav.topics import theme_facts
from tests.backends import Location, clone, freeze, new_location
from tests.conftest import DATA, snapshot

CORL = DATA / "paperlists" / "corl2023.json"


@pytest.fixture(scope="module")
def corl(tmp_path_factory: pytest.TempPathFactory) -> Location:
    """CoRL 2023 indexed by the TF-IDF embedder, with its themes."""
    from confnav.embed.sparse import SparseEmbedder
    from confnav.index import build_index
    from confnav.topics import ensure_topics

    location = new_location(tmp_path_factory.mktemp("corl"), "corl")
    with open_store(location, create=True) as store:
        ingest(store, [CORL])
        build_index(store, SparseEmbedder())
        ensure_topics(store, "corl2023")
    return freeze(location)


@pytest.fixture
def store(corl: Location) -> Iterator[SqlStore]:
    with open_store(corl) as opened:
        yield opened


def refused(call: object, *words: str) -> str:
    """The message of the ConfnavError `call` raises (of that class itself, not a Python error), holding `words`."""
    assert callable(call)
    with pytest.raises(ConfnavError) as caught:
        call()
    message = str(caught.value)
    assert all(word in message for word in words), message
    return message


def test_the_ranker_refuses_an_unknown_mode_and_a_bad_weight(store: SqlStore, tmp_path: Path) -> None:
    refused(lambda: WeightedRanker(mode="bogus"), "unknown ranking mode 'bogus'", "at-conference, looking-back")
    refused(lambda: WeightedRanker(mode=3), "ranking mode 3")  # type: ignore[arg-type]
    refused(lambda: WeightedRanker(mode="looking-back", at_conference=True), "both modes")
    unknown = refused(lambda: WeightedRanker(weights={"bogus": 1.0}), "weights['bogus']", "unknown signal 'bogus'")
    refused(lambda: WeightedRanker(weights={"decision": -1.0}), "weights['decision']", "not a non-negative number")
    refused(lambda: WeightedRanker(weights=[("decision", 1.0)]), "weights: give a mapping")  # type: ignore[arg-type]
    config = tmp_path / "weights.toml"
    config.write_text("[weights]\nbogus = 1.0\n", encoding="utf-8")
    with pytest.raises(ConfnavError) as from_file:  # one check for a file's weights and a caller's
        load_weights(config)
    assert unknown.split(": ", 1)[1] in str(from_file.value)
    good = WeightedRanker(mode="at-conference", weights={"decision": 2.0, "external:mentions": 0.5})
    assert good.rank(store, "corl2023").papers


def test_search_refuses_an_unknown_mode_a_bad_page_and_no_query(store: SqlStore) -> None:
    searcher = Searcher(store)
    refused(lambda: searcher.search("robot", mode="bogus"), "unknown mode 'bogus'")  # type: ignore[arg-type]
    for limit, shown in ((0, "0"), (-1, "-1"), (2.5, "2.5"), (None, "null")):
        refused(partial(searcher.search, "robot", limit=limit), f"limit {shown}", "at least 1")  # type: ignore[arg-type]
    refused(lambda: searcher.search("robot", offset=-1), "offset -1", "at least 0")
    refused(lambda: searcher.search(None), "query null", "as text")  # type: ignore[arg-type]
    refused(lambda: searcher.search("robot", sort=["year"]), "unknown sort a list")  # type: ignore[arg-type]
    refused(lambda: searcher.similar("5JMGq83yf1N", limit=0), "limit 0")
    refused(lambda: searcher.recommend(like=["5JMGq83yf1N"], limit=-2), "limit -2")
    results = searcher.search("robot", mode="keyword", limit=3)
    assert results.mode == "keyword" and len(results.hits) == 3


def test_reports_refuse_a_count_below_one(store: SqlStore) -> None:
    for top in (0, -3):
        refused(partial(build_digest, store, "corl2023", top=top), f"top {top}", "at least 1")
    refused(lambda: build_overview(store, "corl2023", per_theme=0), "per_theme 0", "at least 1")
    assert len(build_digest(store, "corl2023", top=3).sections[0].citations) == 3


def test_theme_facts_refuses_a_level_it_has_not(store: SqlStore) -> None:
    for level in (3, 0, "1", True):
        refused(partial(theme_facts, store, "corl2023", level=level), "level", "not one of 1, 2")  # type: ignore[arg-type]
    assert theme_facts(store, "corl2023", level=1)


def test_ingest_refuses_one_path_as_text_and_items_that_are_no_path(corl: Location, tmp_path: Path) -> None:
    location = clone(corl, tmp_path)
    before = snapshot(location)
    with open_store(location) as store:
        refused(lambda: ingest(store, str(CORL)), "paths: give a list of files", "not one path")  # type: ignore[arg-type]
        refused(lambda: ingest(store, CORL), "paths: give a list of files")  # type: ignore[arg-type]
        refused(lambda: ingest(store, [CORL, 123]), "paths: item 2 (123) is not a file path")  # type: ignore[list-item]
        refused(lambda: ingest(store, 5), "paths: give a list of files, not 5")  # type: ignore[arg-type]
    assert snapshot(location) == before


@pytest.mark.parametrize("name", ["corl2023.json", "corl2023.jsonl"])
def test_a_title_that_is_a_number_makes_its_record_bad(name: str, tmp_path: Path) -> None:
    """Record 4's title replaced by the JSON number 12345: a bad record named by file, record or line, and field,
    never a paper titled "12345"; under skip_bad the other records are ingested."""
    records = json.loads(CORL.read_text(encoding="utf-8"))[:10]
    records[3]["title"] = 12345
    path = tmp_path / name
    if name.endswith(".jsonl"):
        rows = [{"id": r["id"], "title": r["title"], "abstract": r["abstract"]} for r in records]
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    else:
        path.write_text(json.dumps(records), encoding="utf-8")
    place = "line 4" if name.endswith(".jsonl") else "record 4"
    location = new_location(tmp_path, "s")
    with open_store(location, create=True) as store:
        with pytest.raises(IngestError) as caught:
            ingest(store, [path], venue="corl2023")
        assert f"{path}, {place}, field 'title': expected the title as text, found a number (12345)" in str(
            caught.value
        )
        assert store.count_papers() == 0
        result = ingest(store, [path], venue="corl2023", skip_bad=True)
        assert result.added == 9 and store.count_papers() == 9
        assert all(p.title != "12345" for p in store.iter_papers("corl2023"))


def test_library_errors_name_the_argument_and_the_cli_its_flag() -> None:
    """A library caller reads `since`, `source`/`target`; the command line reads `--since`, `--from`/`--to`."""
    from confnav.cli.common import flag_of
    from confnav.model import Venue
    from confnav.personal.news import since_time
    from confnav.topics.trends import comparison_notice

    with pytest.raises(ConfnavError) as since:
        since_time("last week")
    assert str(since.value).startswith("since='last week': give a date")
    assert since.value.spelled(flag_of).startswith("--since last week: give a date")
    iclr = Venue("iclr2021", "ICLR 2021", "iclr", 2021)
    with pytest.raises(ConfnavError) as same:
        comparison_notice(iclr, iclr)
    assert str(same.value) == "source and target name the same venue"
    assert same.value.spelled(flag_of) == "--from and --to name the same venue"
