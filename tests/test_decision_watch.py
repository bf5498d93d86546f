"""ICLR 2021 in its review period (its real list with every decision replaced by "Active"), beside ICLR 2020 and
ICLR 2018: acceptance by mean rating at the earlier editions, comparable scales only beside pending papers, and
the decisions of a later ingest reported as news to a venue's decision watch."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.errors import ConfnavError
from confnav.ingest import ingest
from confnav.personal.news import NewsRecorder, add_watch
from confnav.reports.history import acceptance_history
from confnav.store import open_store
from confnav.web.app import create_app
from tests.backends import Location, clone, freeze, new_location
from tests.conftest import DATA, ICLR2020

ICLR2021_LIST = DATA / "iclr2021" / "paperlists-iclr2021.json"
ICLR2018 = DATA / "paperlists" / "iclr2018.json"
UNDECIDED = ("Withdraw", "Desk Reject")  # known during the review period too


def review_period(path: Path) -> list[dict[str, object]]:
    """The real records as they stood before decisions: every reviewed paper "Active"."""
    records = json.loads(ICLR2021_LIST.read_text())
    pending = [dict(r, status=r["status"] if r["status"] in UNDECIDED else "Active") for r in records]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(pending))
    return records


@pytest.fixture(scope="module")
def pending_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Location, Path]:
    """The store in ICLR 2021's review period, and the file (as the same source) to write the decisions into."""
    folder = tmp_path_factory.mktemp("pending")
    listed = folder / "iclr2021" / "paperlists-iclr2021.json"
    review_period(listed)
    location = new_location(folder, "pending")
    with open_store(location, create=True) as store:
        ingest(store, [listed, ICLR2020, ICLR2018])
    return freeze(location), listed


def test_acceptance_by_rating_of_the_earlier_editions(pending_db: tuple[Location, Path]) -> None:
    with open_store(pending_db[0]) as store:
        history = acceptance_history(store, "iclr2021")
    assert history.pending == 2616 and history.scale == "1–10"
    assert [(e.venue.id, e.comparable, e.scale) for e in history.editions] == [
        ("iclr2020", False, "1, 3, 6, 8"),  # rated on another scale: kept apart, said so
        ("iclr2018", True, "1–10"),
    ]
    assert any("ICLR 2020 was rated 1, 3, 6, 8" in n for n in history.notices)
    iclr2020, iclr2018 = history.editions
    assert iclr2018.accepted == 337  # 23 orals and 314 posters; the 90 workshop invitations count as not accepted
    assert sum(b.papers for b in iclr2018.bins) == iclr2018.papers
    assert iclr2020.accepted == 687
    middle = iclr2020.bin_of(5.75)
    assert middle is not None and (middle.label, middle.papers, middle.accepted) == ("5.5–6", 138, 90)
    assert iclr2020.sentence(middle) == "at ICLR 2020, 65% of papers with mean 5.5–6 were accepted (90 of 138)"
    # A pending paper is set beside comparable editions only, as history
    assert history.for_mean(5.75) == ["at ICLR 2018, 34% of papers with mean 5.5–6 were accepted (29 of 86)"]
    assert history.for_mean(10.0) == [] and history.for_mean(None) == []
    assert iclr2018.bin_of(9.0) is not None  # a mean at a bin's lower bound falls in it


def test_history_in_the_cli_the_api_and_the_pages(pending_db: tuple[Location, Path]) -> None:
    location = pending_db[0]
    result = CliRunner().invoke(cli, ["--db", str(location), "history", "--venue", "iclr2021", "--json"])
    assert result.exit_code == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["pending"] == 2616 and "not a forecast" in shown["note"]
    assert [e["venue"] for e in shown["editions"]] == ["iclr2020", "iclr2018"]
    text = CliRunner().invoke(cli, ["--db", str(location), "history", "--venue", "iclr2021"]).stdout
    assert "ICLR 2020 (ratings 1, 3, 6, 8, another scale than ICLR 2021's)" in text
    client = TestClient(create_app(location), base_url="http://127.0.0.1")
    assert client.get("/api/history/iclr2021").json()["pending"] == 2616
    assert client.get("/api/history/nosuch2021").status_code == 404
    page = client.get("/history/iclr2021").text
    assert "Acceptance by mean rating before ICLR 2021" in page and "5.5–6" in page
    with open_store(location) as store:
        paper = next(p for p in store.iter_papers("iclr2021") if p.rating_mean and 5.5 <= p.rating_mean < 6)
    paper_page = client.get(f"/paper/{paper.id}", params={"venue": "iclr2021"}).text
    assert "Awaiting a decision." in paper_page
    assert "at ICLR 2018, 34% of papers with mean 5.5–6 were accepted (29 of 86)" in paper_page
    assert "not a forecast" in paper_page and "ICLR 2020, 65%" not in paper_page
    decided = client.get("/paper/B12Js_yRb", params={"venue": "iclr2018"}).text
    assert "Awaiting a decision." not in decided


def test_decisions_that_arrive_are_news(pending_db: tuple[Location, Path], tmp_path: Path) -> None:
    location = clone(pending_db[0], tmp_path)
    runner = CliRunner()
    made = runner.invoke(cli, ["--db", str(location), "watch", "add", "--decisions", "--venue", "iclr2021"])
    assert made.exit_code == 0 and "watching decisions of iclr2021" in made.stdout
    refused = runner.invoke(cli, ["--db", str(location), "watch", "add", "--decisions"])
    assert refused.exit_code == 1 and "--venue" in refused.stderr
    with open_store(location) as store:
        with pytest.raises(ConfnavError):
            add_watch(store, "me", query="graphs", decisions=True, venue="iclr2021")
        add_watch(store, "other", decisions=True, venue="iclr2020")  # another venue's watch hears nothing
        real = json.loads(ICLR2021_LIST.read_text())
        decided = tmp_path / "iclr2021" / "paperlists-iclr2021.json"
        decided.parent.mkdir()
        decided.write_text(json.dumps(real))
        ingest(store, [decided], watcher=NewsRecorder(store))  # the same source as the review-period list
        assert store.news("other") == []
        news = store.news("me")
    expected = Counter(r["status"] for r in real if r["status"] not in UNDECIDED)
    assert len(news) == sum(expected.values()) == 2616
    assert {n.kind for n in news} == {"decision"}
    assert Counter(n.summary.rsplit("→ ", 1)[-1] for n in news) == expected
    text = runner.invoke(cli, ["--db", str(location), "news"]).stdout
    assert "decision: Active → Oral" in text
