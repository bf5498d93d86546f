"""The server refuses what it must where the bytes arrive (bodies, headers, Host) and never writes on a read."""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.errors import ConfnavError
from confnav.ingest import ingest
from confnav.store import open_store
from confnav.web.app import MAX_BODY, MAX_HEADERS, allowed_hosts, create_app
from tests.backends import Location, clone
from tests.conftest import snapshot
from tests.web_fixtures import running_server

pytestmark = pytest.mark.failure_injection

SLASHED = "10.1145/3528223.3530092"


@pytest.fixture(scope="module")
def hardened_db(light_topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2021 with themes, plus a paper whose id holds a slash and a venue without themes."""
    folder = tmp_path_factory.mktemp("hardened")
    location = clone(light_topics_db, folder, "hardened")
    extra = folder / "extra.jsonl"
    extra.write_text(
        json.dumps(
            {
                "id": SLASHED,
                "title": "A paper with a DOI for an id",
                "venue": "ICLR 2021",
                "abstract": "Slashes in ids.",
                "decision": "Accept (Poster)",
            }
        )
        + "\n"
        + json.dumps({"id": "w1", "title": "A workshop paper", "venue": "NoThemes 2024", "abstract": "Plain."})
        + "\n",
        encoding="utf-8",
    )
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


def test_an_unknown_search_mode_is_named_on_the_page_as_in_the_api(client: TestClient) -> None:
    answer = client.get("/api/search", params={"q": "graph", "mode": "fuzzy"})
    page = client.get("/search", params={"q": "graph", "mode": "fuzzy"})
    assert answer.status_code == 400 and "unknown mode 'fuzzy'" in answer.json()["error"]
    assert page.status_code == 400 and "unknown mode &#39;fuzzy&#39;" in page.text  # the form, saying why


@pytest.mark.parametrize(
    "path",
    [
        "/themes/nips1990/0",
        "/themes/nips1990",
        "/map?venue=nips1990",
        "/api/topics?venue=nips1990",
        "/trends?from=iclr2021&to=nips1990",
        "/reports/nips1990/overview",
        "/api/map?venue=nips1990",
    ],
)
def test_an_unknown_venue_is_not_found(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404, (answer.status_code, answer.text[:200])
    assert "unknown venue" in answer.text and "nips1990" in answer.text


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("/search?q=graph&page=abc", "query.page"),
        ("/search?q=graph&limit=0", "query.limit"),
        ("/venues/iclr2021/plan?top=0", "query.top"),
        ("/trends?from=iclr2021", "query.to"),
    ],
)
def test_a_page_given_a_wrong_parameter_answers_its_error_page(client: TestClient, path: str, named: str) -> None:
    """A browser gets the error page, with the message the API gives in JSON."""
    answer = client.get(path)
    assert answer.status_code == 422 and answer.headers["content-type"].startswith("text/html"), answer.text[:200]
    assert f'<p class="error">{named}: ' in answer.text
    api = client.get("/api/search?q=graph&limit=0")
    assert api.status_code == 422 and api.json()["error"].startswith("query.limit: ")


def test_head_answers_as_get_without_a_body(client: TestClient) -> None:
    for path in ("/", "/search?q=graph", f"/paper/{quote(SLASHED, safe='')}", "/api/venues", "/nowhere"):
        got, head = client.get(path), client.head(path)
        assert head.status_code == got.status_code and head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"], path
    assert client.post("/").status_code == 405


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
        path = re.sub(r":\w+}", "}", route.path)  # `{name:text}` → `{name}`
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


def _offer(base: str, head: bytes, body: Iterable[bytes] = ()) -> tuple[bytes, int, bool]:
    """Send a request in pieces as a client that reads while it sends, stopping once answered: the answer's
    status line, the bytes sent, and whether the sending stalled until the client's timeout (the server
    neither answered nor closed the connection)."""
    parts = urlsplit(base)
    pieces = [head[i : i + 8192] for i in range(0, len(head), 8192)]
    sent, answer, stalled = 0, b"", False
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        try:
            for piece in (*pieces, *body):
                if select.select([sock], [], [], 0)[0]:
                    break
                sock.sendall(piece)
                sent += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except TimeoutError:
            stalled = True
        with contextlib.suppress(ConnectionResetError):
            answer = sock.recv(4096)
    return answer.split(b"\r\n", 1)[0], sent, stalled


def _endless(piece: bytes, total: int = 200 << 20) -> Iterator[bytes]:
    """`piece` repeated to `total` bytes: a client that would go on sending for a long time."""
    return itertools.repeat(piece, total // len(piece))


def test_a_client_still_sending_gets_the_413_at_once(base_url: str) -> None:
    """The refusal closes the connection: a client offering 200 MB is answered at once, not left to time out."""
    head = b"POST /api/lists HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    status, sent, stalled = _offer(base_url, head, _endless(b"%x\r\n%s\r\n" % (65536, b"x" * 65536)))
    assert status.startswith(b"HTTP/1.1 413") and sent < 32 << 20 and not stalled, (status, sent, stalled)


@pytest.mark.parametrize(("parser", "far_over"), [("httptools", b"HTTP/1.1 431"), ("h11", b"HTTP/1.1 400")])
def test_a_head_far_over_the_limit_is_cut_off_as_it_arrives(
    hardened_db: Location, tmp_path: Path, parser: str, far_over: bytes
) -> None:
    """Past the header limit the app answers 431; far past it the HTTP parser stops reading (httptools would
    otherwise gather a header of any size: 100 MB here) and the connection closes."""
    with running_server(clone(hardened_db, tmp_path, "heads"), parser=parser) as base:
        head = b"GET /api/lists HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: "
        status, _, _ = _offer(base, head + b"a" * (MAX_HEADERS + 1024) + b"\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 431"), status
        status, sent, stalled = _offer(base, head, _endless(b"a" * 65536, 100 << 20))
        assert status.startswith(far_over) and sent < 32 << 20 and not stalled, (status, sent, stalled)
        status, _, _ = _offer(base, b"GET /api/lists HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 200"), status


def test_allowed_names_are_bare_names_in_one_form(hardened_db: Location) -> None:
    for wrong in ("http://papers.lab.example", "papers.lab.example:8000", "papers.lab.example/", "a b"):
        with pytest.raises(ConfnavError, match="--allow-host"):
            allowed_hosts("127.0.0.1", [wrong])
    refused = CliRunner().invoke(cli, ["serve", "--db", str(hardened_db), "--allow-host", "http://x:80/"])
    assert refused.exit_code == 1 and "--allow-host 'http://x:80/'" in refused.stderr
    client = TestClient(create_app(hardened_db, allowed_hosts=["[::1]", "Papers.Lab.Example."]))
    for host in ("papers.lab.example:8000", "PAPERS.lab.example.", "[::1]:1"):
        assert client.get("/api/lists", headers={"Host": host}).status_code == 200, host
    assert client.get("/api/lists", headers={"Host": "127.0.0.1"}).status_code == 421


@pytest.mark.slow
@pytest.mark.sqlite_only  # about the HTTP layer; test_web_scale serves a PostgreSQL store from several workers
def test_workers_take_the_same_limits_and_names(hardened_db: Location, tmp_path: Path) -> None:
    """`serve --workers 2 --allow-host NAME`: each worker process answers for NAME, refuses other names and
    cuts off an over-long head."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "confnav",
        "serve",
        "--db",
        str(clone(hardened_db, tmp_path, "workers")),
        "--port",
        str(port),
        "--workers",
        "2",
        "--allow-host",
        "papers.lab.example",
    ]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    ask = b"GET /api/lists HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
    try:
        deadline = time.monotonic() + 600  # only a server that never starts: it takes seconds
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if _offer(base, ask % b"localhost")[0].startswith(b"HTTP/1.1 200"):
                    break
            time.sleep(0.5)
        for _ in range(6):  # new connections each time: both workers answer some
            assert _offer(base, ask % b"papers.lab.example")[0].startswith(b"HTTP/1.1 200")
            assert _offer(base, ask % b"rebind.evil.example")[0].startswith(b"HTTP/1.1 421")
            far_over = _offer(
                base, b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Padding: ", _endless(b"a" * 65536, 8 << 20)
            )
            assert far_over[0].startswith(b"HTTP/1.1 431"), far_over
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    assert "Traceback" not in output, output
