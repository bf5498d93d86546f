"""The filter an answer applied, said in a sentence of its own: the decision or life-cycle stage whose papers it
counts and cites, and how many of each venue's papers that leaves, both counted (and recounted by `verify`) like
every number of an answer, so that no reader learns of the filter from a heading alone."""

from __future__ import annotations

from collections.abc import Sequence

from confnav.answer.known import accepted_only, decision_gap
from confnav.answer.model import Answer, Count, Part, Sentence, decided
from confnav.answer.retrieve import count_with
from confnav.model import n_papers
from confnav.search.engine import Searcher


def say_filter(searcher: Searcher, answer: Answer, decision: str | None, venues: Sequence[str]) -> None:
    """Open the answer with one sentence per venue saying that only the papers of `decision` are counted and
    cited, N of the venue's M papers (venues: those asked about, else those of its papers); nothing for a venue
    whose counts already say it ("The store holds M papers; N of them were accepted") or whose data gives no
    paper of the decision (the answer says why elsewhere)."""
    if not decision or answer.unanswered:
        return
    store = searcher.store
    asked = list(venues) or list(dict.fromkeys(r.paper.venue for r in answer.papers))
    said = {
        c.venue
        for c in answer.counts
        if c.decision == decision and c.phrase is None and not (c.author or c.institution or c.award)
    }
    sentences = []
    for venue in asked:
        if venue in said or decision_gap(store, venue, decision):
            continue
        whole, kept = count_with(searcher, venue, None, [None, decision])
        answer.counts += [Count(venue, None, None, whole, scope=True), Count(venue, None, decision, kept, scope=True)]
        name = store.get_venue(venue).name
        text = f"Only the papers that {decided(decision)} are counted and cited: {kept:,} of the"
        text += f" {n_papers(whole)} of {name} in the store"
        if decision == "accepted" and accepted_only(store, venue):
            text += " (its data lists accepted papers only)"
        sentences.append(Sentence(f"{text}.", [], "count"))
    if sentences and answer.parts and answer.parts[0].heading is None:  # the counts' paragraph opens with it
        answer.parts[0].sentences[:0] = sentences
    elif sentences:
        answer.parts.insert(0, Part(None, sentences))
