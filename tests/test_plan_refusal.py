"""A calendar no plan of the venue could fill is refused before any paper is ranked for it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.errors import ConfnavError
from confnav.ingest import ingest
from confnav.plan import build_plan, check_calendar, plan_calendar
from confnav.store import open_store
from tests.conftest import DATA


def test_a_calendar_without_times_is_refused_before_ranking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "lists.db"
    with open_store(db, create=True) as store:
        ingest(store, [DATA / "paperlists" / "cvpr2019.json", DATA / "paperlists" / "corl2023.json"])
        for venue in ("cvpr2019", "corl2023"):  # untimed sessions from the paper list; no sessions at all
            with pytest.raises(ConfnavError) as planned:
                plan_calendar(build_plan(store, venue, top=5))
            with pytest.raises(ConfnavError) as checked:
                check_calendar(store, venue)
            assert str(checked.value) == str(planned.value)  # the same refusal, said before the ranking

    def ranked(*args: object) -> None:
        raise AssertionError("ranked before refusing the calendar")

    monkeypatch.setattr("confnav.plan.planner.must_read", ranked)
    ics = tmp_path / "plan.ics"
    for venue, held in (("corl2023", "it has no sessions"), ("cvpr2019", "its sessions have no times")):
        refused = CliRunner().invoke(cli, ["--db", str(db), "plan", "--venue", venue, "--top", "5", "--ics", str(ics)])
        assert refused.exit_code == 1 and f"no calendar for the plan of {venue}: {held}" in refused.stderr
        assert not ics.exists()
