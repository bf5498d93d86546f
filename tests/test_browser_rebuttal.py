"""The rebuttal page in headless Chromium (as test_browser.py): a venue fetched from the local OpenReview server
after its rebuttal (a rating raised, one lowered, a late review), served; its charts named for screen readers, its
movers opening the papers' ratings before and after, on a laptop, on a phone and in dark mode, axe-core finding
nothing. (The paper page's folded review texts on a phone: test_review_texts.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.test_rebuttal_web import site  # noqa: F401 - the fetched venue's fixture
from tests.test_review_history import server  # noqa: F401 - the local OpenReview server's fixture
from tests.web_fixtures import LAPTOP, PHONE, SHOTS, luminance, needs_chromium, running_server

pytestmark = needs_chromium
VENUE = "iclr2018"
DEVICES: dict[str, dict[str, Any]] = {
    "laptop": {"viewport": LAPTOP},
    "phone": {"viewport": PHONE, "is_mobile": True, "has_touch": True},
    "dark": {"viewport": LAPTOP, "color_scheme": "dark"},
}
CHARTS = {  # each chart's accessible name begins with its title
    "rebuttal-dates": "Reviews by rating",
    "rebuttal-before-after": "Reviews by rating before and after the rebuttal",
}


@pytest.fixture
def served(site: tuple) -> Iterator[tuple[str, tuple]]:  # noqa: F811
    """The fetched store served as `confnav serve` serves it; its URL and the crafted rebuttal's papers."""
    with running_server(site[3]) as url:
        yield url, site[2]


def _check_charts(tab) -> None:  # type: ignore[no-untyped-def]
    """Both charts are drawn as images whose names are their own titles (aria-labelledby, as a reader computes it)."""
    charts = tab.locator("main svg.chart")
    assert [c.get_attribute("id") for c in charts.all()] == list(CHARTS)
    for chart_id, title in CHARTS.items():
        chart = tab.locator(f"svg#{chart_id}")
        assert chart.get_attribute("role") == "img" and chart.locator("rect").count() > 0
        named = (chart.get_attribute("aria-labelledby") or "").split()
        assert named[0] == f"{chart_id}-title"
        assert (chart.locator(f"title#{chart_id}-title").text_content() or "").startswith(title)
        assert tab.get_by_role("img", name=title).count() >= 1
        assert chart.bounding_box()["width"] > 0


def _mover(tab, section: str, paper: str, change: str) -> None:  # type: ignore[no-untyped-def]
    """The mover's link in `section` opens its paper, whose table shows the changed review before and after."""
    link = tab.locator(f"h2#{section} + div.scroll a")
    assert link.count() == 1 and link.get_attribute("href") == f"/paper/{paper}?venue={VENUE}"
    link.click()
    tab.wait_for_url(f"**/paper/{paper}?venue={VENUE}")
    rows = tab.locator("section.rebuttal tbody tr")
    moved = [row.locator("td").all_inner_texts() for row in rows.all() if row.locator("td").nth(3).inner_text() != "+0"]
    assert len(moved) == 1 and moved[0][3] == change, moved


def _problems(tab, axe, device: str, name: str, found: dict, wide: dict, light: dict) -> None:  # type: ignore[no-untyped-def]
    """What is wrong with the page shown: axe-core's findings, sideways scroll on a phone, a light page in dark mode."""
    tab.wait_for_load_state("networkidle")
    if violations := axe.run(tab).response["violations"]:
        found[(device, name)] = [(v["id"], len(v["nodes"]), v["nodes"][0]["html"][:120]) for v in violations]
    if device == "phone" and (width := tab.evaluate("document.scrollingElement.scrollWidth")) > PHONE["width"]:
        wide[name] = width
    background = tab.evaluate("getComputedStyle(document.body).backgroundColor")
    if device == "dark" and luminance(background) > 0.05:
        light[name] = background
    tab.screenshot(path=str(SHOTS / f"{name}-{device}.png"), full_page=True)


def test_the_rebuttal_page_in_a_browser(browser, served: tuple[str, tuple]) -> None:  # type: ignore[no-untyped-def]
    """On a laptop, a phone and in dark mode: the charts named, the rise and the fall link to their papers' before
    and after; no page scrolls sideways on the phone, every page is dark in dark mode, and axe finds nothing."""
    from axe_playwright_python.sync_playwright import Axe

    base, (first, second, *_) = served
    axe, errors = Axe(), []
    found: dict[tuple[str, str], list] = {}  # type: ignore[type-arg]
    wide: dict[str, int] = {}
    light: dict[str, str] = {}
    SHOTS.mkdir(parents=True, exist_ok=True)
    for device, options in DEVICES.items():
        context = browser.new_context(**options)
        tab = context.new_page()
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.goto(f"{base}/venues/{VENUE}/rebuttal")
        _check_charts(tab)
        _problems(tab, axe, device, "rebuttal", found, wide, light)
        for section, paper, change in (("rises", first, "+2"), ("falls", second, "-3")):
            tab.goto(f"{base}/venues/{VENUE}/rebuttal")
            _mover(tab, section, paper, change)
            _problems(tab, axe, device, f"paper-{section}", found, wide, light)
        context.close()
    assert not found and not wide and not light, (found, wide, light)
    assert not errors, errors
