"""`ask`: a question answered from the store. The papers that bear on it (hybrid search, kept when relevant, see
retrieve.py), grouped by what they do (their theme or sub-theme when the venue has themes, else a keyword they
share), each with its one-line statement from its own text; the counts a counting question asks for; "the store
does not say" when the question is about a venue the store lacks or nothing relevant is found. With an LLM
(written.py) the paragraphs are the model's prose, checked sentence by sentence."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Protocol, cast

import numpy as np

from confnav.answer.authors import MOST, Named, author_names, names_in, without
from confnav.answer.awards import AWARDS, answer_awards, awarded_papers, no_awards
from confnav.answer.known import accepted_only, decision_gap, submissions_gap
from confnav.answer.model import DOES_NOT_SAY, Answer, Count, Part, Retrieved, Sentence
from confnav.answer.model import decided as decided_words
from confnav.answer.outside import (
    INSTITUTIONS,
    RATE,
    THEMES,
    answer_institutions,
    answer_papers,
    answer_rate,
    answer_themes,
    asked_kind,
    named_papers,
    unheld,
)
from confnav.answer.persons import PersonAnswer
from confnav.answer.places import Place, answer_place, institutions, places_in
from confnav.answer.question import Question, read_question
from confnav.answer.retrieve import (
    POOL,
    RELEVANT,
    count_with,
    coverage,
    decision_names,
    known_venues,
    per_state,
    term_weights,
)
from confnav.answer.scope import say_filter
from confnav.answer.statistics import RATING, answer_ratings, asks_statistic, pointer
from confnav.answer.written import write_answer
from confnav.errors import ConfnavError
from confnav.model import Paper, fold, n_papers
from confnav.personal.recommend import profile_taste
from confnav.search.engine import Searcher
from confnav.search.query import check_length, parse_query
from confnav.search.text import terms
from confnav.store import PaperFilter
from confnav.store.protocols import AnalysisStore, NewsStore, PaperReader, ProfileStore
from confnav.summarize.base import labelled_tldr
from confnav.summarize.llm import ChatClient
from confnav.summarize.stored import venue_summarizer
from confnav.summarize.tldr import ExtractiveSummarizer

SHOWN = 12  # papers an answer cites at most
GROUPS = 4  # groups by a shared keyword at most; the rest are "other papers"


class AskStore(AnalysisStore, NewsStore, ProfileStore, Protocol):
    """A store with papers, vectors, themes and profiles."""


def ask(
    searcher: Searcher,
    question: str,
    venue: str | None = None,
    profile: str | None = None,
    client: ChatClient | None = None,
) -> Answer:
    """The answer to `question` over `venue` (None: the venues it names, else the whole store), its papers ordered
    for `profile` when given: extractive, or with `client` the LLM's prose checked sentence by sentence."""
    if not question.strip():
        raise ConfnavError('ask needs a question, e.g. confnav ask "which papers make attention linear?"')
    check_length(question)  # before reading names and places in it, whose cost grows with its length
    store = cast(AskStore, searcher.store)
    known = known_venues(store)
    if venue:
        venue = store.get_venue(venue).id  # an unknown venue: NotFoundError naming it
    named = names_in(question, author_names(store))
    rest = without(question, named)
    series = {fold(word) for v in known for word in (v.name, v.name.split()[0], v.id)}
    places = places_in(rest, lambda: institutions(store), series)
    read = read_question(without(rest, places), known, decision_names(store))
    venues = [venue] if venue else read.venues
    answer = Answer(" ".join(question.split()), venues)
    if read.unknown_venues:
        lacking = f"it holds no papers of {', '.join(read.unknown_venues)}"
        if venues:  # answered from the venues it holds, saying which it lacks
            answer.notices.append(f"{DOES_NOT_SAY.lower()} about all the venues asked: {lacking}")
        else:
            answer.unanswered = f"{DOES_NOT_SAY}: {lacking} (its venues: {', '.join(v.name for v in known)})."
            return answer
    if read.refused:  # "not rejected": a set of papers no decision names
        answer.unanswered = (
            f"{DOES_NOT_SAY} which papers were not {read.refused}: it finds papers by the decision they were given"
            " (accepted, not accepted, or a venue's own, which confnav decisions lists), not by one they were not."
        )
        return answer
    gaps = [g for v in venues if (g := decision_gap(store, v, read.decision))] if read.decision else []
    if venues and len(gaps) == len(venues) and not read.counting:  # no paper of them can have the decision
        answer.unanswered = f"{DOES_NOT_SAY} which papers {decided_words(read.decision)}: {'; '.join(gaps)}."
        return answer
    if RATE.search(read.text):
        answer_rate(store, answer, venues or [v.id for v in known])
        return answer
    if asks_statistic(read.text):  # "the mean rating of accepted papers": the stats report's numbers, or where
        plain = read_question(RATING.sub(" ", without(rest, places)), known, decision_names(store))
        if RATING.search(read.text) and not (plain.topic_terms or named or places):
            answer_ratings(store, answer, venues or [v.id for v in known], read.decision)
        else:
            answer.unanswered = pointer(venues)
        return answer
    if INSTITUTIONS.search(read.text):
        answer_institutions(store, answer, venues or [v.id for v in known], asked_kind(read.text))
        return answer
    if THEMES.search(read.text) and not read.topic_terms and not named:  # "the main themes of V": no topic asked
        answer_themes(store, answer, venues or [v.id for v in known])
        return answer
    titled = named_papers(store, question, venues)  # a title ("… Wins …") before the questions the store cannot answer
    asked = venues or [v.id for v in known]
    if not titled and AWARDS.search(read.text) and not any(awarded_papers(store, v) for v in asked):
        answer.unanswered = no_awards(store, asked)
        return answer
    if not titled and AWARDS.search(read.text):
        topic = read_question(AWARDS.sub(" ", without(rest, places)), known, decision_names(store)).topic
        found = PersonAnswer(searcher.store, lambda p: _statement(searcher, p), SHOWN)
        answer_awards(found, asked, topic or None)
        answer.counts, answer.papers = found.counts, found.papers
        answer.parts = [Part(None, found.sentences), *_groups(store, answer, read, False)]
        return write_answer(searcher, answer, client) if client else answer
    if not titled and (reason := unheld(read.text)):
        answer.unanswered = reason
        return answer
    if titled:
        answer_papers(store, answer, titled, read.decision, lambda p: _statement(searcher, p))
        answer.parts.append(Part(None, [item.sentence() for item in answer.papers]))
        return write_answer(searcher, answer, client) if client else answer
    if named or places or MOST.search(read.text):
        return _about_people(searcher, answer, read, named, places, venues or [v.id for v in known], client)
    if read.topic_terms:
        answer.papers = _retrieve(searcher, read, venues, profile)
    if profile and answer.papers:
        answer.profile = profile
        answer.notices.append(
            f"ordered for the profile {profile!r}: among the papers equally relevant to the question, those closest"
            " to its papers come first, each naming the paper of the profile it is close to"
        )
    if read.counting:
        answer.counts = _counts(searcher, read, venues or [v.id for v in known])
        answer.papers = [r for r in answer.papers if _counted(answer.counts, r.paper)]  # a count of 0 cites none
        answer.parts.append(Part(None, _count_sentences(store, answer, read) + _submissions(store, read, venues)))
    elif read.submitted:
        answer.notices += [s.text.rstrip(".") for s in _submissions(store, read, venues)]
    if not answer.papers and not answer.counts:
        scope = " or ".join(store.get_venue(v).name for v in venues) if venues else "the store"
        what = f"is about “{read.topic}”" if read.topic else "answers this"
        answer.unanswered = f"{DOES_NOT_SAY}: no paper of {scope} {what}."
        return answer
    say_filter(searcher, answer, read.decision, venues)
    answer.parts += _groups(store, answer, read)
    return write_answer(searcher, answer, client) if client else answer


def _about_people(
    searcher: Searcher,
    answer: Answer,
    read: Question,
    named: list[Named],
    places: list[Place],
    venues: list[str],
    client: ChatClient | None,
) -> Answer:
    """An answer about the people or institutions named (their papers counted and cited), or about who has the
    most papers."""
    found = PersonAnswer(searcher.store, lambda p: _statement(searcher, p), SHOWN)
    for person in named:
        found.named(person, read, venues if answer.venues else [])
    for place in places if not named else []:  # people named narrow more than where they work
        answer_place(found, place, read, venues if answer.venues else [])
    if not named and not places:
        for venue in venues:
            found.most(venue)
    answer.counts, answer.papers, answer.facts = found.counts, found.papers, found.facts
    found.sentences += _submissions(searcher.store, read, venues if answer.venues else [])
    answer.parts = [Part(None, found.sentences), *_groups(cast(AskStore, searcher.store), answer, read, False)]
    return write_answer(searcher, answer, client) if client else answer


def _statement(searcher: Searcher, paper: Paper) -> tuple[str | None, str]:
    tldr = labelled_tldr(_summarizer(searcher, paper.venue), paper)
    return tldr.tldr, tldr.source


def _retrieve(searcher: Searcher, read: Question, venues: list[str], profile: str | None) -> list[Retrieved]:
    """The relevant hits of the hybrid search for the topic, best first; for a profile, every relevant hit of the
    pool, those closest to the profile first among the equally relevant, the first SHOWN kept."""
    weights = term_weights(searcher, read.topic_terms)
    where = PaperFilter(venue=venues[0] if len(venues) == 1 else None, decision=read.decision)
    results = searcher.search(read.topic, where=where, limit=POOL, sort="rating" if read.rated else "relevance")
    kept: list[Retrieved] = []
    for hit in results.hits:
        paper = hit.paper
        if venues and paper.venue not in venues:
            continue
        share = coverage(weights, paper.title, paper.abstract or "", paper.keywords)
        if share < RELEVANT or hit.score <= 0:
            continue
        tldr = labelled_tldr(_summarizer(searcher, paper.venue), paper)
        kept.append(Retrieved(paper, hit.score, share, tldr.tldr, tldr.source, "", rated=read.rated))
        if len(kept) >= SHOWN and not profile:
            break
    if profile and kept:
        _for_profile(cast(AskStore, searcher.store), kept, profile, venues)
    return kept[:SHOWN]


def _summarizer(searcher: Searcher, venue: str) -> ExtractiveSummarizer:
    """The venue's summarizer with its kept TL;DRs, read once per store state."""
    return per_state(searcher.store, f"tldrs {venue}", lambda: venue_summarizer(searcher.store, venue))


def _for_profile(store: AskStore, kept: list[Retrieved], profile: str, venues: list[str]) -> None:
    """Order the papers for the profile: the more relevant first (the share of the question's weight their own text
    covers), and among the equally relevant by search score blended half and half with closeness to the profile;
    each says which of the profile's papers it is closest to (as the personal must-read does)."""
    taste = profile_taste(store, profile, venues[0] if len(venues) == 1 else None, include_rejected=True)
    index = {p.id: i for i, p in enumerate(taste.papers)}
    above = np.maximum(0.0, taste.scores - float(np.mean(taste.scores))) if len(taste.scores) else taste.scores
    top_taste, top_score = float(above.max()) if len(above) else 0.0, max(r.score for r in kept) or 1.0
    blended = {}
    for item in kept:
        i = index.get(item.paper.id)
        share = float(above[i]) / top_taste if i is not None and top_taste else 0.0
        blended[item.paper.id] = 0.5 * item.score / top_score + 0.5 * share
        item.close_to = taste.reason(i) if i is not None and share > 0 else None
    kept.sort(key=lambda r: (-round(r.relevance, 6), -blended[r.paper.id]))


def _counts(searcher: Searcher, read: Question, venues: list[str]) -> list[Count]:
    """For each venue: the papers containing the topic (all papers when there is none), and those of the decision
    asked about."""
    counts = []
    phrase = read.topic or None
    for venue in venues:
        asked = read.decision and not decision_gap(searcher.store, venue, read.decision)
        decisions = [None, read.decision] if asked else [None]
        values = count_with(searcher, venue, phrase, decisions)
        counts += [Count(venue, phrase, d, n) for d, n in zip(decisions, values, strict=True)]
    return counts


def _counted(counts: list[Count], paper: Paper) -> bool:
    """Whether the counts of the paper's venue count it: it holds their phrase and has their decision. The papers
    a counting answer shows are these, so that no sentence shows a paper its count leaves out (or any, for 0)."""
    mine = [c for c in counts if c.venue == paper.venue]
    return bool(mine) and all(
        c.value > 0
        and PaperFilter(decision=c.decision).admits(paper.decision)
        and (
            not c.phrase or parse_query(f'"{c.phrase}"').matches(paper.title, paper.abstract or "", paper.keywords, [])
        )
        for c in mine
    )


def _submissions(store: PaperReader, read: Question, venues: list[str]) -> list[Sentence]:
    """For a question about submissions, one sentence per venue whose data cannot say how many were submitted."""
    asked = venues or [v.id for v in known_venues(store)] if read.submitted else []
    return [
        Sentence(f"{DOES_NOT_SAY} how many papers were submitted to {store.get_venue(v).name}: {gap}.", [], "count")
        for v in asked
        if (gap := submissions_gap(store, v))
    ]


def _count_sentences(store: AskStore, answer: Answer, read: Question) -> list[Sentence]:
    """One sentence per venue counted, citing up to three of the answer's papers that the count includes."""
    sentences = []
    by_venue: dict[str, list[Count]] = defaultdict(list)
    for count in answer.counts:
        by_venue[count.venue].append(count)
    for venue, (whole, *decided) in by_venue.items():
        name = store.get_venue(venue).name
        said = parse_query(f'"{whole.phrase}"') if whole.phrase else None  # cite only papers the count counts
        examples = [
            r.paper.id
            for r in answer.papers
            if r.paper.venue == venue
            and (said is None or said.matches(r.paper.title, r.paper.abstract or "", r.paper.keywords, []))
        ][:3]
        one = whole.value == 1
        if whole.phrase:
            where = f"in {'its' if one else 'their'} title, abstract or keywords"
            text = f"{n_papers(whole.value)} of {name} in the store contain{'s' * one} “{whole.phrase}” {where}"
        else:
            text = f"The store holds {n_papers(whole.value)} of {name}"
        if decided:
            text += f"; {decided[0].value:,} of them {decided_words(decided[0].decision, decided[0].value)}"
            if decided[0].decision == "accepted" and accepted_only(store, venue):
                text += " (its data lists accepted papers only)"
        sentences.append(Sentence(f"{text}.", examples if whole.phrase else [], "count"))
        if read.decision and not decided and (gap := decision_gap(store, venue, read.decision)):
            sentences.append(
                Sentence(f"{DOES_NOT_SAY} how many of them {decided_words(read.decision)}: {gap}.", [], "count")
            )
    return sentences


def _groups(store: AskStore, answer: Answer, read: Question, themes: bool = True) -> list[Part]:
    """The papers in paragraphs by their theme or sub-theme, else by a keyword they share; broad questions open
    with the themes most of the papers fall in (unless not `themes`: papers chosen by author, not by topic)."""
    themed = _theme_groups(store, answer.papers)
    labels = themed if themed is not None else _keyword_groups(answer.papers, set(read.topic_terms))
    order: dict[str, list[Retrieved]] = {}
    for item in answer.papers:
        item.group = labels.get(item.paper.id, "Other papers")
        order.setdefault(item.group, []).append(item)
    parts = []
    if themes and read.broad and len(order) > 1 and themed is not None:
        named = [g for g in order if g != "Other papers"][:3]
        cites = [order[g][0].paper.id for g in named]
        listed = ", ".join(f"“{g}”" for g in named[:-1]) + f" and “{named[-1]}”" if len(named) > 1 else f"“{named[0]}”"
        parts.append(Part(None, [Sentence(f"These papers fall mostly under {listed}.", cites, "paper")]))
    for group, items in order.items():
        sentences = [item.sentence() for item in items]
        parts.append(Part(group, sentences))
    return parts


def _theme_groups(store: AskStore, papers: list[Retrieved]) -> dict[str, str] | None:
    """Each paper's theme label (its sub-theme's when all share one theme), or None when no venue has themes."""
    by_venue: dict[str, list[str]] = defaultdict(list)
    for item in papers:
        by_venue[item.paper.venue].append(item.paper.id)
    assigned: dict[str, tuple[tuple[str, str], ...]] = {}
    names: dict[tuple[str, str], str] = {}  # by venue and theme id: two venues' themes share ids
    for venue, ids in by_venue.items():
        themes = store.themes(venue)
        if not themes:
            continue
        label = {t.id: t.label for t in themes}
        prefix = f"{store.get_venue(venue).name}: " if len(by_venue) > 1 else ""
        for paper_id, ids_of in store.themes_of(venue, ids).items():
            assigned[paper_id] = tuple((venue, i) for i in ids_of)
            names.update({(venue, i): prefix + _capital(label.get(i, i)) for i in ids_of})
    if not assigned:
        return None
    level = 1 if len({ids[0] for ids in assigned.values()}) > 1 else -1
    return {pid: names[ids[level] if level < len(ids) else ids[0]] for pid, ids in assigned.items()}


def _capital(label: str) -> str:
    return label[:1].upper() + label[1:]


def _keyword_groups(papers: list[Retrieved], topic: set[str]) -> dict[str, str]:
    """Papers grouped greedily by the keyword most of the ungrouped ones share (two at least), keywords that only
    restate the question left out."""
    keywords = {
        item.paper.id: {fold(k) for k in item.paper.keywords if k.strip() and not set(terms(k)) <= topic}
        for item in papers
    }
    groups: dict[str, str] = {}
    for _ in range(GROUPS):
        tally = Counter(k for pid, ks in keywords.items() if pid not in groups for k in ks)
        if not tally or (best := min(tally.items(), key=lambda kv: (-kv[1], kv[0])))[1] < 2:
            break
        for pid, ks in keywords.items():
            if pid not in groups and best[0] in ks:
                groups[pid] = f"Papers on {best[0]}"
    return groups
