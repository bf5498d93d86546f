"""A real confnav server for browser and API tests: the ICLR store plus a paper with hostile text; what the
browser tests share (Debian's Chromium, where screenshots go, one page of each type)."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from confnav.embed import choose_embedder
from confnav.ingest import ingest
from confnav.navigator import Navigator
from confnav.settings import Settings
from confnav.store import open_store
from confnav.topics import ensure_topics
from tests.backends import Location

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(os.environ.get("CONFNAV_SCREENSHOTS") or Path(__file__).resolve().parents[1] / "artifacts" / "screenshots")
LAPTOP, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}
PAGES = {  # one of each page type; the sub-theme and the reading list are added by the tests that need them
    "home": "/",
    "search": "/search?q=graph+neural+networks",
    "paper": "/paper/Ua6zuk0WRH",
    "author": "/author/Yang%20Song",
    "institution": "/institution/Stanford%20University",
    "map": "/map?venue=iclr2021",
    "themes": "/themes/iclr2021",
    "theme": "/themes/iclr2021/t01",
    "trends": "/trends?from=iclr2020&to=iclr2021",
    "overview": "/reports/iclr2021/overview",
    "digest": "/reports/iclr2021/digest",
    "stats": "/reports/iclr2021/stats",
    "history": "/history/iclr2021",
    "lists": "/lists",
    "for-you": "/venues/iclr2021/for-you",
    "ask": "/venues/iclr2021/ask?q=Which+papers+study+graph+neural+networks%3F",
    "news": "/news",
    "plan": "/venues/iclr2021/plan",
    "error": "/paper/no-such-paper",
}
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
HOSTILE_ID = "xss-test-1"
HOSTILE = (
    '{"id": "xss-test-1", "title": "Attacks <b>bold</b> & $x<y$ in titles", "venue": "TEST 2021", '
    '"abstract": "We show <script>window.pwned = 1</script> & <img src=x onerror=alert(1)> stay text; 3 < 4 > 2.", '
    '"authors": ["Mallory Example"], "decision": "Reject"}\n'
)


def luminance(css: str) -> float:
    """WCAG relative luminance of a computed `rgb(...)`/`rgba(...)`; a transparent colour shows the white below."""
    parts = [float(part) for part in css[css.index("(") + 1 : -1].split(",")]
    if len(parts) == 4 and parts[3] == 0:
        return 1.0
    r, g, b = (c / 255 for c in parts[:3])
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def add_hostile_paper(path: Path) -> None:
    """Add to the store at `path` one paper whose title and abstract contain HTML and script; index and rebuild
    the themes (the web tests' store: conftest's web_template_db)."""
    hostile = path.parent / "hostile.jsonl"
    hostile.write_text(HOSTILE)
    with open_store(path) as store:
        ingest(store, [hostile])
        Navigator(Settings()).index(store, choose_embedder()[0])  # as `confnav index`: vectors, then TL;DRs
        ensure_topics(store, "iclr2021")


@contextmanager
def running_server(db: Location, token: str | None = None, parser: str = "httptools") -> Iterator[str]:
    """uvicorn on a free loopback port in a thread, set up as `confnav serve` sets it up; yields the base URL."""
    import uvicorn

    from confnav.web.app import create_app
    from confnav.web.protocol import server_settings

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(db, token), host="127.0.0.1", port=port, **server_settings(parser))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 300  # only a server that never starts: it takes well under a second
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def every_page(tab, base_url: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """PAGES with a sub-theme and a reading list holding papers (made here) added."""
    subs = tab.request.get(f"{base_url}/api/topics?venue=iclr2021&level=2").json()
    tab.request.post(f"{base_url}/api/lists", data={"name": "phone list"})
    for paper_id in ("Ua6zuk0WRH", "YicbFdNTTy"):
        tab.request.post(f"{base_url}/api/lists/phone%20list/papers", data={"id": paper_id})
    return PAGES | {"sub-theme": f"/themes/iclr2021/{subs[0]['id']}", "lists": "/lists?name=phone%20list"}


def add_sparse_index(path: Path) -> None:
    """Index the store at `path` with the TF-IDF embedder (seconds, no semantic model): for the personal pages,
    whose recommendations need vectors but not the semantic model's (conftest's sparse_template_db)."""
    from confnav.embed.sparse import SparseEmbedder

    with open_store(path) as store:
        Navigator(Settings()).index(store, SparseEmbedder())
