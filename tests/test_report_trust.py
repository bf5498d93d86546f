"""Reports tell nothing false: inline marks point at their own section's items, people sharing a name stay apart,
every paper offered shows its decision, user-given facts say so, and the served page verifies as the CLI's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from confnav.reports.model import Report
from confnav.reports.overview import build_overview
from confnav.reports.render import to_html, to_markdown
from confnav.store import open_store

_ID = r"[\w\-~.]+"


@pytest.fixture(scope="module")
def overview(topics_db: Path) -> Report:
    with open_store(topics_db) as store:
        return build_overview(store, "iclr2021")


def test_each_inline_mark_points_at_its_own_sections_item(overview: Report) -> None:
    """A paper listed in two sections (a theme's and "Where to start") is cited in each by that section's number
    (the last section it appeared in used to number every mark)."""
    markdown, html = to_markdown(overview), to_html(overview)
    checked = 0
    for chunk in markdown.split("\n## ")[1:]:
        items = {int(n): pid for n, pid in re.findall(rf"^(\d+)\. .*?\[\^({_ID})\]", chunk, re.M)}
        for number, paper_id in re.findall(rf"\[\[(\d+)\]\](?:\([^)\s]*\))?\[\^({_ID})\]", chunk):
            assert items.get(int(number)) == paper_id, (chunk.split("\n")[0], number, paper_id)
            checked += 1
    for chunk in html.split("<section")[1:]:
        listed = re.search(r'<ol class="papers">(.*?)</ol>', chunk, re.S)
        items = re.findall(rf'<li><span class="cite" data-paper="({_ID})"', listed.group(1)) if listed else []
        for paper_id, number in re.findall(
            rf'<span class="cite mark" data-paper="({_ID})"[^>]*><a [^>]*>\[(\d+)\]', chunk
        ):
            assert items[int(number) - 1] == paper_id, (number, paper_id)
            checked += 1
    assert checked >= 200  # both renderings' marks (about 150 each)
    shared = {c.paper_id for c in overview.sections[-1].citations} & {
        c.paper_id for s in overview.sections[:-1] for c in s.citations
    }
    assert shared  # the case that went wrong: papers of "Where to start" listed in a theme too
