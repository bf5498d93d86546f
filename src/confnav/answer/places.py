"""Institutions in a question: "papers from Google", "DeepMind's accepted papers" are read as the papers whose
affiliations name the institution (names normalised as the statistics report and the institution pages do), not
as words of a topic; their papers are counted per venue and cited."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from confnav.answer.authors import Named, count_of
from confnav.answer.known import accepted_only, decision_gap
from confnav.answer.model import DOES_NOT_SAY, Count, Sentence, decided
from confnav.answer.persons import PersonAnswer
from confnav.answer.question import EDGE_WORDS, QUESTION_WORDS, Question
from confnav.answer.retrieve import per_state
from confnav.institutions import institution_key, institution_keys, listed_institution, whole_institution
from confnav.model import Paper, fold, n_papers
from confnav.reports.institutions import Institution, institution_index, institution_profile, paper_affiliations
from confnav.reports.narrative import listing
from confnav.store import PaperFilter
from confnav.store.protocols import PaperReader

_WORD = re.compile(r"[^\W\d_][\w.\-&]*(?:'[^\W\d_]+)?")
SPAN = 6  # words an institution's name spans at most ("Max Planck Institute for Intelligent Systems")
CUE = re.compile(r"\b(?:from|by|at)\s+", re.I)  # "papers from X": X read as an institution
_THE = re.compile(r"the\s+", re.I)  # "papers from the X" too
LINKS = {"of", "for", "and", "de", "du", "la", "at"}  # lower-case words inside a name


@dataclass
class Place(Named):
    """An institution named in a question: the words as written, where they stand, and its key."""

    key: str = ""


@dataclass(frozen=True)
class Institutions:
    """The store's institutions: each key → the row keys of its papers, and every affiliation as spelt (folded)."""

    papers: dict[str, list[int]]
    spellings: frozenset[str]


def institutions(store: PaperReader) -> Institutions:
    """The store's institutions, read once per store state."""

    def read() -> Institutions:
        places = store.paper_places()
        return Institutions(institution_index(places), frozenset(fold(place) for place, _ in places))

    return per_state(store, "institutions", read)


def places_in(text: str, known: Callable[[], Institutions], not_places: Collection[str] = ()) -> list[Place]:
    """The spans of `text` that name an institution of the store (`known()`, read only when a span may be one): a
    whole run of capitalised words (lower-case links inside) that the institutions table names as a whole
    ("Stanford", "DeepMind's"), or that the data spells as an affiliation and the table names or "from", "by",
    "at" precede ("Google Research", "papers from Adobe Research"). No word of a venue's name (`not_places`) nor
    a question's own word ("Which") is taken for one; "Meta Learning" is no institution."""
    words = list(_WORD.finditer(text))
    cues = cued(text)

    def free(j: int) -> bool:  # a word that cannot continue a name: lower-case, a venue's or the question's
        word = words[j].group()
        return not word[:1].isupper() or fold(word) in not_places or word.lower() in QUESTION_WORDS

    found: list[Place] = []
    taken: set[int] = set()
    for size in range(SPAN, 0, -1):
        for i in range(len(words) - size + 1):
            span = words[i : i + size]
            if taken & set(range(i, i + size)) or not _capitalised([w.group() for w in span]):
                continue
            start, end = span[0].start(), span[-1].end()
            if re.search(r"[^\w\s.\-&']|\d", text[start:end]) or any(free(j) for j in (i, i + size - 1)):
                continue  # a name does not cross punctuation or digits
            if (i and not text[words[i - 1].end() : start].strip() and not free(i - 1)) or (
                i + size < len(words) and not text[end : words[i + size].start()].strip() and not free(i + size)
            ):
                continue  # part of a longer run of capitalised words ("Meta" of "Meta Learning")
            name = re.sub(r"'s$", "", text[start:end]).rstrip(".")
            key = institution_key(name)
            if key not in known().papers or _joined(name, known().papers):
                continue
            after_cue = start in cues or text[start:end].endswith("'s")
            spelt = fold(name) in known().spellings
            if whole_institution(name) or (spelt and (after_cue or listed_institution(name))):
                found.append(Place(name, start, end, key))
                taken |= set(range(i, i + size))
    found += _written_small(text, words, taken, known, cues)
    return sorted(found, key=lambda p: p.start)


def _written_small(
    text: str, words: list[re.Match[str]], taken: set[int], known: Callable[[], Institutions], cues: set[int]
) -> list[Place]:
    """Institutions written in lower case ("papers from google"): words the institutions table names as a whole,
    after "from", "by" or "at" and before the question's own words or its end ("from amazon reviews" is a topic)."""
    found = []
    for size in range(3, 0, -1):
        for i in range(len(words) - size + 1):
            if taken & set(range(i, i + size)) or any(w.group()[:1].isupper() for w in words[i : i + size]):
                continue
            start, end = words[i].start(), words[i + size - 1].end()
            after = words[i + size].group().lower() if i + size < len(words) else ""
            ends = not after or after in EDGE_WORDS or after in QUESTION_WORDS or bool(text[end : end + 1].strip())
            name = text[start:end]
            if start in cues and ends and whole_institution(name) and institution_key(name) in known().papers:
                found.append(Place(name, start, end, institution_key(name)))
                taken |= set(range(i, i + size))
    return found


def cued(text: str) -> set[int]:
    """Where a word after "from", "by" or "at" (and "the") may start, found in one pass over `text`: testing the
    text before each candidate span instead made a long question's cost grow with the square of its length."""
    starts = set()
    for cue in CUE.finditer(text):
        starts.add(cue.end())
        if the := _THE.match(text, cue.end()):
            starts.add(the.end())
    return starts


def _joined(name: str, known: Collection[str]) -> bool:
    """Whether a name is two institutions joined by "and" ("Google and DeepMind"), each to be read on its own."""
    parts = re.split(r"\s+and\s+", name)
    return len(parts) > 1 and all(institution_key(part) in known for part in parts)


def _capitalised(words: list[str]) -> bool:
    """Whether words can be an institution's name: the first and last capitalised, the rest too or links."""
    upper = [w[:1].isupper() for w in words]
    return upper[0] and upper[-1] and all(u or w.lower() in LINKS for w, u in zip(words, upper, strict=True))


def papers_at(store: PaperReader, venue: str, key: str, read: Iterable[Paper] | None = None) -> list[Paper]:
    """The papers of `venue` listing an affiliation of the institution `key` (placeholder records left out, as
    the statistics report counts), of `read` when the caller has read the institution's papers already."""
    papers = read if read is not None else store.papers_by_pk(institutions(store).papers.get(key, [])).values()
    return [
        p
        for p in papers
        if p.venue == venue and not p.placeholder and any(key in institution_keys(a) for a in paper_affiliations(p))
    ]


def place_coverage(store: PaperReader, venue: str) -> tuple[int, int]:
    """How many papers of `venue` list an affiliation, of how many (placeholders left out), once per store state."""

    def count() -> tuple[int, int]:
        papers = [p for p in store.iter_papers(venue) if not p.placeholder]
        return sum(bool(paper_affiliations(p)) for p in papers), len(papers)

    return per_state(store, f"places {venue}", count)


def place_facts(store: PaperReader, venue: str) -> dict[str, str]:
    """How many papers of a venue list an affiliation, of how many: the facts an answer about an institution
    shows when not all do."""
    listed, held = place_coverage(store, venue)
    return {"places.listed": f"{listed:,}", "places.papers": f"{held:,}"}


def answer_place(found: PersonAnswer, place: Place, read: Question, venues: Sequence[str]) -> None:
    """The papers of the institution per venue (holding the topic, if any), and of the decision asked about
    (accepted when none is), each count citing some of the papers it counts; venues without affiliations, or with
    affiliations for under half their papers and none of the institution's, say so; venues not asked about where
    none of its papers holds the topic are named in one sentence."""
    store = found.store
    pks = institutions(store).papers.get(place.key, [])
    mine = institution_profile(place.name, store.papers_by_pk(pks).values())
    if not venues and (lacking := [v.name for v in store.venue_list() if not place_coverage(store, v.id)[0]]):
        said = f"{DOES_NOT_SAY} which papers of {listing(lacking, 'or')} come from {mine.name}:"
        said += f" {'its' if len(lacking) == 1 else 'their'} data gives no affiliations."
        found.sentences.append(Sentence(said, [], "count"))
    held = {v.venue for v in mine.venues}
    for venue in [] if venues else [v.id for v in store.venue_list() if v.id not in held]:
        listed, papers = place_coverage(store, venue)
        if 0 < listed < papers / 2:  # its data names too few places for "none of them" to mean anything
            found.facts |= {f"{venue} {k}": v for k, v in place_facts(store, venue).items()}
            said = f"{DOES_NOT_SAY} which papers of {store.get_venue(venue).name} come from {mine.name}: its data"
            said += f" gives affiliations for only {listed:,} of its {n_papers(papers)}."
            found.sentences.append(Sentence(said, [], "count"))
    none = []
    for venue in venues or [v.venue for v in mine.venues]:
        title = store.get_venue(venue).name
        if not place_coverage(store, venue)[0]:
            said = f"{DOES_NOT_SAY} which papers of {title} come from {mine.name}: its data gives no affiliations."
            found.sentences.append(Sentence(said, [], "count"))
        elif not _venue_counted(found, mine, place.key, venue, read, asked=bool(venues)):
            none.append(title)
    if none:
        said = f"No paper of {listing(none, 'or')} in the store listing an affiliation with {mine.name} contains"
        found.sentences.append(Sentence(f"{said} “{read.topic}” in its title, abstract or keywords.", [], "count"))


def _venue_counted(found: PersonAnswer, mine: Institution, key: str, venue: str, read: Question, asked: bool) -> bool:
    """Count and cite the institution's papers of one venue; False (counted, not said) when the venue was not
    asked about and none of them holds the topic."""
    store, decision, phrase = found.store, read.decision or "accepted", read.topic or None
    info = store.get_venue(venue)
    venue = info.id
    papers, name = papers_at(store, venue, key, mine.papers), mine.name
    whole = count_of(papers, phrase, None)
    found.counts.append(Count(venue, phrase, None, whole, institution=key))
    if phrase and not whole and not asked:
        return False
    one = whole == 1
    text = f"{n_papers(whole)} of {info.name} in the store list{'s' * one}"
    text += (
        f" {'an affiliation' if one else 'affiliations'} with {name} (names normalised as the statistics report does"
    )
    listed, held = place_coverage(store, venue)
    if listed < held:
        found.facts |= {f"{venue} {k}": v for k, v in place_facts(store, venue).items()}
        text += f"; only {listed:,} of its {n_papers(held)} list{'s' * (listed == 1)} any affiliation"
    text += ")"
    if phrase:
        text += f" and contain{'s' * one} “{phrase}” in {'its' if one else 'their'} title, abstract or keywords"
    gap = decision_gap(store, venue, decision)
    if not gap and whole:
        value = count_of(papers, phrase, decision)
        found.counts.append(Count(venue, phrase, decision, value, institution=key))
        text += f"; {value:,} of them {decided(decision, value)}"
        if decision == "accepted" and accepted_only(store, venue):
            text += " (its data lists accepted papers only)"
    counted = [p for p in papers if count_of([p], phrase, None)]
    found.sentences.append(Sentence(f"{text}.", found.cite(counted, PaperFilter(decision=decision)), "count"))
    if gap and read.decision:
        found.sentences.append(Sentence(f"{DOES_NOT_SAY} how many of them {decided(decision)}: {gap}.", [], "count"))
    return True
