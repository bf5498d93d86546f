"""Venues whose data is thin, built from real records: one paper, five papers, papers still under review, and an
earlier edition listing accepted papers only; every command answers plainly, none crashes or shows a made-up 0
or 100%."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from confnav.cli import cli
from tests.conftest import DATA


def _run(db: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def _venue(tmp_path: Path, name: str, records: list[dict[str, object]]) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_thin_venues_answer_plainly(tmp_path: Path) -> None:
    corl = json.loads((DATA / "paperlists" / "corl2023.json").read_text(encoding="utf-8"))
    iclr2018 = json.loads((DATA / "paperlists" / "iclr2018.json").read_text(encoding="utf-8"))
    db = tmp_path / "thin.db"
    empty = tmp_path / "empty.db"
    assert _run(empty, "ingest", str(_venue(tmp_path, "empty2024", [])))[0] == 0  # an empty list: nothing to add
    code, shown = _run(empty, "index", "--model", "tfidf-svd")
    assert code != 0 and "no paper text to fit the index on" in shown, shown
    files = [
        _venue(tmp_path, "one2023", corl[:1]),
        _venue(tmp_path, "tiny2023", corl[1:6]),
        _venue(tmp_path, "pend2018", [r for r in iclr2018 if r.get("status") == "Active"]),
        _venue(tmp_path, "corl2022", [{**r, "id": f"old-{r['id']}"} for r in corl[6:46]]),
        _venue(tmp_path, "corl2023", corl),
    ]
    code, shown = _run(db, "ingest", *map(str, files))
    assert code == 0, shown
    code, shown = _run(db, "index", "--model", "tfidf-svd")
    assert code == 0, shown
    code, shown = _run(db, "topics", "--venue", "tiny2023")
    assert code == 0, shown
    code, shown = _run(db, "topic", "t01", "--venue", "tiny2023")
    assert code == 0 and "t01" in shown, shown
    assert "too small to split" in _run(db, "topics", "--venue", "tiny2023", "--level", "2")[1]
    code, shown = _run(db, "history", "--venue", "corl2023")
    assert code == 0 and "lists accepted papers only" in shown and "100%" not in shown, shown
    code, shown = _run(db, "stats", "--venue", "pend2018")
    assert code == 0 and "No paper is decided yet" in shown and "accepted papers only" not in shown, shown
    code, shown = _run(db, "search", "zzzqqq xylophonics", "--venue", "corl2023")
    assert code == 0 and "No papers match" in shown, shown
