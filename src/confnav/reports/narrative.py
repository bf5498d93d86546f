"""The overview told as a reader wants it: each theme's paragraph says what the theme holds (its size, its
sub-themes, how it fared in review), why its leading papers lead in the ranking's mode, which of them share a
method, task or dataset (from their own keywords and text) and how they differ, then what further papers do,
within a reader's length (WORDS).

Every number is a {key} placeholder the verifier recomputes, and every paper is an inline [[cite:ID]] mark; no
sentence opens on a connective or pointer (faults.py), and no fact is said twice in one report.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from confnav.model import Paper
from confnav.rank.mode import RankMode
from confnav.rank.ranker import RankedPaper
from confnav.reports.faults import dangles, plain_prose, word_count
from confnav.reports.model import Citation
from confnav.reports.prose import GENERIC_NAMES, paper_name, paper_sentence, paper_sentences, paper_subject
from confnav.summarize.checked import NAME
from confnav.topics.facts import ThemeFacts
from confnav.topics.fidelity import parts

WORDS = (150, 250)  # a theme's paragraph: at least the first, never more than the second
SUBTHEMES_NAMED = 4
RELATED = 3  # papers one sentence relates
RATE_GAP = 0.02  # a theme's acceptance rate further than this from the venue's is "above" or "below" it
SHARED_MAX = 0.05  # a shared phrase used by more than this share of the venue says nothing about two papers
_DATA_CUE = re.compile(r"\b(?:on|datasets?|benchmarks?|suites?|tasks?)\b", re.I)


@lru_cache(maxsize=65536)
def stems(phrase: str) -> frozenset[str]:
    """A phrase's words, lower case, a plural "s" dropped: "Graph Neural Networks" and "graph neural network" meet."""
    tokens = phrase.lower().replace("-", " ").split()
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in tokens)


def paper_terms(paper: Paper) -> dict[frozenset[str], tuple[str, str]]:
    """What a paper names in its own words: its keywords (as tasks and methods) and the names its title and abstract
    write (datasets, models: "ImageNet", "BERT"), each as stems → (as written, kind: "keyword" or "name")."""
    found: dict[frozenset[str], tuple[str, str]] = {}
    for keyword in paper.keywords:
        text = " ".join(keyword.split()).strip(" .")
        if 2 < len(text) <= 40:
            found.setdefault(stems(text), (text.lower() if text[1:].islower() else text, "keyword"))
    own = {n for n in (paper_name(paper.title),) if n}
    for name in NAME.findall(f"{paper.title}. {paper.abstract or ''}"):
        if name.rstrip("s") not in GENERIC_NAMES and name not in own and not name.isdigit() and len(name) > 2:
            found.setdefault(stems(name), (name, "name"))
    return found


class Vocabulary:
    """How many of a venue's papers name each term (paper_terms): a term two leading papers share tells the
    reader something only when it is rare in the venue."""

    def __init__(self, papers: Iterable[Paper]) -> None:
        self.papers = 0
        self.counts: Counter[frozenset[str]] = Counter()
        for paper in papers:
            self.papers += 1
            self.counts.update(paper_terms(paper).keys())

    def rarity(self, term: frozenset[str]) -> float:
        return math.log(self.papers / max(self.counts[term], 1))


@dataclass
class Lead:
    """A theme's paper as the paragraph tells it: the ranked paper, its citation, how it is named."""

    item: RankedPaper
    cite: Citation
    handle: str | None

    @property
    def mark(self) -> str:
        return f"[[cite:{self.cite.paper_id}]]"


def handle(cite: Citation) -> str | None:
    """How a sentence names a paper: the name its title or abstract gives it, else its title when short."""
    name = paper_name(cite.title) or cite.name
    if name:
        return name
    return f'"{cite.title}"' if len(cite.title.split()) <= 12 else None


def listing(names: list[str], last: str = "and") -> str:
    """Names as a sentence lists them: "A", "A and B", "A, B and C" (or "A, B or C" with `last` "or")."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {last} " + names[-1]


def standing(paper: Paper, members: list[Paper], mode: RankMode) -> str:
    """Why a paper stands out in its theme, in words the data backs: its decision, its reviewers' ratings and
    (looking back) its citation count against the theme's other papers ("an oral among the theme's best-rated
    tenth"); "" when nothing sets it apart."""
    said: list[str] = []
    counted = sorted((m.citations.count for m in members if m.citations), reverse=True)
    if paper.citations and counted and mode is RankMode.LOOKING_BACK:
        if paper.citations.count == counted[0]:
            said.append("the theme's most cited")
        elif paper.citations.count >= counted[max(0, len(counted) // 10 - 1)]:
            said.append("among the theme's most cited tenth")
    rated = sorted((m.rating_mean for m in members if m.rating_mean is not None), reverse=True)
    if (mean := paper.rating_mean) is not None and rated:
        if mean == rated[0]:
            said.append("rated highest of the theme by its reviewers")
        elif mean >= rated[max(0, len(rated) // 10 - 1)]:
            said.append("among the theme's best-rated tenth")
    name = paper.decision.name.lower() if paper.decision.accepted and paper.decision.name else ""
    noun = f"{'an' if name[:1] in 'aeiou' else 'a'} {name}" if name else "a paper" if said else ""
    if said and said[0] == "the theme's most cited":
        return "the theme's most cited paper" + (f", {noun}" if name else "") + "".join(f", {s}" for s in said[1:])
    return " ".join([noun, " and ".join(said)]).strip()


def why_they_lead(leads: list[Lead], members: list[RankedPaper], mode: RankMode) -> list[str]:
    """One sentence on what puts the theme's first paper first in this mode, and its second next: only those two,
    in their order, and each only when something in the data sets it apart."""
    papers = [m.paper for m in members]
    named = []
    for lead in leads[:2]:
        if not (why := standing(lead.item.paper, papers, mode)):
            break
        named.append((lead.handle or f'"{lead.cite.title}"', lead.mark, why))
    if not named:
        return []
    name, mark, why = named[0]
    sentence = f"In the ranking {mode.label}, {name} {mark} comes first in the theme, {why}"
    if len(named) > 1:
        name, mark, why = named[1]
        sentence += f"; next is {name} {mark}, {why}"
    return [sentence + "."]


def _clause(lead: Lead) -> str | None:
    """What the paper does, as a clause naming it ("SMiRL alternates between … [[cite:ID]]"), or None."""
    subject = paper_subject(lead.cite)  # not "SALD introduces SALD: …"
    made = paper_sentence(lead.cite, subject) if subject else None
    return made[:-1] if made and not dangles(made) else None


def shared_terms(leads: list[Lead], label: str, vocabulary: Vocabulary) -> list[tuple[str, str, list[Lead]]]:
    """Terms two or more leading papers share in their own words (a method, task, dataset), rare in the venue and
    not the theme's label: (term, kind, papers), the most telling first, no two for the same papers."""
    named = [lead for lead in leads if lead.handle]
    users: dict[frozenset[str], list[Lead]] = defaultdict(list)
    written: dict[frozenset[str], tuple[str, str]] = {}
    for lead in named:
        for term, shown in paper_terms(lead.item.paper).items():
            users[term].append(lead)
            written.setdefault(term, shown)
    labelled = [stems(part) for part in parts(label)]
    limit = SHARED_MAX * vocabulary.papers
    scored = [
        (len(group) * vocabulary.rarity(term), term, group)
        for term, group in users.items()
        if len(group) >= 2 and vocabulary.counts[term] <= limit and not any(term <= own for own in labelled)
    ]
    chosen: list[tuple[str, str, list[Lead]]] = []
    seen: list[set[str]] = []
    for _, term, group in sorted(scored, key=lambda row: (-row[0], sorted(row[1]))):
        ids = {lead.cite.paper_id for lead in group}
        if any(ids <= other or other <= ids for other in seen):
            continue
        seen.append(ids)
        chosen.append((*written[term], group))
    return chosen


def relation(term: str, kind: str, group: list[Lead], told: AbstractSet[str] = frozenset()) -> tuple[str, bool]:
    """A sentence relating papers that share a term, with what sets two of them apart when both can be told and
    neither is in `told` already (then True: the sentence tells what each does)."""
    group = group[:RELATED]
    names = [f"{lead.handle} {lead.mark}" for lead in group]
    texts = " ".join(lead.item.paper.abstract or "" for lead in group)
    dataset = kind == "name" and re.search(rf"{_DATA_CUE.pattern}\W+(?:\w+\W+){{0,3}}{re.escape(term)}", texts, re.I)
    verb = "evaluate on" if dataset else "build on" if kind == "name" else "work on"
    both = "both" if len(names) == 2 else "all"
    sentence = f"{listing(names)} {both} {verb} {term}"
    fresh = not {lead.cite.paper_id for lead in group} & told
    if len(group) == 2 and fresh and (first := _clause(group[0])) and (second := _clause(group[1])):
        return f"{sentence}: {first}, while {second}.", True
    return sentence + ".", False


def subthemes_clause(theme: ThemeFacts, subs: list[ThemeFacts]) -> str:
    """The theme's largest sub-themes by name and size (", in sub-themes such as A (12) and B (9)"), when they
    name something its label does not; "" otherwise."""
    named = [s for s in subs if s.label.lower() != theme.label.lower()][:SUBTHEMES_NAMED]
    if len(named) < 2:
        return ""
    return ", in sub-themes such as " + listing([f"{s.label} ({{theme.{s.id}.size}})" for s in named])


def theme_opening(theme: ThemeFacts, said: set[str], venue_rate: float | None, subs: Sequence[ThemeFacts] = ()) -> str:
    """The theme's size (and share, unless the report said it already), its sub-themes, and how it fared in
    review (its acceptance rate against the venue's, unless the report said it already)."""
    p = f"theme.{theme.id}"
    share = "" if f"{p}.share" in said else f" ({{{p}.share}} of the venue)"
    text = f"{{{p}.size}} papers{share} are about {theme.label}{subthemes_clause(theme, list(subs))}."
    if theme.acceptance_rate is None:
        return text
    orals = f", {{{p}.oral}} of them as orals" if theme.oral else ""
    if f"{p}.acceptance_rate" in said:  # the opening gave it
        return f"{text} {{{p}.accepted}} of them were accepted{orals}."
    compared = ""
    if venue_rate is not None:
        gap = theme.acceptance_rate - venue_rate
        compared = (
            ", above the venue's rate" if gap > RATE_GAP else ", below the venue's rate" if gap < -RATE_GAP else ""
        )
    return f"{text} {{{p}.accepted}} of them were accepted ({{{p}.acceptance_rate}}{compared}){orals}."


def theme_story(
    theme: ThemeFacts,
    subs: list[ThemeFacts],
    leads: list[Lead],
    members: list[RankedPaper],
    mode: RankMode,
    vocabulary: Vocabulary,
    said: set[str],
    venue_rate: float | None = None,
) -> str:
    """A theme's paragraph of WORDS words: its opening, sub-themes, why its first papers lead, papers that share
    a method, task or dataset, then what further leading papers do, until the paragraph is long enough."""
    sentences = [theme_opening(theme, said, venue_rate, subs)]
    sentences += why_they_lead(leads, members, mode)
    told: set[str] = set()
    for term, kind, group in shared_terms(leads, theme.label, vocabulary)[:2]:
        sentence, contrasted = relation(term, kind, group, told)
        sentences.append(sentence)
        told.update(lead.cite.paper_id for lead in group[:RELATED] if contrasted)

    def fits(kept: list[str], made: str) -> bool:  # until the paragraph is long enough, never too long
        so_far = word_count(" ".join([*sentences, *kept]))
        return so_far < WORDS[0] and not dangles(plain_prose(made)) and so_far + word_count(made) <= WORDS[1]

    sentences += paper_sentences([lead.cite for lead in leads if lead.cite.paper_id not in told], fits)
    return " ".join(s for s in sentences if s)
