"""Filters mean what a reader means: `rejected` is the reject kind, and a filter of no letters is refused rather
than read as no filter at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from confnav.errors import ConfnavError
from confnav.store import PaperFilter


def test_rejected_means_the_reject_kind_and_not_accepted_the_outcome() -> None:
    assert PaperFilter(decision="rejected").decision_key() == "reject"
    assert PaperFilter(decision="Not accepted").decision_key() == "not-accepted"


@pytest.mark.parametrize(("field", "value"), [("author", "%"), ("author", "_"), ("keyword", "%"), ("keyword", "--")])
def test_a_filter_of_no_letters_is_refused(field: str, value: str) -> None:
    with pytest.raises(ConfnavError, match=f"^{field} "):  # the library's argument; the CLI prints --{field}
        PaperFilter(**{field: value})


def test_a_rating_that_is_no_number_is_refused() -> None:
    with pytest.raises(ConfnavError, match=r"^min_rating "):
        PaperFilter(min_rating=float("nan"))


def test_search_says_when_the_filters_leave_nothing_and_when_a_page_is_past_the_end(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from confnav.cli import cli
    from tests.conftest import DATA

    db, runner = str(tmp_path / "s.db"), CliRunner()
    assert runner.invoke(cli, ["--db", db, "ingest", str(DATA / "paperlists" / "corl2023.json")]).exit_code == 0
    filtered = runner.invoke(cli, ["--db", db, "search", "learning", "--min-rating", "11"])
    assert "no paper of the store meets these filters" in filtered.output
    past = runner.invoke(cli, ["--db", db, "search", "learning", "--offset", "5000"])
    assert "No papers past the first 5,000." in past.output
