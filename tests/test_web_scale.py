"""The shared server: theme builds as background jobs (never started by a GET), a read-only mode, and
several worker processes that see each other's writes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient

from confnav.search.engine import Searcher
from confnav.store import open_store
from confnav.web.app import create_app
from confnav.web.state import STATE_AGE, AppState, ThreadStores
from tests.backends import Location, clone


def test_theme_builds_are_background_jobs(topics_db: Location, tmp_path: Path) -> None:
    """iclr2020 has no themes: a GET says how to start the build and builds nothing; the job does."""
    client = TestClient(create_app(clone(topics_db, tmp_path)), base_url="http://127.0.0.1")
    missing = client.get("/api/topics", params={"venue": "iclr2020"})
    assert missing.status_code == 409 and "POST /api/jobs" in missing.json()["error"]
    page = client.get("/map", params={"venue": "iclr2020"})  # the page explains instead of building
    assert page.status_code == 200 and "not built yet" in page.text
    started = client.post("/api/jobs", json={"kind": "topics", "venue": "iclr2020"})
    assert started.status_code == 202
    job = started.json()
    again = client.post("/api/jobs", json={"kind": "topics", "venue": "iclr2020"}).json()
    assert again["id"] == job["id"]  # one build per venue at a time
    deadline = time.monotonic() + 1800  # only a build that hangs: it takes about a minute on a busy machine
    while job["state"] == "running" and time.monotonic() < deadline:
        time.sleep(0.5)
        job = client.get(f"/api/jobs/{job['id']}").json()
    assert job["state"] == "done", job
    themes = client.get("/api/topics", params={"venue": "iclr2020"})
    assert themes.status_code == 200 and len(themes.json()) >= 5
    assert client.post("/api/jobs", json={"kind": "mine", "venue": "iclr2020"}).status_code == 400
    assert client.get("/api/jobs/nope").status_code == 404


def test_read_only_server_refuses_writes(topics_db: Location) -> None:
    client = TestClient(create_app(topics_db, read_only=True), base_url="http://127.0.0.1")
    assert client.get("/api/search", params={"q": "graph neural networks"}).status_code == 200
    for refused in (
        client.post("/api/lists", json={"name": "x"}),
        client.post("/api/jobs", json={"kind": "topics", "venue": "iclr2021"}),
    ):
        assert refused.status_code == 403 and "read-only" in refused.json()["error"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _call(url: str, method: str = "GET", body: object = None) -> tuple[int, object]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_workers_see_each_others_writes(topics_db: Location, tmp_path: Path) -> None:
    """`serve --workers 2`: a list made through one worker is in every answer of both, with no restart; the
    settings file handed to the workers (it may hold secrets) is readable by its owner alone and is gone when
    the server stops."""
    location = clone(topics_db, tmp_path)
    port = _free_port()
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "CONFNAV_DB": str(location), "TMPDIR": str(temporary)}
    command = [sys.executable, "-m", "confnav", "serve", "--port", str(port), "--workers", "2"]
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 600  # only a server that never starts: it takes seconds
        while time.monotonic() < deadline:
            try:
                if _call(f"{base}/api/lists")[0] == 200:
                    break
            except OSError:
                time.sleep(0.5)
        status, _ = _call(f"{base}/api/lists", "POST", {"name": "shared"})
        assert status == 201
        _call(f"{base}/api/lists/shared/papers", "POST", {"id": "nIAxjsniDzg"})
        seen = [_call(f"{base}/api/lists/shared")[1] for _ in range(30)]
        assert all(answer["papers"][0]["id"] == "nIAxjsniDzg" for answer in seen)  # type: ignore[index]
        with open_store(location) as store:
            assert store.list_papers("shared")[0].id == "nIAxjsniDzg"
        (handed,) = temporary.glob("confnav-workers-*/settings.json")
        assert handed.stat().st_mode & 0o777 == 0o600
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    assert "with 2 workers" in output and "Traceback" not in output
    assert not list(temporary.glob("confnav-workers-*")), "the workers' settings file outlived the server"


def test_answers_follow_writes_of_other_processes_within_the_state_age(
    iclr2021_copy: Location, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept answer is found without a query while the counters are fresh; a write through another connection
    (an ingest, another worker) is seen within STATE_AGE, and one through the app at once. Time is a clock the
    test moves, so that no step depends on the machine's speed."""
    clock = [0.0]
    monkeypatch.setattr("confnav.web.thread_stores.time", SimpleNamespace(monotonic=lambda: clock[0]))
    state = AppState(ThreadStores(iclr2021_copy), Searcher(ThreadStores(iclr2021_copy)))
    first = state.stores.state()
    assert state.cached(("answer",), lambda: b"one") == b"one" and state.kept(("answer",)) == b"one"
    with open_store(iclr2021_copy) as other, other.transaction():
        other.count_change("signals")
    clock[0] += STATE_AGE * 2
    assert state.kept(("answer",)) is None  # stale counters: the answer is not trusted
    assert state.stores.state() != first and state.cached(("answer",), lambda: b"two") == b"two"
    state.stores.forget_state()
    assert state.kept(("answer",)) is None and state.cached(("answer",), lambda: b"three") == b"two"


def test_a_request_thread_that_ends_takes_its_connection_with_it(iclr2021_copy: Location) -> None:
    """A test client runs each request on a new thread: holding every thread's connection until the app closed
    ran a test server out of connections ("too many clients already")."""
    stores = ThreadStores(iclr2021_copy)
    for _ in range(5):
        asked = threading.Thread(target=lambda: stores.get_venue("iclr2021"))
        asked.start()
        asked.join()
    assert len(stores._opened) == 1  # the opening thread's own
    if isinstance(iclr2021_copy, str):  # PostgreSQL: the server holds one session for this store
        import psycopg

        with psycopg.connect(iclr2021_copy) as admin:
            query = (
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            assert admin.execute(query).fetchone()[0] == 1
    stores.close()


def test_quick_answers_take_turns_and_leave_the_other_requests_their_threads(iclr2021_copy: Location) -> None:
    """Quick answers (search, a paper) are computed QUICK_LANE at a time, in the order asked; any other answer
    (a page, an LLM's) runs beside them at once rather than waiting behind them."""
    import anyio

    from confnav.web.state import QUICK_LANE

    state = AppState(ThreadStores(iclr2021_copy), Searcher(ThreadStores(iclr2021_copy)))
    running, most, started, finished = [0], [0], [], {}
    lock = threading.Lock()

    def compute(name: str) -> str:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            started.append(name)
        time.sleep(0.2)
        with lock:
            running[0] -= 1
            finished[name] = time.monotonic()
        return name

    async def ask(name: str, quick: bool) -> None:
        assert await state.answer((name,), lambda: compute(name), quick=quick) == name

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for i in range(3 * QUICK_LANE):
                group.start_soon(ask, f"quick {i}", True)
                await anyio.sleep(0.001)
            group.start_soon(ask, "page", False)

    anyio.run(main)
    quick = [int(name.split()[1]) for name in started if name.startswith("quick")]
    # first come, first served: an answer starts only after those asked a whole lane before it (the lane's
    # threads may start in either order)
    assert all(quick.index(i) < quick.index(j) for i in quick for j in quick if j >= i + QUICK_LANE)
    assert most[0] == QUICK_LANE + 1  # the lane full, and the page beside it
    assert finished["page"] < max(finished[f"quick {i}"] for i in quick)
    state.stores.close()
