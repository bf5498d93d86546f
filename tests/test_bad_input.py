"""Every kind of bad input: one clear line naming the place, exit status 1, and the store untouched."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.errors import ConfnavError
from confnav.ingest import IngestError, ingest
from confnav.store import SqlStore, open_store
from tests.conftest import DATA, snapshot

pytestmark = pytest.mark.failure_injection

TSV_HEADER = "paper_id\ttitle\tlink\tkeywords\tabstract\n"
GOOD_ROW = "new1\tA New Paper\thttps://openreview.net/forum?id=new1\tk\tAn abstract.\n"

# name: (files to write, expected message fragment)
CASES: dict[str, tuple[dict[str, str | bytes], str]] = {
    "missing file": ({}, "missing.tsv: no such file"),
    "undetectable format": ({"notes.txt": "some words\nmore words\n"}, "notes.txt: cannot tell the format"),
    "empty file": ({"empty.tsv": "  \n"}, "empty.tsv: file is empty"),
    "non-utf8 bytes": (
        {"latin.tsv": TSV_HEADER.encode() + b"x1\tCaf\xe9 paper\tl\tk\ta\n"},
        "latin.tsv, line 2: not valid UTF-8 (byte 0xe9 at column 7)",
    ),
    "malformed json": (
        {"paperlists-iclr2021.json": '[\n {"id": "a", "title": "T", "status": "Poster", "author": "A"},\n]\n'},
        "paperlists-iclr2021.json, line 3: malformed JSON",
    ),
    "tsv row with wrong column count": (
        {"paperlist.tsv": TSV_HEADER + GOOD_ROW + "new2\tOnly three\tcolumns\n"},
        "paperlist.tsv, line 3: expected 5 tab-separated columns, found 3",
    ),
    "unparseable rating": (
        {"ratings.tsv": "paper_id\t0\t1\tdecision\n-2FCwDKRREu\t7\tseven\tAccept (Oral)\n"},
        "ratings.tsv, line 2, field '1': rating 'seven' is not a number",
    ),
    "ratings row with unknown id": (
        {"ratings.tsv": "paper_id\t0\tdecision\n-2FCwDKRREu\t7\tAccept (Oral)\nnot-a-paper\t5\tReject\n"},
        "ratings.tsv, line 3, field 'paper_id': paper id 'not-a-paper' is in no paper list",
    ),
    "csv without title column": ({"x.csv": "username,bar\n1,2\n"}, "x.csv, line 1: header has no title or id column"),
}


def run_ingest(db: Path, files: list[Path], *extra: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["ingest", "--db", str(db), "--venue", "iclr2021", *map(str, files), *extra])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_reported_and_nothing_is_written(case: str, iclr2021_copy: Path, tmp_path: Path) -> None:
    contents, expected = CASES[case]
    files = [tmp_path / name for name in contents] or [tmp_path / "missing.tsv"]
    for path, content in zip(files, contents.values(), strict=False):
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = snapshot(iclr2021_copy)
    code, _, stderr = run_ingest(iclr2021_copy, files)
    assert code == 1
    assert expected in stderr
    assert stderr.count("\n") == 1 and stderr.rstrip().endswith("nothing was written")
    assert "Traceback" not in stderr
    assert snapshot(iclr2021_copy) == before


def test_one_bad_file_among_good_ones_writes_nothing(iclr2021_copy: Path, write) -> None:  # type: ignore[no-untyped-def]
    good = write("paperlist.tsv", TSV_HEADER + GOOD_ROW)
    bad = write("ratings.tsv", "paper_id\t0\tdecision\nnew1\tx\tReject\n")
    before = snapshot(iclr2021_copy)
    code, _, stderr = run_ingest(iclr2021_copy, [good, bad])
    assert code == 1 and "rating 'x' is not a number" in stderr
    assert snapshot(iclr2021_copy) == before


def test_skip_bad_ingests_good_records_and_reports_bad_ones(iclr2021_copy: Path, write) -> None:  # type: ignore[no-untyped-def]
    text = TSV_HEADER + GOOD_ROW + "new2\tbroken row\n" + GOOD_ROW.replace("new1", "new3")
    path = write("paperlist.tsv", text)
    code, stdout, stderr = run_ingest(iclr2021_copy, [path], "--skip-bad")
    assert code == 0
    assert "skipped:" in stderr and "line 3: expected 5 tab-separated columns, found 2" in stderr
    assert "2 papers added" in stdout
    with open_store(iclr2021_copy, create=True) as store:
        assert store.get_paper("new3").title == "A New Paper"
        assert store.count_papers() == 3016


def test_file_without_venue_asks_for_one(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    """The CLI names its flags; the library, under it, its arguments (a library caller has no flags)."""
    path = write("list.csv", "id,title\n1,A title\n")
    result = CliRunner().invoke(cli, ["ingest", "--db", str(store.location), str(path)])
    assert result.exit_code == 1
    assert "list.csv: the file does not name its venue; pass --venue (e.g. --venue iclr2021)" in result.stderr
    with pytest.raises(IngestError) as caught:
        ingest(store, [path, DATA / "paperlists" / "corl2023.json"])
    assert "list.csv: the file does not name its venue; pass venue (e.g. venue='iclr2021')" in str(caught.value)
    assert str(caught.value).endswith("nothing was written (use skip_bad=True to ingest the good records)")
    assert "--" not in str(caught.value) and store.count_papers() == 0
    with pytest.raises(ConfnavError, match=r"^venue: cannot read a venue from '\?\?\?'"):
        ingest(store, [path], venue="???")


def test_bad_venue_option(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    path = write("list.csv", "id,title\n1,A title\n")
    result = CliRunner().invoke(cli, ["ingest", "--db", str(store.location), "--venue", "???", str(path)])
    assert result.exit_code == 1 and "--venue: cannot read a venue from '???'" in result.stderr


def test_unknown_id_for_show(iclr2021_db: Path) -> None:
    result = CliRunner().invoke(cli, ["show", "--db", str(iclr2021_db), "nope"])
    assert result.exit_code == 1 and "no paper with id 'nope'" in result.stderr


def test_store_that_is_not_a_database(write) -> None:  # type: ignore[no-untyped-def]
    path = write("fake.db", "this is not sqlite at all, just text " * 100)
    result = CliRunner().invoke(cli, ["venues", "--db", str(path)])
    assert result.exit_code == 1 and "not a confnav store" in result.stderr


@pytest.mark.parametrize("command", [["venues"], ["search", "graphs"], ["serve", "--port", "8799"]])
def test_missing_store_is_named_and_not_created(command: list[str], tmp_path: Path) -> None:
    """Only ingest creates a store: a mistyped --db must not yield an empty one (or an empty web app)."""
    missing = tmp_path / "typo.db"
    result = CliRunner().invoke(cli, [*command, "--db", str(missing)])
    assert result.exit_code == 1 and f"no store at {missing}: create one with 'confnav ingest" in result.stderr
    assert not missing.exists()


def test_serve_on_a_taken_port(iclr2021_db: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--db", str(iclr2021_db), "--port", str(port)])
    assert result.exit_code == 1 and f"cannot listen on 127.0.0.1:{port}" in result.stderr


def test_real_process_prints_one_line_not_a_traceback(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "confnav", "ingest", "--db", str(tmp_path / "s.db"), str(tmp_path / "none.json")]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert done.stderr == f"error: {tmp_path / 'none.json'}: no such file; nothing was written\n"
