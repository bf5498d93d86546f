"""The ranking-mode switch of the digest page, in headless Chromium (as test_browser.py): a venue with citation
counts opens looking back; the switch goes to at the conference and back, and the papers follow."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from confnav.ingest import ingest
from confnav.store import open_store
from tests.web_fixtures import SHOTS, needs_chromium, running_server

pytestmark = needs_chromium
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "paperlists"


@pytest.fixture(scope="module")
def cited_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path = tmp_path_factory.mktemp("browser-modes") / "modes.db"
    with open_store(path, create=True) as store:
        for name in ("iclr2018", "corl2023"):
            ingest(store, [DATA / f"{name}.json"])
    with running_server(path) as url:
        yield url


def test_digest_mode_switch(browser, cited_url: str) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{cited_url}/reports/iclr2018/digest", timeout=120_000)
    switch = page.locator(".mode-switch")
    assert switch.get_attribute("data-mode") == "looking-back"
    assert "looking back" in page.locator("h1").inner_text()
    looking_back = page.locator("ol.papers li").first.inner_text()
    assert " citations, Google Scholar" in looking_back
    page.locator('a[data-mode-link="at-conference"]').click()
    page.wait_for_url("**mode=at-conference", timeout=120_000)
    assert page.locator(".mode-switch").get_attribute("data-mode") == "at-conference"
    assert "at the conference" in page.locator("h1").inner_text()
    assert " citations, Google Scholar" not in page.locator("ol.papers").inner_text()
    assert page.locator("ol.papers li").first.inner_text() != looking_back
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "digest-at-conference.png"), full_page=False)
    page.locator('a[data-mode-link="looking-back"]').click()
    page.wait_for_url("**mode=looking-back", timeout=120_000)
    assert page.locator(".mode-switch").get_attribute("data-mode") == "looking-back"
    context.close()
    assert not errors, errors
