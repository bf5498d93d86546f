"""The index job embeds a text once per model, however many venues hold the paper, and reports its progress
as plain lines when its output is not a terminal."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from confnav.cli.progress import ProgressLines
from confnav.embed.base import ProgressFn
from confnav.embed.views import KEYWORD_VIEW
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.store import SqlStore, open_store
from tests.backends import new_location
from tests.conftest import MARKDOWN_PAGE
from tests.test_registry import SPEC, TinyEmbedder

ROOT = Path(__file__).resolve().parents[1]


class Slow(TinyEmbedder):
    """The tiny embedder, taking a second and a half per batch: a run long enough to report its progress."""

    name = f"{__name__}:Slow"

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        time.sleep(1.5)
        return super().embed(texts, progress)


class Counting(TinyEmbedder):
    """The tiny embedder, keeping every text it was asked to embed (under the tiny embedder's name)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        self.seen.extend(text for text in texts if text != "load check")
        return super().embed(texts, progress)


def second_venue(tmp_path: Path) -> Path:
    """The same 200 papers as the ICLR 2021 page, listed by a workshop of the same year."""
    path = tmp_path / "workshop.md"
    path.write_text(MARKDOWN_PAGE.read_text(encoding="utf-8").replace("*iclr 2021*", "*iclrw 2021*"), encoding="utf-8")
    return path


def vectors_by_paper(store: SqlStore, model: str) -> dict[tuple[str, str], bytes]:
    """(venue, paper id) → stored vector bytes of a model."""
    pks, blobs = store.embeddings(model)
    papers = store.papers_by_pk(pks)
    return {(papers[pk].venue, papers[pk].id): blob for pk, blob in zip(pks, blobs, strict=True)}


def test_a_paper_in_two_venues_is_embedded_once(store: SqlStore, tmp_path: Path) -> None:
    ingest(store, [MARKDOWN_PAGE, second_venue(tmp_path)])
    assert {s.venue.id: s.papers for s in store.venues()} == {"iclr2021": 200, "iclrw2021": 200}
    embedder = Counting()
    result = build_index(store, embedder)
    assert len(embedder.seen) == len(set(embedder.seen)) == result.texts  # each text once, whatever holds it
    assert result.texts <= 2 * 200 and result.embedded == 400 and result.reused == 4 * 200 - result.texts
    for view in ("", KEYWORD_VIEW):
        stored = vectors_by_paper(store, SPEC + view)
        assert len(stored) == 400
        assert all(stored[("iclrw2021", paper)] == vector for (venue, paper), vector in stored.items())


def test_a_venue_added_later_reuses_the_stored_vectors(store: SqlStore, tmp_path: Path) -> None:
    ingest(store, [MARKDOWN_PAGE])
    first = Counting()
    build_index(store, first)
    ingest(store, [second_venue(tmp_path)])
    again = Counting()
    result = build_index(store, again)
    assert first.seen and again.seen == []  # nothing embedded: every text is stored under the first venue
    assert result.embedded == 200 and result.texts == 0 and result.reused == 400
    assert build_index(store, Counting()).embedded == 0  # and the copies are up to date


def test_index_reports_progress_as_lines_when_its_output_is_a_pipe(tmp_path: Path) -> None:
    location = new_location(tmp_path, "piped")
    with open_store(location, create=True) as store:
        ingest(store, [MARKDOWN_PAGE])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "confnav", "index", "--db", str(location), "--model", Slow.name],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
        check=True,
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("embedding ")]
    assert len(lines) >= 2, done.stderr
    assert all("/s" in line and "%" in line for line in lines), lines
    assert "left" in lines[0] and lines[-1].endswith("done"), lines
    assert "papers embedded" in done.stdout
    quiet = subprocess.run(
        [sys.executable, "-m", "confnav", "index", "--db", str(location), "--model", SPEC, "-q"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
        check=True,
    )
    assert quiet.stderr == ""


def test_progress_lines_come_every_interval_and_at_tenths(capsys: pytest.CaptureFixture[str]) -> None:
    clock = iter([0.0, 0.0, 4.0, 11.0, 11.5, 11.6, 13.0, 20.0, 20.1])
    lines = ProgressLines(every=10.0, clock=lambda: next(clock))
    lines.start("embedding", 1000)
    for _ in range(3):
        lines.advance(10)  # 1% each: no tenth crossed; a line once 10 s have passed
    lines.advance(70)  # a tenth crossed too soon after the last line (0.1 s): none
    lines.advance(100)  # another, 1.5 s after the last line: a line
    lines.advance(5)  # 7 s later, neither: none
    lines.advance(795)  # the end of a stage that showed lines: a line however soon
    printed = capsys.readouterr().err.splitlines()
    assert printed == [
        "embedding: 20/1,000 (2%), 1.8/s, about 8 min 59 s left",
        "embedding: 200/1,000 (20%), 15.4/s, about 52 s left",
        "embedding: 1,000/1,000 (100%), 49.8/s, done",
    ]
