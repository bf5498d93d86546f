"""The overview in an LLM's prose, checked sentence by sentence as ask's answers are (summarize/checked.py): each
paragraph (the opening, each large theme's, the closing) is given to the model as the extractive paragraph with
its facts' values and its papers as [ID], and the model rewrites it. A written sentence is kept only when it cites
papers of that paragraph alone, every number it states is one of the paragraph's facts (then marked as that fact,
so the verifier recomputes it) or a number of a paper it cites, it says no fact the report has said, does not open
on a connective or a pointer, does not speak as the authors ("we") or repeat the prompt, holds no markup, is not
cut off, and rests on a paper, a fact or a theme. A failing sentence is replaced by the extractive sentence of a
paper it cites, else dropped; a paragraph none of whose sentences passes stays extractive."""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from confnav.reports.faults import dangles, plain_prose
from confnav.reports.model import Citation
from confnav.reports.prose import paper_sentences
from confnav.summarize.checked import (
    Checked,
    Sentence,
    attribution_failures,
    keep_checked,
    prose_failures,
    split_sentences,
)
from confnav.summarize.llm import ChatClient, LLMError, LLMUnreachable, numbers

log = logging.getLogger("confnav.llm")
MAX_TOKENS = 320  # a paragraph of a few sentences; a small local model otherwise rambles on
PROMPT = (
    "You rewrite one paragraph of a conference overview for researchers, using only the facts, sentences and "
    "papers given. Write three to six plain sentences that relate the papers to one another and say why they "
    "matter. End every sentence about papers with the ids of the papers it rests on, as [ID]. Use only the ids "
    "given, and only the numbers given, written as they are given. No lists, no markup."
)
_CITE = re.compile(r"\[\[cite:([^\]]+)\]\]")
_FACT = re.compile(r"\{([a-z]+\.[\w.\-]+)\}")
_ECHO = re.compile(r"\b(?:Section|Paragraph|Papers):|\b(?:we|our|us)\b", re.I)  # the prompt, or a copied TL;DR


@dataclass
class Paragraph:
    """What the model rewrites: the section's title, its extractive text ({key} facts, [[cite:ID]] marks), the
    facts it may state (key → shown value, those of its text among them), the papers it may cite, and the theme
    labels a sentence may rest on."""

    title: str
    text: str
    facts: dict[str, str]
    cites: Sequence[Citation]
    themes: Collection[str] = field(default_factory=tuple)


@dataclass
class Written:
    """A paragraph in the model's checked prose (marks as in the extractive text; empty when none of its sentences
    passed) and the count of its sentences."""

    text: str
    checked: Checked


def model_view(text: str, facts: dict[str, str]) -> str:
    """The extractive text as the model reads it: each fact as its value, each citation as [ID]."""
    text = _FACT.sub(lambda m: facts.get(m.group(1), m.group(0)), text)
    return _CITE.sub(r"[\1]", text)


def user_message(paragraph: Paragraph) -> str:
    """The paragraph with its facts' values, and its papers (id, title, TL;DR)."""
    papers = [f"[{c.paper_id}] {c.title}: {c.tldr or ''}".strip() for c in paragraph.cites]
    lines = [f"Section: {paragraph.title}", f"Paragraph: {model_view(paragraph.text, paragraph.facts)}"]
    return "\n".join([*lines, *(["Papers:", *papers] if papers else [])])


def mark_facts(text: str, facts: dict[str, str], said: Collection[str]) -> str:
    """`text` with each number written as a fact's shown value ("860", "28.7%") marked as that fact ({key}), a fact
    the report has not said preferred when two show the same value."""
    by_value: dict[str, str] = {}
    for key in sorted(facts, key=lambda k: k in said):
        if re.search(r"\d", facts[key]):
            by_value.setdefault(facts[key], key)
    if not by_value:
        return text
    values = "|".join(map(re.escape, sorted(by_value, key=len, reverse=True)))
    pattern = re.compile(rf"(?<![\w.,\-{{}}])({values})(?![\w%{{}}]|[.,]\d)")
    return pattern.sub(lambda m: f"{{{by_value[m.group(1)]}}}", text)


def _numbers_given(cites: Sequence[Citation], cited: list[str], venue: str) -> set[str]:
    """The numbers a sentence may state outside the facts: its cited papers' (title, TL;DR) and the venue's name's."""
    texts = [f"{c.title} {c.tldr or ''}" for c in cites if c.paper_id in cited]
    return numbers(" ".join([venue, *texts]))


def _with_marks(sentence: Sentence) -> str:
    """A checked sentence as the report writes it: the model's text with its citations as marks before its end."""
    if sentence.source != "llm":
        return sentence.text
    marks = " ".join(f"[[cite:{c}]]" for c in sentence.cites)
    body = sentence.text.rstrip()
    end = body[-1] if body[-1:] in ".!?" else "."
    return f"{body.rstrip('.!?')} {marks}{end}" if marks else f"{body.rstrip('.!?')}{end}"


def write_paragraph(client: ChatClient, paragraph: Paragraph, venue: str, said: set[str]) -> Written | None:
    """`paragraph` in the model's checked prose (`venue`: the venue's name, whose year a sentence may state); its
    text is empty when none of the model's sentences passes, and None is returned when the model fails (the
    extractive paragraph stands then). `said`, the facts the report has said already, gains those the kept
    sentences say."""
    try:
        answer = client.complete(PROMPT, user_message(paragraph), MAX_TOKENS)
    except LLMError as exc:
        if not isinstance(exc, LLMUnreachable):  # an endpoint that cannot be reached is said once, by its client
            log.warning("overview, %s: %s; the paragraph stays extractive", paragraph.title, exc)
        return None
    facts = paragraph.facts
    written = [Sentence(mark_facts(s.text, facts, said), s.cites, s.source) for s in split_sentences(answer)]
    by_id = {c.paper_id: c for c in paragraph.cites}
    themes = [t.lower() for t in paragraph.themes]
    seen = set(said)  # the report's said facts and, as sentences pass, theirs

    def failures(sentence: Sentence) -> list[str]:
        keys = _FACT.findall(sentence.text)
        bare = Sentence(_FACT.sub("", sentence.text), sentence.cites, sentence.source)
        found = prose_failures(bare, by_id, _numbers_given(paragraph.cites, sentence.cites, venue), needs_cite=False)
        cited = [(c.title, c.tldr or "") for i in sentence.cites if (c := by_id.get(i)) is not None]
        found += attribution_failures(bare.text, cited, " ".join([venue, *paragraph.themes]))
        if _ECHO.search(sentence.text):
            found.append("repeats the prompt or speaks as the authors (we, our)")
        if dangles(plain_prose(sentence.text)):
            found.append("opens on a connective or a pointer to something outside it")
        if repeated := sorted({k for k in keys if k in seen} | {k for k in keys if keys.count(k) > 1}):
            found.append(f"says again what the report has said: {', '.join(repeated)}")
        if not sentence.cites and not keys and not any(t in sentence.text.lower() for t in themes):
            found.append("rests on nothing of the store: no paper, fact or theme")
        if not found:
            seen.update(keys)
        return found

    def stand_in(paper_id: str) -> Sentence | None:
        fits = lambda kept, made: not dangles(plain_prose(made))  # noqa: E731
        made = paper_sentences([by_id[paper_id]], fits) if paper_id in by_id else []
        return Sentence(made[0], [paper_id], "paper") if made else None

    checked = keep_checked(written, failures, stand_in, f"overview, {paragraph.title}")
    if not checked.written:
        return Written("", checked)  # counted, not shown
    said.update(seen)
    return Written(" ".join(_with_marks(s) for s in checked.sentences), checked)
