"""The soak's load: real ICLR 2021 parts to draw from, clients that log every request, the readers and the
writers that go through the API (reading lists, profiles: marks and watches), and the per-kind summary."""

from __future__ import annotations

import csv
import http.client
import json
import random
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlencode

import numpy as np

from _util import ICLR2021

TIMEOUT = 10.0
IDLE = 4.0  # seconds a client reuses an idle keep-alive connection (the server keeps one open 5 s)
TOPICS = [
    "graph neural networks",
    "offline reinforcement learning",
    "adversarial robustness",
    "contrastive learning",
    "federated learning privacy",
    "transformers long sequences",
    "meta-learning few-shot",
    "normalizing flows",
    "knowledge distillation",
    "neural architecture search",
    "implicit bias gradient descent",
    "protein",
    '"neural tangent kernel"',
    "author:Sergey Levine",
    "diffusion",
    "lottery ticket pruning",
]
READS = {
    "search": 30,
    "paper": 15,
    "similar": 8,
    "stats": 4,
    "rank": 1,
    "page:home": 4,
    "page:search": 10,
    "page:paper": 10,
    "page:stats": 1,
    "ask": 2,
    "for-you": 1,
    "news": 1,
    "feed": 1,
}
PROFILE = "me"  # the profile the profile writer marks and watches for (a loopback server's default)


@dataclass
class Corpus:
    """Real ICLR 2021 parts to draw requests and synthetic records from."""

    ids: list[str]
    titles: list[str]
    abstracts: list[str]
    authors: list[list[str]]
    keywords: list[str]
    statuses: list[str]
    ratings: list[str]

    @classmethod
    def load(cls) -> Corpus:
        with ICLR2021[0].open(encoding="utf-8") as table:
            abstracts = [row["abstract"] for row in csv.DictReader(table, delimiter="\t") if row["abstract"]]
        items = json.loads(ICLR2021[2].read_text(encoding="utf-8"))
        return cls(
            ids=[i["id"] for i in items],
            titles=[i["title"] for i in items],
            abstracts=abstracts,
            authors=[i["author"].split(";") for i in items if i.get("author")],
            keywords=sorted({k.strip() for i in items for k in i.get("keywords", "").split(";") if k.strip()}),
            statuses=[i["status"] for i in items],
            ratings=[i["rating"] for i in items if i.get("rating")],
        )


def synthetic_venue(corpus: Corpus, folder: Path, slot: int, turn: int, records: int) -> tuple[str, Path, list[str]]:
    """A JSONL file of `records` realistic records (parts of real records recombined) of the venue in `slot`:
    its venue id, path and paper ids. Each turn rewrites the same papers (same ids) with other contents."""
    rng = random.Random(turn)
    letters = "".join(chr(97 + int(d)) for d in str(slot))
    venue = f"soak{letters}2024"
    path, ids = folder / f"{venue}.jsonl", [f"{venue}-{i}" for i in range(records)]
    with path.open("w", encoding="utf-8") as out:
        for paper_id in ids:
            first, second = rng.choice(corpus.titles).split(), rng.choice(corpus.titles).split()
            sentences = [s for a in rng.sample(corpus.abstracts, 3) for s in a.split(". ")[:2]]
            record = {
                "id": paper_id,
                "title": " ".join(first[: len(first) // 2 + 1] + second[len(second) // 2 :]),
                "abstract": ". ".join(rng.sample(sentences, min(4, len(sentences)))),
                "authors": rng.choice(corpus.authors)[:3] + rng.choice(corpus.authors)[:2],
                "keywords": rng.sample(corpus.keywords, 3),
                "decision": rng.choice(corpus.statuses),
                "ratings": rng.choice(corpus.ratings),
            }
            out.write(json.dumps(record) + "\n")
    return venue, path, ids


@dataclass
class Log:
    """Everything measured, appended to by every thread (list appends are atomic)."""

    requests: list[tuple[str, float, str | None]] = field(default_factory=list)  # kind, seconds, error
    rss: list[tuple[float, float]] = field(default_factory=list)  # seconds since start, MB
    writers: list[dict[str, object]] = field(default_factory=list)
    client_errors: list[str] = field(default_factory=list)  # unexpected 4xx: reported, not counted as errors
    retries: list[str] = field(default_factory=list)  # 503 with Retry-After (a write waited on a writer), retried
    timings: list[tuple[str, float, str]] = field(default_factory=list)  # a write's kind, seconds, Server-Timing


class Client:
    """One keep-alive connection that reconnects after a failure and logs every request."""

    def __init__(self, port: int, log: Log) -> None:
        self.port, self.log = port, log
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        self.last_used = time.monotonic()

    def call(self, kind: str, method: str, path: str, body: dict[str, object] | None = None) -> bytes | None:
        """One request as a client does it: a 503 with Retry-After (the store was busy with a writer) is asked
        again after the time it names, up to three times; only a final failure counts as an error."""
        for _ in range(3):
            payload, retry_after = self._once(kind, method, path, body)
            if retry_after is None:
                return payload
            self.log.retries.append(f"{method} {path}")
            time.sleep(retry_after)
        return self._once(kind, method, path, body)[0]

    def _once(
        self, kind: str, method: str, path: str, body: dict[str, object] | None
    ) -> tuple[bytes | None, float | None]:
        """The answer's body (None on an error), and the seconds to wait when it was a 503 with Retry-After."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data else {}
        if time.monotonic() - self.last_used > IDLE:  # the server closes idle connections: start a new one, as
            self.connection.close()  # pooling clients do, rather than race its close with a request
        start = time.perf_counter()
        error, payload, retry_after = None, None, None
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
            payload = response.read()
            if timing := response.getheader("Server-Timing"):
                self.log.timings.append((kind, time.perf_counter() - start, timing))
            if response.status == 503 and response.getheader("Retry-After", "").isdigit():
                retry_after = min(float(response.getheader("Retry-After", "1")), 10.0)
                self.log.requests.append((kind, time.perf_counter() - start, None))
                self.last_used = time.monotonic()
                return None, retry_after
            if response.status >= 500:
                error = f"HTTP {response.status} {method} {path}: {payload[:200].decode(errors='replace')}"
            elif response.status >= 400:
                self.log.client_errors.append(f"HTTP {response.status} {method} {path}: {payload[:200]!r}")
        except TimeoutError:
            error = f"timeout > {TIMEOUT:g} s: {method} {path}"
        except (OSError, http.client.HTTPException) as exc:
            error = f"connection error {type(exc).__name__}: {exc} ({method} {path})"
        if error:
            self.connection.close()
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        self.log.requests.append((kind, time.perf_counter() - start, error))
        self.last_used = time.monotonic()
        return (None if error else payload), None


def reader(port: int, corpus: Corpus, stop: threading.Event, log: Log, seed: int) -> None:
    """Closed-loop reads of every kind, drawn by weight."""
    rng, client = random.Random(seed), Client(port, log)
    kinds, weights = list(READS), list(READS.values())
    while not stop.is_set():
        kind = rng.choices(kinds, weights)[0]
        paper = quote(rng.choice(corpus.ids))
        query = rng.choice([rng.choice(TOPICS), rng.choice(corpus.titles), " ".join(rng.sample(corpus.keywords, 2))])
        params = {"q": query, "limit": rng.choice([10, 20, 50]), "mode": rng.choice(["hybrid", "keyword", "semantic"])}
        if rng.random() < 0.5:
            filters = [
                {"venue": "iclr2021"},
                {"decision": "accepted"},
                {"min_rating": 6},
                {"sort": "rating"},
                {"offset": 20},
                {"keyword": rng.choice(corpus.keywords)},
            ]
            params |= rng.choice(filters)
        path = {
            "search": f"/api/search?{urlencode(params)}",
            "paper": f"/api/paper/{paper}",
            "similar": f"/api/similar/{paper}",
            "stats": "/api/stats?venue=iclr2021",
            "rank": "/api/rank?venue=iclr2021",
            "page:home": "/",
            "page:search": f"/search?q={quote(query)}",
            "page:paper": f"/paper/{paper}",
            "page:stats": "/reports/iclr2021/stats",
            "ask": f"/api/ask?{urlencode({'q': f'Which papers study {rng.choice(TOPICS)}?', 'venue': 'iclr2021'})}",
            "for-you": f"/api/profiles/{PROFILE}/recommend?venue=iclr2021&limit=10",
            "news": f"/api/profiles/{PROFILE}/news",
            "feed": f"/feeds/{PROFILE}.atom",
        }[kind]
        client.call(kind, "GET", path)


def list_writer(port: int, corpus: Corpus, stop: threading.Event, log: Log, seed: int) -> None:
    """Reading lists made, filled, thinned and deleted through the API, one after another."""
    rng, client = random.Random(seed), Client(port, log)
    number = 0
    while not stop.is_set():
        name, number = f"soak list {number}", number + 1
        client.call("list:create", "POST", "/api/lists", {"name": name})
        papers = rng.sample(corpus.ids, rng.randint(3, 12))
        for paper in papers:
            client.call("list:add", "POST", f"/api/lists/{quote(name)}/papers", {"id": paper, "venue": "iclr2021"})
        for paper in papers[: len(papers) // 3]:
            client.call("list:remove", "DELETE", f"/api/lists/{quote(name)}/papers/{quote(paper)}")
        if rng.random() < 0.8:  # a few lists stay
            client.call("list:delete", "DELETE", f"/api/lists/{quote(name)}")
        stop.wait(rng.uniform(0.2, 1.0))


def profile_writer(port: int, corpus: Corpus, stop: threading.Event, log: Log, seed: int) -> None:
    """A researcher through the API: likes and dislikes (some taken back), and watches added and stopped."""
    rng, client = random.Random(seed), Client(port, log)
    base = f"/api/profiles/{PROFILE}"
    watches: list[str] = []
    while not stop.is_set():
        papers = rng.sample(corpus.ids, 5)
        for paper, mark in zip(papers, ["like", "like", "like", "dislike", "dislike"], strict=True):
            client.call("profile:mark", "POST", f"{base}/marks", {"id": paper, "mark": mark, "venue": "iclr2021"})
        client.call("profile:unmark", "DELETE", f"{base}/marks/{quote(papers[0])}?venue=iclr2021")
        made = client.call("watch:add", "POST", f"{base}/watches", {"query": rng.choice(TOPICS), "venue": "iclr2021"})
        if made:
            watches.append(json.loads(made)["id"])
        if len(watches) > 3:
            client.call("watch:remove", "DELETE", f"{base}/watches/{watches.pop(0)}")
        stop.wait(rng.uniform(0.5, 2.0))


def write_split(timings: list[tuple[str, float, str]]) -> dict[str, object]:
    """Per write kind, where the time of its slowest answers went, from the server's Server-Timing (ms): the
    slowest answer's parts, and each part's p99 and maximum."""
    found: dict[str, object] = {}
    for kind in sorted({k for k, _, _ in timings}):
        rows = [
            (seconds, dict(p.strip().split(";dur=") for p in header.split(",")))
            for k, seconds, header in timings
            if k == kind
        ]
        parts = {name: np.array([float(r[name]) for _, r in rows]) for name in rows[0][1]}
        slowest = max(rows, key=lambda row: row[0])
        found[kind] = {
            "slowest_seen_ms": round(slowest[0] * 1000, 1),
            "slowest_parts_ms": {name: float(value) for name, value in slowest[1].items()},
            **{f"{name}_p99_ms": round(float(np.percentile(ms, 99)), 1) for name, ms in parts.items()},
            **{f"{name}_max_ms": round(float(ms.max()), 1) for name, ms in parts.items()},
        }
    return found


def summary(log: Log, seconds: float, warmup: float) -> dict[str, object]:
    """Per-kind counts, errors and latency; memory over time; writer outcomes."""
    by_kind: dict[str, list[float]] = defaultdict(list)
    errors = [(kind, error) for kind, _, error in log.requests if error]
    for kind, latency, _ in log.requests:
        by_kind[kind].append(latency * 1000)
    kinds = {
        kind: {
            "requests": len(ms),
            "errors": sum(1 for k, _ in errors if k == kind),
            **{f"p{p}_ms": float(np.percentile(ms, p)) for p in (50, 95, 99)},
            "max_ms": max(ms),
        }
        for kind, ms in sorted(by_kind.items())
    }
    rss = [mb for _, mb in log.rss]
    after = [mb for t, mb in log.rss if t >= warmup] or rss[-1:]
    step = max(1, len(log.rss) // 12)
    writers: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for run in log.writers:
        writers[str(run["kind"])][str(run["outcome"])] += 1
    return {
        "seconds": seconds,
        "requests": len(log.requests),
        "kinds": kinds,
        "errors": len(errors),
        "first_errors": [e for _, e in errors[:8]],
        "client_errors": len(log.client_errors),
        "first_client_errors": log.client_errors[:5],
        "retried_503": len(log.retries),
        "writes_split": write_split(log.timings),
        "rss_mb": {
            "start": rss[0],
            "after_warmup": after[0],
            "max": max(rss),
            "end": rss[-1],
            "growth_after_warmup": max(after) - after[0],
            "series": [(round(t), round(mb)) for t, mb in log.rss[::step]],
        },
        "writers": {k: dict(v) for k, v in writers.items()},
        "writer_failures": [f"{r['kind']}: {r['error']}" for r in log.writers if r["outcome"] == "failed"],
    }
