"""Statistics show what the data holds: no table without rows, no column the data cannot fill (real files)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.ingest import ingest
from confnav.store import open_store
from tests.backends import Location
from tests.conftest import DATA


@pytest.fixture(scope="module")
def acl2022_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ACL 2022 as published: accepted papers only (long, short, findings), no reviews, no keywords."""
    path = tmp_path_factory.mktemp("acl") / "acl.db"
    with open_store(path, create=True) as store:
        ingest(store, [DATA / "paperlists" / "acl2022.json"])
    return path


def run(db: Path | Location, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def md_tables(text: str) -> dict[str, list[str]]:
    """Each Markdown table's header cells by table id, with its number of rows."""
    found = re.findall(r"<!-- table:([\w\-]+) -->\n\| (.*) \|\n\|.*\|\n((?:\|.*\|\n)*)", text)
    return {table: [*header.split(" | "), str(len(rows.splitlines()))] for table, header, rows in found}


def test_acl2022_statistics_leave_out_what_the_data_lacks(acl2022_db: Path, tmp_path: Path) -> None:
    run(acl2022_db, "report", "stats", "-o", str(tmp_path / "s.md"))
    run(acl2022_db, "report", "stats", "--format", "html", "-o", str(tmp_path / "s.html"))
    markdown, html = (tmp_path / "s.md").read_text(), (tmp_path / "s.html").read_text()
    tables = md_tables(markdown)
    assert list(tables) == ["decisions", "authors", "institutions"]  # no ratings, agreement or keyword tables
    assert tables["authors"] == ["Author", "Accepted", "15"]  # no orals column of zeros, no "submitted" = accepted
    assert "Share of decided" not in markdown and "Share of listed papers" in tables["decisions"]
    assert "acceptance rate" in markdown and "The data holds no reviewer ratings or keywords." in markdown
    for text in (markdown, html):
        assert "scale no ratings" not in text and "Reviewer agreement" not in text and "Orals" not in text
        assert "<tbody></tbody>" not in text and "Submitted" not in text and "keywords</h3>" not in text
    for name in ("s.md", "s.html"):
        assert run(acl2022_db, "verify", str(tmp_path / name)).startswith("OK")
    data = json.loads(run(acl2022_db, "stats", "--json"))
    assert set(data["tables"]) == {"decisions", "authors", "institutions"} and all(data["tables"].values())
    assert set(data["tables"]["authors"][0]) == {"Author", "Accepted"}
    assert "The data holds no reviewer ratings or keywords." in data["notes"]
    assert "acceptance_rate" not in json.dumps(data["facts"])
    plain = run(acl2022_db, "stats")
    assert "Orals" not in plain and "Reviewer agreement" not in plain and "holds no reviewer ratings" in plain


def test_iclr2021_statistics_keep_every_section(iclr2021_db: Location) -> None:
    data = json.loads(run(iclr2021_db, "stats", "--venue", "iclr2021", "--json"))
    tables = data["tables"]
    shown = ["decisions", "ratings", "agreement", "authors", "institutions", "keywords", "keyword_rating"]
    assert list(tables) == shown
    assert set(tables["authors"][0]) == {"Author", "Accepted", "Orals", "Submitted"}
    assert set(tables["keywords"][0]) == {"Keyword", "Papers", "Accepted", "Mean rating"}
    assert "Share of decided" in tables["decisions"][0] and data["notes"] == []
    assert {row["Decision"]: row["Papers"] for row in tables["decisions"]}["oral"] == 53


def test_spellings_of_one_keyword_are_one_row_as_trends_count_them(light_topics_db: Location) -> None:
    """ICLR 2020's authors wrote "graph neural network" and "graph neural networks": one keyword, one row, counting
    each paper once (as `trends` does), where the statistics once showed two rows."""
    from confnav.reports.stats import counted_papers, keyword_table

    records = json.loads((DATA / "iclr2020" / "paperlists-iclr2020.json").read_text())
    said = {
        r["id"]
        for r in records
        if {" ".join(k.lower().split()) for k in r["keywords"].split(";")}
        & {"graph neural network", "graph neural networks"}
    }
    with open_store(light_topics_db) as store:
        table = keyword_table(counted_papers(store, "iclr2020"))
    rows = [row for row in table.rows if str(row[0]).startswith("graph neural network")]
    assert len(rows) == 1 and int(str(rows[0][1]).replace(",", "")) >= len(said)


def test_iclr2020_authors_are_named_without_marks_and_counted_by_name_as_the_notes_say(iclr2020_db: Location) -> None:
    """ICLR 2020's byline marks equal contribution ("Ryan Lowe*"), and its authorids are e-mail addresses, which do
    not tell namesakes apart (one person signs with several): no name keeps a mark, and the notes say authors are
    counted by name, so the author pages and ask's people agree with the table."""
    with open_store(iclr2020_db) as store:
        paper = store.get_paper("rJxGLlBtwH")
        assert [a.name for a in paper.authors][:2] == ["Ryan Lowe", "Abhinav Gupta"]
        assert not any(a.name.endswith(("*", "†")) for p in store.iter_papers("iclr2020") for a in p.authors)
        assert not any(a.profile and "@" in a.profile for p in store.iter_papers("iclr2020") for a in p.authors)
    data = json.loads(run(iclr2020_db, "stats", "--json"))
    assert any(n.startswith("Only 2 of ") and "counted by name" in n for n in data["notes"]), data["notes"]
    row = next(r for r in data["tables"]["authors"] if r["Author"].startswith("Abhinav Gupta"))
    assert row == {"Author": "Abhinav Gupta", "Accepted": 6, "Orals": 0, "Submitted": 8}  # one name, one row
