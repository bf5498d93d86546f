"""What a report says the must-read ranking puts first, checked against the ranking in the mode the report states:
a theme's first two papers, the venue's first three with their themes, each smaller theme's first, the paper
closest to each large theme's centre, a digest's list and each theme's list in order; and every place naming the
mode names the report's own. Read from the report's template view (marked.py), the phrases the overview and digest
write."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from confnav.model import Paper
from confnav.rank.mode import RankMode
from confnav.reports.marked import Marked
from confnav.reports.overview import theme_and_decision, way_in
from confnav.reports.shown import ID, Page
from confnav.topics.facts import ThemeFacts

_MODE_WORDS = "at the conference|looking back"
_SAID_MODE = re.compile(rf"(?:must-read digest[^\n]*?, |In the ranking |the ranking |Mode: )({_MODE_WORDS})\b")
_CITE = rf"\[\[cite:({ID})\]\]"
_LEADS = re.compile(rf"{_CITE} comes first in the theme,[^.;]*(?:; next is [^\n]*?{_CITE})?")
_VENUE_FIRST = re.compile(rf"the ranking (?:{_MODE_WORDS}) puts first ([^\n]*?)\.(?=\s|$)")
_SMALLER_FIRST = re.compile(rf"\{{theme\.([\w\-]+)\.size\}} papers; first: [^\n]*?{_CITE}")
_CLOSEST = re.compile(r"closest to each theme's centre: ([^\n]*?)\.(?=\s|$)")
_DIGEST_SCOPE = re.compile(rf"must-read digest(?: in theme ([\w.\-]+)| (for your reading profile))?, (?:{_MODE_WORDS})")
_CITED = re.compile(rf'data-paper="({ID})"|\[\^({ID})\]')
_LISTS = (re.compile(r"(?:^\d+\. [^\n]*(?:\n|$))+", re.M), re.compile(r"<ol\b.*?</ol>", re.S))
_LISTED = (
    re.compile(rf"^\d+\. [^\n]*?\[\^({ID})\]", re.M),
    re.compile(rf'<li><span class="cite[^"]*" data-paper="({ID})"'),
)


@dataclass
class RankedView:
    """What the claims are checked against: the report's mode, the venue's papers in that mode's order (of one
    theme when asked), its top-level themes, and each large theme's papers closest to its centre first."""

    mode: RankMode
    ranking: Callable[[str | None], list[Paper]]
    themes: list[ThemeFacts]
    closest: Callable[[], dict[str, list[str]] | None]


def order_failures(
    page: Page, view: Marked, kind: str, ranked: RankedView, section_at: Callable[[int], str | None]
) -> None:
    """Fail each place the report names another mode, or puts first what the ranking does not."""
    text, label = view.text, ranked.mode.label
    for match in _SAID_MODE.finditer(text):
        if match.group(1) != label:
            page.fail(view.at(match.start()), f"the report says {match.group(1)!r} where its mode is {label!r}")
    members = {t.id: set(t.paper_ids) for t in ranked.themes}
    by_id = {p.id: p for p in ranked.ranking(None)}
    order = list(by_id)

    def first(theme: str | None, count: int) -> list[str]:
        return [p for p in order if theme is None or p in members.get(theme, ())][:count]

    for match in _LEADS.finditer(text):
        theme = section_at(view.at(match.start()))
        said = [c for c in match.groups() if c]
        if theme in members and said != (expected := first(theme, len(said))):
            page.fail(
                view.at(match.start()), f"the theme's first papers are said to be {said}; the ranking's are {expected}"
            )
    for match in _SMALLER_FIRST.finditer(text):
        small, first_said = match.group(1), match.group(2)
        if small in members and [first_said] != (expected := first(small, 1)):
            page.fail(
                view.at(match.start()), f"theme {small}'s first paper is said to be {first_said}; it is {expected}"
            )
    label_of = {p: t.label for t in ranked.themes for p in t.paper_ids}
    for match in _VENUE_FIRST.finditer(text):
        venue_first = re.findall(rf"{_CITE} \(([^()]*)\)", match.group(1))
        in_themes = [p for p in order if p in label_of][: len(venue_first) or 1]
        truth = [(p, theme_and_decision(by_id[p], label_of)) for p in in_themes]
        if venue_first != truth:
            page.fail(
                view.at(match.start()), f"the venue's first papers are said to be {venue_first}; they are {truth}"
            )
    for match in _CLOSEST.finditer(text):
        _closest(page, view, match, ranked, by_id)
    if kind == "digest" and (scope := _DIGEST_SCOPE.search(text)) and not scope.group(2):
        in_list = _LISTED[page.html].findall(page.text)
        ranked_ids = [p.id for p in (ranked.ranking(scope.group(1)) if scope.group(1) else by_id.values())]
        _list_order(page, 0, "the digest", in_list, ranked_ids[: len(in_list)])
    for block in _LISTS[page.html].finditer(page.text) if kind == "overview" else ():
        if (theme := section_at(block.start())) in members:
            _theme_list(page, block, theme, first(theme, len(members[theme])))


def _theme_list(page: Page, block: re.Match[str], theme: str, ranked: list[str]) -> None:
    """A theme's list, as the overview makes it: the theme's first papers in the ranking, then papers its prose
    cites, all in the ranking's order."""
    in_list = _LISTED[page.html].findall(block.group())
    opened = page.text.rfind("data-theme=" if page.html else "<!-- theme:", 0, block.start())
    told = {c for pair in _CITED.findall(page.text[opened : block.start()]) for c in pair if c}
    if stray := [p for p in in_list if p not in ranked]:
        page.fail(block.start(), f"theme {theme}'s list has {stray[0]}, which is not a paper of the theme")
        return
    lead = next((i for i, p in enumerate(in_list) if p != ranked[i]), len(in_list))
    for at in range(lead, len(in_list)):
        paper, before = in_list[at], ranked.index(in_list[at - 1]) if at else -1
        if ranked.index(paper) < before:
            said = f"puts {paper} at {at + 1}, after {in_list[at - 1]}, which the ranking puts later"
        elif paper not in told:  # after its first papers, a theme lists only papers its prose cites
            said = f"has {paper} at {at + 1}, where the ranking puts {ranked[at]}"
        else:
            continue
        page.fail(block.start(), f"theme {theme}'s list {said}")
        return


def _list_order(page: Page, at: int, what: str, in_list: list[str], expected: list[str]) -> None:
    """Fail a list of papers that is not the ranking's first papers in its order, naming the first place it errs."""
    if in_list != expected:
        pairs = enumerate(zip(in_list, expected, strict=False))
        wrong = next((i for i, (a, b) in pairs if a != b), len(expected))
        put = expected[wrong] if wrong < len(expected) else "nothing"
        page.fail(at, f"{what} has {in_list[wrong]} at {wrong + 1}; the ranking puts {put} there")


def _closest(page: Page, view: Marked, match: re.Match[str], ranked: RankedView, by_id: dict[str, Paper]) -> None:
    """ "the accepted paper closest to each theme's centre: A for X, …": each named paper is the paper its theme is
    entered by (overview.way_in), and is said to lead into that theme."""
    near = ranked.closest()
    said = match.group(1)
    for at, theme in zip(re.finditer(_CITE, said), ranked.themes, strict=False):
        paper_id, where = at.group(1), view.at(match.start(1) + at.start())
        wanted = way_in(theme, near, by_id, lambda i: by_id[i].decision.accepted)
        if paper_id != wanted:
            page.fail(where, f"{paper_id} is said to be closest to the centre of {theme.label!r}; {wanted} is")
        elif not said[at.end() :].startswith(f" for {theme.label}"):
            page.fail(where, f"{paper_id} is said to lead into another theme than {theme.label!r}")
