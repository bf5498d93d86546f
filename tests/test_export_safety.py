"""Exports and reports are safe to open: hostile titles, abstracts, authors and links from the data stay inert
text in CSV (no formulas), BibTeX (no links but http(s), no field break-out), Markdown and HTML reports (no tags,
no script links); the verifier rejects a report where such markup was put back by hand."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt

from confnav.cli import cli
from confnav.embed import SparseEmbedder
from confnav.export import to_bibtex, to_csv
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.model import Paper
from confnav.reports.digest import build_digest
from confnav.reports.facts import venue_facts
from confnav.reports.model import Citation, Report, Section
from confnav.reports.overview import build_overview
from confnav.reports.render import to_html, to_markdown
from confnav.reports.verify import verify_text
from confnav.safe_text import csv_cell, md_text, safe_link
from confnav.store import SqlStore, open_store
from tests.backends import Location
from tests.conftest import DATA, ROOT

pytestmark = pytest.mark.failure_injection

HOSTILE = [
    {
        "id": "evil-formula",
        "venue": "TEST 2021",
        "decision": "Accept (Poster)",
        "url": "javascript:alert(1)",
        "title": '=HYPERLINK("http://evil","click") <script>window.pwned = 1</script> Attention Models',
        "abstract": "We propose [a link](javascript:alert(1)) and ![pixel](http://evil/x.png) with <img src=x "
        "onerror=alert(1)> for attention where $x<y$ and 3 < 4; # not a heading | not a cell.",
        "authors": ["@SUM(1)", "-2+3 Mallory", "+Eve Example"],
        "keywords": ["attention", "=cmd|' /C calc'!A0"],
    },
    {
        "id": "evil-data",
        "venue": "TEST 2021",
        "decision": "Reject",
        "url": "data:text/html,<script>alert(1)</script>",
        "title": "# Heading } , note = {pwned | <b>bold</b> [x](javascript:alert(1))",
        "abstract": "We introduce <svg onload=alert(1)> [click](javascript:alert(1)) a reinforcement learning agent.",
        "tldr": "We introduce <svg onload=alert(1)> [click](javascript:alert(1)) a reinforcement learning agent.",
        "authors": ["\tTab Person", "Back\\slash"],
    },
]
BAD_LINKS = {"evil-formula": "javascript:alert(1)", "evil-data": "data:text/html,<script>alert(1)</script>"}
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
COMMONMARK = MarkdownIt("commonmark", {"html": True}).enable("table")


def hostile_venue(store: SqlStore, write, real_papers: int = 0) -> list[Paper]:  # type: ignore[no-untyped-def]
    """Ingest the hostile papers (and some real ICLR 2021 ones) as TEST 2021; then put the links ingest refuses
    straight into the store, as an older or edited store could hold them."""
    rows = list(csv.DictReader((DATA / "iclr2021" / "paperlist.tsv").open(encoding="utf-8"), delimiter="\t"))
    real = [
        {
            "id": row["paper_id"],
            "venue": "TEST 2021",
            "title": row["title"],
            "abstract": row["abstract"],
            "keywords": row["keywords"],
            "authors": ["A. Author"],
            "decision": "Reject" if i % 3 else "Poster",
        }
        for i, row in enumerate(rows[:real_papers])
    ]
    path = write("hostile.jsonl", "".join(json.dumps(record) + "\n" for record in [*HOSTILE, *real]))
    ingest(store, [path])
    hostile = [store.get_paper(paper_id, "test2021") for paper_id in BAD_LINKS]
    assert all(not paper.links for paper in hostile)  # ingest keeps only http(s) links
    tampered = [replace(paper, links={"site": BAD_LINKS[paper.id]}) for paper in hostile]
    with store.transaction():
        store.put_papers(tampered)
    return tampered


def test_csv_cell_rule() -> None:
    for formula in ("=1+1", "+cmd", "-2+3", "@SUM(1)", "\tx", "\rx", " =1", "\uff1d1", "-"):
        assert csv_cell(formula) == "'" + formula
    for kept in ("-1.5", "+3", "1e5", "Attention", "", "a=b"):
        assert csv_cell(kept) == kept


def test_safe_link_rule() -> None:
    for bad in (
        "javascript:alert(1)",
        " JavaScript:alert(1)",
        "data:text/html,x",
        "vbscript:x",
        "/relative",
        "//evil.org",
        "https://",
        "https://a.org/x y",
        "http://[::1",
        None,
        "",
    ):
        assert safe_link(bad) is None, bad
    assert safe_link("https://openreview.net/forum?id=-a_b") == "https://openreview.net/forum?id=-a_b"
    assert safe_link('https://a.org/x(1)"<b>{c}\\') == "https://a.org/x%281%29%22%3Cb%3E%7Bc%7D%5C"


def test_markdown_text_rule_keeps_plain_text_readable() -> None:
    assert md_text("Deformable DETR: 3 < 4 and $x^2$") == "Deformable DETR: 3 < 4 and $x^2$"
    assert md_text("$x<y$") == "$x\\<y$"  # renders as $x<y$; `<y` could open a tag in a lenient renderer
    assert md_text("# 1. [a](b) | `c` <i>") == "\\# 1. \\[a\\](b) \\| \\`c\\` \\<i>"
    assert md_text("- item", line_start=False) == "- item"
    assert COMMONMARK.render(md_text("12. a\\")) == "<p>12. a\\</p>\n"


def test_csv_export_defuses_formulas_and_drops_other_links(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    hostile = hostile_venue(store, write)
    store.create_list("hostile")
    for paper in hostile:
        store.add_to_list("hostile", paper.id, "test2021")
    rows = list(csv.reader(io.StringIO(to_csv(store.list_papers("hostile")))))
    assert rows[0] == ["id", "venue", "title", "authors", "decision", "rating_mean", "url"]
    cells = [cell for row in rows for cell in row]
    assert not [c for c in cells if c.startswith(FORMULA_START)], cells
    by_id = {row[0]: dict(zip(rows[0], row, strict=True)) for row in rows[1:]}
    assert by_id["evil-formula"]["title"].startswith("'=HYPERLINK(")
    assert by_id["evil-formula"]["authors"] == "'@SUM(1); -2+3 Mallory; +Eve Example"
    assert by_id["evil-data"]["authors"] == "Tab Person; Back\\slash"  # ingest trims the tab (csv_cell: see above)
    assert by_id["evil-formula"]["url"] == by_id["evil-data"]["url"] == ""
    linked = replace(hostile[0], links={"site": "https://example.org/p(1)"})
    assert list(csv.reader(io.StringIO(to_csv([linked]))))[1][-1] == "https://example.org/p%281%29"


def test_csv_export_of_real_papers_with_dash_ids(iclr2021_copy: Location) -> None:
    """ICLR 2021 OpenReview ids that start with '-' (45 in the paperlists file; docs/reports.md said 43, the
    TSV's count, and now gives none that could go stale): a spreadsheet would read them as formulas."""
    raw = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text(encoding="utf-8"))
    with open_store(iclr2021_copy) as store:
        papers = [p for p in store.iter_papers("iclr2021") if p.id.startswith("-")]
        rows = list(csv.reader(io.StringIO(to_csv(papers))))[1:]
    assert len(rows) == len(papers) == sum(str(r["id"]).startswith("-") for r in raw) == 45
    docs = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    assert "start with `-`" in docs and not re.search(r"start with `-` \(\d+", docs)
    assert all(row[0] == "'" + p.id for row, p in zip(rows, papers, strict=True))
    assert all(row[-1] == (p.url or "") for row, p in zip(rows, papers, strict=True))  # OpenReview links as they are
    assert sum(row[-1].startswith("https://openreview.net/forum?id=-") for row in rows) >= 40


def test_bibtex_has_only_http_links_and_fields_stay_closed(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    bib = to_bibtex(hostile_venue(store, write))
    assert "url = " not in bib and "data:" not in bib  # `javascript:` is left only as words of a title
    for entry in bib.strip().split("\n\n"):
        depth, fields = 0, []
        for index, char in enumerate(entry):  # BibTeX counts every brace, escaped or not
            if char == "{":
                if depth == 1:
                    fields.append(re.search(r"(\w+) = $", entry[:index]).group(1))  # type: ignore[union-attr]
                depth += 1
            elif char == "}":
                depth -= 1
                assert depth > 0 or index == len(entry) - 1, entry
        assert depth == 0 and set(fields) <= {"title", "author", "booktitle", "note", "year", "keywords", "doi"}, entry
    assert "title = {\\# Heading \\textbraceright{} , note = \\textbraceleft{}pwned" in bib
    assert "Back\\textbackslash{}slash" in bib


def assert_inert_markdown(text: str) -> None:
    """Rendered by a CommonMark renderer with raw HTML allowed, the report holds no tag or link from the data."""
    html = COMMONMARK.render(text)
    tags = re.findall(r"<[A-Za-z][^>]*>", html)
    assert not [t for t in tags if re.match(r"<(script|img|svg|b|i)\b", t)], tags
    assert not [t for t in tags if re.search(r"""\s(href|src)=["']?(?!https?://|[\w%]+_files/)""", t)], tags
    assert not re.search(r"<h[1-6]>\\?# Heading|<h[1-6]># not", html)


def test_markdown_and_html_digest_are_inert_and_verify(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    hostile_venue(store, write)
    report = build_digest(store, "test2021")
    markdown = to_markdown(report)
    assert_inert_markdown(markdown)
    assert "\\<script>window.pwned = 1\\</script>" in markdown and "\\[click\\](javascript:alert(1))" in markdown
    assert "— @SUM(1), -2+3 Mallory, +Eve Example" in markdown  # mid-line text is left as it is
    html = to_html(report)
    assert "<script" not in html and "<svg" not in html
    assert not re.search(r"""href=["']?(javascript|data):""", html)
    for text in (markdown, html):
        result = verify_text(store, text)
        assert result.ok and result.citations == 2, result.failures


def test_prose_from_the_data_is_escaped_around_confnav_marks(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    hostile_venue(store, write)
    accepted = next(f for f in venue_facts(store, "test2021") if f.key == "venue.accepted")
    report = Report("digest", store.get_venue("test2021"), "<b>Title</b>", facts=[accepted])
    report.intro = "- <img src=x onerror=alert(1)> has {venue.accepted} paper [[cite:evil-data]], path C:\\"
    cite = Citation("evil-data", "# T", "javascript:alert(1)", "<svg onload=alert(1)>", "author")
    report.sections.append(Section("<i>Theme</i> | x", "[x](javascript:1) {venue.accepted}", {}, [cite]))
    markdown = to_markdown(report)
    assert (
        "\n\\- \\<img src=x onerror=alert(1)> has **1**<!-- fact:venue.accepted --> paper [evil-data][^evil-data], "
        "path C:\\\\\n" in markdown
    )
    assert "\n\\[x\\](javascript:1) **1**<!-- fact:venue.accepted -->\n" in markdown
    assert "# \\<b>Title\\</b>\n" in markdown and "## \\<i>Theme\\</i> \\| x\n" in markdown
    assert "1. \\# T[^evil-data]" in markdown
    assert_inert_markdown(markdown)
    result = verify_text(store, markdown)
    assert result.facts == 2, result.failures  # the facts block leaves out what the text says
    # what this made-up report invents is all the verifier finds: its title, the cited paper's title and TL;DR
    found = [f.split(": ", 1)[1] for f in result.failures]
    assert len(found) == 3 and "does not name the verified venue" in found[0], result.failures
    assert found[1].startswith("paper evil-data is shown as") and "TL;DR shown for evil-data" in found[2]


def test_overview_of_a_hostile_venue_is_inert_and_verifies(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    hostile_venue(store, write, real_papers=40)
    build_index(store, SparseEmbedder())  # the model does not matter here; the TF-IDF one needs no export
    markdown = to_markdown(build_overview(store, "test2021", per_theme=50))
    cited = set(re.findall(r"\[\^([\w\-]+)\]:", markdown))
    assert set(BAD_LINKS) <= cited, cited
    assert_inert_markdown(markdown)
    result = verify_text(store, markdown)
    assert result.ok, result.failures


def test_verify_rejects_a_tampered_report_naming_the_line(iclr2021_copy: Location, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with open_store(iclr2021_copy) as store:
        hostile_venue(store, write)
    report = tmp_path / "digest.md"
    run = CliRunner().invoke(
        cli, ["report", "digest", "--db", str(iclr2021_copy), "--venue", "test2021", "-o", str(report)]
    )
    assert run.exit_code == 0, run.stderr
    assert CliRunner().invoke(cli, ["verify", "--db", str(iclr2021_copy), str(report)]).exit_code == 0
    lines = report.read_text().split("\n")
    item = next(i for i, line in enumerate(lines) if "\\<script>window" in line)
    lines[item] = lines[item].replace("\\<script>", "<script>")
    lines.insert(item + 1, "3. [Read this](javascript:alert(1))[^evil-data]")
    report.write_text("\n".join(lines))
    result = CliRunner().invoke(cli, ["verify", "--db", str(iclr2021_copy), str(report)])
    assert result.exit_code == 1
    assert f"line {item + 1}: raw HTML or autolink '<script>'" in result.stderr
    assert f"line {item + 2}: a link to a javascript: address" in result.stderr


@pytest.mark.parametrize(
    "tamper",
    [
        '<a href="javascript:alert(1)">x</a>',
        '<img src="x" onerror="alert(1)">',
        "<script>alert(1)</script>",
        '<a href="JaVa&#115;cript:alert(1)">x</a>',
        '<img src="data:text/html;base64,PHNjcmlwdD4=">',
    ],
)
def test_verify_rejects_tampered_html(store: SqlStore, write, tamper: str) -> None:  # type: ignore[no-untyped-def]
    hostile_venue(store, write)
    html = to_html(build_digest(store, "test2021"))
    assert verify_text(store, html).ok
    failures = verify_text(store, html.replace("<main>", "<main>\n" + tamper)).failures
    line = html[: html.index("<main>")].count("\n") + 2
    assert failures and all(f.startswith(f"line {line}: ") for f in failures), failures
