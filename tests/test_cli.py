"""The CLI verbs on the real store: text and --json output, the demo, and documented help."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from tests.conftest import DATA, ICLR2021, ROOT


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.stderr + (str(result.exception) if result.exception else "")
    return result.stdout


def test_ingest_json_output(tmp_path: Path) -> None:
    summary = json.loads(invoke("ingest", "--db", str(tmp_path / "s.db"), "--json", *map(str, ICLR2021)))
    assert summary["added"] == 3014 and summary["venues"] == ["iclr2021"]
    assert [f["format"] for f in summary["files"]] == ["openreview-tsv", "openreview-tsv", "paperlists"]


def test_db_from_environment(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CONFNAV_DB", str(tmp_path / "env.db"))
    invoke("ingest", "--quiet", str(ICLR2021[0]))
    assert (tmp_path / "env.db").exists()


def test_venues_json(iclr2021_db: Path) -> None:
    (venue,) = json.loads(invoke("venues", "--db", str(iclr2021_db), "--json"))
    assert venue["id"] == "iclr2021" and venue["accepted"] == 860 and venue["papers"] == 3014


def test_ls_filters_and_json(iclr2021_db: Path) -> None:
    orals = json.loads(invoke("ls", "--db", str(iclr2021_db), "--decision", "oral", "--limit", "0", "--json"))
    assert len(orals) == 53 and {p["decision"] for p in orals} == {"oral"}
    by_author = json.loads(invoke("ls", "--db", str(iclr2021_db), "--author", "SONG, yang", "--json"))
    assert by_author and all("Yang Song" in p["authors"] for p in by_author)
    text = invoke("ls", "--db", str(iclr2021_db), "--keyword", "graph neural networks", "--limit", "3")
    assert text.count("\n") == 4 and "(3 papers)" in text


@pytest.mark.parametrize("limit", ["9223372036854775808", "99999999999999999999", "1000001"])
def test_ls_limit_is_bounded_like_every_verbs(iclr2021_db: Path, limit: str) -> None:
    said = CliRunner().invoke(cli, ["ls", "--db", str(iclr2021_db), "--limit", limit])
    assert said.exit_code == 2 and "is not in the range 0<=x<=1000000" in said.stderr, said.output


def test_show_text_and_json(iclr2021_db: Path) -> None:
    paper = json.loads(invoke("show", "--db", str(iclr2021_db), "nIAxjsniDzg", "--json"))
    assert paper["id"] == "nIAxjsniDzg" and paper["decision"]["kind"] == "oral" and paper["venue"] == "iclr2021"
    assert paper["provenance"]["abstract"] == "openreview-tsv:paperlist.tsv"
    text = invoke("show", "--db", str(iclr2021_db), "nIAxjsniDzg")
    assert "What Matters for On-Policy Deep Actor-Critic Methods?" in text and "Ratings: 7, 7, 9, 9" in text
    # 45 ICLR 2021 ids start with `-`: read as ids wherever a command takes one, not as unknown options
    assert "id -2FCwDKRREu" in invoke("--db", str(iclr2021_db), "show", "-2FCwDKRREu")
    assert json.loads(invoke("tldr", "--db", str(iclr2021_db), "--json", "-2FCwDKRREu"))["id"] == "-2FCwDKRREu"


def test_show_lists_every_source_and_where_they_disagree(iclr2021_db: Path) -> None:
    """9vCLOXwprc has three records; "Sources" named the two whose values won, leaving out ratings.tsv, which gives
    it no decision and no ratings where the paperlists JSON says Reject, 4, 5, 6, 6: now every record is named,
    and each field on which they differ in meaning says what each source says, which was shown and why."""
    text = invoke("show", "--db", str(iclr2021_db), "9vCLOXwprc")
    files = "openreview-tsv:paperlist.tsv, openreview-tsv:ratings.tsv, paperlists:paperlists-iclr2021.json"
    assert f"Sources: {files}" in text
    assert (
        "decision: paperlists:paperlists-iclr2021.json says 'Reject' (shown); openreview-tsv:ratings.tsv says"
        " 'Unknown' (not used: an unknown decision is no decision)" in text
    )
    assert "ratings: paperlists:paperlists-iclr2021.json says 4, 5, 6, 6 (shown); openreview-tsv:ratings.tsv" in text
    shown = json.loads(invoke("show", "--db", str(iclr2021_db), "9vCLOXwprc", "--json"))
    assert shown["sources"] == files.split(", ")
    assert [d["field"] for d in shown["disagreements"]] == ["decision", "ratings"]
    assert [s["value"] for s in shown["disagreements"][1]["said"]] == [[4, 5, 6, 6], []]  # as the sources give them
    retitled = invoke("show", "--db", str(iclr2021_db), "--gvHfE3Xf5")  # camera-ready title against the submission's
    assert "(not used: paperlists comes before openreview-tsv for the title)" in retitled
    same = json.loads(invoke("show", "--db", str(iclr2021_db), "nIAxjsniDzg", "--json"))  # "Oral" = "Accept (Oral)"
    assert same["disagreements"] == [] and len(same["sources"]) == 3


def test_an_empty_keywords_cell_beside_keywords_is_a_disagreement(tmp_path: Path) -> None:
    """paperlist.tsv's keywords cell of 86t2GlfzFo is empty where the paperlists JSON names four: the TSV reader
    dropped its empty cell, so `show` listed no disagreement, while the JSON's empty keywords beside the TSV's were
    listed. A column a source carries is kept empty, as ratings and decisions are, and empties count both ways."""
    db = str(tmp_path / "s.db")
    invoke("ingest", "--quiet", "--db", db, *map(str, ICLR2021))
    shown = json.loads(invoke("show", "--db", db, "86t2GlfzFo", "--json"))
    (keywords,) = [d for d in shown["disagreements"] if d["field"] == "keywords"]
    assert keywords["said"] == [
        {
            "source": "paperlists:paperlists-iclr2021.json",
            "value": ["Hessian computation", "Deep Learning", "Loss Curvature", "Lanczos"],
            "shown": "Hessian computation, Deep Learning, Loss Curvature, Lanczos",
            "note": "shown",
        },
        {"source": "openreview-tsv:paperlist.tsv", "value": [], "shown": "no keywords", "note": "not used: empty"},
    ]
    text = invoke("show", "--db", db, "86t2GlfzFo")
    assert "keywords: paperlists:paperlists-iclr2021.json says Hessian computation" in text
    assert "openreview-tsv:paperlist.tsv says no keywords (not used: empty)" in text
    # ratings.tsv has no keywords column: it says nothing about them, and is not listed as saying none
    assert all(s["source"] != "openreview-tsv:ratings.tsv" for s in keywords["said"])


def test_the_source_shown_in_a_disagreement_is_the_one_the_paper_took(iclr2021_db: Path) -> None:
    from confnav.sources.disagreements import disagreements
    from confnav.store import open_store

    with open_store(iclr2021_db, read_only=True) as store:
        venue, table = store.get_venue("iclr2021"), store.decision_table()
        papers = {p.id: p for p in store.iter_papers("iclr2021")}
        found = {pid: disagreements(rs, venue, table) for pid, rs in store.records("iclr2021").items()}
    assert 300 < sum(bool(d) for d in found.values()) < 3014  # 591 in 2026: ratings.tsv's "Unknown", retitlings
    for pid, conflicts in found.items():
        for conflict in conflicts:
            assert conflict.said[0].note == "shown" and all(s.note != "shown" for s in conflict.said[1:])
            assert papers[pid].provenance[conflict.field] == conflict.said[0].source, (pid, conflict)


@pytest.mark.semantic  # the demo indexes with the default model
def test_demo_prints_a_summary(private_cache: Path) -> None:
    """In the session's private cache, whose exported model the other tests share."""
    text = invoke("demo", "--quiet")
    assert "ICLR 2021: 200 papers" in text and (private_cache / "demo.db").exists()


def test_every_command_has_help_and_is_documented() -> None:
    readme = (ROOT / "README.md").read_text()
    for name, command in cli.commands.items():
        assert command.help, f"{name} has no help text"
        assert invoke(name, "--help")
        assert re.search(rf"confnav {name}\b", readme), f"README does not document 'confnav {name}'"


@pytest.mark.sqlite_only  # the example opens the file confnav.db
def test_readme_library_example_runs(topics_db: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The README's library example, on a copy of the real store (so ingest, index and themes have no new work)."""
    readme = (ROOT / "README.md").read_text()
    example = readme.split("## Library", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    shutil.copy(topics_db, tmp_path / "confnav.db")
    shutil.copy(DATA / "iclr2021" / "paperlists-iclr2021.json", tmp_path)
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "README.md", "exec"), {})  # our own documentation


def test_a_failed_ingest_into_a_new_store_leaves_no_store(tmp_path: Path) -> None:
    """Nothing was written: a later command says there is no store, not that an empty one holds nothing."""
    bad = tmp_path / "corl2023.json"
    bad.write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(cli, ["ingest", "--db", str(tmp_path / "new.db"), str(bad)])
    assert result.exit_code != 0 and "nothing was written" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corl2023.json"]


def test_a_repeatable_option_given_two_values_says_to_repeat_it(iclr2021_db: Path) -> None:
    """`--ids A B` (as `profile like A B` takes ids) is refused saying how to give several; repeated, both export."""
    db = str(iclr2021_db)
    for verb, flag in ((["export", "--format", "csv"], "--ids"), (["recommend"], "--like")):
        result = CliRunner().invoke(cli, ["--db", db, *verb, flag, "nIAxjsniDzg", "Ua6zuk0WRH"])
        assert result.exit_code == 2
        assert f"{flag} takes one value each time; repeat it for each: {flag} nIAxjsniDzg {flag} Ua6zuk0WRH" in (
            result.stderr
        )
    rows = invoke("--db", db, "export", "--format", "csv", "--ids", "nIAxjsniDzg", "--ids=Ua6zuk0WRH").splitlines()
    assert [row.split(",")[0] for row in rows[1:]] == ["nIAxjsniDzg", "Ua6zuk0WRH"]
