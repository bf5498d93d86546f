"""What a report shows of its papers, checked against the store: each title, byline (authors, decision), TL;DR
and the ranking's reasons beside it; and the report's text, with what has been checked blanked out."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html import escape, unescape

from confnav.model import Paper
from confnav.reports.model import LLM_NOTES, decision_words
from confnav.reports.prose import method_name, paper_name
from confnav.safe_text import md_text
from confnav.summarize.base import WRITTEN_BY

ID = r"[A-Za-z0-9_\-~.]+"
NUMBER = re.compile(r"\d(?:[\d,.]*\d)?")
# A citation mark: `[[3]](link)[^id]`, or `[3][^id]` when the paper has no link (`[id][^id]` outside a list).
_MD_MARK = re.compile(rf'(?:"([^"\n]+)" )?(?:\[\[([^\]\s]+)\]\](?:\([^)\s]*\))?|\[([^\]\s]+)\])\[\^({ID})\]')
_MD_ITEM = re.compile(rf"^(\d+)\. (?:\[((?:[^\]\\\n]|\\.)*)\]\(([^)\s]*)\)|(.*?))\[\^({ID})\](?: — (.*))?$", re.M)
_MD_NOTE = re.compile(rf"^\[\^({ID})\]: (.*) \(([^()\n]*) TL;DR\)$", re.M)
_HTML_CITE = re.compile(
    rf'(?:&quot;((?:(?!&quot;).)+)&quot; )?<span class="cite( mark)?" data-paper="({ID})"(?: data-url="[^"]*")?>'
    r'(?:<a href="([^"]*)">|<span tabindex="0">)(.*?)(?:</a>|</span>)'
    r'<span class="card" role="tooltip">(.*?)</span></span>'
)
_HTML_AFTER = re.compile(r'\s*(?:<br>)?<span class="(tldr|muted)">(?:— )?(.*?)</span>')
_WRITTEN_AFTER = re.compile(rf"(.*) \(({WRITTEN_BY}[^()]+)\)", re.S)
_TLDR_LINE = re.compile(r"<strong>TL;DR</strong> \(([^()]*)\): (.*)$", re.S)
_PROFILE_REASON = re.compile(r"close to your liked papers \(relevance [\d.]+\)")  # the liked ids are not recorded
NO_TLDR = "No abstract to summarize."


@dataclass
class Page:
    """A report's text with the parts already accounted for blanked out (newlines kept, so lines still count)."""

    text: str
    html: bool
    left: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    tldrs: dict[str, str] = field(default_factory=dict)  # each paper's TL;DR as shown, once checked

    def __post_init__(self) -> None:
        self.left = list(self.text)

    def line(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def fail(self, pos: int, message: str) -> None:
        self.failures.append(f"line {self.line(pos)}: {message}")

    def take(self, start: int, end: int) -> None:
        """Mark text[start:end] as accounted for."""
        self.left[start:end] = [c if c == "\n" else " " for c in self.text[start:end]]

    def remaining(self) -> str:
        return "".join(self.left)

    def plain(self, shown: str) -> str:
        """Shown text as the data wrote it: HTML entities decoded, Markdown escapes dropped, spaces squeezed."""
        text = unescape(shown) if self.html else re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", shown)
        return " ".join(text.split())

    def written(self, text: str) -> list[str]:
        """The ways a renderer writes a text from the data."""
        if self.html:
            return [escape(text)]
        return list(dict.fromkeys([md_text(text, line_start=False), md_text(text)]))

    def take_texts(self, texts: Iterable[str]) -> None:
        """Account for every occurrence of texts derived from the store (labels, notes, captions, venue names)."""
        for text in sorted({t for t in texts if t}, key=len, reverse=True):
            for form in self.written(text):
                for match in re.finditer(re.escape(form), self.remaining()):
                    self.take(match.start(), match.end())


def squeeze(text: str) -> str:
    return " ".join(text.split())


def byline_failure(shown: str, paper: Paper) -> str | None:
    """Why a byline ("A, B, C et al." then " · decision") is not the paper's: its first authors in order, "et al."
    when there are more, and its decision."""
    names, decision = shown, None
    if " · " in shown:
        names, decision = shown.rsplit(" · ", 1)
    elif shown == paper.decision.name:
        names, decision = "", shown
    if decision is not None and decision != paper.decision.name:
        return f"decision shown {decision!r}, the store says {paper.decision.name!r}"
    if not names:
        return None
    more = names.endswith(" et al.")
    listed = names.removesuffix(" et al.").split(", ")
    actual = [squeeze(a.name) for a in paper.authors]
    if [squeeze(n) for n in listed] != actual[: len(listed)] or more != (len(actual) > len(listed)):
        return f"authors shown {names!r}, the store says {', '.join(actual[: len(listed)])!r}"
    return None


# A note's opening decision words ("accepted (oral)", "not accepted (withdrawn)"), as reports.model writes them.
_DECISION = re.compile(r"^(?:accepted|not accepted|workshop|pending|other)(?: \([^)]*\))?(?: · |; |$)")


def note_failure(shown: str, reasons: list[str], paper: Paper, unchecked: Callable[[str], bool]) -> str | None:
    """Why a note beside a listed paper is not made of the ranking's reasons for it (after its byline, when the
    note opens with one before " — ")."""
    parts = shown.split(" — ")
    if len(parts) > 1 and (why := byline_failure(parts[0], paper)) is not None:
        return why
    rest = " — ".join(parts[1:]) if len(parts) > 1 else shown
    if opening := _DECISION.match(rest):  # the note opens with the paper's decision, as reports list papers
        said = re.sub(r"( · |; )$", "", opening.group())
        if said != decision_words(paper.decision):
            return f"decision shown {said!r}, the store says {decision_words(paper.decision)!r}"
        rest = rest[opening.end() :]
    for reason in sorted(reasons, key=len, reverse=True):  # a whole part of the note, not words inside another
        rest = re.sub(rf"(?:^|(?<=· )|(?<=; )){re.escape(squeeze(reason))}(?=$| ·|;)", " ", rest)
    leftover = [p.strip() for p in re.split(r" · |; ", rest) if p.strip()]
    leftover = [p for p in leftover if not unchecked(p)]
    if leftover:
        return f"reasons shown {'; '.join(leftover)!r} are not the ranking's reasons for it"
    return None


def paper_numbers(paper: Paper, tldr: str | None) -> set[str]:
    """The numbers a paper's own words give: title, TL;DR, abstract, keywords."""
    words = " ".join([paper.title, tldr or "", paper.abstract or "", *paper.keywords])
    return set(NUMBER.findall(words))


Tldrs = dict[str, tuple[str | None, str]]


def _tldr_failure(
    page: Page, pos: int, paper: Paper, shown: str, source: str, truth: tuple[str | None, str], unchecked: list[str]
) -> None:
    """A TL;DR's label is one the report writer uses, and true: "author" only for the store's author TL;DR, the
    summarizer's own label for what it gives, "extractive" for sentences of the paper's own abstract or title, "llm"
    only in a report that notes an LLM wrote it (checked as written; listed as not checked), "written by NAME" for
    a summarizer's own words (its citations and numbers checked, see `_written_failure`). Any other label fails."""
    text, made_by = truth
    said = page.plain(shown)
    if source == "llm" and any(note.search(page.text) for note in _LLM_WROTE):
        unchecked.append(f"the LLM's TL;DR of {paper.id} (line {page.line(pos)})")
        return
    if source.startswith(WRITTEN_BY) and len(source) > len(WRITTEN_BY):
        _written_failure(page, pos, paper, said, page.plain(source.removeprefix(WRITTEN_BY)), text, unchecked)
        return
    kept = said == squeeze(text or NO_TLDR)  # the store's (none: no abstract), under the label it was made by
    if (source == made_by and kept) or (
        source in (made_by, "extractive") and source != "author" and extracted(said, paper)
    ):
        page.tldrs[paper.id] = said
        return
    page.fail(
        pos,
        f'the TL;DR shown for {paper.id} is credited "{source}": it is neither its {made_by} TL;DR in the store'
        " under that label, nor sentences of its abstract under its extractive label, nor an LLM's in a report"
        " that says an LLM wrote it",
    )


def _written_failure(
    page: Page, pos: int, paper: Paper, said: str, name: str, kept: str | None, unchecked: list[str]
) -> None:
    """A TL;DR a summarizer declared it wrote itself: its words are its own (listed as not checked), but it cites
    no other paper and states only numbers its paper's own words give (title, abstract, keywords, stored TL;DR)."""
    if cited := sorted({c for c in re.findall(rf"\[\^({ID})\]", said) if c != paper.id}):
        page.fail(pos, f"the TL;DR {name} wrote for {paper.id} cites other papers: {', '.join(cited)}")
    elif invented := set(NUMBER.findall(said)) - paper_numbers(paper, kept):
        page.fail(
            pos,
            f"the TL;DR {name} wrote for {paper.id} states numbers its paper does not give:"
            f" {', '.join(sorted(invented))}",
        )
    else:
        unchecked.append(f"the TL;DR {name} wrote for {paper.id} (line {page.line(pos)}; its numbers checked)")


# The notes saying an LLM wrote (some of) a report's TL;DRs; the one saying it could not be reached is not one.
_LLM_WROTE = [re.compile(re.escape(LLM_NOTES[i]).replace(r"\{\}", r"[\d,]+")) for i in (0, 2)]


_PIECE = re.compile(r"(?<=[.!?])\s+")


def extracted(tldr: str, paper: Paper) -> bool:
    """Whether every sentence of a TL;DR is a whole sentence or clause of the paper's abstract or title, word for
    word: what an extractive summarizer of any kind shows (a clause ends where the abstract puts punctuation)."""
    own = [squeeze(t) for t in (paper.abstract, paper.title) if t]
    pieces = [p.rstrip(".!?;:, ") for p in _PIECE.split(squeeze(tldr))]
    return bool(own) and all(
        piece and any(re.search(rf"(?:^|(?<=[.!?;:,] )){re.escape(piece)}(?=[.!?;:,]|$)", text) for text in own)
        for piece in pieces
    )


def _title_failure(page: Page, pos: int, paper: Paper, shown: str) -> None:
    """A paper quoted before its mark is shown by its title, or by the name its title or abstract gives it (one
    quoted word is a term the sentence quotes, such as a keyword, not a title)."""
    names = {paper_name(paper.title), method_name(paper.abstract) if paper.abstract else None} - {None}
    if len(page.plain(shown).split()) < 2:
        return
    if page.plain(shown) not in {squeeze(paper.title), *(squeeze(n) for n in names if n)}:
        page.fail(pos, f"paper {paper.id} is shown as {page.plain(shown)!r}; its title is {squeeze(paper.title)!r}")


def _note(
    page: Page, pos: int, paper: Paper, shown: str, reasons: Callable[[], dict[str, list[str]]], unchecked: list[str]
) -> None:
    def profile(part: str) -> bool:
        if _PROFILE_REASON.fullmatch(part):
            unchecked.append(f"{paper.id}: {part} (the liked papers are not in the report)")
            return True
        return False

    if (why := note_failure(page.plain(shown), reasons().get(paper.id, []), paper, profile)) is not None:
        page.fail(pos, f"paper {paper.id}: {why}")


def md_papers(
    page: Page,
    papers: dict[str, Paper],
    tldrs: Tldrs,
    reasons: Callable[[], dict[str, list[str]]],
    unchecked: list[str],
) -> None:
    """List items (title, link, note), marks in prose (with a quoted title before) and footnoted TL;DRs."""
    text = page.text
    for m in _MD_ITEM.finditer(text):
        if (paper := papers.get(m.group(5))) is None:
            continue
        _title_failure(page, m.start(), paper, m.group(2) if m.group(2) is not None else m.group(4))
        if m.group(6) is not None:
            _note(page, m.start(), paper, m.group(6), reasons, unchecked)
        page.take(m.start(), m.end())
    for m in _MD_MARK.finditer(text):
        if m.group(1) is not None and (paper := papers.get(m.group(4))) is not None:
            _title_failure(page, m.start(), paper, m.group(1))
        page.take(m.start(), m.end())
    for m in _MD_NOTE.finditer(text):
        if (paper := papers.get(m.group(1))) is not None:
            _tldr_failure(page, m.start(), paper, m.group(2), m.group(3), tldrs[paper.id], unchecked)
        page.take(m.start(), m.end())
    for m in re.finditer(rf"\[\^{ID}\]|\]\(([^)\s]*)\)", text):  # other marks; links' addresses
        page.take(m.start(), m.end())


def html_papers(
    page: Page,
    papers: dict[str, Paper],
    tldrs: Tldrs,
    reasons: Callable[[], dict[str, list[str]]],
    unchecked: list[str],
) -> None:
    """Cited papers with their cards (title, byline, decision, TL;DR), and the TL;DR and reasons under a listed one."""
    text = page.text
    for m in _HTML_CITE.finditer(text):
        quoted, mark, paper = m.group(1), m.group(2), papers.get(m.group(3))
        if paper is not None:
            if quoted is not None:
                _title_failure(page, m.start(), paper, quoted)
            if not mark:
                _title_failure(page, m.start(), paper, m.group(5))
            for part in m.group(6).split("<br>"):
                if part.startswith("<strong>TL;DR</strong>") and (found := _TLDR_LINE.match(part)):
                    _tldr_failure(page, m.start(), paper, found.group(2), found.group(1), tldrs[paper.id], unchecked)
                elif part.startswith("<strong>") and part.endswith("</strong>"):
                    _title_failure(page, m.start(), paper, part[8:-9])
                elif part and (why := byline_failure(page.plain(part), paper)) is not None:
                    page.fail(m.start(), f"paper {paper.id}: {why}")
        page.take(m.start(), m.end())
        pos = m.end()
        while paper is not None and (after := _HTML_AFTER.match(text, pos)):
            if after.group(1) == "tldr":  # labelled only when a summarizer wrote it: "TEXT (written by NAME)"
                shown, source = after.group(2), tldrs[paper.id][1]
                if written := _WRITTEN_AFTER.fullmatch(shown):
                    shown, source = written.group(1), written.group(2)
                _tldr_failure(page, pos, paper, shown, source, tldrs[paper.id], unchecked)
            else:
                _note(page, pos, paper, after.group(2), reasons, unchecked)
            page.take(after.start(), after.end())
            pos = after.end()
    for m in re.finditer(r"<h2>(\d+)\. ", text):
        page.take(m.start(1), m.end(1))
    for m in re.finditer(r"<[^>]*>", page.remaining()):
        page.take(m.start(), m.end())
