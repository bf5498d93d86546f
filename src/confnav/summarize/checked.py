"""A model's prose checked sentence by sentence, wherever a model writes for the reader (ask's answers, the
overview's paragraphs): its text split into sentences with the ids they cite taken out, each sentence checked (it
cites only papers the model was given, states only numbers the store gives, holds no markup, stays short), and a
failing one replaced by the extractive sentence of a paper it cites, else dropped. Nothing unchecked is shown."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from confnav.keys import fold
from confnav.summarize.llm import model_sentences, numbers

log = logging.getLogger("confnav.llm")
MARKUP = re.compile(r"[<>{}\\$`]|https?://|\]\(")  # tags, LaTeX, code and links: not prose a reader is shown
MAX_WORDS = 60
_BRACKETS = re.compile(r"\[([^\[\]]{1,200})\]")
_ID = re.compile(r"^[A-Za-z0-9_\-~.]+$")


@dataclass
class Sentence:
    """One sentence and the papers it cites; `source` says where its words come from: `paper` (the paper's own
    text), `count` (numbers counted from the store), `llm` (the model's, checked)."""

    text: str
    cites: list[str]
    source: str

    def to_dict(self) -> dict[str, object]:
        return {"text": self.text, "cites": self.cites, "source": self.source}


@dataclass
class Checked:
    """The sentences kept (the model's that passed, and the extractive ones standing in for those that failed);
    how many the model wrote, and how many were dropped and replaced."""

    sentences: list[Sentence] = field(default_factory=list)
    generated: int = 0
    dropped: int = 0
    replaced: int = 0

    @property
    def written(self) -> int:
        return sum(s.source == "llm" for s in self.sentences)


def split_sentences(text: str) -> list[Sentence]:
    """A model's answer as sentences with their cited ids taken out of the text (a JSON answer's text too)."""
    text = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
            text = str(next(iter(value.values()), "")) if isinstance(value, dict) else text
        except (json.JSONDecodeError, StopIteration):
            pass
    sentences = []
    for raw in model_sentences(text):
        cites: list[str] = []

        def take(match: re.Match[str], cites: list[str] = cites) -> str:
            parts = [p.strip() for p in re.split(r"[,;]", match.group(1))]
            if not all(_ID.match(p) for p in parts):
                return match.group(0)
            cites.extend(p for p in parts if p not in cites)
            return ""

        body = " ".join(_BRACKETS.sub(take, raw).split()).replace(" .", ".").replace(" ,", ",").strip()
        if body.strip(".!? "):
            sentences.append(Sentence(body, cites, "llm"))
    return sentences


def prose_failures(
    sentence: Sentence,
    given: Collection[str],
    allowed: Collection[str],
    needs_cite: bool = True,
    markup: re.Pattern[str] = MARKUP,
) -> list[str]:
    """Why a sentence may not be shown: it cites nothing (when `needs_cite`), cites a paper not `given` to the
    model, states a number not `allowed` (the store's), or (the model's) holds markup, is too long or is cut off;
    empty when it passes."""
    failures = []
    if needs_cite and not sentence.cites and sentence.source != "count":
        failures.append("cites no paper")
    if outside := [c for c in sentence.cites if c not in given]:
        failures.append(f"cites papers it was not given: {', '.join(outside)}")
    if invented := numbers(sentence.text) - set(allowed):
        failures.append(f"states numbers the store does not give: {', '.join(sorted(invented))}")
    written = sentence.source == "llm"  # the store's own text (a title with LaTeX) is shown as it is, escaped
    if written and (markup.search(sentence.text) or len(sentence.text.split()) > MAX_WORDS):
        failures.append("holds markup or is too long")
    if written and not sentence.text.rstrip().endswith((".", "!", "?")):
        failures.append("is cut off: it does not end")  # the model's answer stopped at its token limit
    return failures


# A name a text gives a method, model or dataset: capitals or digits inside a word ("ImageNet", "CIFAR-10", "BERT").
NAME = re.compile(r"(?<![\w-])([A-Z][A-Za-z]*(?:[A-Z]|\d)[\w-]*)(?![\w'])")
_TITLED = re.compile(r"(?:^|(?<=[.:;] ))([A-Z][^:;.!?\"“”]{8,240}?):\s")  # "Title of a paper: what it does"
_QUOTED = re.compile(r"[\"“]([^\"“”]{12,240})[\"”]")


def attribution_failures(text: str, cited: Collection[tuple[str, str]], free: str = "") -> list[str]:
    """Why a model's sentence says of its cited papers what they do not: a title (before a colon, or quoted) that
    is none of theirs, or a name (BERT, DiffPool, CIFAR-10) none of their own words hold. `cited`: the title and
    own words (abstract, statement) of each cited paper; `free`: words the sentence may name besides (the
    venue's name)."""
    failures = []
    titles = [fold(title) for title, _ in cited]
    for match in [*_TITLED.finditer(text), *_QUOTED.finditer(text)]:
        said = fold(match.group(1))
        if len(said.split()) >= 3 and not any(t == said or t.startswith(f"{said} ") for t in titles):
            failures.append(f"names a title that is not its cited paper's: {match.group(1)[:80]!r}")
    own = " ".join([free, *(f"{title} {words}" for title, words in cited)])
    if strange := sorted({n for n in NAME.findall(text) if n not in own and n.rstrip("s") not in own}):
        failures.append(f"names what its cited papers do not: {', '.join(strange[:5])}")
    return failures


def keep_checked(
    written: list[Sentence],
    failures_of: Callable[[Sentence], list[str]],
    stand_in: Callable[[str], Sentence | None],
    where: str,
) -> Checked:
    """The model's `written` sentences that pass `failures_of`; one that fails is replaced by `stand_in` of the
    first paper it cites that no kept sentence cites yet (the paper's extractive sentence), else dropped. Each
    failure is logged with why, under `where`."""
    checked = Checked(generated=len(written))
    used: set[str] = set()
    for sentence in written:
        if not (failures := failures_of(sentence)):
            checked.sentences.append(sentence)
            used.update(sentence.cites)
            continue
        log.info("%s: dropped %r: %s", where, sentence.text, "; ".join(failures))
        extractive = next((s for c in sentence.cites if c not in used and (s := stand_in(c)) is not None), None)
        if extractive is not None:
            checked.sentences.append(extractive)
            used.update(extractive.cites)
            checked.replaced += 1
        else:
            checked.dropped += 1
    return checked
