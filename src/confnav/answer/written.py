"""The answer in the LLM's prose, checked sentence by sentence: the model sees the question, the counts and the
retrieved papers (id, title, statement) and writes a few sentences citing them as [ID]; a sentence that cites
nothing, cites a paper not retrieved, states a number the store does not give or holds markup is replaced by the
extractive statement of a retrieved paper it cites, else dropped. Nothing unchecked is shown."""

from __future__ import annotations

import logging

from confnav.answer.check import sentence_failures
from confnav.answer.model import Answer, Part
from confnav.answer.retrieve import known_venues
from confnav.search.engine import Searcher
from confnav.settings import Settings
from confnav.summarize.checked import keep_checked, split_sentences
from confnav.summarize.llm import ChatClient, LLMConfig, LLMError

log = logging.getLogger("confnav.ask")
PROMPTED = 6  # papers the model is shown: a small local model's context holds them with room to answer
MAX_TOKENS = 160  # two to four sentences; a small local model otherwise rambles on
PROMPT = (
    "You answer a researcher's question about conference papers using only the papers and facts given. "
    "Write two to four plain sentences. End every sentence with the ids of the papers it rests on, as [ID]. "
    "Use only the ids given and no number that the papers or facts do not state. No lists, no markup."
)


def client_for(settings: Settings) -> ChatClient | None:
    """The chat client of the configured LLM, or None offline (the default)."""
    config = LLMConfig.from_settings(settings)
    return ChatClient(config) if config else None


def prompt_for(answer: Answer) -> str:
    """The user message: the question, the counts as sentences, and the papers the model may cite."""
    facts = [s.text for s in answer.sentences if s.source == "count"]
    papers = [f"[{r.paper.id}] {r.paper.title}: {r.statement or ''}".strip() for r in answer.papers[:PROMPTED]]
    lines = [f"Question: {answer.question}", *(["Facts:", *facts] if facts else []), "Papers:", *papers]
    return "\n".join(lines)


def write_answer(searcher: Searcher, answer: Answer, client: ChatClient) -> Answer:
    """`answer` (extractive, answered) rewritten as the model's checked prose; the extractive answer stays, with a
    notice, when the model fails or none of its sentences passes."""
    if answer.unanswered or not answer.papers:
        return answer
    store = searcher.store
    names = [v.name for v in known_venues(store) if v.id in answer.venues or not answer.venues]
    try:
        written = split_sentences(client.complete(PROMPT, prompt_for(answer), MAX_TOKENS))
    except LLMError as exc:
        log.warning("ask: %s; showing the extractive answer", exc)
        answer.notices.append(f"the LLM did not answer ({exc}); the answer is extractive")
        return answer
    by_id = {r.paper.id: r for r in answer.papers}
    checked = keep_checked(
        written,
        lambda sentence: sentence_failures(sentence, answer, names),
        lambda paper_id: by_id[paper_id].sentence() if paper_id in by_id else None,
        "ask",
    )
    kept = checked.sentences
    answer.generated, answer.dropped, answer.replaced = checked.generated, checked.dropped, checked.replaced
    if not any(s.source == "llm" for s in kept):
        answer.notices.append("none of the LLM's sentences passed the checks; the answer is extractive")
        return answer
    counts = [s for s in answer.sentences if s.source == "count"]
    answer.parts = [Part(None, counts + kept)]
    answer.mode = "llm"
    return answer
