"""A real confnav server for browser and API tests: the ICLR store plus a paper with hostile text."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from confnav.embed import choose_embedder
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.store import open_store
from confnav.topics import ensure_topics
from tests.backends import Location, clone

HOSTILE_ID = "xss-test-1"
HOSTILE = (
    '{"id": "xss-test-1", "title": "Attacks <b>bold</b> & $x<y$ in titles", "venue": "TEST 2021", '
    '"abstract": "We show <script>window.pwned = 1</script> & <img src=x onerror=alert(1)> stay text; 3 < 4 > 2.", '
    '"authors": ["Mallory Example"], "decision": "Reject"}\n'
)


def web_store(source: Location, folder: Path) -> Location:
    """A copy of `source` with one paper whose title and abstract contain HTML and script."""
    path = clone(source, folder, "web")
    hostile = folder / "hostile.jsonl"
    hostile.write_text(HOSTILE)
    with open_store(path, create=True) as store:
        ingest(store, [hostile])
        build_index(store, choose_embedder()[0])
        ensure_topics(store, "iclr2021")
    return path


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
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
