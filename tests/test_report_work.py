"""A report does its work once: the kept TL;DRs are read, not made again; the verifier of a report made in the same
process reuses the ranking's signals; the sentence around each fact is found without rescanning the report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.rank import signals
from confnav.reports import grounding
from confnav.reports.grounding import Sentences
from confnav.summarize import tldr
from tests.backends import Location, clone


@pytest.fixture(scope="module")
def reports_db(light_topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2021 with themes and kept TL;DRs (`index` keeps them)."""
    return clone(light_topics_db, tmp_path_factory.mktemp("work"), "work")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many TL;DRs were made and how many times a venue's signals were computed."""
    calls = {"tldrs": 0, "signals": 0}
    made, computed = tldr.extractive_tldr, signals.compute_signals

    def making(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["tldrs"] += 1
        return made(*args, **kwargs)

    def computing(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["signals"] += 1
        return computed(*args, **kwargs)

    monkeypatch.setattr(tldr, "extractive_tldr", making)
    monkeypatch.setattr(signals, "compute_signals", computing)
    monkeypatch.setattr(signals, "_kept", signals.LatestPerKey(signals.KEPT))  # as in a new process
    return calls


@pytest.mark.parametrize("kind", ["overview", "digest"])
def test_a_report_reads_the_kept_tldrs_and_its_verification_ranks_no_more(
    reports_db: Location, tmp_path: Path, counted: dict[str, int], kind: str
) -> None:
    output = tmp_path / f"{kind}.md"
    result = CliRunner().invoke(
        cli, ["--db", str(reports_db), "report", kind, "--venue", "iclr2021", "-o", str(output)]
    )
    assert result.exit_code == 0, result.output
    assert "TL;DR" in output.read_text() or kind == "overview"
    assert counted == {"tldrs": 0, "signals": 1}  # every TL;DR kept; one ranking's signals, verified too


def test_the_tldr_verb_reads_the_kept_tldr(reports_db: Location, counted: dict[str, int]) -> None:
    result = CliRunner().invoke(cli, ["--db", str(reports_db), "tldr", "Ua6zuk0WRH"])
    assert result.exit_code == 0 and "(extractive)" in result.output and counted["tldrs"] == 0


def _scanned(flat: str, start: int, end: int) -> tuple[int, int]:
    """The sentence bounds as the verifier found them before, scanning from the start for each fact."""
    before = [m.end() for m in grounding._SENTENCE_END.finditer(flat, 0, start)]
    after = grounding._SENTENCE_END.search(flat, end)
    return (before[-1] if before else 0), (after.start() if after else len(flat))


def test_sentences_are_found_as_by_a_scan_from_the_start(reports_db: Location, tmp_path: Path) -> None:
    for fmt in ("md", "html"):
        output = tmp_path / f"overview.{fmt}"
        args = ["--db", str(reports_db), "report", "overview", "--venue", "iclr2021", "--format", fmt, "-o"]
        assert CliRunner().invoke(cli, [*args, str(output)]).exit_code == 0
        flat = output.read_text()
        sentences = Sentences(flat)
        marks = [m.start() for m in re.finditer(r"[.;!?\n<>]", flat)]
        places = sorted({p + d for p in marks[:: max(1, len(marks) // 100)] for d in (-1, 0, 1, 2)} | {0, len(flat)})
        for start in (p for p in places if 0 <= p <= len(flat)):
            for end in (start, min(start + 5, len(flat))):
                assert sentences.around(start, end) == _scanned(flat, start, end), (fmt, start, end)


@pytest.mark.parametrize("json", [[], ["--json"]])
def test_statistics_merge_the_keyword_spellings_once(
    iclr2021_db: Location, monkeypatch: pytest.MonkeyPatch, json: list[str]
) -> None:
    from confnav.reports import stats

    made: list[int] = []
    merge = stats.Spellings

    def merging(papers):  # type: ignore[no-untyped-def]
        made.append(len(papers))
        return merge(papers)

    monkeypatch.setattr(stats, "Spellings", merging)
    result = CliRunner().invoke(cli, ["--db", str(iclr2021_db), "stats", "--venue", "iclr2021", *json])
    assert result.exit_code == 0, result.output
    assert "keyword" in result.output.lower() and len(made) == 1  # both keyword tables from one merge
