"""Answers about people: how many papers a named author has in each venue (and of the decision asked about),
citing them, and who has the most accepted papers, from the counts of the stats report's authors table."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from confnav.answer.authors import Named, count_of, most_accepted, papers_of, people
from confnav.answer.known import accepted_only, decision_gap
from confnav.answer.model import DOES_NOT_SAY, Count, Retrieved, Sentence, decided
from confnav.answer.question import Question
from confnav.model import Paper, n_papers
from confnav.reports.narrative import listing
from confnav.store import PaperFilter
from confnav.store.protocols import PaperReader

Statement = Callable[[Paper], tuple[str | None, str]]  # a paper's one-line statement and where it comes from
CITED = 3  # papers a count's sentence cites


class PersonAnswer:
    """The counts, sentences and cited papers of an answer about people, gathered venue by venue."""

    def __init__(self, store: PaperReader, statement: Statement, shown: int) -> None:
        self.store, self.statement, self.shown = store, statement, shown
        self.counts: list[Count] = []
        self.sentences: list[Sentence] = []
        self.papers: list[Retrieved] = []
        self.facts: dict[str, str] = {}  # "VENUE NAME": a venue's fact shown (see Answer.facts)

    def cite(self, papers: Sequence[Paper], first: PaperFilter, cited: Sequence[str] = ()) -> list[str]:
        """Show `papers` (those `first` admits first) while the answer shows fewer than its most, and the first of
        them even past it when none is shown (each count cites a paper it counts); the ids of up to CITED of them
        shown, those already `cited` last."""
        ordered = sorted(papers, key=lambda p: (not first.admits(p.decision), p.decision.tier, p.title))
        have = {r.paper.id for r in self.papers}
        for number, paper in enumerate(ordered):
            room = len(self.papers) < self.shown or (number == 0 and not have & {p.id for p in ordered})
            if paper.id not in have and room:
                tldr, source = self.statement(paper)
                self.papers.append(Retrieved(paper, 1.0, 1.0, tldr, source, ""))
        kept = {r.paper.id for r in self.papers}
        shown = [p.id for p in ordered if p.id in kept]
        return sorted(shown, key=lambda i: i in cited)[:CITED]

    def named(self, named: Named, read: Question, venues: Sequence[str]) -> None:
        """Each person of this name: their papers per venue (holding the topic, if any), and of the decision asked
        about (accepted when none is), each count citing some of the papers it counts."""
        found = people(self.store, named.name, venues)
        if not found:
            scope = " or ".join(self.store.get_venue(v).name for v in venues) if venues else "any venue"
            self.sentences.append(Sentence(f"The store holds no paper of {scope} by {named.name}.", [], "count"))
            return
        decision, phrase = read.decision or "accepted", read.topic or None
        for person in found:
            who = person.name
            if len(found) > 1:  # namesakes: told apart by profile id, as the author pages do
                who += f" ({person.profile})" if person.profile else " (without a profile id)"
            for venue in venues or list(dict.fromkeys(p.venue for p in person.papers)):
                papers = papers_of(self.store, venue, named.name, person.key)
                if papers:
                    self._person_venue(who, person.key, named.name, venue, papers, phrase, decision, read)

    def _person_venue(
        self,
        who: str,
        key: str,
        name: str,
        venue: str,
        papers: list[Paper],
        phrase: str | None,
        decision: str,
        read: Question,
    ) -> None:
        whole = count_of(papers, phrase, None)
        self.counts.append(Count(venue, phrase, None, whole, name, key))
        info = self.store.get_venue(venue)
        venue, title = info.id, info.name
        text = f"{who} is an author of {n_papers(whole)} of {title} in the store"
        text += f" containing “{phrase}” in their title, abstract or keywords" if phrase else ""
        gap = decision_gap(self.store, venue, decision)
        if not gap and whole:
            value = count_of(papers, phrase, decision)
            self.counts.append(Count(venue, phrase, decision, value, name, key))
            text += f"; {value:,} of them {decided(decision, value)}"
            if decision == "accepted" and accepted_only(self.store, venue):
                text += " (its data lists accepted papers only)"
        where = PaperFilter(decision=decision)
        counted = [p for p in papers if count_of([p], phrase, None)]
        self.sentences.append(Sentence(f"{text}.", self.cite(counted, where), "count"))
        if gap and read.decision:
            said = f"{DOES_NOT_SAY} how many of them {decided(decision)}: {gap}."
            self.sentences.append(Sentence(said, [], "count"))

    def most(self, venue: str) -> None:
        """Who has the most accepted papers of `venue`, by person (namesakes apart, see `most_accepted`), citing
        some of their accepted papers."""
        top = most_accepted(self.store, venue)
        info = self.store.get_venue(venue)
        venue, title = info.id, info.name
        if not top:
            self.sentences.append(Sentence(f"{DOES_NOT_SAY}: it holds no accepted paper of {title}.", [], "count"))
            return
        cites: list[str] = []
        accepted = PaperFilter(decision="accepted")
        for row in top:
            papers = [p for p in papers_of(self.store, venue, row.name, row.key) if p.decision.accepted]
            self.counts.append(Count(venue, None, "accepted", row.accepted, row.name, row.key))
            cites += [c for c in self.cite(papers, accepted, cites)[:1] if c not in cites]
        names, most = [r.shown for r in top], top[0].accepted
        listed = listing(names)
        if len(names) == 1:
            text = f"The author with the most accepted papers of {title} in the store is {listed}, with {most:,}"
        else:
            text = f"These authors share the most accepted papers of {title} in the store, {most:,} each: "
            text += listed
        if accepted_only(self.store, venue):
            text += " (its data lists accepted papers only)"
        self.sentences.append(Sentence(f"{text}.", cites, "count"))
