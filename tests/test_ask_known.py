"""`ask` says what the store cannot know instead of stating a number or papers it does not hold: counts of
decisions a venue's data lacks (CoRL 2023 and ACL 2022 list accepted papers only), on the real data."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from confnav.answer import DOES_NOT_SAY, ask
from confnav.answer.check import verify_answer
from confnav.ingest import ingest
from confnav.search.engine import Searcher
from confnav.store import open_store
from tests.backends import Location, clone
from tests.conftest import DATA


@pytest.fixture(scope="module")
def searcher(light_topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    """ICLR 2021 and 2020 (themes, TF-IDF vectors) with CoRL 2023 and ACL 2022 (accepted papers only) added."""
    location = clone(light_topics_db, tmp_path_factory.mktemp("known"), "known")
    with open_store(location) as store:
        ingest(store, [DATA / "paperlists" / "corl2023.json", DATA / "paperlists" / "acl2022.json"])
        yield Searcher(store)


def texts(answer: object) -> str:
    return " ".join(s.text for s in answer.sentences)  # type: ignore[attr-defined]


def test_rejections_of_an_accepted_only_venue_are_not_counted_as_zero(searcher: Searcher) -> None:
    answer = ask(searcher, "How many papers were rejected at CoRL 2023?")
    said = texts(answer)
    assert "0 of them" not in said and [c.decision for c in answer.counts] == [None]
    assert "199 papers of CoRL 2023" in said and "lists accepted papers only" in said
    assert f"{DOES_NOT_SAY} how many of them were not accepted" in said
    assert verify_answer(searcher, answer) == []


def test_a_decision_the_venue_never_gave_is_named_with_its_decisions(searcher: Searcher) -> None:
    answer = ask(searcher, "How many orals at ACL 2022?")
    said = texts(answer)
    assert "0 of them" not in said and "gave no decision named 'oral'" in said
    assert "long, short and findings" in said
    listed = ask(searcher, "Which oral papers at ACL 2022 study dialogue state tracking?")
    assert listed.unanswered and "gave no decision named 'oral'" in listed.unanswered and not listed.papers


def test_a_decision_the_venue_gave_is_still_counted(searcher: Searcher) -> None:
    answer = ask(searcher, "How many orals at CoRL 2023 and ICLR 2021?")
    assert {(c.venue, c.decision, c.value) for c in answer.counts if c.decision} == {
        ("corl2023", "oral", 33),
        ("iclr2021", "oral", 53),
    }
    assert verify_answer(searcher, answer) == []
