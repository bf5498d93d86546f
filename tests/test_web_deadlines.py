"""The server keeps its promises at the edges: a queued write answers 503 within the documented 5 s, a request
names one Host by a path, a head sent too slowly is cut off (docs/web.md)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from confnav.store import open_store
from confnav.web import protocol
from confnav.web.state import WRITE_WAIT
from tests.backends import Location, clone
from tests.web_fixtures import running_server

pytestmark = pytest.mark.failure_injection


@pytest.fixture(scope="module")
def served_2020(iclr2020_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2020 (titles and reviews, no vectors: no model to load), a copy for this module's servers."""
    return clone(iclr2020_db, tmp_path_factory.mktemp("deadlines"), "deadlines")


@pytest.fixture(scope="module")
def base_url(served_2020: Location) -> Iterator[str]:
    with running_server(served_2020) as url:
        yield url


def _create_list(base: str, name: str) -> tuple[int, float, str | None]:
    """POST a new reading list: its status, seconds taken, and Retry-After."""
    request = urllib.request.Request(
        f"{base}/api/lists", json.dumps({"name": name}).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    start = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, time.monotonic() - start, None
    except urllib.error.HTTPError as exc:
        return exc.code, time.monotonic() - start, exc.headers.get("Retry-After")


def test_queued_writes_answer_503_by_the_documented_deadline(served_2020: Location, base_url: str) -> None:
    held, release = threading.Event(), threading.Event()

    def ingest_holding_the_store() -> None:  # another process's long write, as an ingest holds it
        with open_store(served_2020) as store, store.transaction():
            held.set()
            release.wait(60)

    holder = threading.Thread(target=ingest_holding_the_store)
    holder.start()
    try:
        assert held.wait(30)
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda i: _create_list(base_url, f"queued-{i}"), range(4)))
    finally:
        release.set()
        holder.join()
    assert [status for status, _, _ in answers] == [503] * 4, answers
    assert all(retry == "5" for _, _, retry in answers)
    assert max(seconds for _, seconds, _ in answers) < WRITE_WAIT + 2.0, answers  # not 10, 15, 20 s
    assert _create_list(base_url, "after")[0] == 201  # and writes go through once the store is free


def _timing(header: str) -> dict[str, float]:
    """A Server-Timing value's parts, in milliseconds."""
    parts = (part.strip().split(";dur=") for part in header.split(","))
    return {name: float(value) for name, value in parts}


def test_a_write_tells_where_its_time_went(served_2020: Location, base_url: str) -> None:
    """Server-Timing on a write: a wait for another process's write shows as `lock`, and the parts add up to
    about what the client saw."""
    held, release = threading.Event(), threading.Event()

    def ingest_holding_the_store() -> None:
        with open_store(served_2020) as store, store.transaction():
            held.set()
            release.wait(1.5)

    holder = threading.Thread(target=ingest_holding_the_store)
    holder.start()
    assert held.wait(30)
    request = urllib.request.Request(
        f"{base_url}/api/lists",
        json.dumps({"name": "timed"}).encode(),
        {"Content-Type": "application/json"},
        method="POST",
    )
    start = time.monotonic()
    with urllib.request.urlopen(request, timeout=60) as answer:
        seen, status, header = time.monotonic() - start, answer.status, answer.headers["Server-Timing"]
    holder.join()
    parts = _timing(header)
    assert status == 201 and list(parts) == ["start", "queue", "lock", "work"], header
    assert 1000 <= parts["lock"] <= seen * 1000, header  # the ingest held the store for 1.5 s
    assert sum(parts.values()) <= seen * 1000 + 1, (header, seen)
    with urllib.request.urlopen(f"{base_url}/api/lists", timeout=60) as answer:
        assert answer.headers["Server-Timing"] is None  # reads are not timed


def _raw(base: str, request: bytes, timeout: float = 20) -> bytes:
    """Send raw bytes; the answer as far as the server sends it before closing."""
    parts = urlsplit(base)
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer


@pytest.mark.parametrize("parser", ["httptools", "h11"])
@pytest.mark.parametrize(
    "head",
    [
        b"GET /api/lists HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1\r\n",  # the last one was read
        b"GET /api/lists HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n",
        b"GET http://evil.example/api/lists HTTP/1.1\r\nHost: 127.0.0.1\r\n",  # absolute form names its host
        b"GET http://127.0.0.1/api/lists HTTP/1.1\r\nHost: 127.0.0.1\r\n",
    ],
)
def test_one_host_in_one_header_and_a_path_or_421(served_2020: Location, parser: str, head: bytes) -> None:
    with running_server(served_2020, parser=parser) as base:
        answer = _raw(base, head + b"Connection: close\r\n\r\n")
        refused = (b"HTTP/1.1 421", b"HTTP/1.1 400") if parser == "h11" else b"HTTP/1.1 421"  # h11: 400 itself
        assert answer.startswith(refused), answer[:200]
        plain = _raw(base, b"GET /api/lists HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert plain.startswith(b"HTTP/1.1 200"), plain[:200]


@pytest.mark.parametrize("sent", [b"", b"GET /api/lists HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"GET /api/li"])
def test_a_head_not_sent_in_time_is_cut_off(base_url: str, sent: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "HEAD_TIMEOUT", 1.0)
    parts = urlsplit(base_url)
    start = time.monotonic()
    with socket.create_connection((parts.hostname, parts.port), timeout=20) as sock:
        sock.sendall(sent)
        answer = b""
        for _ in range(4 if sent else 0):  # a byte now and then never renews the time
            time.sleep(0.2)
            with contextlib.suppress(OSError):
                sock.sendall(b"X")
        while chunk := sock.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert time.monotonic() - start < 5.0
