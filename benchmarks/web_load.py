"""Web load: 50 concurrent clients for 20 s against the search and paper APIs on the ICLR 2021 store.

Each client sends its next request as soon as the last is answered (closed loop); half are paper views
drawn from all 3,014 papers, half searches. Two runs, each against a fresh server: searches drawn from
314 repeated queries (14 topics, 150 titles, 150 keyword lists), then searches that are all unique
(two random author keywords), so no search answer is ever cached.

The server is `confnav serve` in its own process on loopback; clients are threads with keep-alive
connections, opened before the clock starts, in this process (both share the 2 cores). Reports p50/p99
latency, errors, throughput, the weight of the map page (HTML, CSS, scripts and the map data it loads), and
the size and time of one page of each kind, asked twice (the first request of a fresh server also builds
what later ones find cached).
"""

from __future__ import annotations

import argparse
import http.client
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import confnav_server, machine, prepare_store
from confnav.store import SqliteStore
from confnav.topics import ensure_topics

CHROMIUM = "/usr/bin/chromium"
QUERIES = [
    "graph neural networks",
    "offline reinforcement learning",
    "adversarial robustness certified",
    "contrastive learning",
    "author:Sergey Levine",
    '"neural tangent kernel"',
    "federated learning privacy",
    "transformers for long sequences",
    "meta-learning few-shot",
    "normalizing flows",
    "knowledge distillation",
    "protein structure",
    "implicit bias of gradient descent",
    "neural architecture search",
]


def prepare(db: Path | None, folder: Path) -> tuple[Path, list[str], list[str], list[str]]:
    """The store, every paper id, the repeated query set, and the pool of author keywords for unique queries."""
    path = prepare_store(folder, db)
    with SqliteStore(path) as store:
        ensure_topics(store, "iclr2021")
        papers = list(store.iter_papers("iclr2021"))
    sample = random.Random(3).sample(papers, 300)
    queries = (
        QUERIES + [p.title for p in sample[:150]] + [", ".join(p.keywords[:3]) for p in sample[150:] if p.keywords]
    )
    keywords = sorted({k for p in papers for k in p.keywords})
    return path, [p.id for p in papers], queries, keywords


def client(
    port: int,
    ids: list[str],
    next_query: Callable[[random.Random], str],
    start_line: threading.Barrier,
    seconds: float,
    seed: int,
    results: list[tuple[float, bool]],
) -> None:
    """One closed-loop client: connect first, then start with the others and stop after `seconds`."""
    rng = random.Random(seed)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.connect()
    start_line.wait()
    stop = time.perf_counter() + seconds
    while time.perf_counter() < stop:
        if rng.random() < 0.5:
            path = f"/api/search?q={quote(next_query(rng))}&limit=10"
        else:
            path = f"/api/paper/{quote(rng.choice(ids))}"
        start = time.perf_counter()
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            ok = response.status == 200
        except (OSError, http.client.HTTPException):
            ok = False
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        results.append((time.perf_counter() - start, ok))


def page_weight(port: int) -> dict[str, tuple[int, int]]:
    """Bytes of each part of the map page: as sent plain, and as sent to a browser (gzip)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    sizes = {}
    for path in (
        "/map?venue=iclr2021",
        "/static/style.css",
        "/static/app.js",
        "/static/map.js",
        "/api/map?venue=iclr2021",
    ):
        plain, packed = 0, 0
        for encoding in ("identity", "gzip"):
            connection.request("GET", path, headers={"Accept-Encoding": encoding})
            size = len(connection.getresponse().read())
            plain, packed = (size, packed) if encoding == "identity" else (plain, size)
        sizes[path] = (plain, packed)
    return sizes


PAGE_KINDS = {
    "home": "/",
    "search": "/search?q=graph+neural+networks",
    "paper": "/paper/Ua6zuk0WRH",
    "author": "/author/Yang%20Song",
    "institution": "/institution/Google",
    "themes": "/themes/iclr2021",
    "overview": "/reports/iclr2021/overview",
    "statistics": "/reports/iclr2021/stats",
}


def page_times(port: int) -> dict[str, tuple[int, float, float]]:
    """Bytes of one page of each kind and milliseconds to fetch it the first and the second time."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    found = {}
    for kind, path in PAGE_KINDS.items():
        times, size = [], 0
        for _ in range(2):
            start = time.perf_counter()
            connection.request("GET", path)
            response = connection.getresponse()
            size = len(response.read())
            times.append((time.perf_counter() - start) * 1000)
            assert response.status == 200, (path, response.status)
        found[kind] = (size, times[0], times[1])
    return found


def map_draw_ms(port: int) -> list[float] | None:
    """Milliseconds per full redraw of the ICLR 2021 map in headless Chromium (None without a browser)."""
    if not Path(CHROMIUM).exists():
        return None
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        flags = ["--headless", "--no-sandbox", "--disable-gpu"]
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=flags)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"http://127.0.0.1:{port}/map?venue=iclr2021")
        page.wait_for_selector("#map[data-ready='1']")
        times = page.evaluate(
            "() => Array.from({length: 60}, () => { const t = performance.now(); window.confnavMap.draw();"
            " return performance.now() - t; })"
        )
        browser.close()
    return sorted(times)[10:]  # the first redraws warm the JIT


@contextmanager
def server(db: Path) -> Iterator[int]:
    """A fresh `confnav serve` process (empty answer cache) on a free loopback port; yields the port."""
    with confnav_server(str(db)) as (port, _):
        yield port


def load(
    port: int, ids: list[str], next_query: Callable[[random.Random], str], clients: int, seconds: float
) -> list[tuple[float, bool]]:
    """Latency and success of every request made by `clients` closed-loop clients in `seconds`."""
    results: list[tuple[float, bool]] = []
    start_line = threading.Barrier(clients)
    threads = [
        threading.Thread(target=client, args=(port, ids, next_query, start_line, seconds, i, results))
        for i in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def report(name: str, results: list[tuple[float, bool]], clients: int, seconds: float) -> None:
    latencies = np.array([t for t, _ in results]) * 1000
    errors = sum(1 for _, ok in results if not ok)
    print(
        f"{name}: {clients} clients, {seconds:g} s, search and paper APIs half each: {len(results):,} requests "
        f"({len(results) / seconds:.0f}/s), errors {errors}"
    )
    print(
        f"  p50 {np.percentile(latencies, 50):.1f} ms  p99 {np.percentile(latencies, 99):.1f} ms  "
        f"max {latencies.max():.1f} ms; goals p50 <= 30 ms, p99 <= 200 ms, no errors"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="An ICLR 2021 store to start from (saves embedding time).")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--no-browser", action="store_true", help="Skip the map redraw timing in Chromium.")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        db, ids, queries, keywords = prepare(args.db, Path(name))
        with server(db) as port:
            weights = page_weight(port)
            pages = page_times(port)
            draws = None if args.no_browser else map_draw_ms(port)
            repeated = load(port, ids, lambda rng: rng.choice(queries), args.clients, args.seconds)
        with server(db) as port:
            unique = load(
                port, ids, lambda rng: f"{rng.choice(keywords)} {rng.choice(keywords)}", args.clients, args.seconds
            )
    report(f"repeated queries ({len(queries)} distinct)", repeated, args.clients, args.seconds)
    report("unique queries (two random author keywords each: no cached answers)", unique, args.clients, args.seconds)
    plain, packed = (sum(sizes[i] for sizes in weights.values()) for i in (0, 1))
    print(f"map page weight {plain / 1024:.0f} KiB plain, {packed / 1024:.0f} KiB as sent with gzip:")
    for path, (size, gzipped) in weights.items():
        print(f"  {path}: {size / 1024:.1f} KiB, gzip {gzipped / 1024:.1f} KiB")
    print("one page of each kind, HTML as sent, first and second request on a fresh server:")
    for kind, (size, first, second) in pages.items():
        print(f"  {kind}: {size / 1024:.1f} KiB, {first:.0f} ms then {second:.1f} ms")
    if draws:
        print(
            f"map redraw of 3,014 points, headless Chromium (software rendering): median {np.median(draws):.1f} ms, "
            f"max {max(draws):.1f} ms (a 60 fps frame is 16.7 ms)"
        )


if __name__ == "__main__":
    main()
