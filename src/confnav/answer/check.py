"""Checking an answer against the store: every citation resolves to a paper of the store that was retrieved for
the question, every number is one the store gives (a count recomputed now, or a number of a cited paper's own
text, or a named venue's year). Written sentences pass `sentence_failures` one by one before they are shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from confnav.answer.authors import count_of, papers_of
from confnav.answer.awards import awarded_papers
from confnav.answer.model import Answer, Count, Retrieved, Sentence
from confnav.answer.outside import institution_facts, rate_facts, venue_themes
from confnav.answer.places import papers_at, place_facts
from confnav.answer.retrieve import count_papers, known_venues
from confnav.answer.statistics import rating_facts
from confnav.reports.verify import citation_failures
from confnav.search.engine import Searcher
from confnav.summarize.checked import attribution_failures, prose_failures
from confnav.summarize.llm import numbers


def paper_numbers(item: Retrieved) -> set[str]:
    """The numbers a sentence citing this paper may state: those of its title, abstract, statement and award, and
    its reviewers' ratings with their mean."""
    p = item.paper
    rated = [f"{r:g}" for r in p.ratings] + ([f"{p.rating_mean:.2f}"] if p.rating_mean is not None else [])
    return numbers(" ".join([p.title, p.abstract or "", item.statement or "", p.award or "", *rated]))


def allowed_numbers(answer: Answer, cites: list[str], venue_names: list[str]) -> set[str]:
    """Numbers a sentence citing `cites` may state: its papers', the answer's counts (and the profile ids of the
    people counted) and the venues' names'."""
    by_id = {r.paper.id: r for r in answer.papers}
    found = {str(c.value) for c in answer.counts} | numbers(" ".join(venue_names))
    found |= numbers(" ".join(c.person or "" for c in answer.counts))  # a person's profile id (`~Yang_Song1`)
    found |= numbers(" ".join(answer.facts.values()))  # a venue's acceptance rate and what it counts
    for paper_id in cites:
        if paper_id in by_id:
            found |= paper_numbers(by_id[paper_id])
    return found


def sentence_failures(sentence: Sentence, answer: Answer, venue_names: list[str]) -> list[str]:
    """Why a sentence may not be shown: it cites nothing, cites a paper not retrieved, states a number the store
    does not give, or (the model's) holds markup, is too long, or names a title or a name its cited papers do not;
    empty when it passes."""
    retrieved = {r.paper.id: r for r in answer.papers}
    failures = prose_failures(sentence, retrieved, allowed_numbers(answer, sentence.cites, venue_names))
    if sentence.source == "llm":
        cited = [
            (p.title, f"{p.abstract or ''} {r.statement or ''}")
            for c in sentence.cites
            if (r := retrieved.get(c))
            for p in [r.paper]
        ]
        failures += attribution_failures(sentence.text, cited, " ".join(venue_names))
    return failures


def verify_answer(searcher: Searcher, answer: Answer) -> list[str]:
    """Every failure of an answer checked against the store now: citations (in the store, of the answer's venues,
    retrieved), numbers (counts recomputed, the rest from cited papers) and each sentence's form."""
    store = searcher.store
    venues = answer.venues or [v.id for v in known_venues(store)]
    names = [v.name for v in known_venues(store) if v.id in venues]
    failures = citation_failures(store, {c for s in answer.sentences for c in s.cites}, venues)
    for count in answer.counts:
        if (now := _recount(searcher, count)) != count.value:
            failures.append(f"count of {count.phrase or 'all papers'} in {count.venue}: {count.value}, store: {now}")
    cited = {c for s in answer.sentences for c in s.cites}
    wholes = [c for c in answer.counts if c.decision is None and not c.scope]
    for venue in {c.venue for c in wholes} - {c.venue for c in wholes if c.value}:  # counted none: cites none
        if zero := sorted(r.paper.id for r in answer.papers if r.paper.venue == venue and r.paper.id in cited):
            failures.append(f"a count of 0 papers of {venue} is followed by papers of it: {', '.join(zero)}")
    for venue, group in {(key.split()[0], _group(key)) for key in answer.facts}:  # each group as it was computed
        shown = {k: v for k, v in answer.facts.items() if k.split()[0] == venue and _group(k) == group}
        base, _, qualifier = group.partition(":")  # "ratings:accepted": the ratings of the accepted papers
        facts_of = FACT_GROUPS.get(base)
        stored = facts_of(store, venue, *[qualifier][: bool(qualifier)]) if facts_of else {}
        if shown != {f"{venue} {k}": v for k, v in stored.items()}:
            failures.append(f"facts of {venue}: {shown}, store: {stored}")
    for sentence in answer.sentences:
        failures += [f"{sentence.text!r}: {f}" for f in sentence_failures(sentence, answer, names)]
    return failures


FACT_GROUPS: dict[str, Callable[[Any, str], dict[str, str]]] = {
    "": rate_facts,
    "institutions": institution_facts,
    "themes": venue_themes,
    "places": place_facts,
    "ratings": rating_facts,
}


def _group(key: str) -> str:
    """The group of an answer's fact ("iclr2021 institutions.top": institutions; "iclr2021 rate": the rate's)."""
    name = key.split(" ", 1)[1]
    return name.split(".", 1)[0] if "." in name else ""


def _recount(searcher: Searcher, count: Count) -> int:
    if count.author and count.person:
        papers = papers_of(searcher.store, count.venue, count.author, count.person)
        return count_of(papers, count.phrase, count.decision)
    if count.award:
        return count_of(awarded_papers(searcher.store, count.venue), count.phrase, count.decision)
    if count.institution:
        return count_of(papers_at(searcher.store, count.venue, count.institution), count.phrase, count.decision)
    return count_papers(searcher, count.venue, count.phrase, count.decision)
