"""kill -9 of every command that writes the store, at several moments: the store still opens and is sound, and
running the command again to completion leaves the store equal to a run that was never killed.

Kill moments are partly random (a fraction of the clean run's time, a few milliseconds into a request) and partly
found by polling (the moment the writer first writes, the moment the index saved its refitted embedder); the
outcome must be the same whichever moment is hit, including after the command has already finished.
"""

from __future__ import annotations

import csv
import http.client
import json
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from confnav.embed import SPARSE_MODEL
from confnav.embed.sparse import SparseEmbedder
from confnav.embed.views import embedder_state_cache
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.store import SqlStore, open_store
from confnav.store.copy import copy_store
from tests.backends import Location, new_location
from tests.conftest import ICLR2021, MARKDOWN_PAGE, snapshot

pytestmark = [pytest.mark.failure_injection, pytest.mark.slow]

VENUE = "tiny2024"
RECORDS = 300
RUN_TIMEOUT = 1200  # only a command that hangs: the index run took 99 s once on a busy 2-core machine
PAPER_TABLES = ("paper_authors", "paper_keywords", "embeddings", "paper_themes")  # rows keyed by a paper's number
Moment = Callable[[subprocess.Popen[bytes], Location], str]  # waits for its moment, then says which it was


# --- inputs and stores ---


def small_jsonl(folder: Path, count: int = RECORDS) -> Path:
    """`count` real ICLR 2021 records (id, title, abstract, keywords) as a JSONL file."""
    with ICLR2021[0].open(encoding="utf-8") as table:
        rows = [row for _, row in zip(range(count), csv.DictReader(table, delimiter="\t"), strict=False)]
    path = folder / "small.jsonl"
    lines = [
        json.dumps({k: row[k] for k in ("title", "abstract", "keywords")} | {"id": row["paper_id"]}) for row in rows
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def copy_of(base: SqlStore, folder: Path, name: str) -> Location:
    """A private copy of `base` on the same backend (a new file or database)."""
    location = new_location(folder, name)
    with open_store(location, create=True) as target:
        copy_store(base, target)
    return location


def comparable(location: Location) -> list[tuple[object, ...]]:
    """The store's content without what differs between equal outcomes, each also between two clean runs:
    - the `vectors` change counter: it counts embedding batches written, and a killed run plus its re-run writes
      more batches than one clean run;
    - the bytes of cached values (name and generation are kept): the stored TF-IDF state may differ in bytes as
      its arrays are written; the vectors it made are compared;
    - when a reading list was created (to the second);
    - the numbers papers are given (PostgreSQL does not take back the sequence values a killed transaction drew,
      so the re-run numbers its papers further on): papers are known by venue and id.
    """
    rows = [row for row in snapshot(location) if row[:2] != ("meta", "vectors")]
    rows = [row[:3] if row[0] == "caches" else row[:2] if row[0] == "reading_lists" else row for row in rows]
    identity = {row[1]: (row[2], row[3]) for row in rows if row[0] == "papers"}
    named = [
        (row[0], None, *row[2:])
        if row[0] == "papers"
        else (row[0], identity[row[1]], *row[2:])
        if row[0] in PAPER_TABLES
        else row
        for row in rows
    ]
    return sorted(named, key=repr)


def assert_sound(location: Location) -> None:
    """The store opens (and migrates), is readable throughout, and SQLite finds no damage."""
    with open_store(location) as store:
        store.count_papers()
        if isinstance(location, Path):
            assert store.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            assert store.conn.execute("PRAGMA foreign_key_check").fetchall() == []


# --- running and killing commands ---


def confnav(location: Location, *args: str) -> list[str]:
    return [sys.executable, "-m", "confnav", "--db", str(location), *args]


def run(location: Location, args: tuple[str, ...]) -> float:
    """Run a command to completion; its seconds."""
    start = time.perf_counter()
    done = subprocess.run(confnav(location, *args, "-q"), capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    return time.perf_counter() - start


def after(seconds: float) -> Moment:
    def wait(process: subprocess.Popen[bytes], location: Location) -> str:
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=seconds)
        return f"{seconds:.2f} s after start"

    return wait


def when(ready: Callable[[Location], bool], name: str) -> Moment:
    """The moment `ready` first holds (polled every few milliseconds), or the process's end."""

    def wait(process: subprocess.Popen[bytes], location: Location) -> str:
        start = time.perf_counter()
        while process.poll() is None and not ready(location):
            time.sleep(0.003)
        return f"{name} ({time.perf_counter() - start:.2f} s after start)"

    return wait


def writing(location: Location) -> bool:
    """True once some process has begun a write: a SQLite journal or WAL file, a PostgreSQL transaction id."""
    if isinstance(location, Path):
        return any(Path(f"{location}{suffix}").exists() for suffix in ("-journal", "-wal"))
    import psycopg

    with psycopg.connect(location) as conn:
        query = (
            "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND backend_xid IS NOT NULL"
        )
        return conn.execute(query).fetchone() is not None


def kill_at(location: Location, args: tuple[str, ...], moment: Moment) -> str:
    """Start the command, kill -9 it at `moment`; say when that was (or that it had finished)."""
    process = subprocess.Popen(confnav(location, *args, "-q"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    said = moment(process, location)
    finished = process.poll() is not None
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    return said + (" — it had already finished" if finished else "")


def moments(clean_seconds: float) -> list[Moment]:
    """When the writer first writes, and at a random point of its run."""
    fraction = random.uniform(0.4, 1.0)
    return [when(writing, "first write"), after(fraction * clean_seconds)]


CLEAN_RUNS: dict[tuple[str, ...], tuple[float, list[tuple[object, ...]]]] = {}


def check_kills(base: SqlStore, folder: Path, args: tuple[str, ...], chosen: list[Moment] | None = None) -> None:
    """Kill the command on a copy of `base` at each moment; check soundness and the finished re-run."""
    key = (*args, base.location)  # one clean run per command and store (tests that share a store share it)
    if key not in CLEAN_RUNS:
        clean = copy_of(base, folder, "clean")
        CLEAN_RUNS[key] = run(clean, args), comparable(clean)
    seconds, expected = CLEAN_RUNS[key]
    for i, moment in enumerate(chosen or moments(seconds)):
        victim = copy_of(base, folder, f"killed{i}")
        said = kill_at(victim, args, moment)
        print(f"confnav {args[0]} killed at {said}")  # shown with -s: which moments a run really hit
        assert_sound(victim)
        run(victim, args)
        assert comparable(victim) == expected, f"confnav {' '.join(args)} killed at {said}, then run again"


# --- the commands ---


def test_ingest_jsonl_killed(store: SqlStore, tmp_path: Path) -> None:
    check_kills(store, tmp_path, ("ingest", str(small_jsonl(tmp_path)), "--venue", VENUE))


def test_ingest_markdown_killed(store: SqlStore, tmp_path: Path) -> None:
    ingest(store, [small_jsonl(tmp_path)], venue=VENUE)  # the page is added to a store that has papers
    check_kills(store, tmp_path, ("ingest", str(MARKDOWN_PAGE)))


@pytest.fixture(scope="module")
def reindex_needed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqlStore]:
    """A store indexed with the TF-IDF embedder, then given 200 more papers: the next index refits and
    re-embeds every paper. Made once for the module's index tests, which kill copies of it (never it) and so
    share the clean run they compare with."""
    folder = tmp_path_factory.mktemp("reindex")
    with open_store(new_location(folder, "reindex"), create=True) as store:
        ingest(store, [small_jsonl(folder, 150)], venue=VENUE)
        build_index(store, SparseEmbedder())
        ingest(store, [MARKDOWN_PAGE])
        yield store


INDEX = ("index", "--model", SPARSE_MODEL)


def test_index_killed(reindex_needed: SqlStore, tmp_path: Path) -> None:
    check_kills(reindex_needed, tmp_path, INDEX)


def refit_saved(location: Location) -> bool:
    """True once the index run has stored the embedder refitted on the current papers."""
    with open_store(location, read_only=True) as store:
        cached = store.conn.execute(
            "SELECT generation FROM caches WHERE name = ?", (embedder_state_cache(SPARSE_MODEL),)
        ).fetchone()
        return cached is not None and cached[0] == store.generation()


def test_index_killed_after_refit_saved(reindex_needed: SqlStore, tmp_path: Path) -> None:
    check_kills(reindex_needed, tmp_path, INDEX, [when(refit_saved, "refitted embedder saved")])


def test_topics_killed(store: SqlStore, tmp_path: Path) -> None:
    ingest(store, [small_jsonl(tmp_path, 150)], venue=VENUE)
    build_index(store, SparseEmbedder())
    check_kills(store, tmp_path, ("topics", "--venue", VENUE))


# --- reading lists: written through the web app, so the server is what gets killed ---


def list_script(ids: list[str]) -> list[tuple[str, str, dict[str, str] | None]]:
    """A fixed sequence of reading-list writes: (method, path, JSON body)."""
    steps: list[tuple[str, str, dict[str, str] | None]] = [("POST", "/api/lists", {"name": "reading"})]
    steps += [("POST", "/api/lists/reading/papers", {"id": i}) for i in ids[:12]]
    steps += [("DELETE", f"/api/lists/reading/papers/{i}", None) for i in ids[2:5]]
    steps += [("POST", "/api/lists", {"name": "later"})]
    steps += [("POST", "/api/lists/later/papers", {"id": i}) for i in ids[12:17]]
    steps += [("DELETE", "/api/lists/later", None), ("POST", "/api/lists", {"name": "final"})]
    steps += [("POST", "/api/lists/final/papers", {"id": i}) for i in ids[17:21]]
    return [*steps, ("DELETE", f"/api/lists/final/papers/{ids[18]}", None)]


@contextmanager
def confnav_serve(location: Location) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`confnav serve` on a free loopback port, yielded with its process once it answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "confnav", "serve", "--db", str(location), "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 600  # only a server that never starts: it takes seconds
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/lists", timeout=5).read()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield url, process
    finally:
        process.kill()
        process.wait(timeout=30)


def send(url: str, step: tuple[str, str, dict[str, str] | None], timeout: float = 120) -> int:
    """One write; its HTTP status."""
    method, path, body = step
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def send_unanswered(url: str, step: tuple[str, str, dict[str, str] | None]) -> None:
    """A write whose server may die before answering."""
    with suppress(OSError, http.client.HTTPException):
        send(url, step, timeout=5)


def play(url: str, steps: list[tuple[str, str, dict[str, str] | None]], replayed: int = -1) -> None:
    """Send each step; each must succeed (a replayed step whose first try took effect may find nothing to do)."""
    for i, step in enumerate(steps):
        status = send(url, step)
        assert status in (200, 201) or (i == replayed and status == 404), f"{step}: HTTP {status}"


def test_reading_list_writes_killed(store: SqlStore, tmp_path: Path) -> None:
    ingest(store, [small_jsonl(tmp_path, 40)], venue=VENUE)
    steps = list_script([p.id for p in store.iter_papers(VENUE)])
    clean = copy_of(store, tmp_path, "clean")
    with confnav_serve(clean) as (url, _):
        play(url, steps)
    expected = comparable(clean)
    rng = random.Random()
    for i in range(2):
        victim = copy_of(store, tmp_path, f"killed{i}")
        done, delay = rng.randrange(1, len(steps)), rng.uniform(0, 0.02)
        with confnav_serve(victim) as (url, server):
            play(url, steps[:done])
            in_flight = threading.Thread(target=send_unanswered, args=(url, steps[done]), daemon=True)
            in_flight.start()
            time.sleep(delay)
            server.send_signal(signal.SIGKILL)
            server.wait(timeout=30)
            in_flight.join()
        said = f"step {done} {steps[done][:2]} in flight, killed {delay * 1000:.0f} ms after it was sent"
        assert_sound(victim)
        with confnav_serve(victim) as (url, _):
            play(url, steps[done:], replayed=0)
        assert comparable(victim) == expected, f"reading-list writes: server killed with {said}, then resumed"
