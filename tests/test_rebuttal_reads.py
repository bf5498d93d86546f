"""The rebuttal's reads: the papers' titles and decisions without loading the papers, the review versions as plain
rows, and the rebuttal made from them equal to the one made from whole papers and versions."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from confnav.fetch import fetch_openreview
from confnav.model import ReviewVersion, Venue
from confnav.reports.rating_history import RatingHistory
from confnav.reports.rebuttal import DAY, Rebuttal, ReviewChange, _evenly, build_rebuttal, paper_change, tally, when
from confnav.store import open_store
from confnav.store.sql import SqlStore
from tests.backends import Location
from tests.openreview_server import FakeOpenReview
from tests.test_review_history import OPEN, client, rebut, server  # noqa: F401 - the server fixture


def test_titles_and_decisions_read_from_the_columns_equal_the_loaded_papers(iclr2021_db: Location) -> None:
    with open_store(iclr2021_db) as store:
        papers = [paper for _, paper in store.paper_rows("iclr2021")]
        table = store.decision_table()
        venue = store.get_venue("iclr2021")
        read = store.paper_decisions("iclr2021")
        assert len(papers) > 2000 and read == {p.id: (p.title, p.decision) for p in papers}
        assert all(table.classify(p.decision.label, venue) == p.decision for p in papers)  # classified as on ingest
        assert len({d.label for _, d in read.values()}) > 3
        one = papers[7]
        assert store.paper_decisions("iclr2021", one.id) == {one.id: (one.title, one.decision)}
        assert store.paper_decisions("iclr2021", "no-such-paper") == {} and store.paper_decisions("nips1999") == {}


def test_a_decision_stored_as_a_bare_label_is_classified_as_when_its_paper_is_loaded(iclr2021_copy: Location) -> None:
    with open_store(iclr2021_copy) as store:
        paper = next(p for _, p in store.paper_rows("iclr2021") if p.decision.label)
        data = json.loads(next(iter(store.conn.execute("SELECT data FROM papers WHERE id = ?", (paper.id,))))[0])
        data["decision"] = paper.decision.label  # as papers were written before decisions were open
        with store.transaction():
            store.conn.execute("UPDATE papers SET data = ? WHERE id = ?", (json.dumps(data), paper.id))
        loaded = store.papers_by_id("iclr2021", [paper.id])[paper.id]
        assert store.paper_decisions("iclr2021", paper.id) == {paper.id: (paper.title, loaded.decision)}
        assert loaded.decision.label == paper.decision.label


def test_review_ratings_are_rows_by_paper_review_and_time_within_the_period(store: SqlStore) -> None:
    def version(paper: str, review: str, at: int, rating: float | None) -> ReviewVersion:
        return ReviewVersion("v2027", paper, review, f"{review}-signature", at, rating, 3.0, "edits")

    versions = [
        version("p2", "r1", 30, 6.0),
        version("p1", "r2", 20, None),  # a version without a rating stays a row
        version("p1", "r2", 10, 4.0),
        version("p1", "r1", 40, 8.0),
        version("p1", "r1", 5, 3.0),
    ]
    with store.transaction():
        store.put_venue(Venue("v2027", "V 2027", "v", 2027))
        store.add_review_versions(versions)
    rows = [("p1", "r1", "r1-signature", 5, 3.0), ("p1", "r1", "r1-signature", 40, 8.0)]
    rows += [("p1", "r2", "r2-signature", 10, 4.0), ("p1", "r2", "r2-signature", 20, None)]
    rows += [("p2", "r1", "r1-signature", 30, 6.0)]
    assert [tuple(row) for row in store.review_ratings("v2027")] == rows
    assert [tuple(row) for row in store.review_ratings("v2027", "p1")] == rows[:4]
    assert [tuple(row) for row in store.review_ratings("v2027", start=10, end=30)] == rows[2:]
    assert [tuple(row) for row in store.review_ratings("v2027", "p2", end=29)] == []


def rebuttal_as_first_made(store: SqlStore, venue: str, start: int | None, end: int | None) -> dict[str, Any]:
    """The rebuttal as it was made before it was made fast: from every ReviewVersion and every whole Paper, a
    review's versions grouped in a dict, each date's distribution from each review's latest rating by then."""
    history = [
        v
        for v in store.review_versions(venue)
        if (start is None or v.modified >= start) and (end is None or v.modified <= end)
    ]
    by_review: dict[tuple[str, str], list[ReviewVersion]] = defaultdict(list)
    for v in history:
        by_review[(v.paper_id, v.review_id)].append(v)
    by_paper: dict[str, list[ReviewChange]] = defaultdict(list)
    for (paper_id, _), versions in sorted(by_review.items()):
        rated = [v for v in versions if v.rating is not None]
        if rated:
            first, last = rated[0], rated[-1]
            assert first.rating is not None and last.rating is not None
            change = ReviewChange(
                first.review_id, first.reviewer, first.rating, first.modified, last.rating, last.modified, len(rated)
            )
            by_paper[paper_id].append(change)
    papers = store.papers_by_id(venue, list(by_paper))
    rows = [(v.paper_id, v.review_id, v.reviewer, v.modified, v.rating) for v in history]
    result = Rebuttal(venue, start, end, history=RatingHistory(rows))
    for paper_id, reviews in sorted(by_paper.items()):
        paper = papers.get(paper_id)
        result.papers.append(paper_change(paper_id, (paper.title, paper.decision) if paper else None, reviews))
    made = result.to_dict()
    first_at, last_at = min(v.modified for v in history), max(v.modified for v in history)
    days = sorted({v.modified // DAY for v in history})
    moments = (
        [min((d + 1) * DAY - 1, last_at) for d in _evenly(days, 6)]
        if len(days) > 1
        else _evenly(sorted({v.modified for v in history}), 6)
    )
    distributions = []
    for moment in moments:
        latest: dict[tuple[str, str], float] = {}
        for v in history:
            if v.modified <= moment and v.rating is not None:
                latest[(v.paper_id, v.review_id)] = v.rating
        distributions.append({"at": when(moment), "reviews": tally(list(latest.values()))})
    return {**made, "first_version": when(first_at), "last_version": when(last_at), "distributions": distributions}


def test_the_fast_rebuttal_equals_the_one_made_from_whole_papers_and_versions(  # type: ignore[no-untyped-def]
    server: tuple[FakeOpenReview, str],  # noqa: F811
    store: SqlStore,
    tmp_path: Path,
) -> None:
    state, url = server
    rebut(state, OPEN)
    fetch_openreview(store, tmp_path / "store.db", OPEN, client=client(url))
    notes = state.venues[OPEN].notes
    for note in notes[3:5]:  # later changes, one of them lowering a rating: a second fetch keeps both versions
        state.revise(OPEN, f"{note['id']}-r0", rating=1)
    fetch_openreview(store, tmp_path / "store.db", OPEN, client=client(url))
    times = sorted({v.modified for v in store.review_versions("iclr2018")})
    assert len(times) > 4
    for start, end in ((None, None), (times[1], None), (None, times[-2]), (times[2], times[-3])):
        fast = build_rebuttal(store, "iclr2018", start, end).to_dict()
        assert fast == rebuttal_as_first_made(store, "iclr2018", start, end)
    whole = build_rebuttal(store, "iclr2018").to_dict()
    assert whole["rises"] and whole["falls"] and whole["reviews_changed"] >= 4
