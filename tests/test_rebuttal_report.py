"""The rebuttal section of the statistics report: a venue fetched from the local OpenReview server through its
rebuttal and a first decision; the section's facts and tables pass the verifier in Markdown and HTML, and a
tampered number or cell fails it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.reports.stats import build_stats_report
from confnav.store import open_store
from tests.backends import Location
from tests.openreview_server import FakeOpenReview
from tests.test_rebuttal_web import fetched
from tests.test_review_history import OPEN, rebut, server  # noqa: F401 - the server fixture


@pytest.fixture
def reported(server: tuple[FakeOpenReview, str], fresh_location: Location, tmp_path: Path) -> Iterator[tuple]:  # noqa: F811
    """The venue after its rebuttal with one paper accepted, and its statistics report in both formats."""
    state, url = server
    first, second, *_ = rebut(state, OPEN)
    state.decide(OPEN, first, "Accept (Oral)")
    fetched(fresh_location, url, tmp_path)
    runner = CliRunner()
    for name, extra in (("stats.md", []), ("stats.html", ["--format", "html"])):
        args = ["--db", str(fresh_location), "report", "stats", "--venue", "iclr2018", *extra, "-o"]
        made = runner.invoke(cli, [*args, str(tmp_path / name)])
        assert made.exit_code == 0, made.stderr
    yield fresh_location, tmp_path, first, second


def verify(location: Location, path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--db", str(location), "verify", str(path)])
    return result.exit_code, result.stdout + result.stderr


def test_the_rebuttal_section_is_verified_like_every_other(reported: tuple) -> None:
    location, folder, first, second = reported
    markdown, html = (folder / "stats.md").read_text(), (folder / "stats.html").read_text()
    assert "## The rebuttal" in markdown and "<h2>The rebuttal</h2>" in html
    for key in ("first", "last", "reviews_changed", "reviews", "papers", "share_changed", "mean_before", "rises"):
        assert f"<!-- fact:rebuttal.{key} -->" in markdown and f'data-fact="rebuttal.{key}"' in html
    assert "**2**<!-- fact:rebuttal.reviews_changed -->" in markdown
    for table in ("rebuttal_ratings", "rebuttal_decisions", "rebuttal_rises", "rebuttal_falls"):
        assert f"<!-- table:{table} -->" in markdown and f'data-table="{table}"' in html
    rises = markdown.split("<!-- table:rebuttal_rises -->")[1].split("###")[0]
    assert first in rises and second not in rises
    assert "| Accept (Oral) | 1 | +" in markdown  # the mean change by decision, once a decision is out
    assert (folder / "stats_files" / "rebuttal.png").read_bytes().startswith(b"\x89PNG")
    for name in ("stats.md", "stats.html"):
        code, text = verify(location, folder / name)
        assert code == 0 and "OK:" in text, text
    shown = json.loads(
        CliRunner().invoke(cli, ["--db", str(location), "stats", "--venue", "iclr2018", "--json"]).stdout
    )
    assert shown["tables"]["rebuttal_ratings"][0].keys() == {"Rating", "Before", "After"}


def test_a_tampered_rebuttal_number_fails_verification(reported: tuple) -> None:
    location, folder, *_ = reported
    markdown = (folder / "stats.md").read_text()
    wrong = markdown.replace(
        "**2**<!-- fact:rebuttal.reviews_changed -->", "**3**<!-- fact:rebuttal.reviews_changed -->"
    )
    assert wrong != markdown
    (folder / "wrong.md").write_text(wrong)
    code, text = verify(location, folder / "wrong.md")
    assert code == 1 and "fact rebuttal.reviews_changed: the report says 3, the store says 2" in text
    html = (folder / "stats.html").read_text()
    table = html.split('data-table="rebuttal_ratings"')[1]
    cell = table.split("<td>", 3)[2].split("</td>")[0]  # the first row's count before the rebuttal
    tampered = html.replace(table, table.replace(f"<td>{cell}</td>", f"<td>{int(cell) + 1}</td>", 1), 1)
    (folder / "wrong.html").write_text(tampered)
    code, text = verify(location, folder / "wrong.html")
    assert code == 1 and "table rebuttal_ratings: row 1 differs from the store" in text


def test_a_venue_without_history_has_no_rebuttal_section(iclr2021_copy: Location) -> None:
    with open_store(iclr2021_copy) as store:
        report = build_stats_report(store, "iclr2021", charts=False)
    assert [s.title for s in report.sections] == [] and not any(t.id.startswith("rebuttal") for t in report.tables)
