"""Render a Report as Markdown (footnoted TL;DRs) or as one self-contained HTML file (hover cards).

Facts carry machine-readable marks (`<!-- fact:KEY -->` in Markdown, `data-fact` in
HTML), tables a `table:ID` mark, and citations their paper id, so the verifier can
check a report file against the store.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from functools import partial
from html import escape
from pathlib import Path
from urllib.parse import quote

from confnav.reports.faults import plain_prose, repeats, split_sentences
from confnav.reports.model import Citation, Fact, Report, Section
from confnav.safe_text import md_text, safe_link, site_name
from confnav.summarize.base import WRITTEN_BY

_PLACEHOLDER = re.compile(r"\{([a-z]+\.[\w.\-]+)\}")
_CITE_MARK = re.compile(r"\[\[cite:([A-Za-z0-9_\-~.]+)\]\]")
_MARKS = re.compile(f"{_CITE_MARK.pattern}|{_PLACEHOLDER.pattern}")  # confnav's own marks in prose
CSS = """
:root{--ink:#1d232b;--muted:#5a6472;--line:#d9dee5;--accent:#1f5fa8;--card:#fffdf5}
*{box-sizing:border-box}body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);
background:#fff}main{max-width:52rem;margin:0 auto;padding:1.5rem 1rem 4rem}h1{font-size:1.8rem;line-height:1.25}
h2{margin-top:2.2rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}a{color:var(--accent)}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(13rem,1fr));gap:.4rem 1rem;padding:0;list-style:none}
.facts li{border-left:3px solid var(--accent);padding-left:.5rem}.muted{color:var(--muted);font-size:.92rem}
.tldr{display:inline-block;margin:.15rem 0}
ol.papers{padding-left:1.4rem}ol.papers li{margin:.45rem 0}.cite{position:relative;display:inline}
.cite .card{display:none;position:absolute;left:0;top:1.6em;z-index:5;width:min(26rem,85vw);background:var(--card);
border:1px solid var(--line);border-radius:6px;padding:.6rem .75rem;box-shadow:0 4px 14px rgba(0,0,0,.12);
font-size:.92rem;color:var(--ink)}.cite:hover .card,.cite:focus-within .card{display:block}
table{border-collapse:collapse;width:100%;margin:.8rem 0;font-size:.93rem}th,td{border-bottom:1px solid var(--line);
padding:.3rem .5rem;text-align:left}td.num,th.num{text-align:right}figure{margin:1rem 0}img{max-width:100%;height:auto}
.notes{background:#f6f8fa;padding:.6rem .8rem;border-radius:6px}.cite.mark{font-size:.85em;vertical-align:.1em}
.cite.mark a,.cite.mark span[tabindex]{padding:.2rem .1rem;text-decoration:none}
header.site{border-bottom:1px solid var(--line);background:#f7f9fb}header.site nav{max-width:52rem;margin:0 auto;
padding:.6rem 1rem;display:flex;gap:.4rem 1.1rem;flex-wrap:wrap}header.site .brand{font-weight:700;color:var(--ink);
text-decoration:none}a.away{font-size:.85rem}.wide{overflow-x:auto}
@media (max-width:40rem){body{font-size:15px}th,td{padding:.3rem .2rem}table{font-size:.82rem}}
@media (prefers-color-scheme:dark){:root{--ink:#e6e9ee;--muted:#a9b2bf;--line:#3a424d;--accent:#8ab8ff;--card:#1e242c}
body{background:#14181d}header.site{background:#1b2027}.notes{background:#1e242c}}
"""


def report_header(report: Report) -> str:
    """What a report's header records for the verifier: its kind, its venue and the ranker its papers were ranked
    by (reports that rank)."""
    return f"kind={report.kind} venue={report.venue.id}" + (f" ranker={report.ranker}" if report.ranker else "")


def _facts_by_key(report: Report) -> dict[str, Fact]:
    found = {f.key: f for f in [*report.facts, *report.context]}
    for section in report.sections:
        found.update(section.facts)
    return found


RATE_WORDS = "of decided submissions"  # a count's share, shown beside it (facts.py keys it `<count>_rate`)


def facts_block(report: Report) -> list[tuple[Fact, Fact | None]]:
    """The report's facts as its facts block lists them: each count with its share beside it (not a line of its
    own repeating the count's label), and none the introduction already says."""
    said = set(_PLACEHOLDER.findall(report.intro))
    keys = {f.key: f for f in report.facts}
    beside = {f"{key}_rate" for key in keys if key not in said and f"{key}_rate" not in said}
    return [
        (fact, keys.get(f"{fact.key}_rate") if f"{fact.key}_rate" in beside else None)
        for fact in report.facts
        if fact.key not in said and fact.key not in beside
    ]


USER_GIVEN = "given by the user, not from the store"  # said beside each venue-config value (dates, location)


def _md_fact(fact: Fact) -> str:
    """A fact in bold with its key; the user's config values are text, marked as theirs, so they never read as
    verified; computed numbers are shown as is."""
    if fact.key.startswith("config."):
        return f"**{md_text(fact.value, line_start=False)}**<!-- fact:{fact.key} --> _({USER_GIVEN})_"
    return f"**{fact.value}**<!-- fact:{fact.key} -->"


def md_cell(cell: object) -> str:
    """A table cell as the Markdown report writes it (the verifier compares cells written the same way)."""
    return md_text(str(cell), line_start=False)


def to_markdown(report: Report, assets: Path | None = None, assets_link: str = "") -> str:
    """Markdown; charts are written as PNG files into `assets` (skipped when None)."""
    facts = _facts_by_key(report)
    urls = _urls(report)

    def cite_mark(match: re.Match[str], numbers: dict[str, int]) -> str:  # "[3](link)[^id]": its number in the list
        paper_id = match.group(1)
        label = f"[{numbers.get(paper_id, paper_id)}]"
        return f"[{label}]({urls[paper_id]})[^{paper_id}]" if urls.get(paper_id) else f"{label}[^{paper_id}]"

    def fill(text: str, numbers: dict[str, int]) -> str:  # the text escaped, confnav's marks as facts and citations
        parts, start = [], 0
        for match in _MARKS.finditer(text):
            parts.append(md_text(text[start : match.start()], line_start=start == 0))
            parts.append(cite_mark(match, numbers) if match.group(1) else _md_fact(facts[match.group(2)]))
            start = match.end()
        return "".join([*parts, md_text(text[start:], line_start=start == 0)])

    title = md_text(report.title, line_start=False)
    lines = [f"<!-- confnav:report {report_header(report)} -->", f"# {title}", ""]
    if block := facts_block(report):
        lines += ["## Facts", ""]
        lines += [
            f"- {md_text(f.label)}: {_md_fact(f)}" + (f" ({_md_fact(r)} {RATE_WORDS})" if r else "") for f, r in block
        ]
        lines.append("")
    if report.intro:
        lines += [fill(report.intro, {}), ""]
    footnotes: list[Citation] = []
    for number, section in enumerate(report.sections, start=1):
        name = md_text(section.title, line_start=False)
        heading = f"## {number}. {name}" if len(report.sections) > 1 else f"## {name}"
        lines += [heading, ""] + ([f"<!-- theme:{section.anchor} -->", ""] if section.anchor else [])
        if section.summary:
            lines += [fill(section.summary, list_numbers(section)), ""]
        for rank, cite in enumerate(section.citations, start=1):
            link = safe_link(cite.url)
            shown = f"[{md_text(cite.title, line_start=False)}]({link})" if link else md_text(cite.title)
            note = f" — {md_text(cite.note, line_start=False)}" if cite.note else ""
            lines.append(f"{rank}. {shown}[^{cite.paper_id}]{note}")
            footnotes.append(cite)
        lines.append("")
    for table in report.tables:
        lines += [f"### {md_text(table.caption, line_start=False)}", "", f"<!-- table:{table.id} -->"]
        lines += ["| " + " | ".join(map(md_cell, table.header)) + " |", "|" + " --- |" * len(table.header)]
        lines += ["| " + " | ".join(map(md_cell, row)) + " |" for row in table.rows] + [""]
    if assets is not None and report.charts:
        assets.mkdir(exist_ok=True)  # beside the report, whose folder exists
        for chart in report.charts:
            (assets / f"{chart.id}.png").write_bytes(chart.png)
            caption = md_text(chart.caption, line_start=False)
            lines += [f"![{caption}]({quote(f'{assets_link}{chart.id}.png')})", ""]
    if report.notes:
        lines += ["> " + md_text(note) for note in report.notes] + [""]
    noted: dict[str, Citation] = {}
    for cite in footnotes:  # a paper cited in two sections gets one note
        noted.setdefault(cite.paper_id, cite)
    for cite in noted.values():
        text = md_text(cite.tldr or "No abstract to summarize.")
        lines.append(f"[^{cite.paper_id}]: {text} ({md_text(cite.tldr_source, line_start=False)} TL;DR)")
    lines += [
        "",
        "_Generated by confnav from the paper store; every number and citation can be checked with `confnav verify`._",
    ]
    return "\n".join(lines) + "\n"


def _urls(report: Report) -> dict[str, str | None]:
    return {c.paper_id: safe_link(c.url) for section in report.sections for c in section.citations}


def _html_fact(fact: Fact) -> str:
    """A fact in bold with its key; a venue-config value is marked as the user's (`data-given`), in words too."""
    shown = f'<strong data-fact="{escape(fact.key)}">{escape(fact.value)}</strong>'
    if fact.key.startswith("config."):
        return f'<span class="given" data-given="user">{shown} <span class="muted">({USER_GIVEN})</span></span>'
    return shown


def _app_href(cite: Citation, report: Report) -> str:
    return f"/paper/{quote(cite.paper_id, safe='')}?venue={quote(report.venue.id, safe='')}"


def _away_link(cite: Citation) -> str:
    """In the app, beside a paper's title (which opens its app page): its own page out there, named by its site."""
    url = safe_link(cite.url)
    if not url:
        return ""
    site = site_name(url)
    label = f"{escape(cite.title)} on {escape(site)}"
    return f' <a class="away" href="{escape(url)}" rel="noopener noreferrer" aria-label="{label}">{escape(site)} ↗</a>'


def _html_item(cite: Citation, report: Report, in_app: bool) -> str:
    """A listed paper: its title (to its app page in the app, with its own page beside), its TL;DR in the open in
    the digest (a short list read top to bottom; elsewhere in a card), and why it is listed."""
    title = f"{_html_cite(cite, None, _app_href(cite, report))}{_away_link(cite)}" if in_app else _html_cite(cite)
    if report.kind == "digest" and cite.tldr:
        note = f'<br><span class="muted">{escape(cite.note)}</span>' if cite.note else ""
        said = f" ({cite.tldr_source})" if cite.tldr_source.startswith(WRITTEN_BY) else ""  # not the store's: say whose
        return f'<li>{title}<br><span class="tldr">{escape(cite.tldr + said)}</span>{note}</li>'
    note = f' <span class="muted">— {escape(cite.note)}</span>' if cite.note else ""
    return f"<li>{title}{note}</li>"


def list_numbers(section: Section) -> dict[str, int]:
    """Each paper's number in this section's list: a mark in the section's text shows it, so it points at the
    section's own item even when the paper is listed in other sections too."""
    return {c.paper_id: i for i, c in reversed(list(enumerate(section.citations, start=1)))}


def _html_cite(cite: Citation, mark: str | None = None, app_href: str | None = None, told: bool = False) -> str:
    """A cited paper with its card: the title (in lists) or a numbered mark (in prose), focusable for taps; it
    links to `app_href` (its page in the app) when given, else to its own page out there. The card adds what the
    text around it does not say: the title (beside a mark), authors and decision, and the TL;DR unless `told`
    (the sentence the mark sits in tells it already)."""
    shown = escape(mark) if mark else escape(cite.title)
    url = safe_link(cite.url)
    href = app_href or url
    link = f'<a href="{escape(href)}">{shown}</a>' if href else f'<span tabindex="0">{shown}</span>'
    heading = f"<strong>{escape(cite.title)}</strong><br>" if mark else ""
    byline = " · ".join(escape(part) for part in (cite.authors, cite.decision) if part)
    lines = [heading + byline] if heading or byline else []
    if not told:
        card = escape(cite.tldr or "No abstract to summarize.")
        lines.append(f"<strong>TL;DR</strong> ({escape(cite.tldr_source)}): {card}")
    away = f' data-url="{escape(url)}"' if app_href and url else ""
    inner = "<br>".join(line.removesuffix("<br>") for line in lines)
    return (
        f'<span class="cite{" mark" if mark else ""}" data-paper="{escape(cite.paper_id)}"{away}>{link}'
        f'<span class="card" role="tooltip">{inner}</span></span>'
    )


APP_PAGES = {"authors": "/author/", "institutions": "/institution/"}  # in the app, these tables link their names


def _html_row(row: Sequence[object], page: str | None, name: str | None = None) -> str:
    """A table row; with `page`, the first cell links to that page of the app (for `name`, else the cell's text)."""
    cells = [escape(str(c)) for c in row]
    if page and cells:
        cells[0] = f'<a href="{escape(page + quote(name or str(row[0]), safe=""))}">{cells[0]}</a>'
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


# The app's icon, inline (no request for /favicon.ico): in the head of every page the app serves, reports too.
ICON = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E"
    "%3Crect width='32' height='32' rx='6' fill='%231a5aa3'/%3E"
    "%3Ccircle cx='10' cy='12' r='4' fill='%23fff'/%3E%3Ccircle cx='22' cy='10' r='3' fill='%23fff1a8'/%3E"
    "%3Ccircle cx='17' cy='22' r='5' fill='%23fff'/%3E%3C/svg%3E"
)
APP_SCRIPT = (  # the site's keys ("/" to search) as on every page; TL;DR cards open on tap
    '<script src="/static/app.js" defer></script><script src="/static/report.js" defer></script>'
)


def to_html(report: Report, app_nav: str | None = None, app_top: str = "") -> str:
    """One self-contained page: inline CSS and images, no external requests. In the web app (`app_nav`: the
    site's navigation) the page has the site's header, and each cited paper links to its page in the app, with
    its own page out there beside it; `app_top` (the app's own HTML, e.g. the ranking-mode switch) goes
    under the title."""
    in_app = app_nav is not None
    facts = _facts_by_key(report)
    cites = {c.paper_id: c for sec in report.sections for c in sec.citations}

    def cite_mark(match: re.Match[str], sentence: str, numbers: dict[str, int]) -> str:  # a mark with its card
        paper_id = match.group(1)
        cite = cites.get(paper_id)
        if cite is None:
            return f'<span data-paper="{escape(paper_id)}">{escape(paper_id)}</span>'
        number, href = f"[{numbers.get(paper_id, paper_id)}]", _app_href(cite, report) if in_app else None
        return _html_cite(cite, number, href, told=bool(cite.tldr) and repeats(cite.tldr or "", sentence))

    def fill(text: str, numbers: dict[str, int]) -> str:  # sentence by sentence: a card leaves out what it tells
        filled = []
        for sentence in split_sentences(text):
            said = plain_prose(sentence)
            marked = _PLACEHOLDER.sub(lambda m: _html_fact(facts[m.group(1)]), escape(sentence))
            filled.append(_CITE_MARK.sub(partial(cite_mark, sentence=said, numbers=numbers), marked))
        return " ".join(filled)

    body = [f"<h1>{escape(report.title)}</h1>", app_top if in_app else ""]
    if block := facts_block(report):
        items = "".join(
            f"<li>{escape(f.label)}: {_html_fact(f)}" + (f" ({_html_fact(r)} {RATE_WORDS})" if r else "") + "</li>"
            for f, r in block
        )
        body.append(f'<h2>Facts</h2><ul class="facts">{items}</ul>')
    if report.intro:
        body.append(f"<p>{fill(report.intro, {})}</p>")
    for number, section in enumerate(report.sections, start=1):
        title = f"{number}. {section.title}" if len(report.sections) > 1 else section.title
        anchor = f' id="{escape(section.anchor)}" data-theme="{escape(section.anchor)}"' if section.anchor else ""
        body.append(f"<section{anchor}><h2>{escape(title)}</h2>")
        if section.summary:
            body.append(f"<p>{fill(section.summary, list_numbers(section))}</p>")
        if section.citations:
            items = "".join(_html_item(c, report, in_app) for c in section.citations)
            body.append(f'<ol class="papers">{items}</ol>')
        body.append("</section>")
    for table in report.tables:
        head = "".join(f"<th>{escape(h)}</th>" for h in table.header)
        page = APP_PAGES.get(table.id) if in_app else None
        names: list[str | None] = list(table.names) if table.names else [None] * len(table.rows)
        rows = "".join(_html_row(row, page, name) for row, name in zip(table.rows, names, strict=True))
        body.append(
            f'<h3>{escape(table.caption)}</h3><div class="wide"><table data-table="{escape(table.id)}">'
            f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
        )
    for chart in report.charts:
        data = base64.b64encode(chart.png).decode()
        body.append(
            f'<figure><img alt="{escape(chart.caption)}" src="data:image/png;base64,{data}">'
            f'<figcaption class="muted">{escape(chart.caption)}</figcaption></figure>'
        )
    if report.notes:
        body.append('<p class="notes">' + "<br>".join(escape(n) for n in report.notes) + "</p>")
    body.append(
        '<p class="muted">Generated by confnav from the paper store; every number and citation can be '
        "checked with <code>confnav verify</code>.</p>"
    )
    meta = report_header(report)
    header = f'<header class="site">{app_nav}</header>' if in_app else ""
    icon = f'<link rel="icon" href="{ICON}">' if in_app else ""  # the app's pages' icon; a file asks for none
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="confnav-report" content="{escape(meta)}"><title>{escape(report.title)}</title>{icon}'
        f"<style>{CSS}</style>{APP_SCRIPT if in_app else ''}</head>"
        f"<body>{header}"
        f"<main>{''.join(body)}</main></body></html>\n"
    )
