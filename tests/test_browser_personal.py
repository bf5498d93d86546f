"""In headless Chromium: a paper liked from a search hit (by keyboard) changes the venue's For you page, whose
papers say why they are there; a second press takes the like back. axe-core finds nothing on the pages."""

from __future__ import annotations

import pytest

from tests.web_fixtures import LAPTOP, SHOTS, needs_chromium

pytestmark = needs_chromium
TITLE = "Rethinking Attention with Performers"


@pytest.fixture
def tab(browser):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors


def test_a_like_on_a_hit_changes_for_you(tab, base_url: str) -> None:  # type: ignore[no-untyped-def]
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import expect

    tab.goto(f"{base_url}/")
    tab.click("text=For you")
    tab.click("main a[href='/venues/iclr2021/for-you']")
    assert tab.locator("#for-you-start").is_visible()  # nothing to go on yet
    assert tab.locator("nav a[href='/venues/iclr2021/for-you']").count() == 1  # the venue's nav links it

    tab.goto(f"{base_url}/search?q={TITLE.replace(' ', '+')}&venue=iclr2021")
    hit = tab.locator("#hits li").first
    assert hit.locator(".title").inner_text() == TITLE
    like = hit.locator("button.mark[data-mark='like']")
    like.focus()
    tab.keyboard.press("Enter")
    tab.wait_for_selector("#mark-status:has-text('Liked')")
    assert like.get_attribute("aria-pressed") == "true"

    tab.goto(f"{base_url}/venues/iclr2021/for-you")
    suggested = tab.locator("#hits li")
    assert suggested.count() == 30 and tab.locator("#for-you-start").count() == 0
    assert tab.locator("#hits li .reason").first.inner_text() == f"Close to your '{TITLE}' (2021)"
    assert TITLE not in tab.locator("#hits li a.title").all_inner_texts()  # a liked paper is not suggested again
    violations = Axe().run(tab).response["violations"]
    assert not violations, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations]
    tab.screenshot(path=str(SHOTS / "for-you-laptop.png"), full_page=True)
    first = suggested.first.locator(".title").inner_text()

    tab.goto(f"{base_url}/paper/Ua6zuk0WRH")  # the paper page shows the like, and a press takes it back
    pressed = tab.locator(".your-mark button.mark[data-mark='like']")
    expect(pressed).to_have_attribute("aria-pressed", "true")  # a locator wait: no string evaluated under the CSP
    pressed.press(" ")
    tab.wait_for_selector("#mark-status:has-text('Mark taken back')")
    assert pressed.get_attribute("aria-pressed") == "false"
    tab.goto(f"{base_url}/venues/iclr2021/for-you")
    assert tab.locator("#for-you-start").is_visible() and first not in tab.inner_text("main")
    assert tab.locator("#hits li").count() == 0


def test_news_page_adds_and_stops_a_watch_and_imports_a_library(tab, base_url: str) -> None:  # type: ignore[no-untyped-def]
    from axe_playwright_python.sync_playwright import Axe

    tab.goto(f"{base_url}/news?profile=reader")  # a profile of its own: the For you test's `me` stays untouched
    assert tab.locator("#no-watches").is_visible() and tab.locator("#no-news").is_visible()
    tab.fill("#watch-value", "graph neural networks")
    tab.select_option("#watch-venue", "iclr2021")
    tab.click("#new-watch button")
    tab.wait_for_selector("#watches li")
    assert tab.locator("#watches li").inner_text().startswith('"graph neural networks" in iclr2021')

    tab.fill("#import-text", f"@inproceedings{{p, title = {{{TITLE}}}}}")
    tab.click("#import-papers button")
    tab.wait_for_selector("#import-status:has-text('1 matched')")
    violations = Axe().run(tab).response["violations"]
    assert not violations, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations]

    tab.click("#watches li button.drop-watch")
    tab.wait_for_selector("#watch-status:has-text('No longer watching')")
    tab.reload()
    assert tab.locator("#no-watches").is_visible()
