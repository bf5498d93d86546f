"""The server refuses what it must where the bytes arrive (bodies, headers, Host) and never writes on a read."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest
from fastapi.testclient import TestClient

from confnav.ingest import ingest
from confnav.store import open_store
from confnav.web.app import MAX_BODY, allowed_hosts, create_app
from tests.backends import Location, clone
from tests.conftest import snapshot
from tests.web_fixtures import running_server

SLASHED = "10.1145/3528223.3530092"


@pytest.fixture(scope="module")
def hardened_db(topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2021 with themes, plus a paper whose id holds a slash and a venue without themes."""
    folder = tmp_path_factory.mktemp("hardened")
    location = clone(topics_db, folder, "hardened")
    extra = folder / "extra.jsonl"
    extra.write_text(
        json.dumps({"id": SLASHED, "title": "A paper with a DOI for an id", "venue": "ICLR 2021",
                    "abstract": "Slashes in ids.", "decision": "Accept (Poster)"}) + "\n"
        + json.dumps({"id": "w1", "title": "A workshop paper", "venue": "NoThemes 2024", "abstract": "Plain."}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    with open_store(location) as store:
        ingest(store, [extra])  # ingest keeps ids to letters, digits and . _ ~ -; a store made elsewhere may not
        with store.transaction():
            store.rename_paper("iclr2021", SLASHED.replace("/", "-"), SLASHED)
    return location


@pytest.fixture(scope="module")
def base_url(hardened_db: Location) -> Iterator[str]:
    with running_server(hardened_db) as url:
        yield url


def _raw(base: str, request: bytes, timeout: float = 20) -> str:
    """Send raw bytes and return the status line (and what follows) of the answer."""
    parts = urlsplit(base)
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.sendall(request)
        return sock.recv(4096).decode("latin-1")


def _chunked(path: str, chunks: list[bytes], host: str = "127.0.0.1") -> bytes:
    body = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    head = f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    head += "Transfer-Encoding: chunked\r\n\r\n"
    return head.encode() + body


def test_a_chunked_body_over_the_limit_is_refused_as_it_arrives(base_url: str) -> None:
    parts = urlsplit(base_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=20) as sock:
        head = b"POST /api/lists HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        sock.sendall(head)
        chunk = b"x" * 16384
        answer = b""
        try:
            for _ in range(64):  # up to 1 MiB offered; the server answers after 64 KiB
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    small = _raw(base_url, _chunked("/api/lists", [b'{"name": ', b'"chunked-ok"}']))
    assert small.startswith("HTTP/1.1 201"), small[:300]
    assert MAX_BODY == 64 * 1024


def test_oversized_headers_are_refused(base_url: str) -> None:
    answer = _raw(base_url, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n")
    assert answer.startswith(("HTTP/1.1 431", "HTTP/1.1 400")), answer[:200]


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /api/lists HTTP/1.1\r\nHost: evil.example:8000\r\n\r\n",
        b"POST /api/lists HTTP/1.1\r\nHost: rebind.evil.example\r\nContent-Type: application/json\r\n"
        b'Content-Length: 15\r\n\r\n{"name": "pwn"}',
    ],
)
def test_a_foreign_host_is_refused(base_url: str, request_bytes: bytes) -> None:
    answer = _raw(base_url, request_bytes)
    assert answer.startswith("HTTP/1.1 421"), answer[:200]
    assert "pwn" not in _raw(base_url, b"GET /api/lists HTTP/1.1\r\nHost: localhost:1234\r\n\r\n")


def test_hosts_a_server_answers_for() -> None:
    assert allowed_hosts("127.0.0.1") == {"127.0.0.1", "localhost", "::1"}
    assert allowed_hosts("192.168.1.5", ["papers.lab.example"]) == {"192.168.1.5", "papers.lab.example"}
    assert allowed_hosts("0.0.0.0") is None
    assert allowed_hosts("0.0.0.0", ["papers.lab.example"]) == {"papers.lab.example"}


@pytest.fixture(scope="module")
def client(hardened_db: Location) -> TestClient:
    return TestClient(create_app(hardened_db), base_url="http://127.0.0.1")


def test_a_paper_whose_id_holds_a_slash_opens(client: TestClient) -> None:
    encoded = quote(SLASHED, safe="")
    assert client.get(f"/api/paper/{encoded}").json()["id"] == SLASHED
    assert SLASHED in client.get(f"/paper/{encoded}").text
    assert client.get(f"/api/paper/{encoded}/bibtex").text.startswith("@inproceedings{")
    assert client.get(f"/api/similar/{encoded}").status_code == 200
    assert client.post("/api/lists", json={"name": "doi"}).status_code == 201
    assert client.post("/api/lists/doi/papers", json={"id": SLASHED}).status_code == 201
    assert client.delete(f"/api/lists/doi/papers/{encoded}").json()["removed"] == SLASHED
    hits = client.get("/api/search", params={"q": "A paper with a DOI for an id"}).json()["hits"]
    page = client.get("/search", params={"q": "A paper with a DOI for an id"}).text
    assert hits[0]["id"] == SLASHED and f'href="/paper/{encoded}?' in page


@pytest.mark.parametrize(
    "path", ["/themes/nips1990/0", "/themes/nips1990", "/map?venue=nips1990", "/api/topics?venue=nips1990",
             "/trends?from=iclr2021&to=nips1990", "/reports/nips1990/overview", "/api/map?venue=nips1990"],
)  # fmt: skip
def test_an_unknown_venue_is_not_found(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404, (answer.status_code, answer.text[:200])
    assert "unknown venue" in answer.text and "nips1990" in answer.text


def _get_routes() -> list[str]:
    """Every GET route of the app's pages and API, its path parameters filled with real values."""
    from confnav.web.api import router as api_router
    from confnav.web.pages import router as page_router

    values = {
        "paper_id": "YicbFdNTTy",
        "venue": "iclr2021",
        "theme_id": "0",
        "name": "reading",
        "kind": "overview",
        "job_id": "1",
    }
    query = "?venue=iclr2021&q=graph&from=iclr2020&to=iclr2021&like=YicbFdNTTy"
    paths = []
    for route in [*api_router.routes, *page_router.routes]:
        if "GET" not in getattr(route, "methods", set()):
            continue
        path = route.path.replace(":path", "")
        for name, value in values.items():
            path = path.replace("{" + name + "}", value)
        assert "{" not in path, path
        paths.append(path + query)
    return paths


def test_reads_never_write(hardened_db: Location, tmp_path: Path) -> None:
    location = clone(hardened_db, tmp_path, "reads")
    writer = TestClient(create_app(location), base_url="http://127.0.0.1")
    assert writer.post("/api/lists", json={"name": "reading"}).status_code == 201
    before = snapshot(location)
    client = TestClient(create_app(location), base_url="http://127.0.0.1")  # a fresh server: nothing loaded yet
    statuses = {path: client.get(path).status_code for path in _get_routes()}
    for venue in ("nothemes2024",):  # themes never built: the pages say so, and build nothing
        pages = (f"/themes/{venue}", f"/map?venue={venue}", f"/api/topics?venue={venue}", f"/api/map?venue={venue}")
        for path in pages:
            statuses[path] = client.get(path).status_code
            assert statuses[path] == 409 or "not built yet" in client.get(path).text, path
    assert not [p for p, s in statuses.items() if s >= 500], statuses
    assert len(statuses) > 20
    assert snapshot(location) == before
