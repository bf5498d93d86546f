"""Questions a topic search does not answer: a venue's acceptance rate (from the facts the stats report shows), the
decision of a paper named by its title (correcting a false premise), and what the store does not hold at all
(when or where a conference took place), which gets "the store does not say" rather than papers that merely share
a word with the question (awards: awards.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from confnav.answer.awards import award_words
from confnav.answer.known import accepted_only, decision_gap
from confnav.answer.model import DOES_NOT_SAY, Answer, Count, Part, Retrieved, Sentence
from confnav.answer.retrieve import per_state
from confnav.errors import NotFoundError
from confnav.institutions import ACADEMIC, INDUSTRY, UNKNOWN, institution_kind
from confnav.model import Outcome, Paper, fold
from confnav.reports.facts import rate_basis
from confnav.reports.narrative import listing
from confnav.reports.prose import paper_name
from confnav.reports.stats import accepted_by_institution, counted_papers
from confnav.store import PaperFilter
from confnav.store.protocols import AnalysisStore, PaperReader
from confnav.topics.facts import theme_facts

RATE = re.compile(r"\bacceptance (?:rates?|ratios?)\b|\bhow (?:selective|competitive)\b", re.I)
# What the store holds no record of, and how to say so.
UNHELD = [
    (
        re.compile(r"^\W*(?:when|where) (?:is|was|will)\b|\b(?:held|took place|take place|located|location)\b", re.I),
        "when or where a conference took place",
    ),
]
HOLDS = "it holds the venues' papers, their authors and decisions (and reviews where the data has them)"
NAMED = 3  # papers named by their title an answer gives at most
Statement = Callable[[Paper], tuple[str | None, str]]  # a paper's one-line statement and where it comes from
TITLE_WORDS = 3  # a title this long at least is looked for in a question (shorter ones are common phrases)


def unheld(text: str) -> str | None:
    """Why the store cannot answer a question about something it holds no record of; None when it may."""
    for cue, what in UNHELD:
        if cue.search(text):
            return f"{DOES_NOT_SAY}: {HOLDS}, not {what}."
    return None


def rate_facts(store: PaperReader, venue: str) -> dict[str, str]:
    """The venue's acceptance rate as the stats report counts it: accepted, the basis in words and the rate;
    empty when the data gives no rate (see decision_gap)."""
    decisions = [d for d, n in store.decision_counts(venue) for _ in range(n)]
    if decision_gap(store, venue, Outcome.NOT_ACCEPTED.value):
        return {}
    accepted, decided = sum(d.accepted for d in decisions), sum(d.decided for d in decisions)
    if not decided:
        return {}
    rate = f"{100 * accepted / decided:.1f}%"
    return {"accepted": f"{accepted:,}", "basis": rate_basis(decisions), "rate": rate}


# "which institution has the most papers", "the universities with the most accepted papers", "the company ..."
INSTITUTIONS = re.compile(
    r"\b(?:institutions?|universit(?:y|ies)|compan(?:y|ies)|labs?|organi[sz]ations?|affiliations?)\b.*\bmost\b"
    r"|\bmost\b.*\b(?:institutions?|universit(?:y|ies)|compan(?:y|ies)|labs?|organi[sz]ations?)\b",
    re.I,
)


# The kind of institution a question asks about, by its words (institutions.institution_kind reads names).
KIND_WORDS = {
    ACADEMIC: re.compile(r"\b(?:universit(?:y|ies)|academi[ac]|academia|colleges?)\b", re.I),
    INDUSTRY: re.compile(r"\b(?:compan(?:y|ies)|industry|industrial|corporat(?:e|ions?)|firms?|businesses)\b", re.I),
}
KIND_NOUNS = {ACADEMIC: ("academic institution", "academic institutions"), INDUSTRY: ("company", "companies")}


def asked_kind(text: str) -> str:
    """The kind of institution a question asks about: academic, industry, or "" (any, or both named)."""
    kinds = [kind for kind, words in KIND_WORDS.items() if words.search(text)]
    return kinds[0] if len(kinds) == 1 else ""


def institution_facts(store: PaperReader, venue: str, kind: str = "") -> dict[str, str]:
    """The institutions (of `kind` only, when given, told by their names) with the most accepted papers of a venue
    and how many, as the statistics report counts them (names normalised); for a kind, also how many institutions
    have accepted papers and how many of them are of unknown kind. Empty when its data gives no affiliations."""
    tally = accepted_by_institution(counted_papers(store, venue))
    if not tally:
        return {}
    kinds = {name: institution_kind(name) for name in tally}
    kept = {name: n for name, n in tally.items() if not kind or kinds[name] == kind}
    key = f"institutions:{kind}" if kind else "institutions"
    facts = {}
    if kept:
        most = max(kept.values())
        facts[f"{key}.top"] = "; ".join(sorted(name for name, n in kept.items() if n == most))
        facts[f"{key}.papers"] = f"{most:,}"
    if kind:
        facts[f"{key}.counted"] = f"{len(tally):,}"
        facts[f"{key}.unknown"] = f"{sum(k == UNKNOWN for k in kinds.values()):,}"
    return facts


def answer_institutions(store: PaperReader, answer: Answer, venues: Sequence[str], kind: str = "") -> None:
    """One sentence per venue: the institution (of the kind asked) with the most accepted papers, or why the data
    cannot say; for a kind, how many institutions were of unknown kind and so not counted."""
    one, many = KIND_NOUNS.get(kind, ("institution", "institutions"))
    key = f"institutions:{kind}" if kind else "institutions"

    def said(venue: str, name: str, facts: dict[str, str]) -> str:
        if f"{key}.top" in facts:
            top = facts[f"{key}.top"].split("; ")
            text = f"The {many if len(top) > 1 else one} with the most accepted papers of {name} in the store:"
            text += f" {' and '.join(top)}, with {facts[f'{key}.papers']}{' each' if len(top) > 1 else ''}"
        else:
            article = "an" if one[0] in "aeiou" else "a"
            text = f"No institution with accepted papers of {name} in the store is {article} {one} by its name"
        text += " (names normalised as the statistics report does"
        if kind:
            text += f"; {many} told by the words of their names, never guessed: {facts[f'{key}.unknown']} of the"
            text += f" {facts[f'{key}.counted']} institutions with accepted papers are of unknown kind, counted in none"
        text += ")"
        return text + ("; its data lists accepted papers only" if accepted_only(store, venue) else "")

    def lacking(venue: str, name: str) -> str:
        return f"which {one} has the most papers of {name}: its data gives no affiliations"

    _per_venue(store, answer, venues, lambda venue: institution_facts(store, venue, kind), lacking, said)


# "What are the main themes of V?", "its largest topics": the venue's themes as `confnav topics` built them.
THEMES = re.compile(r"\b(?:themes?|topics?|research areas?)\b", re.I)
THEMES_SHOWN = 5


def venue_themes(store: AnalysisStore, venue: str) -> dict[str, str]:
    """A venue's largest themes and their sizes; empty when its themes are not built."""
    try:
        found = sorted((t for t in theme_facts(store, venue, level=1)), key=lambda t: -t.size)[:THEMES_SHOWN]
    except NotFoundError:
        return {}
    return {"themes.top": "; ".join(t.label for t in found), "themes.sizes": "; ".join(f"{t.size:,}" for t in found)}


def answer_themes(store: AnalysisStore, answer: Answer, venues: Sequence[str]) -> None:
    """One sentence per venue: its largest themes with their sizes, or that they are not built yet."""

    def said(venue: str, name: str, facts: dict[str, str]) -> str:
        labels, sizes = facts["themes.top"].split("; "), facts["themes.sizes"].split("; ")
        sized = [f"{label} ({size} papers)" for label, size in zip(labels, sizes, strict=True)]
        are = "themes of {} in the store are" if len(sized) > 1 else "theme of {} in the store is"
        return f"The largest {are.format(name)} {listing(sized)}"

    def lacking(venue: str, name: str) -> str:
        return f"what the themes of {name} are: they are not built yet (confnav topics --venue {venue})"

    _per_venue(store, answer, venues, lambda venue: venue_themes(store, venue), lacking, said)


def answer_rate(store: PaperReader, answer: Answer, venues: Sequence[str]) -> None:
    """One sentence per venue: its acceptance rate and what it counts, or why the data gives none."""

    def said(venue: str, name: str, facts: dict[str, str]) -> str:
        answer.counts.append(Count(venue, None, "accepted", int(facts["accepted"].replace(",", ""))))
        text = f"The acceptance rate of {name} in the store is {facts['rate']}: {facts['accepted']} papers accepted"
        return f"{text} {facts['basis']}"

    def lacking(venue: str, name: str) -> str:
        gap = decision_gap(store, venue, Outcome.NOT_ACCEPTED.value) or "its data gives no decided submissions"
        return f"what the acceptance rate of {name} was: {gap}"

    _per_venue(store, answer, venues, lambda venue: rate_facts(store, venue), lacking, said)


def _per_venue(
    store: PaperReader,
    answer: Answer,
    venues: Sequence[str],
    facts_of: Callable[[str], dict[str, str]],
    lacking: Callable[[str, str], str],
    said: Callable[[str, str, dict[str, str]], str],
) -> None:
    """One counted sentence per venue from its facts (kept in the answer, which verify recomputes), or what the
    store does not say of it."""
    sentences = []
    for venue in venues:
        name = store.get_venue(venue).name
        if not (facts := facts_of(venue)):
            sentences.append(Sentence(f"{DOES_NOT_SAY} {lacking(venue, name)}.", [], "count"))
            continue
        answer.facts.update({f"{venue} {k}": v for k, v in facts.items()})
        sentences.append(Sentence(f"{said(venue, name, facts)}.", [], "count"))
    answer.parts.append(Part(None, sentences))


def titles(store: PaperReader) -> dict[str, list[Paper]]:
    """The store's papers by folded title (titles of TITLE_WORDS words or more), read once per store state."""

    def read() -> dict[str, list[Paper]]:
        found: dict[str, list[Paper]] = {}
        for venue in store.venue_list():
            for paper in store.iter_papers(venue.id):
                if len(key := fold(paper.title)) >= 12 and len(key.split()) >= TITLE_WORDS:
                    found.setdefault(key, []).append(paper)
        return found

    return per_state(store, "titles", read)


def named_papers(store: PaperReader, text: str, venues: Sequence[str]) -> list[Paper]:
    """The papers (of `venues`, when given) whose whole title the question holds, the longest title first; else,
    in a question about a paper's decision or ratings, the one paper whose title's name it holds ("RoboCook")."""
    asked = f" {fold(text)} "
    found = [p for key, ps in titles(store).items() if f" {key} " in asked for p in ps]
    found = [p for p in found if not venues or p.venue in venues]
    if not found and ABOUT_A_PAPER.search(text):
        named = [p for name, ps in paper_names(store).items() if re.search(rf"\b{re.escape(name)}\b", text) for p in ps]
        found = [p for p in named if not venues or p.venue in venues]
        found = found if len({(p.venue, p.id) for p in found}) == 1 else []  # a name two papers share names neither
    return sorted(found, key=lambda p: -len(p.title))


ABOUT_A_PAPER = re.compile(r"\b(?:decision|accepted|rejected|ratings?|scores?|reviews?|get|got)\b", re.I)


def paper_names(store: PaperReader) -> dict[str, list[Paper]]:
    """The store's papers by the name their title gives them ("RoboCook: …"), or by a whole title too short to be
    looked for as one ("Spherical CNNs"), matched as written; read once per store state."""

    def read() -> dict[str, list[Paper]]:
        found: dict[str, list[Paper]] = {}
        for venue in store.venue_list():
            for paper in store.iter_papers(venue.id):
                short = " ".join(paper.title.split()) if len(paper.title.split()) < TITLE_WORDS else None
                if (name := paper_name(paper.title) or short) and len(name) >= 4:
                    found.setdefault(name, []).append(paper)
        return found

    return per_state(store, "paper names", read)


def decided(paper: Paper) -> str:
    """The paper's decision in words, and its reviewers' ratings when the store has them: "was accepted (oral);
    its ratings: 6, 6, 10, 10 (mean 8.00)", "was rejected", "has no decision in the store"."""
    d = paper.decision
    if d.accepted:
        said = f"was accepted ({d.name})"
    elif d.outcome is Outcome.UNKNOWN:
        said = "has no decision in the store"
    else:
        said = {"reject": "was rejected", "withdrawn": "was withdrawn", "desk-reject": "was desk-rejected"}.get(
            d.kind, f"has the decision {d.name} ({d.outcome.label})"
        )
    if paper.ratings and paper.rating_mean is not None:
        shown = ", ".join(f"{r:g}" for r in paper.ratings)
        said += f"; its ratings: {shown} (mean {paper.rating_mean:.2f})"
    if paper.award:
        said += f"; its data marks it with {award_words(paper)}"
    return said


def answer_papers(
    store: PaperReader, answer: Answer, papers: list[Paper], decision: str | None, statement: Statement
) -> None:
    """The decision of each paper named, each cited with its one-line statement; when the question says they had
    a decision none of them had, that the store records otherwise."""
    wrong = decision is not None and not any(PaperFilter(decision=decision).admits(p.decision) for p in papers)
    sentences = []
    for paper in papers[:NAMED]:
        said = f"“{paper.title.rstrip('. ')}” ({store.get_venue(paper.venue).name}) {decided(paper)}"
        said = f"The store records no such decision: {said}" if wrong else said
        sentences.append(Sentence(f"{said}.", [paper.id], "paper"))
        tldr, source = statement(paper)
        answer.papers.append(Retrieved(paper, 1.0, 1.0, tldr, source, ""))
    answer.parts.append(Part(None, sentences))
