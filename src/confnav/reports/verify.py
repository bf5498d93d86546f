"""The verifier: every cited paper exists and belongs to the report's venue; every marked number and
every table equals what the store gives now; no raw HTML or non-http(s) link slipped in. Works on the
Markdown and HTML confnav writes."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from typing import Protocol

from confnav.errors import ConfnavError, InputError, NotFoundError, VenueNameError, read_utf8
from confnav.rank.ranker import ranker_named
from confnav.reports.facts import theme_facts_of, trend_facts, venue_facts
from confnav.reports.grounding import ground_failures
from confnav.reports.marked import HTML_FACT, MD_FACT
from confnav.reports.model import Fact
from confnav.reports.rebuttal import RebuttalStore
from confnav.reports.rebuttal_stats import rebuttal_facts, venue_rebuttal
from confnav.reports.render import md_cell
from confnav.reports.stats import stats_tables
from confnav.reports.theme_claims import Ground
from confnav.safe_text import unsafe_markup
from confnav.store.protocols import AnalysisStore, PaperReader
from confnav.topics import theme_facts
from confnav.topics.facts import ThemeFacts

_ID = r"[A-Za-z0-9_\-~.]+"
_MD_HEADER = re.compile(r"<!-- confnav:report kind=(\w+) venue=(\w+)(?: ranker=([\w.:\-]+))? -->")
_HTML_HEADER = re.compile(r'<meta name="confnav-report" content="kind=(\w+) venue=(\w+)(?: ranker=([\w.:\-]+))?">')
# A table's caption, the heading right above its mark.
_MD_CAPTION = re.compile(r"^#{2,4} (.*)\n\n<!-- table:([\w\-]+) -->", re.M)
_HTML_CAPTION = re.compile(r'<h[2-4]>([^<]*)</h[2-4]>(?:<div[^>]*>)?<table data-table="([\w\-]+)"')
_CITES = [
    re.compile(rf"\[\^({_ID})\]"),
    re.compile(rf"openreview\.net/(?:forum|pdf)\?id=({_ID})"),
    re.compile(rf'data-paper="({_ID})"'),
]


class VerificationError(ConfnavError):
    """A report failed verification; the message lists every failure."""


@dataclass
class Verification:
    """What was checked and what failed."""

    path: str
    kind: str
    venue: str
    facts: int = 0
    citations: int = 0
    tables: int = 0
    unchecked: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, object]:
        return self.__dict__ | {"ok": self.ok}


def _md_tables(text: str) -> dict[str, list[list[str]]]:
    tables: dict[str, list[list[str]]] = {}
    for match in re.finditer(r"<!-- table:([\w\-]+) -->\n((?:\|.*\|\n?)+)", text):
        lines = [line for i, line in enumerate(match.group(2).strip().split("\n")) if i != 1]
        tables[match.group(1)] = [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]
    return tables


def _html_tables(text: str) -> dict[str, list[list[str]]]:
    tables: dict[str, list[list[str]]] = {}
    for match in re.finditer(r'<table data-table="([\w\-]+)">(.*?)<tbody>(.*?)</tbody>', text, re.S):
        head = [unescape(c) for c in re.findall(r"<th>(.*?)</th>", match.group(2), re.S)]
        rows = [
            [unescape(c) for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", match.group(3), re.S)
        ]
        tables[match.group(1)] = [head, *rows]
    return tables


class ReportStore(AnalysisStore, RebuttalStore, Protocol):
    """What verifying a report reads: papers, vectors, themes, signals and the review histories."""


def expected_facts(store: ReportStore, venue: str, trends: bool = False, rebuttal: bool = False) -> dict[str, str]:
    """Every fact key a report of this venue may show, with its value from the store now; with `trends`, the
    themes' shares of the previous edition too (which reads both editions' vectors); with `rebuttal`, the
    rebuttal's facts (which reads the review histories)."""
    return {key: f.value for key, f in _expected(store, venue, trends, rebuttal)[0].items()}


def _expected(
    store: ReportStore, venue: str, trends: bool, rebuttal: bool
) -> tuple[dict[str, Fact], list[ThemeFacts], str | None]:
    """The facts a report of this venue may show (see expected_facts), the venue's themes, and with `trends` the
    name of the edition they are measured against."""
    facts = {f.key: f for f in venue_facts(store, venue)}
    if rebuttal and (found := venue_rebuttal(store, venue)) is not None:
        facts.update(rebuttal_facts(found))
    try:
        themes = theme_facts(store, venue)
    except NotFoundError:
        return facts, [], None  # no themes: a report citing theme facts will fail on them
    for theme in themes:
        facts.update(theme_facts_of(theme))
    previous = None
    if trends:
        before, trend = trend_facts(store, venue, [t for t in themes if t.level == 1])
        facts.update({f.key: f for f in trend})
        previous = before.name if before is not None else None
    return facts, themes, previous


def verify_text(store: ReportStore, text: str, path: str = "<report>") -> Verification:
    """Check a report's text against the store."""
    html = text.lstrip().lower().startswith("<!doctype html")
    header = (_HTML_HEADER if html else _MD_HEADER).search(text)
    if header is None:
        raise InputError(path, "not a confnav report (no confnav report marker)")
    result = Verification(path, header.group(1), header.group(2))
    result.failures += unsafe_markup(text, html)
    venue, ranker = result.venue, header.group(3)
    try:
        venue = store.get_venue(venue).id
    except (NotFoundError, VenueNameError) as exc:
        result.failures.append(str(exc))
        return result
    if ranker:  # its reasons are checked against the ranker that ranked it, which must be at hand
        try:
            ranker_named(store.settings, ranker)
        except ConfnavError as exc:
            result.failures.append(f"the report was ranked by {ranker!r}, which cannot be made here: {exc}")
            return result
    claimed = (
        [(key, unescape(value)) for key, value in HTML_FACT.findall(text)]
        if html
        else [(key, value) for value, key in MD_FACT.findall(text)]
    )
    keys = [key for key, _ in claimed]
    facts, themes, previous = _expected(
        store, venue, any(k.startswith("trend.") for k in keys), any(k.startswith("rebuttal.") for k in keys)
    )
    truth = {key: f.value for key, f in facts.items()}
    for key, shown in claimed:
        if key.startswith("config."):
            result.unchecked.append(f"{key} = {shown} (from the user's venue config)")
            continue
        result.facts += 1
        if key not in truth:
            result.failures.append(f"fact {key} = {shown!r}: no such fact in the store")
        elif truth[key] != shown:
            result.failures.append(f"fact {key}: the report says {shown}, the store says {truth[key]}")
    cited = {m for pattern in _CITES for m in pattern.findall(text)}
    result.citations += len(cited)
    result.failures += citation_failures(store, cited, {venue})
    shown_tables = _html_tables(text) if html else _md_tables(text)
    tables = stats_tables(store, venue) if shown_tables or "|" in text or "<table" in text else []
    if shown_tables:
        expected = {  # each cell as the report writes it, the header first
            t.id: [[str(c) if html else md_cell(c).strip() for c in row] for row in [t.header, *t.rows]] for t in tables
        }
        for table_id, rows in shown_tables.items():
            result.tables += 1
            if table_id not in expected:
                result.failures.append(f"table {table_id}: no such table")
            elif rows != expected[table_id]:
                pairs = enumerate(zip(rows, expected[table_id], strict=False))
                wrong = next((i for i, (a, b) in pairs if a != b), min(len(rows), len(expected[table_id])))
                where = f"row {wrong}" if wrong else "the header"
                result.failures.append(f"table {table_id}: {where} differs from the store")
    captions = {t.id: t.caption for t in tables}
    for shown_caption, table_id in (_HTML_CAPTION if html else _MD_CAPTION).findall(text):
        said = " ".join((unescape(shown_caption) if html else shown_caption.replace("\\", "")).split())
        if table_id in captions and said != " ".join(captions[table_id].split()):
            result.failures.append(f"table {table_id}: its caption says {said!r}; it is {captions[table_id]!r}")
    info = store.get_venue(venue)
    names = [v.name for v in store.venue_list()]
    ground = Ground(venue, info.name, facts, themes, [t.caption for t in tables], names, result.kind, previous)
    result.failures += ground_failures(store, text, html, ground, result.unchecked, ranker)
    return result


def verified(store: ReportStore, text: str, path: str = "<report>") -> Verification:
    """`verify_text`, raising when anything failed: what every report the tool shows goes through."""
    check = verify_text(store, text, path)
    if not check.ok:
        raise VerificationError("the report failed verification: " + "; ".join(check.failures))
    return check


def citation_failures(store: PaperReader, cited: Iterable[str], venues: Collection[str]) -> list[str]:
    """What is wrong with each cited paper id: not in the store, or a paper of none of `venues`."""
    cited = sorted(set(cited))
    venues_of = store.venues_of(cited)
    failures = []
    for paper_id in cited:
        if paper_id not in venues_of:
            failures.append(f"citation {paper_id}: no such paper in the store")
        elif not venues_of[paper_id] & set(venues):
            found, wanted = ", ".join(sorted(venues_of[paper_id])), ", ".join(sorted(venues))
            failures.append(f"citation {paper_id}: a paper of {found}, not {wanted}")
    return failures


def verify_file(store: ReportStore, path: Path) -> Verification:
    if not path.is_file():
        raise InputError(path, "no such file" if not path.exists() else "not a file")
    return verify_text(store, read_utf8(path), str(path))
