"""Awards: "which papers won awards at ACL 2022" is answered from the award the venue's data gives each paper
(paperlists' `award`, an `award` column), counted per venue and cited; a venue whose data names no award says so
rather than answering with papers that merely mention the word."""

from __future__ import annotations

import re
from collections.abc import Sequence

from confnav.answer.authors import count_of
from confnav.answer.model import DOES_NOT_SAY, Count, Sentence
from confnav.answer.persons import PersonAnswer
from confnav.answer.retrieve import per_state
from confnav.model import AWARD_UNNAMED, Paper, n_papers, real_papers
from confnav.reports.narrative import listing
from confnav.store import PaperFilter
from confnav.store.protocols import PaperReader

AWARDS = re.compile(
    r"\b(?:awards?|awarded|prizes?|won|winners?|honou?rable mentions?"
    r"|(?:best|outstanding|distinguished) papers?|test[- ]of[- ]time)\b",
    re.I,
)


def awarded_papers(store: PaperReader, venue: str) -> list[Paper]:
    """The papers of `venue` its data names an award for (placeholders left out), read once per store state."""
    return per_state(store, f"awards {venue}", lambda: [p for p in real_papers(store.iter_papers(venue)) if p.award])


def award_words(paper: Paper) -> str:
    """What the data says of a paper's award: "an award" when it only flags one, else the award's name quoted."""
    return "an award" if paper.award == AWARD_UNNAMED else f"the award “{paper.award}”"


def no_awards(store: PaperReader, venues: Sequence[str]) -> str:
    """Why the store cannot say which papers of `venues` won awards: their data names none."""
    names = [store.get_venue(v).name for v in venues]
    their = "its" if len(names) == 1 else "their"
    return f"{DOES_NOT_SAY} which papers of {listing(names, 'or')} won awards: {their} data names none."


def answer_awards(found: PersonAnswer, venues: Sequence[str], topic: str | None) -> None:
    """Per venue, the papers its data names an award for (holding the topic, if any), counted and cited; a venue
    whose data names none says so."""
    store = found.store
    if lacking := [v for v in venues if not awarded_papers(store, v)]:
        found.sentences.append(Sentence(no_awards(store, lacking), [], "count"))
    for venue in venues:
        name = store.get_venue(venue).name
        if not (papers := awarded_papers(store, venue)):
            continue
        whole = count_of(papers, topic, None)
        found.counts.append(Count(venue, topic, None, whole, award=True))
        one = whole == 1
        text = f"{n_papers(whole)} of {name} in the store {'is' if one else 'are'} marked with an award in its data"
        if topic:
            text += f" and contain{'s' * one} “{topic}” in {'its' if one else 'their'} title, abstract or keywords"
        counted = [p for p in papers if count_of([p], topic, None)]
        found.sentences.append(Sentence(f"{text}.", found.cite(counted, PaperFilter()), "count"))
        for paper in counted:
            if paper.award != AWARD_UNNAMED and any(r.paper.id == paper.id for r in found.papers):
                said = f"“{paper.title.rstrip('. ')}” is marked with {award_words(paper)} in the data of {name}"
                found.sentences.append(Sentence(f"{said}.", [paper.id], "paper"))
