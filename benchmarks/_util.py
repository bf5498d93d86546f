"""Small helpers shared by the benchmark scripts: where the data is, timing and peak memory."""

from __future__ import annotations

import http.client
import os
import platform
import resource
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
ICLR2021 = [
    DATA / "iclr2021" / "paperlist.tsv",
    DATA / "iclr2021" / "ratings.tsv",
    DATA / "iclr2021" / "paperlists-iclr2021.json",
]


def machine() -> str:
    """One line naming the machine the figures were measured on."""
    cpus = len(os.sched_getaffinity(0))
    model = platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [
            line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if line.startswith("model name")
        ]
        model = names[0] if names else model
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{model}, {cpus} cores, {memory:.0f} GiB, Python {platform.python_version()}, {date.today().isoformat()}"


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def median(values: list[float]) -> float:
    return statistics.median(values)


def run_child(script: Path, *args: str, src: Path | None = None) -> str:
    """Run a benchmark step in a fresh interpreter (clean memory figures), with confnav from `src` when given
    (another version's source folder); return its stdout."""
    env = {**os.environ, "PYTHONPATH": str(src)} if src else None
    done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, check=True, env=env)
    return done.stdout


def prepare_store(folder: Path, db: Path | None = None, with_2020: bool = True, model: str | None = None) -> Path:
    """An indexed store with ICLR 2021 (and 2020): a copy of `db` when given, brought up to date, else built;
    `model` as `confnav index --model` (default: the default model)."""
    import shutil

    from confnav.embed import choose_embedder
    from confnav.ingest import ingest
    from confnav.navigator import Navigator
    from confnav.settings import Settings
    from confnav.store import SqliteStore

    path = folder / "bench.db"
    if db:
        shutil.copy(db, path)
    with SqliteStore(path) as store:
        loaded = {s.venue.id for s in store.venues()}
        if "iclr2021" not in loaded:
            ingest(store, ICLR2021)
        if with_2020 and "iclr2020" not in loaded:
            ingest(store, [DATA / "iclr2020" / "paperlists-iclr2020.json"])
        Navigator(Settings()).index(store, choose_embedder(model)[0])  # as `confnav index`: vectors, then TL;DRs
    return path


@contextmanager
def themed_iclr(db: Path | None) -> Iterator[Any]:
    """The ICLR 2021 (and 2020) store of `prepare_store`, in a temporary folder, with ICLR 2021's themes built,
    opened: what the report benchmarks read."""
    import tempfile

    from confnav.store import SqliteStore
    from confnav.topics import ensure_topics

    with tempfile.TemporaryDirectory() as name, SqliteStore(prepare_store(Path(name), db)) as store:
        ensure_topics(store, "iclr2021")
        yield store


def timed_runs(make: Any, runs: int = 3) -> list[float]:
    """Seconds of each of `runs` calls of `make`."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        make()
        times.append(time.perf_counter() - start)
    return times


SHARED_BUFFERS = "2GB"


def postgres_database(folder: Path, name: str, url: str | None = None, keep: bool = False) -> str:
    """A new, empty database (or, with `keep`, the one of that name if it exists): on the server at `url` when
    given, else on a local pgserver in `folder`."""
    import psycopg

    if url is None:
        url = local_postgres(folder / "pgdata")
    base, _, query = url.partition("?")
    with psycopg.connect(url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not (keep and exists):
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
    return f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")


def local_postgres(pgdata: Path) -> str:
    """The URL of a pgserver PostgreSQL in `pgdata`, configured as docs/deploy.md advises for a store of up to
    500,000 papers (SHARED_BUFFERS: the HNSW index stays in PostgreSQL's own cache); restarted once to set it."""
    import pgserver
    import psycopg

    server = pgserver.get_server(pgdata)
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        if conn.execute("SHOW shared_buffers").fetchone()[0] == SHARED_BUFFERS:
            return str(server.get_uri())
        conn.execute(f"ALTER SYSTEM SET shared_buffers = '{SHARED_BUFFERS}'")
    server.cleanup()  # stopped unless another process holds a handle, then started again with the setting
    url = str(pgserver.get_server(pgdata).get_uri())
    with psycopg.connect(url, autocommit=True) as conn:
        if conn.execute("SHOW shared_buffers").fetchone()[0] != SHARED_BUFFERS:
            print(f"note: PostgreSQL in {pgdata} keeps its shared_buffers until it restarts", file=sys.stderr)
    return url


@contextmanager
def confnav_server(
    db: str, *args: str, ready: str = "/api/lists", wait: float = 60.0, env: dict[str, str] | None = None
) -> Iterator[tuple[int, Any]]:
    """A `confnav serve` process on a free loopback port, yielded with its process once `ready` answers 200
    (`env`: its environment, else this process's)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    confnav = Path(sys.executable).parent / "confnav"
    command = [str(confnav), "serve", "--db", db, "--port", str(port), *args]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=wait)
                connection.request("GET", ready)
                if connection.getresponse().status == 200:
                    break
            except OSError:
                time.sleep(0.1)
        yield port, process
    finally:
        process.terminate()
        process.wait(timeout=60)
