"""What a report's words rest on: every number in its text is a checked fact, table cell, cited paper's own
words, ranking reason or venue name; every paper's title, byline, decision, TL;DR and reasons shown match the
store; the title names the verified venue; a fact sits among words that fit it."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from functools import cache
from html import unescape

from confnav.errors import ConfnavError
from confnav.model import Paper
from confnav.rank import make_ranker
from confnav.rank.mode import RankMode
from confnav.rank.ranker import ranker_named
from confnav.rank.reasons import TLDR_PREFIX
from confnav.reports.claims import claim_failures
from confnav.reports.marked import CLAUSE_SEMICOLON, HTML_FACT, MD_FACT, marked
from confnav.reports.model import LLM_NOTES
from confnav.reports.overview import START_PAPERS, closest_papers
from confnav.reports.ranked import RankedView, order_failures
from confnav.reports.shown import ID, NUMBER, Page, Tldrs, html_papers, md_papers, paper_numbers, squeeze
from confnav.reports.stats import venue_notes
from confnav.reports.theme_claims import Ground, theme_claim_failures
from confnav.store.protocols import AnalysisStore
from confnav.summarize.stored import venue_summarizer

_ENTITY = re.compile(r"&#?\w+;")


def decision_patterns(keys: Iterable[str]) -> dict[str, re.Pattern[str]]:
    """The word each decision kind a fact can count goes by in prose ("oral" → orals), keyed by that kind."""
    kinds = {"accept"} | {fact_kind(key) for key in keys if key.startswith("venue.")}
    kinds -= {"records", "reviewed", "desk-reject", "other", ""}
    return {
        kind: re.compile(rf"\b{re.escape(kind.replace('-', ' '))}(?:s|ed|ance)?\b", re.I)
        for kind in kinds
        if kind not in ("acceptance", "accepted")
    }


def fact_kind(key: str) -> str:
    """What a fact counts, from its key: `venue.oral_rate` → oral, `theme.t01.acceptance_rate` → accept."""
    last = key.rsplit(".", 1)[-1].removesuffix("_rate").replace("_", "-")
    if last in ("accepted", "acceptance"):
        return "accept"
    return last.removesuffix("s") if last == "desk-rejects" else last


def numbers_outside(text: str) -> list[tuple[int, str]]:
    """Each number left in a text, with its position; digits written as HTML character references count."""
    chars = list(text)
    for match in _ENTITY.finditer(text):
        value = unescape(match.group(0))
        chars[match.start() : match.end()] = list(
            value.ljust(match.end() - match.start()) if value.isdigit() else " " * (match.end() - match.start())
        )
    flat = "".join(chars)
    return [(m.start(), m.group(0)) for m in _QUANTITY.finditer(flat)]


# A number standing alone, or an ordinal ("11th"): digits inside a word are part of a name ("3D", "FlowNet3D",
# "L_0"); a number is taken whole or not at all ("9.6" of "9.6K", never its "9").
_AFTER_NUMBER = r"(?=(?:st|nd|rd|th|[KMB])\b|[.,](?!\d)|[^A-Za-z\d_.,]|$)"
_QUANTITY = re.compile(r"(?<![A-Za-z\d_.,])" + NUMBER.pattern + _AFTER_NUMBER)
_CITE_TAG = re.compile(rf'<span class="cite[^"]*" data-paper="({ID})"')


_MODE = re.compile(r"Mode: (at the conference|looking back)\.")
_SENTENCE_END = re.compile(rf"(?:[.!?]|{CLAUSE_SEMICOLON})(?=\s)|\n|<|>")


def ground_failures(
    store: AnalysisStore, text: str, html: bool, ground: Ground, unchecked: list[str], ranker: str | None = None
) -> list[str]:
    """Every place a report's words say more than the store does, naming its line; `ranker` is the name of the one
    the report says ranked it (None: the settings' choice)."""
    page = Page(text, html)
    _title(page, ground)
    for match in re.finditer(r"<head>.*?</head>|<!-- .*? -->" if html else r"<!-- .*? -->", text, re.S):
        page.take(match.start(), match.end())
    _tables(page)
    facts = [
        (m.start(), m.end(), m.group(1) if html else m.group(2))
        for m in (HTML_FACT if html else MD_FACT).finditer(text)
    ]
    for start, end, _ in facts:
        page.take(start, end)
    _facts_block(page, ground)
    papers = _papers(
        store, ground.venue, {m for m in re.findall(rf'data-paper="({ID})"|\[\^({ID})\]', text) for m in m if m}
    )
    summarizer = venue_summarizer(store, ground.venue)  # the venue's kept TL;DRs, read once
    tldrs = {pid: (t.tldr, t.source) for pid, p in papers.items() for t in [summarizer.tldr(p)]}
    mode_match = _MODE.search(text)

    @cache
    def ranking(theme: str | None) -> tuple[dict[str, list[str]], str, list[Paper]]:  # read when needed, once each
        mode = _mode(mode_match)
        made = ranker_named(store.settings, ranker, mode) if ranker else make_ranker(store.settings, mode=mode)
        found = made.rank(store, ground.venue, theme=theme)
        reasons = {r.paper.id: [x for x in r.reasons if not x.startswith(TLDR_PREFIX)] for r in found.papers}
        return reasons, found.header(), [r.paper for r in found.papers]

    (html_papers if html else md_papers)(page, papers, tldrs, lambda: ranking(None)[0], unchecked)
    _fact_context(page, facts, ground)
    page.take_texts(
        [f.label for f in ground.facts.values()]
        + [basis for f in ground.facts.values() for basis in re.findall(r"\((of the .*)\)$", f.label)]
        + venue_notes(store, ground.venue)
        + ground.captions
        + [t.label for t in ground.themes]
        + [t.heading for t in ground.themes]  # a section's heading: its label with a capital ("Theme 10")
        + ground.venue_names
        + ([ranking(None)[1]] if mode_match else [])
    )
    told = {c: page.tldrs.get(c, tldr) for c, (tldr, _) in tldrs.items()}  # as the report's summarizer made it
    mode = _mode(mode_match)
    claim_failures(page, papers, _theme_papers(store, page, ground), told, mode)
    view = marked(text, html)
    theme_claim_failures(page, view, ground, facts, papers)
    if mode is not None:
        top = [t for t in ground.themes if t.level == 1]
        ranked = RankedView(
            mode, lambda theme: ranking(theme)[2], top, lambda: closest_papers(store, ground.venue, top[:START_PAPERS])
        )
        order_failures(page, view, ground.kind, ranked, section_of(page))
    _numbers(page, papers, tldrs, unchecked, _notes(page, venue_notes(store, ground.venue)))
    return page.failures


def _theme_papers(store: AnalysisStore, page: Page, ground: Ground) -> Callable[[int], list[Paper]]:
    """The papers of the theme whose section holds a position (read once per theme, when first asked)."""
    section_at, ids = section_of(page), {t.id: t.paper_ids for t in ground.themes}

    @cache
    def papers_of(theme: str) -> list[Paper]:
        return list(_papers(store, ground.venue, set(ids.get(theme, []))).values())

    def at(pos: int) -> list[Paper]:
        section = section_at(pos)
        return papers_of(section) if section else []

    return at


def section_of(page: Page) -> Callable[[int], str | None]:
    """The theme whose section holds a position (its `<!-- theme: -->` or `data-theme` mark after the section's
    heading), None outside a theme's section."""
    found = re.finditer(r'<!-- theme:([\w.\-]+) -->|data-theme="([\w.\-]+)"', page.text)
    anchors = [(m.start(), m.group(1) or m.group(2)) for m in found]
    heads = [m.start() for m in re.finditer(r"^## |<section", page.text, re.M)]

    def at(pos: int) -> str | None:
        head = max([h for h in heads if h < pos], default=-1)
        return next((name for p, name in reversed(anchors) if head < p < pos), None)

    return at


def _mode(found: re.Match[str] | None) -> RankMode | None:
    return next((m for m in RankMode if found and m.label == found.group(1)), None)


def _papers(store: AnalysisStore, venue: str, ids: set[str]) -> dict[str, Paper]:
    found = {}
    for paper_id in ids:
        try:
            found[paper_id] = store.get_paper(paper_id, venue)
        except ConfnavError:  # not of this venue: the citation check says so
            continue
    return found


def _title(page: Page, ground: Ground) -> None:
    pattern = r"<h1>(.*?)</h1>|<title>(.*?)</title>" if page.html else r"^# (.*)$"
    for match in re.finditer(pattern, page.text, re.M):
        shown = page.plain(next(g for g in match.groups() if g is not None))
        if not shown.startswith(f"{ground.name}:"):
            page.fail(match.start(), f"the title {shown!r} does not name the verified venue {ground.name!r} first")
        else:
            start = match.start(next(i for i, g in enumerate(match.groups(), 1) if g is not None))
            page.take(start, start + len(ground.name))


def _tables(page: Page) -> None:
    """Marked tables are checked cell by cell elsewhere; a table without its mark is unverified text."""
    if page.html:
        for match in re.finditer(r"<table( data-table=\"[\w\-]+\")?[^>]*>.*?</table>", page.text, re.S):
            if not match.group(1):
                page.fail(match.start(), "a table without its data-table mark: its numbers are not checked")
            page.take(match.start(), match.end())
        return
    for match in re.finditer(r"^(<!-- table:[\w\-]+ -->\n)?((?:\|.*\|?\n?)+)", page.text, re.M):
        if not match.group(1):
            page.fail(match.start(), "a table without its <!-- table: --> mark: its numbers are not checked")
        page.take(match.start(), match.end())
    for match in re.finditer(r"^#+ (\d+)\. ", page.text, re.M):  # a numbered section
        page.take(match.start(1), match.end(1))


def _facts_block(page: Page, ground: Ground) -> None:
    """A fact listed under a label must be listed under its own label, with its own share beside it."""
    item = r"<li>([^<]*): " + HTML_FACT.pattern if page.html else r"^- (.*?): " + MD_FACT.pattern
    for match in re.finditer(item, page.text, re.M):
        key = match.group(2) if page.html else match.group(3)
        label, fact = page.plain(match.group(1)), ground.facts.get(key)
        if fact is not None and squeeze(fact.label) != label:
            page.fail(match.start(), f"fact {key} is listed as {label!r}; it is {fact.label!r}")
        else:
            page.take(match.start(1), match.end(1))
        rest = page.text[match.end() : page.text.find("\n", match.end())]
        for beside in re.findall(r'data-fact="([\w.\-]+)"|<!-- fact:([\w.\-]+) -->', rest.split("</li>")[0]):
            other = next(b for b in beside if b)
            if other != f"{key}_rate":
                page.fail(match.start(), f"fact {other} is shown beside {key} as its share")


class Sentences:
    """Where a text's clauses end (. ; ! ? before a space, a newline or a tag), found in one pass: the sentence
    around each fact is then two bisections, not a scan from the text's start per fact."""

    def __init__(self, flat: str) -> None:
        found = list(_SENTENCE_END.finditer(flat))  # one character each
        self.size = len(flat)
        self.starts = [m.start() for m in found]
        self.ends = [m.end() for m in found]
        # a mark that needs a space after it ends a sentence before `start` only if that space is before it too
        self.before = [m.end() + (m.group() not in "\n<>") for m in found]

    def around(self, start: int, end: int) -> tuple[int, int]:
        """The bounds of the sentence around text[start:end]."""
        i = bisect.bisect_right(self.before, start) - 1
        j = bisect.bisect_left(self.starts, end)
        return (self.ends[i] if i >= 0 else 0), (self.starts[j] if j < len(self.starts) else self.size)


def _fact_context(page: Page, facts: list[tuple[int, int, str]], ground: Ground) -> None:
    """A fact in prose sits among words that fit it: no other decision kind named beside it without its own, and a
    theme's fact in its theme's section or nearest its theme's name."""
    flat, words, section_at = page.remaining(), decision_patterns(ground.facts), section_of(page)
    sentences = Sentences(flat)
    block = re.compile(r'<ul class="facts">.*?</ul>', re.S) if page.html else re.compile(r"^- .*$", re.M)
    listed = [(m.start(), m.end()) for m in block.finditer(page.text)]
    labels = {t.id: t.label for t in ground.themes if t.level == 1}
    for i, (start, end, key) in enumerate(facts):
        if key.startswith("config.") or any(a <= start < b for a, b in listed):
            continue  # the facts block binds each fact to its label
        left, right = sentences.around(start, end)
        prev_end = max([e for s, e, _ in facts[:i] if e <= start] + [left])
        next_start = min([s for s, e, _ in facts[i + 1 :] if s >= end] + [right])
        beside = flat[prev_end:start] + " " + flat[end:next_start]
        named = {kind for kind, pattern in words.items() if pattern.search(beside)}
        kind = fact_kind(key)
        if named and kind not in named:
            page.fail(start, f"fact {key} is shown as {', '.join(sorted(named))}: the words beside it are not its own")
        theme = key.split(".")[1] if key.startswith(("theme.", "trend.")) else None
        if theme is None:
            continue
        if (section := section_at(start)) is not None:
            if theme != section:
                page.fail(start, f"fact {key} of theme {theme} is shown in the section of theme {section}")
            continue
        nearest = _nearest_theme(page, flat, left, right, start, labels)
        if nearest is not None and nearest != theme:
            page.fail(start, f"fact {key} of theme {theme} is shown beside the name of theme {nearest}")


def _nearest_theme(page: Page, flat: str, left: int, right: int, at: int, labels: dict[str, str]) -> str | None:
    """The theme named nearest before a position in its sentence (else nearest after), if any."""
    spans = []
    for theme, label in labels.items():
        for form in page.written(label):
            spans += [(m.start(), m.end(), theme) for m in re.finditer(re.escape(form), page.text[left:right])]
    spans = [(s + left, e + left, t) for s, e, t in spans]
    before = [sp for sp in spans if sp[1] <= at]
    if before:
        return max(before, key=lambda sp: (sp[1], sp[1] - sp[0]))[2]
    after = [sp for sp in spans if sp[0] >= at]
    return min(after, key=lambda sp: (sp[0], sp[0] - sp[1]))[2] if after else None


def _own_counts(page: Page) -> set[str]:
    """How many themes the report gives a section, and how many papers it lists when it has one list: its own
    structure, which its prose may count ("its 15 largest themes", "the 20 papers")."""
    if page.html:
        lists = [len(re.findall(r"<li>", m.group(0))) for m in re.finditer(r"<ol.*?</ol>", page.text, re.S)]
        themes = len(re.findall(r"<section[^>]* data-theme=", page.text))
    else:
        lists = [len(m.group(0).split("\n")) - 1 for m in re.finditer(r"(?:^\d+\. .*\n)+", page.text, re.M)]
        themes = len(re.findall(r"^<!-- theme:", page.text, re.M))
    return {str(n) for n in [themes, lists[0] if len(lists) == 1 else 0] if n}


_LLM_NOTES = [re.compile(re.escape(note).replace(r"\{\}", r"[\d,]+")) for note in LLM_NOTES]


def _notes(page: Page, given: list[str]) -> list[tuple[int, int]]:
    """Every note of the report (a `> ` line; an item of the HTML notes) is one the store gives (`given`: what the
    venue's data lacks) or one of the forms a report notes how an LLM wrote it (LLM_NOTES); any other fails. The
    spans of the latter, whose counts the store does not keep."""
    known, runs = {squeeze(n) for n in given}, []
    pattern = re.compile(r'<p class="notes">(.*?)</p>' if page.html else r"^> ([^\n]*)$", re.M | re.S)
    for found in pattern.finditer(page.text):
        start = found.start(1)
        for item in found.group(1).split("<br>") if page.html else [found.group(1)]:
            said = page.plain(re.sub(r"<[^>]*>", " ", item))
            if any(note.fullmatch(said) for note in _LLM_NOTES):
                runs.append((start, start + len(item)))
            elif said not in known:
                page.fail(start, f"a note the store does not give: “{said[:100]}”")
            start += len(item) + len("<br>")
    return runs


def _numbers(
    page: Page, papers: dict[str, Paper], tldrs: Tldrs, unchecked: list[str], in_notes: list[tuple[int, int]]
) -> None:
    """Every number left is unverified unless the papers its sentence cites give it in their own words, or it
    counts the report's own lists or sections; in a note on how an LLM wrote the report (`in_notes`), whose counts
    the store does not keep, it is listed as not checked."""
    flat, own = page.remaining(), _own_counts(page)
    sentences = Sentences(flat)
    wrong: dict[int, list[str]] = {}
    noted: set[tuple[int, int]] = set()
    for pos, number in numbers_outside(flat):
        if number in own:
            continue
        left, right = sentences.around(pos, pos + len(number))
        cited = {c for pair in re.findall(rf'data-paper="({ID})"|\[\^({ID})\]', page.text[left:right]) for c in pair}
        if page.html and (ends_on := _CITE_TAG.match(page.text, right)):  # the sentence ends on its citation's tag
            cited.add(ends_on.group(1))
        if any(number in paper_numbers(papers[c], tldrs[c][0]) for c in cited if c in papers):
            continue
        note = next(((a, b) for a, b in in_notes if a <= pos < b), None)
        if note is not None:
            if note not in noted:
                said = page.plain(re.sub(r"<[^>]*>", " ", page.text[note[0] : note[1]]))
                unchecked.append(f"line {page.line(pos)}: {said}")
                noted.add(note)
            continue
        wrong.setdefault(page.line(pos), []).append(number)
    for line, numbers in wrong.items():
        shown = squeeze(re.sub(r"<[^>]*>", " ", page.text.split("\n")[line - 1]))
        at = next((shown.find(n) for n in numbers if n in shown), 0)
        quote = shown[max(0, at - 60) : at + 60]
        page.failures.append(f"line {line}: {', '.join(numbers)}: a number that is no checked fact (…{quote}…)")
