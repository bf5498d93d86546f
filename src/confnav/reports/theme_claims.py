"""Claims a report makes of its themes, checked against the store: the three largest named in order, each
section's heading, each theme's name beside its size ("are about X", "off-policy (38)"), its rate "above" or
"below the venue's", the themes said to have grown or lost most against the edition named, those said to have
fared best and worst in review, and the term papers are said to share ("both work on X")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from confnav.model import Paper
from confnav.reports.marked import Marked
from confnav.reports.model import Fact, plain
from confnav.reports.narrative import RATE_GAP, listing, paper_terms, stems
from confnav.reports.overview import MAJOR_THEMES, MOVED
from confnav.reports.shown import ID, Page
from confnav.topics.facts import ThemeFacts

_CITE = re.compile(rf"\[\[cite:({ID})\]\]")


@dataclass
class Ground:
    """What the store says a report of this venue may show; `previous`, the edition its trends are measured
    against."""

    venue: str
    name: str
    facts: dict[str, Fact]
    themes: list[ThemeFacts]
    captions: list[str]
    venue_names: list[str]
    kind: str = "overview"
    previous: str | None = None


def theme_claim_failures(
    page: Page, view: Marked, ground: Ground, facts: list[tuple[int, int, str]], papers: dict[str, Paper]
) -> None:
    """Fail each claim about a theme the store does not back."""
    largest_themes(page, ground)
    theme_words(page, ground, facts)
    labels = {t.id: t.label for t in ground.themes}
    _named_beside_size(page, view, labels)
    _trends(page, view, ground)
    _best_and_worst(page, view, ground)
    _shared_terms(page, view, papers)


_LARGEST = re.compile(r"The largest themes of (?:[^.<]+?) are ([^<]+?)\.(?=\s|<|$)")


def largest_themes(page: Page, ground: Ground) -> None:
    """ "The largest themes of V are A, B and C": the three largest themes, largest first, as the store has them."""
    for match in _LARGEST.finditer(page.text):
        top = sorted((t for t in ground.themes if t.level == 1), key=lambda t: -t.size)[:3]
        expected = listing([t.label for t in top]) if top else "(no themes in the store)"
        if (said := page.plain(match.group(1))) != expected:
            page.fail(match.start(), f"the largest themes are said to be {said!r}; they are {expected!r}")


_MD_THEME_HEAD = re.compile(r"^## \d+\. (.*)\n\n<!-- theme:([\w.\-]+) -->", re.M)
_HTML_THEME_HEAD = re.compile(r'<section id="[^"]*" data-theme="([\w.\-]+)"><h2>\d+\. ([^<]*)</h2>')
_AGAINST_VENUE = re.compile(r"(?:</strong>|<!-- fact:[\w.\-]+ -->), (above|below) the venue(?:'|&#x27;)s rate")


def theme_words(page: Page, ground: Ground, facts: list[tuple[int, int, str]]) -> None:
    """A theme section's heading is its theme's name, and a theme's rate "above" or "below the venue's rate" is."""
    themes = {t.id: t for t in ground.themes}
    heads = (
        [(m.start(), m.group(2), m.group(1)) for m in _MD_THEME_HEAD.finditer(page.text)]
        if not page.html
        else [(m.start(), m.group(1), m.group(2)) for m in _HTML_THEME_HEAD.finditer(page.text)]
    )
    for pos, theme_id, shown in heads:
        if theme_id in themes and page.plain(shown) != themes[theme_id].heading:
            page.fail(pos, f"theme {theme_id}'s heading says {page.plain(shown)!r}; it is {themes[theme_id].heading!r}")
    venue_rate = ground.facts.get("venue.acceptance_rate")
    for start, end, key in facts:
        said = _AGAINST_VENUE.match(
            page.text, end - len("</strong>") if page.html else page.text.rfind("<!--", start, end)
        )
        theme = themes.get(key.split(".")[1]) if key.startswith("theme.") and key.endswith(".acceptance_rate") else None
        if said is None or theme is None or theme.acceptance_rate is None or venue_rate is None:
            continue
        gap = theme.acceptance_rate - float(plain(venue_rate.value))  # type: ignore[arg-type]
        truth = "above" if gap > RATE_GAP else "below" if gap < -RATE_GAP else "about"
        if said.group(1) != truth:
            page.fail(start, f"theme {theme.id}'s rate is said to be {said.group(1)} the venue's; it is {truth} it")


_SIZE_IN_PARENS = re.compile(r" \(\{theme\.([\w.\-]+)\.size\}")
_ARE_ABOUT = re.compile(
    r"\{theme\.([\w.\-]+)\.size\} papers(?: \(\{theme\.[\w.\-]+\.share\} of the venue\))? are about "
    r"(.+?)(?:, in sub-themes such as |\.(?=\s|$))"
)


def _named_beside_size(page: Page, view: Marked, labels: dict[str, str]) -> None:
    """A theme's size in parentheses follows its own name ("off-policy (38)"), and "N papers are about X" names the
    theme counted."""
    for match in _SIZE_IN_PARENS.finditer(view.text):
        label = labels.get(match.group(1))
        if label is not None and not view.text[: match.start()].endswith(label):
            page.fail(
                view.at(match.start()), f"theme {match.group(1)}'s size is shown beside another name than {label!r}"
            )
    for match in _ARE_ABOUT.finditer(view.text):
        label = labels.get(match.group(1))
        if label is not None and match.group(2) != label:
            page.fail(
                view.at(match.start()),
                f"theme {match.group(1)} is said to be about {match.group(2)!r}; it is {label!r}",
            )


_TREND = re.compile(r"\{trend\.([\w.\-]+)\.before\}(?: to \{theme\.([\w.\-]+)\.share\})?")
_MOVE_WORD = re.compile(r"\b(grew|rose|gained|increased|shrank|fell|lost|declined|decreased)( most)?\b")
_AGAINST = re.compile(r"(?:Against|Compared with) ([^,.]+?),")


def _clause_start(text: str, at: int, ends: tuple[str, ...] = (". ", "\n", "; ")) -> int:
    """Where the clause holding position `at` of the template view starts (with `ends` (". ", "\n"), its
    sentence)."""
    return max(text.rfind(end, 0, at) for end in ends) + 1


_SENTENCE_ENDS = (". ", "\n")


def _trends(page: Page, view: Marked, ground: Ground) -> None:
    """A theme said to have grown (or lost ground) against the previous edition did, by the shares shown; one said to
    have grown most (then second, lost most) is that among the themes; the edition named is the one measured."""
    change = {}
    for facts in ground.themes:
        before, now = ground.facts.get(f"trend.{facts.id}.before"), ground.facts.get(f"theme.{facts.id}.share")
        if before is not None and now is not None:
            change[facts.id] = facts.share - float(plain(before.value))  # type: ignore[arg-type]
    grown = [t for t in sorted(change, key=lambda t: -change[t]) if change[t] >= MOVED]
    shrunk = [t for t in sorted(change, key=lambda t: change[t]) if change[t] <= -MOVED]
    for match in _TREND.finditer(view.text):
        theme, at = match.group(1), view.at(match.start())
        if match.group(2) and match.group(2) != theme:
            page.fail(at, f"theme {theme}'s earlier share is shown against theme {match.group(2)}'s share now")
        sentence = view.text[_clause_start(view.text, match.start(), _SENTENCE_ENDS) : match.start()]
        if (against := _AGAINST.search(sentence)) and against.group(1) != ground.previous:
            page.fail(at, f"trends are said to be against {against.group(1)!r}; they are against {ground.previous!r}")
        clause = view.text[_clause_start(view.text, match.start()) : match.start()]
        words = list(_MOVE_WORD.finditer(clause))
        if theme not in change or not words:
            continue
        verb, most = words[-1].group(1), words[-1].group(2)
        up = verb in ("grew", "rose", "gained", "increased")
        order = grown if up else shrunk
        rank = 1 if " then " in clause[words[-1].end() :] else 0
        if (change[theme] > 0) != up:
            page.fail(at, f"theme {theme}: the report says it {verb}; its share moved by {change[theme]:+.1%}")
        elif most and (len(order) <= rank or order[rank] != theme):
            place, truth = "most" if rank == 0 else "second most", order[rank] if len(order) > rank else "no theme"
            page.fail(at, f"theme {theme}: the report says it {verb} {place}; that is {truth}")


_RATE = re.compile(r"\{theme\.([\w\-]+)\.acceptance_rate\}")
_BEST_WORST = re.compile(r"\b(best|worst)(?= of the large themes| \()")


def _best_and_worst(page: Page, view: Marked, ground: Ground) -> None:
    """A theme said to have fared best (or worst) in review has the highest (lowest) acceptance rate of the large
    themes."""
    large = sorted((t for t in ground.themes if t.level == 1), key=lambda t: -t.size)[:MAJOR_THEMES]
    rated = [t for t in large if t.acceptance_rate is not None]
    if len(rated) < 2:
        return
    best = max(rated, key=lambda t: t.acceptance_rate or 0.0).id
    worst = min(rated, key=lambda t: t.acceptance_rate or 0.0).id
    previous = 0
    for match in _RATE.finditer(view.text):
        start = max(previous, _clause_start(view.text, match.start()))
        previous = match.end()
        said = list(_BEST_WORST.finditer(view.text, start, match.start()))
        if not said:
            continue
        wanted = best if said[-1].group(1) == "best" else worst
        if match.group(1) != wanted:
            page.fail(
                view.at(match.start()),
                f"theme {match.group(1)} is said to have fared {said[-1].group(1)}; {wanted} did",
            )


_SHARED = re.compile(r" (both|all) (?:work on|build on|evaluate on) ([^.:\n]+?)(?::|\.(?=\s|$))")


def _shared_terms(page: Page, view: Marked, papers: dict[str, Paper]) -> None:
    """Papers said to share a term ("A and B both work on X") each name it in their own keywords, title or abstract."""
    for match in _SHARED.finditer(view.text):
        start = _clause_start(view.text, match.start(), _SENTENCE_ENDS)
        cited = _CITE.findall(view.text, start, match.start())
        if match.group(1) == "both":
            cited = cited[-2:]
        term = stems(match.group(2))
        for paper_id in cited:
            if paper_id in papers and term not in paper_terms(papers[paper_id]):
                page.fail(
                    view.at(match.start()),
                    f"{paper_id} is said to work on {match.group(2)!r}; its own words do not name it",
                )
