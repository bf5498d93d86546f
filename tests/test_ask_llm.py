"""`ask` and the TL;DR against a real local LLM (SmolLM2-135M on llama.cpp's server): whatever the small model
writes — broken JSON, invented ids, wrong numbers — what reaches the user cites only retrieved papers and states
only the store's numbers."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from confnav.answer import ask
from confnav.answer.check import allowed_numbers
from confnav.search.engine import Searcher
from confnav.store import open_store
from confnav.summarize.llm import ChatClient, LLMConfig, LLMSummarizer, numbers
from tests.backends import Location
from tests.local_llm import LLM_HANG
from tests.test_ask import LINEAR, assert_grounded

pytestmark = pytest.mark.sqlite_only  # about the model's output, not the backend


class Recording(ChatClient):
    """The chat client, keeping each raw answer of the model."""

    def __init__(self, config: LLMConfig) -> None:
        super().__init__(config)
        self.raw: list[str] = []

    def complete(self, system: str, user: str, max_tokens: int | None = None) -> str:
        self.raw.append(super().complete(system, user, max_tokens))
        return self.raw[-1]


@pytest.fixture(scope="module")
def searcher(light_topics_db: Location) -> Iterator[Searcher]:
    with open_store(light_topics_db) as store:
        yield Searcher(store)


@pytest.mark.parametrize(
    "question", [LINEAR, "How many accepted papers on graph neural networks are there at ICLR 2021?"]
)
def test_real_model_answers_only_reach_the_user_verified(searcher: Searcher, local_llm: str, question: str) -> None:
    client = Recording(LLMConfig(local_llm, "smollm2", timeout=LLM_HANG))
    answer = ask(searcher, question, client=client)
    assert len(client.raw) == 1 and answer.generated >= 1
    assert_grounded(searcher, answer)
    assert answer.generated == sum(s.source == "llm" for s in answer.sentences) + answer.dropped + answer.replaced
    retrieved = {r.paper.id for r in answer.papers}
    shown = " ".join(s.text for s in answer.sentences)
    shown_ids = {c for s in answer.sentences for c in s.cites}
    invented_ids = set(re.findall(r"\[([A-Za-z0-9_\-~.]+)\]", client.raw[0])) - retrieved
    assert not invented_ids & shown_ids and not any(i in shown for i in invented_ids)
    for sentence in answer.sentences:
        assert numbers(sentence.text) <= allowed_numbers(answer, sentence.cites, ["ICLR 2021"])


def test_real_model_tldr_is_checked(light_topics_db: Location, local_llm: str) -> None:
    with open_store(light_topics_db) as store:
        paper = store.get_paper("Ua6zuk0WRH")
    summarizer = LLMSummarizer(ChatClient(LLMConfig(local_llm, "smollm2", timeout=LLM_HANG)))
    result = summarizer.tldr(paper)
    assert result.tldr
    if result.source == "llm":  # passed every check: the paper's id, short, no number the abstract lacks
        assert numbers(result.tldr) <= numbers(paper.abstract or "") | numbers(paper.title)
    else:
        assert result.source == "extractive" and len(summarizer.failures) == 1
