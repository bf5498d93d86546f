"""End to end in headless Chromium (Debian's, driven by Playwright): search, map, reading lists, escaping.

Screenshots of every page type, on a laptop and a phone, go to artifacts/screenshots/ (not committed),
or to the folder CONFNAV_SCREENSHOTS names. The browser, the served store and the page types are shared
(tests/conftest.py, tests/web_fixtures.py) with test_browser_touch.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.web_fixtures import HOSTILE_ID, LAPTOP, PAGES, PHONE, SHOTS, every_page, needs_chromium, running_server

pytestmark = needs_chromium


@pytest.fixture
def page(browser):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, errors


def test_search_open_paper_follow_similar(page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/search")
    page.fill("#q", "Rethinking Attention with Performers")
    first = page.locator("#hits li .title").first
    first.wait_for()
    assert "Performers" in first.inner_text()
    assert "q=Rethinking" in page.url  # shareable URL
    first.click()
    page.wait_for_selector("#paper-title")
    assert page.inner_text("#paper-title") == "Rethinking Attention with Performers"
    similar = page.locator("#hits li .title").first
    title = similar.inner_text()
    similar.click()
    page.wait_for_selector("#paper-title")
    assert page.inner_text("#paper-title") == title != "Rethinking Attention with Performers"


def test_search_pages_sorts_and_adds_from_a_hit(page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/search?q=graph+neural+networks&sort=rating&decision=accepted")
    assert "showing 1–20, by rating" in page.inner_text("#count")
    assert page.locator("#hits li .badge.accepted").count() == 20
    assert page.locator("#hits li .authors a").count() >= 20
    following = page.get_attribute("a[rel=next]", "href") or ""
    assert "sort=rating" in following and "decision=accepted" in following and "page=2" in following
    first = page.locator("#hits li").first
    paper_id = first.get_attribute("data-id")
    first.locator("button.add-hit").click()
    page.wait_for_selector("#list-status:has-text('Added to')")
    listed = page.evaluate("fetch('/api/lists/to%20read').then((r) => r.json())")
    assert paper_id in [p["id"] for p in listed["papers"]]
    page.goto(f"{base_url}{following}")
    assert "showing 21–40" in page.inner_text("#count") and page.locator("a[rel=prev]").count() == 1
    page.click("h1")  # away from the search box, which the page focuses first
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    focused = page.evaluate("document.activeElement.textContent")
    assert focused == page.locator("#hits li a.title").nth(1).inner_text()


def test_map_draws_all_points_and_a_click_opens_a_paper(page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/map?venue=iclr2021")
    page.wait_for_selector("#map[data-ready='1']")
    assert page.get_attribute("#map", "data-points") == "3014"
    themes = page.evaluate("fetch('/api/topics?venue=iclr2021').then((r) => r.json()).then((t) => t.length)")
    assert themes // 2 <= int(page.get_attribute("#map", "data-labels") or 0) <= themes  # overlapping ones wait
    box = page.locator("#map").bounding_box()
    x, y = page.evaluate("window.confnavMap.at(0)")
    target = page.evaluate("window.confnavMap.ids[0]")
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_url(f"**/paper/{target}**")
    assert page.locator("#paper-title").is_visible()


def test_map_legend_highlight_filter_and_state_in_the_url(page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/map?venue=iclr2021")
    page.wait_for_selector("#map[data-ready='1']")
    assert page.inner_text("h1") == "Map of ICLR 2021"
    colours = page.eval_on_selector_all("#map-legend .swatch", "(s) => s.map((e) => e.style.background)")
    themes = page.evaluate("fetch('/api/topics?venue=iclr2021').then((r) => r.json()).then((t) => t.length)")
    assert len(colours) == themes and len(set(colours)) == themes  # one distinct colour per theme
    page.fill("#map-query", "federated")
    page.press("#map-query", "Enter")  # highlights; never submits the page
    page.wait_for_selector("#map-status:has-text('match')")
    status = page.inner_text("#map-status")
    assert "federated" in page.url and page.input_value("#map-query") == "federated"
    matching = page.evaluate(
        "fetch('/api/search?mode=keyword&limit=1&venue=iclr2021&q=federated')"
        ".then((r) => r.json()).then((d) => d.matching)"
    )
    assert str(matching) in status  # only papers with the words, counted
    page.select_option("#map-decision", "accepted")
    page.click("#zoom-in")
    assert "decision=accepted" in page.url and "z=1.30" in page.url
    page.goto(page.url)  # the same view again from the URL
    page.wait_for_selector("#map-status:has-text('match')")
    assert page.input_value("#map-decision") == "accepted" and page.input_value("#map-query") == "federated"
    page.screenshot(path=str(SHOTS / "map-highlight.png"))


def test_map_by_touch_tap_shows_then_opens(browser, base_url: str) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    tab = context.new_page()
    tab.goto(f"{base_url}/map?venue=iclr2021")
    tab.wait_for_selector("#map[data-ready='1']")
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    box = tab.locator("#map").bounding_box()
    x, y = tab.evaluate("window.confnavMap.at(0)")
    tab.touchscreen.tap(box["x"] + x, box["y"] + y)
    tab.wait_for_selector("#map-status:has-text('tap again')")
    assert tab.is_visible("#map-tip")
    tab.touchscreen.tap(box["x"] + x, box["y"] + y)
    tab.wait_for_url("**/paper/**")
    context.close()


def test_map_by_keyboard(page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/map?venue=iclr2021")
    page.wait_for_selector("#map[data-ready='1']")
    page.focus("#map")
    page.keyboard.press("+")
    page.keyboard.press("ArrowLeft")
    ringed = page.inner_text("#map-status").removesuffix(" (Enter opens it)")
    assert ringed and page.is_visible("#map-tip")
    page.keyboard.press("Enter")
    page.wait_for_selector("#paper-title")
    assert page.inner_text("#paper-title") == ringed


def test_reading_list_and_bibtex_export(page, base_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    for paper_id in ("Ua6zuk0WRH", "QtTKTdVrFBB"):
        page.goto(f"{base_url}/paper/{paper_id}")
        page.fill("#list-name", "browser list")
        page.click("#add-to-list")
        page.wait_for_selector("#list-status:has-text('Added')")
    page.goto(f"{base_url}/lists?name=browser%20list")
    assert page.locator("#list-papers > li").count() == 2
    page.wait_for_selector("#recommendations li")
    page.wait_for_function(  # by default every recommendation shown is an accepted paper
        "() => { const b = [...document.querySelectorAll('#recommendations .badge')];"
        " return b.length > 0 && b.every((e) => e.classList.contains('accepted')); }"
    )
    page.select_option("#recommend-from", "oral")
    page.wait_for_function(
        "() => { const b = [...document.querySelectorAll('#recommendations .badge')];"
        " return b.length > 0 && b.every((e) => e.textContent === 'oral'); }"
    )
    with page.expect_download() as download:
        page.click("#export-bib")
    saved = tmp_path / "list.bib"
    download.value.save_as(saved)
    text = saved.read_text()
    assert text.count("@inproceedings{") == 2 and "Random Feature Attention" in text


def test_writes_to_a_guarded_server_ask_for_the_token_once(page, browser_db: Path) -> None:  # type: ignore[no-untyped-def]
    """Served off loopback, writes need the start-up token: the page asks for it once and keeps it."""
    asked: list[str] = []

    def answer(dialog) -> None:  # type: ignore[no-untyped-def]
        asked.append(dialog.message)
        dialog.accept("s3cret-token")

    page.on("dialog", answer)
    with running_server(browser_db, token="s3cret-token") as url:
        for paper_id in ("Ua6zuk0WRH", "QtTKTdVrFBB"):
            page.goto(f"{url}/paper/{paper_id}")
            page.fill("#list-name", "guarded list")
            page.click("#add-to-list")
            page.wait_for_selector("#list-status:has-text('Added')")
    assert len(asked) == 1 and "token" in asked[0] and asked[0].endswith("to save reading lists:")
    actions = {  # the prompt names what the write was for: a Like is not a reading list
        "/api/profiles/alice/marks": "record likes and dislikes",
        "/api/profiles/alice/marks/Ua6zuk0WRH?venue=iclr2021": "record likes and dislikes",
        "/api/profiles/alice/watches": "keep watches",
        "/api/lists/to%20read/papers": "save reading lists",
    }
    assert page.evaluate(f"Object.keys({actions!r}).map(actionOf)") == list(actions.values())


def test_filters_alone_list_papers_as_you_choose_them(page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/search")
    assert "Type some words, or choose a venue" in page.inner_text("#status")
    page.select_option("#venue", "iclr2021")
    page.select_option("#decision", "oral")
    page.wait_for_selector("#status:has-text('meet these filters')")
    assert "53 papers meet these filters · showing 1–20" in page.inner_text("#status")
    assert page.locator("#hits li").count() == 20 and page.locator("a[rel=next]").count() == 1
    page.select_option("#limit", "100")
    page.wait_for_selector("#status:has-text('showing 1–53')")
    assert page.locator("a[rel=next]").count() == 0  # all 53 shown: no empty next page offered


def test_script_in_an_abstract_is_shown_as_text(page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/paper/{HOSTILE_ID}")
    abstract = page.inner_text("#abstract")
    assert "<script>window.pwned = 1</script>" in abstract and "<img src=x onerror=alert(1)>" in abstract
    assert page.evaluate("window.pwned") is None
    assert "<b>bold</b>" in page.inner_text("#paper-title")
    page.screenshot(path=str(SHOTS / "hostile.png"), full_page=True)


def test_every_page_passes_axe_and_none_is_wider_than_a_phone(browser, base_url: str) -> None:  # type: ignore[no-untyped-def]
    """One visit of every page type per device: on a laptop axe-core's WCAG 2 A/AA and best-practice rules find
    nothing (the list of reading lists too); at 390 px no page scrolls sideways; each is photographed on both."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    wide, statuses, found, errors = {}, {}, {}, []
    for device, viewport, touch in (("laptop", LAPTOP, False), ("phone", PHONE, True)):
        context = browser.new_context(viewport=viewport, is_mobile=touch, has_touch=touch)
        tab = context.new_page()
        tab.on("pageerror", lambda error: errors.append(str(error)))
        pages = every_page(tab, base_url)
        for name, path in (pages | {"all-lists": PAGES["lists"]} if device == "laptop" else pages).items():
            response = tab.goto(f"{base_url}{path}")
            statuses[name] = response.status if response else None
            tab.wait_for_load_state("networkidle")
            if device == "laptop" and path in PAGES.values() and (violations := axe.run(tab).response["violations"]):
                found[path] = [(v["id"], v["nodes"][0]["html"][:120]) for v in violations]
            if name == "all-lists":
                continue  # checked by axe only: the page of one list is photographed
            if name == "map":
                tab.wait_for_selector("#map[data-ready='1']")
            if device == "phone" and (width := tab.evaluate("document.scrollingElement.scrollWidth")) > 390:
                wide[name] = width
            tab.screenshot(path=str(SHOTS / f"{name}-{device}.png"), full_page=True)
        context.close()
    assert not found, found
    assert not wide, wide
    assert statuses.pop("error") == 404 and set(statuses.values()) == {200}, statuses
    assert not errors, errors


def test_overview_tldr_cards_open_on_tap(browser, base_url: str) -> None:  # type: ignore[no-untyped-def]
    """On a phone a tap on a cited paper opens its TL;DR card on the screen; a second tap or a tap elsewhere
    closes it, and the open card links to the paper."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(f"{base_url}/reports/iclr2021/overview")
    here = tab.url
    mark = tab.locator("p .cite.mark").first
    card = mark.locator(".card")
    assert not card.is_visible()
    mark.locator(":scope > a, :scope > span[tabindex]").tap()
    assert card.is_visible() and tab.url == here and "TL;DR" in card.inner_text()
    box = card.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert tab.evaluate("document.scrollingElement.scrollWidth") <= 390
    mark.locator(":scope > a, :scope > span[tabindex]").tap()
    assert not card.is_visible()
    listed = tab.locator("ol.papers .cite").first
    listed.locator(":scope > a, :scope > span[tabindex]").tap()
    assert listed.locator(".card").is_visible() and tab.url == here
    tab.locator("h1").tap()
    assert not listed.locator(".card").is_visible()
    listed.locator(":scope > a, :scope > span[tabindex]").tap()
    paper_id = listed.get_attribute("data-paper")
    listed.locator(".card a", has_text="Open in confnav").tap()
    tab.wait_for_url(f"**/paper/{paper_id}**")
    context.close()
    assert not errors, errors


def test_institution_page_links_its_authors_and_papers(page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base_url}/paper/Ua6zuk0WRH")  # fewer affiliations than authors: listed for the paper, not paired
    place = page.locator("p.affiliations a[href^='/institution/']").first
    name = place.inner_text()
    place.click()
    page.wait_for_url("**/institution/**")
    assert page.locator("table.venues tbody tr").count() >= 1 and name in page.inner_text("main")
    page.locator(".people a").first.click()
    page.wait_for_url("**/author/**")
    assert page.locator(".affiliations a[href^='/institution/']").count() >= 1
    page.goto(f"{base_url}/reports/iclr2021/stats")
    page.locator("table[data-table=institutions] tbody a").first.click()
    page.wait_for_url("**/institution/**")
    assert page.locator("#institution-papers .badge.accepted").count() >= 1


def teardown_module() -> None:
    shutil.rmtree(ROOT / "artifacts" / "tmp", ignore_errors=True)
