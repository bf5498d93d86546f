"""Claims a report's prose makes of one cited paper without a number, checked against the store: the decision
it is called by ("an oral"), where it stands in its theme ("the theme's most cited paper", "among the theme's
best-rated tenth"), and counts written in words ("two papers"), which are held to what the cited papers say.

A clause is the text between `.`, `;`, `!`, `?`, a newline or a tag; it speaks of a paper when it cites that
paper alone, and of a theme when it sits in that theme's section.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from confnav.model import Paper
from confnav.rank.mode import RankMode
from confnav.reports.marked import CLAUSE_SEMICOLON
from confnav.reports.model import Citation
from confnav.reports.narrative import standing
from confnav.reports.prose import ORDINALS, method_name, paper_name, paper_sentence, paper_subject
from confnav.reports.shown import ID, Page

# A citation as written: `[[3]](link)[^id]`, `[3][^id]`, or HTML's span with its card.
_MARK = re.compile(
    rf"(?:\[\[[^\]\s]+\]\](?:\([^)\s]*\))?|\[[^\]\s]+\])\[\^({ID})\]"
    rf'|<span class="cite[^"]*" data-paper="({ID})".*?</span></span>',
    re.S,
)
_CLAUSE_END = re.compile(rf"(?:[.!?]|{CLAUSE_SEMICOLON})(?=\s)|\n|<(?!/?(?:a|span|strong|em)\b)")
_DECISION_WORD = re.compile(r"\b(an? )(oral|spotlight|poster)\b", re.I)  # as narrative._standing names one
_COUNT_WORD = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen"
    r"|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|dozen)\b",
    re.I,
)


def clauses(flat: str) -> list[tuple[int, int]]:
    """The (start, end) of each clause of a page's text."""
    bounds = [0] + [m.end() for m in _CLAUSE_END.finditer(flat)] + [len(flat)]
    return [(a, b) for a, b in pairwise(bounds) if b > a]


def claim_failures(
    page: Page,
    papers: dict[str, Paper],
    theme_of: Callable[[int], list[Paper]],
    tldrs: dict[str, str | None],
    mode: RankMode | None,
) -> None:
    """Fail every claim of a paper the store does not back. `theme_of(pos)` gives the papers of the theme whose
    section holds a position (none outside one); `tldrs` each cited paper's TL;DR as the report's summarizer
    makes it."""
    marks = [(m.start(), m.end(), m.group(1) or m.group(2)) for m in _MARK.finditer(page.text)]
    text, flat = list(page.text), list(page.remaining())
    for a, b, _ in marks:  # a citation's card is no part of the sentence around it
        text[a:b] = flat[a:b] = [c if c == "\n" else " " for c in page.text[a:b]]
    shown, left = "".join(text), "".join(flat)
    subjects = {c: _names(_citation(p, tldrs.get(c))) for c, p in papers.items()}
    for start, end in clauses(shown):
        here = [(a, b, c) for a, b, c in marks if start <= a < end]
        cited = {c for _, _, c in here}
        said = left[start:end]
        for match in _COUNT_WORD.finditer(said):
            word = match.group(1).lower()
            if not any(re.search(rf"\b{word}\b", _own_words(papers[c], tldrs[c]), re.I) for c in cited if c in papers):
                page.fail(start + match.start(), f"{word!r}: a count in words that is no checked fact")
        for i, (a, b, c) in enumerate(here):
            ends = re.match(r"\s*(?:[.]|, while )", shown[b:end] + " ")  # the sentence ends on its citation
            if c in papers and ends:
                opens = [m.end() for m in _SENTENCE_OPENS.finditer(shown, here[i - 1][1] if i else start, a)]
                segment = _plain(page, shown[opens[-1] if opens else start : a])
                _paper_sentence(page, papers[c], subjects, tldrs.get(c), segment, a)
        if len(cited) != 1 or (paper := papers.get(next(iter(cited)))) is None:
            continue
        _decision(page, paper, said, start)
        told = _standing_told(page, shown[start : here[0][0]], shown[here[0][1] : end])
        if mode is not None and told is not None:
            expected = standing(paper, theme_of(start), mode)
            if told != expected:
                page.fail(start, f"{paper.id} is said to be {told!r} in its theme; its theme's papers: {expected!r}")


def _own_words(paper: Paper, tldr: str | None) -> str:
    return " ".join(t for t in (paper.title, paper.abstract, tldr) if t)


_SENTENCE_OPENS = re.compile(r"(?:^|: |, while )(?=\S)")


def _citation(paper: Paper, tldr: str | None) -> Citation:
    return Citation(paper.id, paper.title, None, tldr, "", name=method_name(paper.abstract) if paper.abstract else None)


def _names(cite: Citation) -> list[str]:
    """The names a sentence about the paper can open on: its subject, the name its title or abstract gives it."""
    return list(dict.fromkeys(n for n in (paper_subject(cite), paper_name(cite.title), cite.name) if n))


def _paper_sentence(
    page: Page, paper: Paper, subjects: dict[str, list[str]], tldr: str | None, segment: str, at: int
) -> None:
    """A sentence ending on its paper's citation and opening on its name ("RoboCook perceives … [1].") says what
    the paper does: it must be the paper's TL;DR turned to the third person, as prose.paper_sentence makes it; one
    opening on another cited paper's name says that paper's work is this one's."""
    own = [*subjects.get(paper.id, []), *ORDINALS]
    if not any(segment.startswith((f"{s} ", f"{s[:1].lower()}{s[1:]} ")) for s in own):
        other = next(
            (n for i, names in subjects.items() if i != paper.id for n in names if segment.startswith(f"{n} ")), None
        )
        if other is not None:
            page.fail(at, f"a sentence about {other} cites {paper.id}")
        return
    made = [m for s in own if (m := paper_sentence(_citation(paper, tldr), s))]
    told = [_plain(page, m.split(" [[cite:", 1)[0]) for m in made]
    if not any(segment == t or segment.endswith(" " + t) for t in told):
        page.fail(at, f"what the sentence says {paper.id} does is not its TL;DR ({segment[:80]!r}…)")


def _decision(page: Page, paper: Paper, said: str, start: int) -> None:
    name = paper.decision.name.lower() if paper.decision.accepted and paper.decision.name else ""
    for match in _DECISION_WORD.finditer(said):
        if match.group(2).lower() != name:
            shown = name or "not accepted" if paper.decision.label else "no decision"
            page.fail(start + match.start(), f"{paper.id} is called {match.group(0)!r}: the store says {shown}")


def _standing_told(page: Page, before: str, after: str) -> str | None:
    """What a theme paragraph's lead sentence says of the paper cited between `before` and `after` ("an oral
    among the theme's best-rated tenth"), or None when the clause is no such sentence's."""
    before, after = _plain(page, before), _plain(page, after)
    if "comes first in the theme," in after:
        return after.split("comes first in the theme,", 1)[1].strip().rstrip(".;!?< ")
    if before.startswith("next is ") and after.startswith(","):
        return after[1:].strip().rstrip(".;!?< ")
    return None


def _plain(page: Page, text: str) -> str:
    return page.plain(re.sub(r"<[^>]*>", " ", text))
