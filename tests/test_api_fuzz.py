"""The OpenAPI description is the truth: a property-based fuzzer (schemathesis) sends generated requests to every
operation of a served store, and each answer must be no server error, with a described status code, content type
and body. Real ids (papers, lists, profiles, jobs) show every success body; random ones, the error answers."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.backends import Location, clone
from tests.web_fixtures import running_server

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
# Generated requests per operation: every operation in two to three minutes (CONFNAV_FUZZ_EXAMPLES for a longer run).
EXAMPLES = int(os.environ.get("CONFNAV_FUZZ_EXAMPLES", "25"))
TIMEOUT = 120  # seconds for one answer: how fast is not what is checked here, and the machine may be busy
PAPER = "Ua6zuk0WRH"


@pytest.fixture(scope="module")
def api_url(light_topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A served copy of the ICLR store (themes built, TF-IDF vectors), holding a reading list, a liked paper,
    a profile with a secret and a finished job, so that real ids answer too."""
    with running_server(clone(light_topics_db, tmp_path_factory.mktemp("fuzz"), "fuzz")) as url:
        with httpx.Client(base_url=url, timeout=300) as client:
            client.get("/api/search", params={"q": "warm up"})  # loads the search index: seconds on a busy machine
            client.post("/api/lists", json={"name": "to read"})
            client.post("/api/lists/to%20read/papers", json={"id": PAPER})
            client.post("/api/profiles/me/marks", json={"id": PAPER, "mark": "like"})
            client.post("/api/profiles", json={"name": "alice"})
        yield url


@pytest.fixture(scope="module")
def api(api_url: str) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(f"{api_url}/openapi.json")


@pytest.mark.slow  # minutes: `make test` runs it, `make check` leaves it out
def test_every_operation_answers_as_described(api: schemathesis.BaseSchema) -> None:
    """Requests generated from the description (valid ones, and ones it rules out), EXAMPLES per operation;
    every finding of every operation is reported at once."""
    found: dict[str, str] = {}
    for operation in (result.ok() for result in api.get_all_operations()):
        cases = st.one_of(operation.as_strategy(mode) for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE))

        @given(case=cases)
        @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def answers_as_described(case: schemathesis.Case) -> None:
            case.call_and_validate(checks=CHECKS, timeout=TIMEOUT)

        try:
            answers_as_described()
        except (AssertionError, BaseExceptionGroup) as finding:
            found[operation.label] = str(finding)
    assert not found, "\n\n".join(f"{label}: {finding}" for label, finding in found.items())


REAL: list[tuple[str, str, dict[str, str], dict[str, Any]]] = [  # method, path, path parameters, query
    ("GET", "/api/search", {}, {"q": "attention", "limit": 5}),
    ("GET", "/api/experts", {}, {"q": "graph neural networks", "venue": "iclr2021"}),
    ("GET", "/api/paper/{paper_id}", {"paper_id": PAPER}, {}),
    ("GET", "/api/paper/{paper_id}/bibtex", {"paper_id": PAPER}, {}),
    ("GET", "/api/institution/{name}", {"name": "Stanford University"}, {}),
    ("GET", "/api/similar/{paper_id}", {"paper_id": PAPER}, {"include_rejected": True}),
    ("GET", "/api/recommend", {}, {"like": [PAPER], "text": "kernel methods"}),
    ("GET", "/api/topics", {}, {"venue": "iclr2021", "level": 2}),
    ("GET", "/api/map", {}, {"venue": "iclr2021"}),
    ("GET", "/api/rank", {}, {"venue": "iclr2021", "mode": "looking-back"}),
    ("GET", "/api/stats", {}, {"venue": "iclr2020"}),
    ("GET", "/api/history/{venue}", {"venue": "iclr2021"}, {}),
    ("GET", "/api/lists", {}, {}),
    ("GET", "/api/lists/{name}", {"name": "to read"}, {}),
    ("GET", "/api/lists/{name}/recommend", {"name": "to read"}, {}),
    ("GET", "/api/lists/{name}/export.bib", {"name": "to read"}, {}),
    ("GET", "/api/lists/{name}/export.csv", {"name": "to read"}, {}),
    ("GET", "/api/export", {}, {"format": "csl-json", "q": "attention"}),
    ("GET", "/api/export", {}, {"format": "ris", "theme": "t01", "venue": "iclr2021"}),
    ("GET", "/api/profiles", {}, {}),
    ("GET", "/api/profiles/{name}", {"name": "me"}, {}),
    ("GET", "/api/profiles/{name}/marks", {"name": "me"}, {}),
    ("GET", "/api/profiles/{name}/recommend", {"name": "me"}, {"venue": "iclr2021"}),
    ("GET", "/api/jobs", {}, {}),
    ("GET", "/feeds/{profile}.atom", {"profile": "me"}, {}),
    ("GET", "/venues/{venue}/for-you", {"venue": "iclr2021"}, {}),
    ("GET", "/themes/{venue}/{theme_id}", {"venue": "iclr2021", "theme_id": "t01"}, {}),
    ("GET", "/reports/{venue}/{kind}", {"venue": "iclr2021", "kind": "stats"}, {}),
]


def test_real_answers_match_their_description(api: schemathesis.BaseSchema, api_url: str) -> None:
    """Every success body, from real ids, as described; then the writes and a job, each answering as described."""
    for method, path, parameters, query in REAL:
        case = api[path][method].Case(path_parameters=parameters, query=query)
        assert case.call_and_validate(checks=CHECKS, timeout=TIMEOUT).status_code == 200, (method, path)
    writes: list[tuple[str, str, dict[str, str], dict[str, Any], int]] = [
        ("POST", "/api/lists", {}, {"name": "second"}, 201),
        ("POST", "/api/lists/{name}/papers", {"name": "second"}, {"id": PAPER}, 201),
        ("DELETE", "/api/lists/{name}/papers/{paper_id}", {"name": "second", "paper_id": PAPER}, {}, 200),
        ("DELETE", "/api/lists/{name}", {"name": "second"}, {}, 200),
        ("POST", "/api/profiles/{name}/marks", {"name": "me"}, {"id": "YicbFdNTTy", "mark": "dislike"}, 201),
        ("DELETE", "/api/profiles/{name}/marks/{paper_id}", {"name": "me", "paper_id": "YicbFdNTTy"}, {}, 200),
        ("POST", "/api/profiles/{name}/secret", {"name": "alice"}, {}, 200),
        ("POST", "/api/jobs", {}, {"kind": "topics", "venue": "iclr2021"}, 202),
    ]
    for method, path, parameters, body, status in writes:
        sent = {"body": body} if body else {}
        case = api[path][method].Case(path_parameters=parameters, **sent)
        assert case.call_and_validate(checks=CHECKS, timeout=TIMEOUT).status_code == status, (method, path)
    job = httpx.get(f"{api_url}/api/jobs").json()[0]["id"]
    case = api["/api/jobs/{job_id}"]["GET"].Case(path_parameters={"job_id": job})
    assert case.call_and_validate(checks=CHECKS, timeout=TIMEOUT).status_code == 200


def _answer(base_url: str, request: bytes) -> tuple[str, str]:
    """The status line and content type of the answer to raw request bytes."""
    parts = urlsplit(base_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(request)
        head = b""
        while b"\r\n\r\n" not in head and (data := sock.recv(65536)):
            head += data
    lines = head.decode("latin-1").split("\r\n")
    return lines[0], next(
        (line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("content-type:")), ""
    )


def test_what_the_fuzzer_found_answers_as_described(api_url: str) -> None:
    """A URL too long for the HTTP parser (over 64 KiB in one read) was a plain-text 400 from the server; a page
    address no route matches (a line break in a paper id) was a JSON 404 where the page's 404 is HTML."""
    long_url = b"GET /api/recommend?text=" + b"%C2%A1" * 16_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    status, kind = _answer(api_url, long_url)
    assert status.split()[1] in ("414", "431") and kind == "application/json", (status, kind)
    broken = b"GET /api/lists HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n"
    assert _answer(api_url, broken) == ("HTTP/1.1 400 Bad Request", "application/json")
    page = httpx.get(f"{api_url}/paper/a%0Ab")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert httpx.get(f"{api_url}/api/paper/a%0Ab").json()["error"]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/api/map?venue=iclr%002021", None),
        ("GET", "/api/paper/Ua6zuk0WRH%00", None),
        ("GET", "/map?venue=%00", None),
        ("POST", "/api/lists", '{"name": "nul \\u0000 list"}'),
        ("POST", "/api/profiles/me/marks", '{"id": "Ua6zuk0WRH", "mark": "like", "venue": "\\u0000"}'),
    ],
)
def test_a_nul_character_anywhere_in_a_request_is_refused(api_url: str, method: str, path: str, body: str) -> None:
    """PostgreSQL holds no NUL character: a venue with one was a 500 there (a 404 on SQLite). Refused the same
    on both, before any route, with the error body (the error page for a page, as its other errors are)."""
    headers = {"Content-Type": "application/json"}
    answer = httpx.request(method, f"{api_url}{path}", content=body, headers=headers)
    assert answer.status_code == 400, answer.text
    if path.startswith("/api/"):
        assert "NUL character" in answer.json()["error"], answer.text
    else:
        assert answer.headers["content-type"].startswith("text/html") and "NUL character" in answer.text


def test_an_escaped_backslash_before_u0000_is_no_nul(api_url: str) -> None:
    body = '{"id": "no \\\\u0000 paper", "mark": "like"}'  # the id `no \u0000 paper`: a backslash, no NUL
    answer = httpx.post(f"{api_url}/api/profiles/me/marks", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 404 and "NUL" not in answer.json()["error"], answer.text


def test_downloads_and_errors_are_described_with_their_media_types(api: schemathesis.BaseSchema) -> None:
    """What the issue found wrong: objects declared as strings, a CSV declared as text, errors not described."""
    described = api.raw_schema["paths"]
    for path in ("/api/search", "/api/paper/{paper_id}", "/api/institution/{name}", "/api/map"):
        assert described[path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert list(described["/api/lists/{name}/export.csv"]["get"]["responses"]["200"]["content"]) == ["text/csv"]
    for operations in described.values():
        for operation in operations.values():
            assert {"400", "413", "414", "421", "431"} <= set(operation["responses"])
    assert "HTTPValidationError" not in api.raw_schema["components"]["schemas"]


def test_the_description_is_generated_without_a_store(tmp_path: Path) -> None:
    """The description names the error body's model once and every 422 as that body (FastAPI's own list is not
    what the app sends)."""
    from confnav.store import open_store
    from confnav.web.app import create_app

    with open_store(tmp_path / "empty.db", create=True):
        pass
    described = create_app(tmp_path / "empty.db").openapi()
    unprocessable = described["paths"]["/api/search"]["get"]["responses"]["422"]["content"]["application/json"]
    assert unprocessable["schema"] == {"$ref": "#/components/schemas/ErrorBody"}
