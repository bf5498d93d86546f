"""Values a user gives, checked as the README promises: an empty one or a number out of range is a usage error
(status 2) on every verb, a long one is quoted cut short, an unknown external weight is said, and a file or
line that says nothing is refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.errors import ConfnavError
from confnav.fetch import fetch_openreview
from confnav.personal.formats import read_lines
from confnav.web.app import create_app
from tests.backends import Location
from tests.conftest import DATA, snapshot

LONG = "x" * 100_000
NOT_UTF8 = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"  # the start of a PDF, as a mistaken --config would be


def run(location: Location, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["--db", str(location), *args])
    assert "Traceback" not in result.stderr, result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


EMPTY = [
    ("ingest", str(DATA / "iclr2021" / "paperlist.tsv"), "--venue", ""),
    ("ingest", ""),
    ("profile", "import", ""),
    ("search", "attention", "--author", ""),
    ("news", "--since", ""),
    ("ls", "--venue", ""),
    ("fetch", "openreview", ""),
]


@pytest.mark.parametrize("args", EMPTY, ids=lambda args: " ".join(args[:2]))
def test_an_empty_value_is_a_usage_error(iclr2021_copy: Location, args: tuple[str, ...]) -> None:
    """An empty value says nothing: never read as the option left out (no filter, a file without its venue) nor
    as the current folder; refused before the store is touched."""
    before = snapshot(iclr2021_copy)
    result = run(iclr2021_copy, *args)
    assert result.exit_code == 2 and "says nothing" in result.stderr, result.stderr
    assert snapshot(iclr2021_copy) == before


@pytest.mark.parametrize(
    "args",
    [
        ("topics", "--venue", "iclr2021", "--themes", "0"),
        ("topics", "--venue", "iclr2021", "--themes", "-3"),
        ("topics", "--venue", "iclr2021", "--themes", "99999999999999999999"),
        ("news", "--since", "2024-13-01"),
        ("rebuttal", "--from", "2024-13-01"),
    ],
    ids=" ".join,
)
def test_a_value_out_of_range_is_a_usage_error(iclr2021_db: Location, args: tuple[str, ...]) -> None:
    result = run(iclr2021_db, *args)
    assert result.exit_code == 2 and "Invalid value for" in result.stderr, result.stderr


def test_the_empty_openreview_id_is_refused_before_the_network(tmp_path: Path) -> None:
    class NoNetwork:
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"the client was used ({name}) for an empty venue id")

    with pytest.raises(ConfnavError, match="venue_id is empty"):
        fetch_openreview(None, tmp_path, " ", client=NoNetwork())  # type: ignore[arg-type]


LONG_VALUES = [
    ("show", LONG),
    ("similar", LONG),
    ("tldr", LONG),
    ("news", "--since", LONG),
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


def test_an_unknown_external_weight_is_said(iclr2021_db: Location, tmp_path: Path) -> None:
    """A misspelt external signal changes nothing, so it is said, as an unused built-in signal is."""
    weights = tmp_path / "w.toml"
    weights.write_text('[weights]\n"external:nosuch" = 1\n', encoding="utf-8")
    result = run(iclr2021_db, "rank", "--venue", "iclr2021", "--weights", str(weights), "--mode", "looking-back")
    assert result.exit_code == 0, result.stderr
    assert "note: signal 'external:nosuch' not used: no values of 'nosuch' (none stored for iclr2021" in result.stderr
    at_conference = run(iclr2021_db, "rank", "--venue", "iclr2021", "--weights", str(weights), "--at-conference")
    assert "signal 'external:nosuch' not used: external signals count only when looking back" in at_conference.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("ingest", str(DATA / "iclr2021" / "paperlist.tsv"), "--config", "{file}"),
        ("rank", "--venue", "iclr2021", "--weights", "{file}"),
        ("report", "overview", "--venue", "iclr2021", "--venue-config", "{file}", "-o", "{out}"),
    ],
    ids=lambda args: args[0],
)
def test_a_settings_file_not_in_utf8_is_named_by_line(
    iclr2021_copy: Location, tmp_path: Path, args: tuple[str, ...]
) -> None:
    """A config, weights or venue file that is not UTF-8 is told as ingest tells a paper list, not in the
    codec's words."""
    bad = tmp_path / "fake.pdf"
    bad.write_bytes(NOT_UTF8)
    given = [a.format(file=bad, out=tmp_path / "o.md") for a in args]
    result = run(iclr2021_copy, *given)
    assert result.exit_code == 1, result.output
    assert f"{bad}, line 2: not valid UTF-8 (byte 0xe2 at column 2); save the file as UTF-8" in result.stderr
    assert "codec" not in result.stderr


def test_a_person_id_that_is_no_file_says_the_forms(iclr2021_copy: Location) -> None:
    for given in ("s2:abc", "~"):
        result = run(iclr2021_copy, "profile", "import", given)
        assert result.exit_code == 1 and "~First_Last1" in result.stderr and "s2:1741101" in result.stderr
        assert "No such file or directory" not in result.stderr


def test_a_library_line_with_no_letters_or_digits_is_refused() -> None:
    parsed = read_lines("😀\n'\n%\nAttention is all you need\n")
    assert [entry.line for entry in parsed.entries] == [4]
    assert [p.split(":")[0] for p in parsed.problems] == ["line 1", "line 2", "line 3"]
    assert all("no letters or digits" in p for p in parsed.problems)


def test_web_min_rating_nan_and_nul_pages(iclr2021_db: Location) -> None:
    client = TestClient(create_app(iclr2021_db), base_url="http://127.0.0.1")
    for value in ("NaN", "inf"):
        answer = client.get(f"/api/search?q=attention&min_rating={value}")
        assert answer.status_code == 422 and "finite number" in answer.json()["error"], answer.text
    for page in ("/author/%00", "/institution/%00"):
        answer = client.get(page)
        assert answer.status_code == 400 and answer.headers["content-type"].startswith("text/html"), answer.text
        assert "NUL character" in answer.text
    pasted = client.post("/api/profiles/me/import", json={"text": "'"})
    assert pasted.status_code == 400 and '"own"' not in pasted.text
