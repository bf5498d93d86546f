"""What reviewers agreed and disagreed on in an LLM's words, checked sentence by sentence: the model sees only the
extractive summary's quotes, each labelled with its review ([R1], [R2], …), and writes a few sentences citing those
labels. A sentence is shown only when it cites reviews it was given, states no number their quotes do not, holds
no markup and is short; the rest are dropped and counted. Nothing unchecked is shown."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from confnav.summarize.agreement import Quote, ReviewSummary
from confnav.summarize.checked import Sentence, prose_failures
from confnav.summarize.llm import ChatClient, LLMError, model_sentences, numbers

log = logging.getLogger("confnav.reviews")
MAX_TOKENS = 200
PROMPT = (
    "You summarise what a paper's reviewers agreed and disagreed on, using only the quotes given. Write two to four"
    " plain sentences. End every sentence with the labels of the reviews it rests on, as [R1]. Use only the labels"
    " given and no number the quotes do not state. No lists, no markup."
)
_LABEL = re.compile(r"\[(R\d+(?:\s*,\s*R\d+)*)\]")
_MARKUP = re.compile(r"[<>{}\\$`*#|]|https?://|\]\(")


@dataclass(frozen=True)
class Cited:
    """A review a written sentence rests on, as the page links it."""

    review_id: str
    anchor: str
    reviewer: str


@dataclass
class WrittenSummary:
    """The model's checked sentences, each with the reviews it cites; how many it wrote and how many were dropped."""

    sentences: list[tuple[str, list[Cited]]] = field(default_factory=list)
    generated: int = 0
    dropped: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "sentences": [{"text": t, "cites": [c.__dict__ for c in cites]} for t, cites in self.sentences],
            "generated": self.generated,
            "dropped": self.dropped,
        }


def labelled(summary: ReviewSummary) -> tuple[str, dict[str, tuple[Cited, list[Quote]]]]:
    """The user message (the quotes, each with its review's label) and what each label stands for."""
    labels: dict[str, tuple[Cited, list[Quote]]] = {}
    by_review: dict[str, str] = {}

    def label(quote: Quote) -> str:
        if quote.review_id not in by_review:
            by_review[quote.review_id] = name = f"R{len(by_review) + 1}"
            labels[name] = (Cited(quote.review_id, quote.anchor, quote.reviewer), [])
        name = by_review[quote.review_id]
        labels[name][1].append(quote)
        return name

    lines = ["Reviews of one paper.", "Agreed (each line: what several reviews say alike):"]
    lines += [" / ".join(f'"{q.text}" [{label(q)}]' for q in point) for point in summary.agreed]
    lines += ["Disagreed (each line: praise, then criticism of the same aspect):"]
    lines += [" / ".join(f'"{q.text}" [{label(q)}]' for q in point) for point in summary.disagreed]
    return "\n".join(lines), labels


def write_summary(summary: ReviewSummary, client: ChatClient) -> WrittenSummary | None:
    """The summary in the model's checked sentences; None when there is nothing to phrase, the model fails, or
    none of its sentences passes (the extractive summary is shown then)."""
    if not summary.agreed and not summary.disagreed:
        return None
    message, labels = labelled(summary)
    try:
        answer = client.complete(PROMPT, message, MAX_TOKENS)
    except LLMError as exc:
        log.warning("reviews: %s; showing the extractive summary", exc)
        return None
    written = WrittenSummary()
    for raw in model_sentences(answer):
        cites = [c.strip() for group in _LABEL.findall(raw) for c in group.split(",")]
        text = " ".join(_LABEL.sub("", raw).split()).replace(" .", ".").replace(" ,", ",").strip()
        if not text.strip(".!? "):
            continue
        written.generated += 1
        quoted = " ".join(q.text for c in cites if c in labels for q in labels[c][1])
        checked = Sentence(text, cites, "llm")  # the same checks as ask's and the overview's prose
        if problems := prose_failures(checked, labels, numbers(quoted), markup=_MARKUP):
            log.info("reviews: dropped %r: %s", text, "; ".join(problems))
            written.dropped += 1
            continue
        written.sentences.append((text, [labels[c][0] for c in dict.fromkeys(cites)]))
    return written if written.sentences else None
