"""A plugged summarizer that writes words of its own and declares it (`writes_own_words = True`): its TL;DRs are
labelled as written by it, never as extractive, author or llm, and reports built with it verify, with the numbers and
citations of those TL;DRs still checked; one that does not declare it is still refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.model import Paper
from confnav.reports.digest import build_digest
from confnav.reports.overview import build_overview
from confnav.reports.render import to_html, to_markdown
from confnav.reports.verify import verify_text
from confnav.store import open_store
from confnav.summarize.base import labelled_tldr
from confnav.summarize.tldr import Tldr
from tests.backends import Location, clone

HERE = __name__
LABEL = f"written by {HERE}:Retelling"


class Retelling:
    """A summarizer of its own words, declared as such (the label it gives is replaced by the true one)."""

    writes_own_words = True

    def tldr(self, paper: Paper) -> Tldr:
        return Tldr(paper.id, f"A paper titled {paper.title}.", "extractive")


class Boasting(Retelling):
    """Its own words with a number its paper does not give."""

    def tldr(self, paper: Paper) -> Tldr:
        return Tldr(paper.id, "It beats every baseline by 97.31 points.", "llm")


class Pointing(Retelling):
    """Its own words citing another paper."""

    def tldr(self, paper: Paper) -> Tldr:
        return Tldr(paper.id, "It extends [^elsewhere1] to graphs.", "generated")


class Undeclared:
    """Its own words, not declared: still refused when labelled extractive."""

    def tldr(self, paper: Paper) -> Tldr:
        return Tldr(paper.id, f"A paper titled {paper.title}.", "extractive")


def test_a_declared_summarizer_s_tldrs_are_labelled_as_its_own_and_verify(
    light_topics_db: Location, tmp_path: Path
) -> None:
    with open_store(clone(light_topics_db, tmp_path)) as store:
        paper = store.get_paper("Ua6zuk0WRH", "iclr2021")
        assert labelled_tldr(Retelling(), paper).source == LABEL
        for render in (to_markdown, to_html):
            text = render(build_digest(store, "iclr2021", top=5, summarizer=Retelling()))
            shown = 5 if render is to_markdown else 10  # HTML: in each paper's card and under its title
            assert text.count(LABEL) == shown
            assert "(extractive TL;DR)" not in text and "(extractive)" not in text
            check = verify_text(store, text)
            assert check.ok, check.failures
            assert sum("wrote for" in u and "its numbers checked" in u for u in check.unchecked) == shown
        overview = to_markdown(build_overview(store, "iclr2021", summarizer=Retelling()))
        assert verify_text(store, overview).ok
        undeclared = verify_text(store, to_markdown(build_digest(store, "iclr2021", top=3, summarizer=Undeclared())))
        assert len(undeclared.failures) == 3
        assert all("nor sentences of its abstract" in f for f in undeclared.failures)


@pytest.mark.parametrize(
    ("summarizer", "failure"),
    [(Boasting(), "states numbers its paper does not give: 97.31"), (Pointing(), "elsewhere1")],
)
def test_a_declared_summarizer_s_numbers_and_citations_are_still_checked(
    light_topics_db: Location, tmp_path: Path, summarizer: Retelling, failure: str
) -> None:
    with open_store(clone(light_topics_db, tmp_path)) as store:
        for render in (to_markdown, to_html):
            check = verify_text(store, render(build_digest(store, "iclr2021", top=2, summarizer=summarizer)))
            failed = {paper for paper in ("UH-cmocLJC", "PxTIG12RRHS") if any(paper in f for f in check.failures)}
            assert failed == {"UH-cmocLJC", "PxTIG12RRHS"} and all(failure in f for f in check.failures), check.failures


def test_the_cli_tldr_names_a_declared_summarizer(
    light_topics_db: Location, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFNAV_STEP_SUMMARIZER", f"{HERE}:Retelling")
    location = clone(light_topics_db, tmp_path)
    result = CliRunner().invoke(cli, ["tldr", "Ua6zuk0WRH", "--venue", "iclr2021", "--db", str(location)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.rstrip().endswith(f"({LABEL})")
