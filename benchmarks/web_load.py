"""Web load: 50 concurrent clients for 20 s against the search and paper APIs on the ICLR 2021 store.

Each client sends its next request as soon as the last is answered (closed loop), half searches drawn
from 14 topics, 150 titles and 150 keyword lists, half papers drawn from all 3,014.

The server is `confnav serve` in its own process on loopback; clients are threads with keep-alive
connections in this process (both share the 2 cores). Reports p50/p99 latency, errors, throughput,
and the weight of the map page (HTML, CSS, scripts and the map data it loads).
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import machine, prepare_store
from confnav.store import SqliteStore
from confnav.topics import ensure_topics

QUERIES = ["graph neural networks", "offline reinforcement learning", "adversarial robustness certified",
           "contrastive learning", "author:Sergey Levine", '"neural tangent kernel"', "federated learning privacy",
           "transformers for long sequences", "meta-learning few-shot", "normalizing flows", "knowledge distillation",
           "protein structure", "implicit bias of gradient descent", "neural architecture search"]  # fmt: skip


def prepare(db: Path | None, folder: Path) -> Path:
    path = prepare_store(folder, db)
    with SqliteStore(path) as store:
        ensure_topics(store, "iclr2021")
        papers = list(store.iter_papers("iclr2021"))
    sample = random.Random(3).sample(papers, 300)
    queries = (
        QUERIES + [p.title for p in sample[:150]] + [", ".join(p.keywords[:3]) for p in sample[150:] if p.keywords]
    )
    (folder / "ids.json").write_text(json.dumps({"ids": [p.id for p in papers], "queries": queries}))
    return path


def client(
    port: int, ids: list[str], queries: list[str], stop: float, seed: int, results: list[tuple[float, bool]]
) -> None:
    rng = random.Random(seed)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    while time.perf_counter() < stop:
        if rng.random() < 0.5:
            path = f"/api/search?q={quote(rng.choice(queries))}&limit=10"
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


def page_weight(port: int) -> dict[str, int]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    sizes = {}
    for path in (
        "/map?venue=iclr2021",
        "/static/style.css",
        "/static/app.js",
        "/static/map.js",
        "/api/map?venue=iclr2021",
    ):
        connection.request("GET", path, headers={"Accept-Encoding": "identity"})
        sizes[path] = len(connection.getresponse().read())
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="An ICLR 2021 store to start from (saves embedding time).")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        db = prepare(args.db, folder)
        workload = json.loads((folder / "ids.json").read_text())
        ids, queries = workload["ids"], workload["queries"]
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        confnav = Path(sys.executable).parent / "confnav"
        server = subprocess.Popen([str(confnav), "serve", "--db", str(db), "--port", str(port)], stdout=subprocess.PIPE)
        try:
            for _ in range(200):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            weights = page_weight(port)  # also warms the server's caches
            results: list[tuple[float, bool]] = []
            stop = time.perf_counter() + args.seconds
            threads = [
                threading.Thread(target=client, args=(port, ids, queries, stop, i, results))
                for i in range(args.clients)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            server.terminate()
            server.wait(timeout=10)
    latencies = np.array([t for t, _ in results]) * 1000
    errors = sum(1 for _, ok in results if not ok)
    print(f"{args.clients} clients, {args.seconds:g} s, search and paper APIs half each: {len(results):,} requests "
          f"({len(results) / args.seconds:.0f}/s), errors {errors}")  # fmt: skip
    print(f"  p50 {np.percentile(latencies, 50):.1f} ms  p99 {np.percentile(latencies, 99):.1f} ms  "
          f"max {latencies.max():.1f} ms; goals p50 <= 30 ms, p99 <= 200 ms, no errors")  # fmt: skip
    total = sum(weights.values())
    print(
        f"  map page weight {total / 1024:.0f} KiB: " + ", ".join(f"{p} {n / 1024:.1f} KiB" for p, n in weights.items())
    )


if __name__ == "__main__":
    main()
