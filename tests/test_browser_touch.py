"""Headless Chromium on a phone's touch screen and in dark mode: the map pinched and dragged by real touch
events (sent through the DevTools protocol), and every page type dark, photographed and passing axe-core."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.web_fixtures import LAPTOP, PHONE, SHOTS, every_page, luminance, needs_chromium

pytestmark = needs_chromium
Point = tuple[float, float]


def _touch(cdp, kind: str, fingers: list[Point]) -> None:  # type: ignore[no-untyped-def]
    """One touch event, a touch point per finger (touchEnd takes none: every finger lifts)."""
    points = [{"x": x, "y": y, "id": i, "radiusX": 4, "radiusY": 4, "force": 1} for i, (x, y) in enumerate(fingers)]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def _gesture(cdp, start: list[Point], end: list[Point], steps: int = 8) -> None:  # type: ignore[no-untyped-def]
    """Fingers put down at `start`, moved in `steps` even steps to `end`, lifted."""
    _touch(cdp, "touchStart", start)
    for step in range(1, steps + 1):
        _touch(
            cdp,
            "touchMove",
            [
                (a[0] + (b[0] - a[0]) * step / steps, a[1] + (b[1] - a[1]) * step / steps)
                for a, b in zip(start, end, strict=True)
            ],
        )
    _touch(cdp, "touchEnd", [])


def _view(url: str) -> tuple[float, int, int]:
    """The map's zoom and offset (CSS pixels) as its URL keeps them."""
    state = parse_qs(urlsplit(url).query)
    return float(state.get("z", ["1"])[0]), int(state.get("x", ["0"])[0]), int(state.get("y", ["0"])[0])


def test_map_pinch_zooms_about_the_fingers_and_one_finger_drags(browser, base_url: str) -> None:  # type: ignore[no-untyped-def]
    """Two fingers moved apart zoom the map (not the page) about their middle; one finger then drags the view."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(f"{base_url}/map?venue=iclr2021")
    tab.wait_for_selector("#map[data-ready='1']")
    left, top, width, height = tab.evaluate(
        "(() => { const c = document.getElementById('map'),"
        " r = c.getBoundingClientRect(); return [r.left + c.clientLeft,"
        " r.top + c.clientTop, c.clientWidth, c.clientHeight]; })()"
    )
    mx, my = left + width * 0.3, top + height * 0.4  # off the centre, to see what stays put
    nearest = (
        "([x, y]) => window.confnavMap.ids.map((_, i) => i).reduce((best, i) => {"
        " const d = (p) => Math.hypot(window.confnavMap.at(p)[0] - x, window.confnavMap.at(p)[1] - y);"
        " return d(i) < d(best) ? i : best; }, 0)"
    )
    under = tab.evaluate(nearest, [mx - left, my - top])
    before = tab.evaluate("(i) => window.confnavMap.at(i)", under)
    cdp = context.new_cdp_session(tab)
    _gesture(cdp, [(mx - 25, my), (mx + 25, my)], [(mx - 100, my), (mx + 100, my)])
    tab.wait_for_function("() => new URLSearchParams(location.search).has('z')")
    zoom, x, y = _view(tab.url)
    assert 3.9 <= zoom <= 4.01, tab.url  # the fingers' distance grew fourfold
    after = tab.evaluate("(i) => window.confnavMap.at(i)", under)
    for k, middle in ((0, mx - left), (1, my - top)):  # the paper under the fingers' middle is still under it
        assert abs((after[k] - middle) - zoom * (before[k] - middle)) <= 1, (before, after, (mx, my))
    assert tab.evaluate("window.visualViewport.scale") == 1  # the map zoomed, not the page
    _gesture(cdp, [(mx, my)], [(mx + 60, my + 40)])
    tab.wait_for_function("(old) => location.href !== old", arg=tab.url)
    assert _view(tab.url) == (zoom, x + 60, y + 40), tab.url  # dragged by the finger's way, the zoom kept
    assert urlsplit(tab.url).path == "/map"  # a drag is not a tap: nothing opened
    assert tab.evaluate("document.scrollingElement.scrollWidth") <= 390
    tab.screenshot(path=str(SHOTS / "map-pinched-phone.png"))
    context.close()
    assert not errors, errors


def test_dark_mode_every_page_is_dark_and_passes_axe(browser, base_url: str) -> None:  # type: ignore[no-untyped-def]
    """With the system dark, every page type has a dark background and axe-core (colour contrast included)
    finds nothing; each is photographed as <name>-dark.png."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    context = browser.new_context(viewport=LAPTOP, color_scheme="dark")
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    light, found = {}, {}
    for name, path in every_page(tab, base_url).items():
        tab.goto(f"{base_url}{path}")
        tab.wait_for_load_state("networkidle")
        if name == "map":
            tab.wait_for_selector("#map[data-ready='1']")
        background = tab.evaluate("getComputedStyle(document.body).backgroundColor")
        if luminance(background) > 0.05:
            light[name] = background
        if violations := axe.run(tab).response["violations"]:
            found[name] = [(v["id"], len(v["nodes"]), v["nodes"][0]["html"][:120]) for v in violations]
        tab.screenshot(path=str(SHOTS / f"{name}-dark.png"), full_page=True)
    context.close()
    assert not light and not found, (light, found)
    assert not errors, errors
