"""Values a user gives, checked as the README promises: an empty one or a number out of range is a usage error
(status 2) on every verb, a long one is quoted cut short, an unknown external weight is said, and a file or
line that says nothing is refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from confnav.cli import cli
from tests.backends import Location

LONG = "x" * 100_000
NOT_UTF8 = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"  # the start of a PDF, as a mistaken --config would be


def run(location: Location, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["--db", str(location), *args])
    assert "Traceback" not in result.stderr, result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


LONG_VALUES = [
    ("show", LONG),
    ("similar", LONG),
    ("tldr", LONG),
    ("profile", "like", "--profile", LONG, "Ua6zuk0WRH"),
    ("profile", "tag", "Ua6zuk0WRH", LONG),
    ("profile", "import", "~" + LONG),
    ("rebuttal", "--from", LONG),
    ("search", "attention", "--venue", LONG),
    ("rank", "--theme", LONG),
    ("watch", "rm", LONG),
]


@pytest.mark.parametrize("args", LONG_VALUES, ids=lambda args: " ".join(a[:12] for a in args[:3]))
def test_a_long_value_is_quoted_cut_short(iclr2021_copy: Location, args: tuple[str, ...]) -> None:
    """A message quotes a user's value as `errors.excerpt` does: its start and its length, never 100,000
    characters back on the terminal."""
    result = run(iclr2021_copy, *args)
    assert result.exit_code in (1, 2), result.output
    assert len(result.stderr) < 600 and "(100,0" in result.stderr, result.stderr[:300]


def test_a_long_theme_id_is_quoted_cut_short(light_topics_db: Location) -> None:
    result = run(light_topics_db, "topic", "--venue", "iclr2021", LONG)
    assert result.exit_code == 1 and len(result.stderr) < 600 and "(100,000 characters)" in result.stderr


def test_a_long_output_name_is_quoted_cut_short(light_topics_db: Location, tmp_path: Path) -> None:
    name = tmp_path / ("r" * 300 + ".md")
    result = run(light_topics_db, "report", "overview", "--venue", "iclr2021", "-o", str(name))
    assert result.exit_code == 1 and "File name too long" in result.stderr, result.stderr
    assert "r" * 100 not in result.stderr and "characters)" in result.stderr
