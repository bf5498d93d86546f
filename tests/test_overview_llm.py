"""The overview written by an LLM, checked sentence by sentence as ask's answers are: against the fake chat server
for the exact cases (a good sentence kept, a fact marked for the verifier, an invented id and a wrong number kept
out), and against the real local model (SmolLM2 on llama.cpp's server) for one theme."""

from __future__ import annotations

import logging
import re

import pytest

from confnav.reports.model import Citation
from confnav.reports.overview import build_overview
from confnav.reports.render import to_markdown
from confnav.reports.verify import verify_text
from confnav.reports.written import Paragraph, write_paragraph
from confnav.store import open_store
from confnav.summarize.llm import ChatClient, LLMConfig, LLMSummarizer, numbers
from tests.backends import Location
from tests.llm_server import fake_llm
from tests.local_llm import LLM_HANG

GOOD = "Readers should start with the paper the ranking puts first"
FIRST = Citation("AAA111", "Linear attention", None, "We propose Lina, a linear attention for long inputs.", "author")
SECOND = Citation("BBB222", "Sparse routing", None, "We propose Spark, a router of tokens to experts.", "author")
FACTS = {"theme.t01.size": "42", "theme.t01.accepted": "12", "theme.t01.acceptance_rate": "28.6%"}
PARAGRAPH = Paragraph(
    "Efficient attention",
    "{theme.t01.size} papers are about efficient attention. {theme.t01.accepted} of them were accepted "
    "({theme.t01.acceptance_rate}). Lina is a linear attention [[cite:AAA111]].",
    FACTS,
    [FIRST, SECOND],
    ["efficient attention"],
)


def test_each_written_sentence_is_checked(caplog: pytest.LogCaptureFixture) -> None:
    """The fake writes one sentence of each kind: the good one is kept, the number it was given becomes the fact it
    is (so the verifier recomputes it), the invented id is dropped, the wrong number is replaced by the paper's
    own sentence, the sentence resting on nothing is dropped."""
    with fake_llm() as (url, state), caplog.at_level(logging.INFO, "confnav.llm"):
        written = write_paragraph(ChatClient(LLMConfig(url, "m")), PARAGRAPH, "ICLR 2021", said := set())
    message = state.requests[0]["messages"][-1]["content"]
    assert "Paragraph: 42 papers are about efficient attention." in message and "[AAA111]" in message
    assert "[[cite:" not in message and "{theme" not in message
    assert written is not None
    checked = written.checked
    assert (checked.generated, checked.dropped, checked.replaced, checked.written) == (5, 2, 1, 2)
    assert written.text == (
        f"{GOOD} [[cite:AAA111]]. The section rests on {{theme.t01.size}} of the store's records. "
        '"Sparse routing" proposes Spark, a router of tokens to experts [[cite:BBB222]].'
    )
    assert said == {"theme.t01.size"}
    reasons = caplog.text
    assert (
        "cites papers it was not given: B1e-kxSKDH" in reasons and "numbers the store does not give: 97.25" in reasons
    )
    assert "rests on nothing of the store" in reasons


def test_a_fact_the_report_said_is_not_said_again() -> None:
    with fake_llm() as (url, _):
        written = write_paragraph(ChatClient(LLMConfig(url, "m")), PARAGRAPH, "ICLR 2021", {"theme.t01.size"})
    assert written is not None and "{theme.t01.size}" not in written.text and "rests on" not in written.text


def test_copied_prompts_authors_voice_and_cut_sentences_are_refused() -> None:
    """A small model echoes its prompt, copies a TL;DR in the authors' voice and stops mid-sentence at its token
    limit: none of these reaches the reader."""
    with fake_llm() as (url, state):
        state.paragraph = (
            "Paragraph: 42 papers are about efficient attention [AAA111]. "
            "Linear attention: We propose Lina for long inputs [AAA111]. "
            "Efficient attention gathers 42 papers of the venue. Sparse routing sends tokens to [BBB222"
        )
        written = write_paragraph(ChatClient(LLMConfig(url, "m")), PARAGRAPH, "ICLR 2021", set())
    assert written is not None and (written.checked.written, written.checked.replaced) == (1, 1)
    assert written.text == (  # the echo replaced by the paper's own sentence, the copy and the cut one dropped
        '"Linear attention" proposes Lina, a linear attention for long inputs [[cite:AAA111]]. '
        "Efficient attention gathers {theme.t01.size} papers of the venue."
    )
    assert "Paragraph:" not in written.text and "We propose" not in written.text and "sends tokens" not in written.text


def test_an_unreachable_model_leaves_the_paragraph_extractive() -> None:
    client = ChatClient(LLMConfig("http://127.0.0.1:9/v1", "m", timeout=2))
    assert write_paragraph(client, PARAGRAPH, "ICLR 2021", set()) is None


@pytest.mark.sqlite_only  # about the model's writing; test_reports builds and verifies overviews on PostgreSQL
def test_the_overview_with_an_llm_verifies(light_topics_db: Location) -> None:
    """Every paragraph rewritten over the fake: the report verifies, nothing the checks refused reaches it, and
    the numbers the model wrote are the store's facts."""
    with fake_llm() as (url, state), open_store(light_topics_db) as store:
        summarizer = LLMSummarizer(ChatClient(LLMConfig(url, "m")))
        report = build_overview(store, "iclr2021", summarizer=summarizer, per_theme=3)
        text = to_markdown(report)
        assert verify_text(store, text).ok
    asked = [m for r in state.requests if (m := str(r["messages"][-1]["content"])).startswith("Section:")]
    assert asked[0].startswith("Section: Opening") and asked[-1].startswith("Section: Where to start")
    assert "B1e-kxSKDH" not in text and "97.25" not in text and "active area" not in text
    themes = [s for s in report.sections if s.anchor]
    assert themes and all(GOOD in s.summary for s in themes)
    assert all(re.search(r"rests on \{theme\.[\w.]+\.size\}", s.summary) for s in themes)
    assert "{venue.accepted} of the store's records" in report.intro  # the opening's number, marked as the fact
    assert any("paragraphs, checked sentence by sentence" in n for n in report.notes)


@pytest.mark.sqlite_only  # about the model's use, not the backend
def test_offline_the_overview_asks_no_model(light_topics_db: Location) -> None:
    with fake_llm() as (_, state), open_store(light_topics_db) as store:
        build_overview(store, "iclr2021", per_theme=3)
    assert state.requests == []


@pytest.mark.llm
@pytest.mark.sqlite_only  # about the model's output, not the backend
def test_real_model_theme_paragraph_reaches_the_reader_verified(light_topics_db: Location, local_llm: str) -> None:
    """One theme's paragraph by SmolLM2: whatever it writes, each sentence kept cites only that theme's papers given
    to it, states only the store's facts (marked, so the verifier recomputes them) or its cited papers' numbers,
    and the report with it verifies. The share of its sentences dropped is printed."""
    with open_store(light_topics_db) as store:
        report = build_overview(store, "iclr2021", per_theme=3)
        section = next(s for s in report.sections if s.anchor)
        facts = {key: fact.value for key, fact in section.facts.items()}
        given = Paragraph(section.title, section.summary, facts, section.citations, [section.title])
        client = ChatClient(LLMConfig(local_llm, "smollm2", timeout=LLM_HANG))
        written = write_paragraph(client, given, report.venue.name, set())
        assert written is not None  # the model answered
        if written.text:  # else nothing passed: the extractive paragraph stands, unchanged
            section.summary = written.text  # its list, as the overview makes it: the first papers, then those cited
            told = set(re.findall(r"\[\[cite:([^\]]+)\]\]", written.text))
            section.citations = [c for i, c in enumerate(section.citations) if i < 3 or c.paper_id in told]
            checked_now = verify_text(store, to_markdown(report))
            assert checked_now.ok, checked_now.failures
    checked = written.checked
    print(f"\nSmolLM2 wrote {checked.generated} sentences: {checked.dropped} dropped, {checked.replaced} replaced")
    allowed = {c.paper_id for c in section.citations}
    for sentence in checked.sentences:
        assert set(sentence.cites) <= allowed
        bare = re.sub(r"\{[a-z]+\.[\w.\-]+\}|\[\[cite:[^\]]+\]\]", "", sentence.text)
        cited = " ".join(f"{c.title} {c.tldr or ''}" for c in section.citations if c.paper_id in sentence.cites)
        assert numbers(bare) <= numbers(f"{report.venue.name} {cited}")
    assert checked.generated == checked.written + checked.dropped + checked.replaced
