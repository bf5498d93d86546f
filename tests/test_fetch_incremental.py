"""A second fetch ingests only the submissions whose notes changed (ratings revised, a late review, a decision, a
withdrawal, a submission made public late), leaving the rest of the store untouched, and ends with the same store
as ingesting the whole snapshot again; on both backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from confnav.fetch import FetchResult, fetch_openreview
from confnav.ingest import ingest
from confnav.store import open_store
from confnav.store.copy import TABLES, table_rows
from confnav.store.sql import SqlStore
from tests.backends import Location, new_location
from tests.openreview_server import FakeOpenReview, api2_note
from tests.test_review_history import OPEN, client, rebut, reviewed, server  # noqa: F401 - the server fixture

VENUE = "iclr2018"
CLOCK = {  # columns holding when this machine did something, not what the store holds
    "review_versions": "recorded",
    "review_texts": "recorded",
    "fetch_runs": "fetched",
    "decisions_arrived": "fetched",
}


def contents(store: SqlStore) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, without the columns of the clock."""
    found = {}
    for table, columns in TABLES.items():
        skip = columns.index(CLOCK[table]) if table in CLOCK else None
        found[table] = sorted(
            tuple(v for i, v in enumerate(row) if i != skip) for row in table_rows(store, table) if table != "meta"
        )
    return found


def fetched(location: Location, folder: Path, url: str, *, whole: bool = False) -> FetchResult:
    """A fetch into the store at `location`, its snapshot under `folder`; `whole` ingests the whole snapshot, as
    a fetch does when the store may not hold it as it is (its record of the last run gone)."""
    if whole:
        (folder / "snapshots" / "openreview" / "ICLR.cc_2018_Conference.jsonl.ingested").unlink()
    with open_store(location, create=True) as store:
        return fetch_openreview(store, folder / "store.db", OPEN, client=client(url))


def change(state: FakeOpenReview) -> set[str]:
    """What happens between two fetches: two ratings revised and a late review (the rebuttal), a decision, a
    withdrawal, an author renamed, and a submission made public late that is numbered before those held; the
    submissions changed."""
    first, second, third, *_ = rebut(state, OPEN)
    notes = state.venues[OPEN].notes
    state.decide(OPEN, second, "Reject")
    notes[4]["content"]["venueid"] = {"value": f"{OPEN}/Withdrawn_Submission"}
    notes[4]["tmdate"] = state.tick()
    notes[5]["content"]["authors"]["value"][0] = "Ada Lovelace"
    notes[5]["tmdate"] = state.tick()
    late = api2_note(OPEN, 0, reviewed(1, skip=20)[0], state.tick(), "review")
    notes.append(late)
    return {first, second, third, notes[4]["id"], notes[5]["id"], late["id"]}


@pytest.mark.parametrize("backend", ("sqlite", "postgres"))
def test_a_second_fetch_writes_only_what_changed_and_ends_as_a_whole_ingest(
    server: tuple[FakeOpenReview, str],  # noqa: F811
    backend: str,
    tmp_path: Path,
) -> None:
    state, url = server
    part, whole = new_location(tmp_path, "part", backend), new_location(tmp_path, "whole", backend)
    (tmp_path / "p").mkdir()
    (tmp_path / "w").mkdir()
    fetched(part, tmp_path / "p", url)
    fetched(whole, tmp_path / "w", url)
    with open_store(part) as store:
        before = {row[2]: row for row in table_rows(store, "papers")}
        records = {(row[1], row[2]): row for row in table_rows(store, "source_records")}
        authors = set(table_rows(store, "paper_authors"))
    changed = change(state)

    again = fetched(part, tmp_path / "p", url)
    assert again.notes == len(changed) and again.decided == 1
    assert again.ingest.files[0].records == len(changed)  # only their lines read
    assert (again.ingest.added, again.ingest.updated, again.ingest.unchanged) == (1, 5, 1)
    redone = fetched(whole, tmp_path / "w", url, whole=True)
    assert (redone.ingest.added, redone.ingest.updated, redone.decided) == (1, 5, 1)
    assert redone.ingest.files[0].records == 7
    with open_store(part) as store, open_store(whole) as other:
        assert contents(store) == contents(other)
        after = {row[2]: row for row in table_rows(store, "papers")}
        assert {p for p in after if after[p] != before.get(p)} == changed  # the others' rows as they were
        moved = {row[1] for row in table_rows(store, "source_records") if records.get((row[1], row[2])) != row}
        assert moved == changed
        pks = {row[2]: row[0] for row in table_rows(store, "papers")}
        renamed, late = (pks[state.venues[OPEN].notes[i]["id"]] for i in (5, -1))
        now = {row for row in table_rows(store, "paper_authors") if row[0] != late}
        assert [(r[0], r[1], r[2]) for r in now - authors] == [(renamed, 0, "Ada Lovelace")]
        assert {r for r in authors if r[0] != renamed} == {r for r in now if r[0] != renamed}


def test_only_the_lines_named_are_read_and_their_papers_merged_again(tmp_path: Path) -> None:
    """`ingest(lines=…)` of a snapshot: a line not named is not read even when it would now fail."""
    snapshot = tmp_path / "ICLR.cc_2018_Conference.jsonl"
    notes = [api2_note(OPEN, i, r, i, "review") for i, r in enumerate(reviewed(3), 1)]
    rows = [{"fetched": "2026-11-26T10:00:00+00:00", "api": 2, "venue": OPEN, "note": n} for n in notes]
    snapshot.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with open_store(tmp_path / "store.db", create=True) as store:
        ingest(store, [snapshot])
        notes[1]["content"]["title"] = {"value": "A title changed"}
        lines = [json.dumps(r) for r in rows]
        lines[2] = "{not json"  # a line the store holds as it was: never parsed
        snapshot.write_text("\n".join(lines) + "\n")
        result = ingest(store, [snapshot], lines=[2])
        assert (result.added, result.updated, result.errors) == (0, 1, [])
        assert store.get_paper(notes[1]["id"], VENUE).title == "A title changed"
