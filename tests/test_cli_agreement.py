"""The verbs agree on what a user gives them: which venue a command reads (and how it may be spelt), the model a
venue is embedded with, the files a command writes, and the input it refuses; on a real store of two venues."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from confnav.cli import cli
from confnav.errors import ConfnavError
from confnav.model import find_venue
from confnav.store import PaperFilter, open_store
from tests.backends import Location, clone
from tests.conftest import DATA, ROOT
from tests.test_registry import SPEC


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def invoke(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.stderr + (str(result.exception) if result.exception else "")
    return result.stdout


def vectors(location: Location) -> dict[str, int]:
    with open_store(location) as store:
        return store.embedding_models()


def test_index_of_one_venue_keeps_the_other_venues_vectors(light_topics_db: Location, tmp_path: Path) -> None:
    db = str(clone(light_topics_db, tmp_path))
    before = vectors(db)
    refused = run("index", "--db", db, "--venue", "iclr2020", "--model", SPEC, "-q")
    assert refused.exit_code == 1 and "other venues are embedded with 'tfidf-svd'" in refused.stderr
    assert "give --model tfidf-svd" in refused.stderr and "Traceback" not in refused.output
    assert vectors(db) == before
    # without --model, one venue is embedded with the store's model: nothing of the other venue is dropped
    assert invoke("index", "--db", db, "--venue", "iclr2020", "-q").startswith("tfidf-svd: ")
    assert vectors(db) == before
    # a whole store changing model says how many vectors it dropped
    text = invoke("index", "--db", db, "--model", SPEC, "-q")
    assert f"{sum(before.values()):,} vectors of other models dropped" in text


def one_line_error(result: Result, *words: str) -> None:
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and all(word in line for word in words), line


def test_a_year_out_of_range_is_refused_by_every_filtered_verb(iclr2021_db: Location) -> None:
    db = str(iclr2021_db)
    for verb in (["search", "x"], ["similar", "nIAxjsniDzg"], ["recommend", "--like", "nIAxjsniDzg"], ["export"]):
        for year in ("99999999999999999999", "9223372036854775808", "1"):
            narrowed = ["--search", "x"] if verb == ["export"] else []
            result = run(*verb, *narrowed, "--db", db, "--year", year)
            assert result.exit_code == 2 and "'--year'" in result.stderr and "Traceback" not in result.output, verb
    library = "^year an integer of about 21 digits: give a venue's year"  # the library's name, not --year
    with pytest.raises(ConfnavError, match=library):
        PaperFilter(year=99999999999999999999)


def test_every_writer_refuses_a_missing_or_unusable_folder(light_topics_db: Location, tmp_path: Path) -> None:
    db = str(light_topics_db)
    (tmp_path / "junk.md").write_text("a file\n")
    writers = {
        "export": ["export", "--ids", "nIAxjsniDzg", "-o"],
        "report": ["report", "stats", "--venue", "iclr2021", "-o"],
        "map": ["map", "--venue", "iclr2021", "--out"],
        "plan": ["plan", "--venue", "iclr2021", "--ics"],
        "news": ["news", "--atom"],
        "profile": ["profile", "export", "-o"],
        "fetch": ["fetch", "paperlists", "iclr2021", "--snapshot"],
    }
    for args in writers.values():
        missing = tmp_path / "missing" / "deeper" / "out.png"
        one_line_error(run(*args, str(missing), "--db", db), f"{missing}: no folder {missing.parent}")
        assert not (tmp_path / "missing").exists()
        under_file = tmp_path / "junk.md" / "out.png"
        one_line_error(run(*args, str(under_file), "--db", db), f"{tmp_path / 'junk.md'} is a file, not a folder")
    if Path("/proc").is_dir():  # a folder no file can be made in: the write itself fails, in one line
        one_line_error(run(*writers["report"], "/proc/x.md", "--db", db), "/proc/x_files: cannot write the report")
        one_line_error(run(*writers["export"], "/proc/x.bib", "--db", db), "/proc/x.bib: cannot write the export")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.md"]


SPELLINGS = ("iclr2021", "ICLR2021", "iclr-2021", "ICLR 2021", "iclr_2021", "ICLR'21")


def test_venue_spellings_ask_reads_are_read_by_every_venue_option(light_topics_db: Location) -> None:
    db = str(light_topics_db)
    for spelling in SPELLINGS:
        assert "Papers in the data: 3,014" in invoke("stats", "--db", db, "--venue", spelling), spelling
        assert (
            invoke("ls", "--db", db, "--venue", spelling, "--decision", "oral", "--limit", "0").count("iclr2021") == 53
        )
        found = invoke("search", "", "--db", db, "--venue", spelling, "--decision", "accepted", "--mode", "keyword")
        assert found.startswith("860 papers meet these filters"), spelling
        assert "Deformable DETR" in invoke("show", "gZ9hCDWe6ke", "--db", db, "--venue", spelling)
        assert f"note: the question names {spelling}" not in invoke(
            "ask", "How many orals?", "--db", db, "--venue", spelling
        )
    # the question reader and the option share one reader of venue names
    with open_store(light_topics_db) as store:
        assert store.get_venue("ICLR 2020").id == "iclr2020" and find_venue("cvpr19", store.venue_list()) is None
    one_line_error(run("show", "gZ9hCDWe6ke", "--db", db, "--venue", "NeurIPS2021"), "unknown venue 'NeurIPS2021'")
    one_line_error(run("stats", "--db", db, "--venue", "ICLR"), "venue 'ICLR' is ambiguous", "iclr2020", "iclr2021")


def test_a_verb_without_venue_says_which_venue_it_read(light_topics_db: Location) -> None:
    db = str(light_topics_db)
    note = "note: venue iclr2021, the latest in the store; --venue for another (iclr2020)"
    for verb in (["stats"], ["topics"], ["rank", "--top", "3"], ["plan", "--top", "3"], ["rebuttal"], ["history"]):
        result = run(*verb, "--db", db)
        assert note in result.stderr.splitlines() and "Traceback" not in result.output, (verb, result.output)
    assert invoke("stats", "--db", db).startswith("ICLR 2021 (iclr2021)\n")
    assert invoke("stats", "--db", db, "--venue", "iclr2020").startswith("ICLR 2020 (iclr2020)\n")
    assert "the latest in the store" in run("plan", "--help").stdout
    for verb in (["stats"], ["ls"], ["search", "x"], ["show", "gZ9hCDWe6ke"], ["report", "stats"], ["rank"]):
        for empty in ("", "  "):
            refused = run(*verb, "--db", db, "--venue", empty)
            assert refused.exit_code == 2 and "'--venue': give a venue" in refused.stderr, verb


def test_export_of_an_empty_search_holds_the_papers_that_meet_the_filters(light_topics_db: Location) -> None:
    db = str(light_topics_db)
    filters = ["--venue", "iclr2021", "--decision", "accepted"]
    listed = {p["id"] for p in json.loads(invoke("ls", "--db", db, *filters, "--limit", "0", "--json"))}
    exported = invoke("export", "--db", db, "--format", "csv", "--search", "", *filters, "--limit", "1000")
    ids = {row["id"].removeprefix("'") for row in csv.DictReader(io.StringIO(exported))}  # '-2FCwDKRREu: see docs
    assert len(listed) == 860 and ids == listed
    one_line_error(run("export", "--db", db, "--search", ""), "empty query")  # no words and no filters


def test_export_of_a_filter_set_holds_all_of_it_and_a_cut_export_says_so(
    light_topics_db: Location, tmp_path: Path
) -> None:
    """Before, `--search ""` stopped at the default --limit 100 and could not pass 1,000, while saying "100 papers"
    as if that were all; ICLR 2021 has 1,756 rejected papers (the raw paperlists' status)."""
    db = str(light_topics_db)
    raw = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text(encoding="utf-8"))
    rejected = {r["id"] for r in raw if r["status"] == "Reject"}
    out = tmp_path / "rejected.csv"
    filters = ["--venue", "iclr2021", "--decision", "reject", "--format", "csv", "-o", str(out)]
    result = run("export", "--db", db, "--search", "", *filters)
    assert result.exit_code == 0 and result.stderr == f"{out}: 1,756 papers as csv\n"
    ids = {row["id"].removeprefix("'") for row in csv.DictReader(io.StringIO(out.read_text(encoding="utf-8")))}
    assert len(rejected) == 1756 and ids == rejected
    cut = run("export", "--db", db, "--search", "", *filters, "--limit", "100")
    assert cut.stderr == f"{out}: 100 papers as csv; 1,756 meet the filters (leave out --limit for all of them)\n"
    assert run("export", "--db", db, "--search", "", *filters, "--limit", "5000").exit_code == 0
    # a search with words gives its best hits, and says how many matched beyond them
    words = run("export", "--db", db, "--search", "graph neural networks", *filters)
    assert words.exit_code == 0 and "100 papers as csv; " in words.stderr and "(--limit up to 1,000" in words.stderr
    one_line_error(run("export", "--db", db, "--search", "graph", "--limit", "1001"), "limit 1001")
    # on stdout, only a cut export adds a note (on stderr)
    piped = run("export", "--db", db, "--search", "", "--venue", "iclr2021", "--decision", "oral", "--limit", "3")
    assert sum(line.startswith("@") for line in piped.stdout.splitlines()) == 3
    assert piped.stderr == "note: 3 papers exported; 53 meet the filters (leave out --limit for all of them)\n"


def test_an_empty_output_path_is_refused_before_any_work(
    light_topics_db: Location, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`report ... -o ""` was read as the current folder: a traceback for Markdown, and for HTML an error only
    after the whole report was built and verified. Every verb's output option now refuses it as it is read."""
    import confnav.cli.reports as reports

    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("a report was built for an output path that cannot be written")

    for builder in ("build_stats_report", "build_digest", "build_overview"):
        monkeypatch.setattr(reports, builder, no_work)
    db = str(light_topics_db)
    for verb in ("stats", "digest", "overview"):
        for fmt in ("md", "html"):
            for empty in ("", "  "):
                result = run("report", verb, "--db", db, "--venue", "iclr2021", "--format", fmt, "-o", empty)
                assert result.exit_code == 2 and "Traceback" not in result.output, result.output
                assert "'-o' / '--output': give a file name" in result.stderr
    for command in (["export", "--search", "x", "-o"], ["map", "--out"], ["plan", "--ics"]):
        result = run(*command, "", "--db", db)
        assert result.exit_code == 2 and "give a file name" in result.stderr, command


def test_exit_statuses_are_the_ones_the_readme_gives(iclr2021_db: Location) -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "exit status 1, and nothing is written" in readme and "usage and exit status 2" in readme
    db = str(iclr2021_db)
    for usage in (["rank", "--top", "0"], ["ls", "--limit", "-1"], ["export", "--format", "pdf"], ["ls", "--nope"]):
        result = run(*usage, "--db", db)
        assert result.exit_code == 2 and "Usage: " in result.stderr, usage
    one_line_error(run("ls", "--db", db, "--venue", "nope2020"), "unknown venue 'nope2020'")
