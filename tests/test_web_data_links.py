"""Links a page builds from data open what they name, whatever text the data holds: names with `/` or `%` in
a path segment, keywords with quotes in a search query."""

from __future__ import annotations

import html
import json
import re
from urllib.parse import quote, unquote

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from confnav.ingest import ingest
from confnav.store import open_store
from confnav.web.app import create_app
from tests.backends import Location, clone

PAPER = "odd-names-1"
AUTHORS = ["AC/DC", "100% Sure", "R%2FD Team", "Ünï/Cödé"]
PLACES = ["Lab/Two", "50% Institute"]
KEYWORDS = ['5" floppy disks', 'a "quoted" word', "back\\slash"]


@pytest.fixture(scope="module")
def app(iclr2021_db: Location, tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """ICLR 2021 plus one paper whose author names, institutions and keywords hold `/`, `%`, quotes."""
    folder = tmp_path_factory.mktemp("odd-names")
    location = clone(iclr2021_db, folder, "odd")
    record = {
        "id": PAPER,
        "title": "A paper whose names hold slashes, percents and quotes",
        "venue": "ICLR 2021",
        "abstract": "Names from data go into links as they are.",
        "authors": [{"name": n, "affiliation": PLACES[i % 2]} for i, n in enumerate(AUTHORS)],
        "keywords": KEYWORDS,
        "decision": "Accept (Poster)",
    }
    (folder / "odd.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    with open_store(location) as store:
        ingest(store, [folder / "odd.jsonl"])
    app = create_app(location)

    @app.get("/test-echo/{one:text}/{rest:textpath}")
    def echo(one: str, rest: str) -> dict[str, str]:
        return {"one": one, "rest": rest}

    return app


@pytest.fixture(scope="module")
def client(app: FastAPI) -> TestClient:
    return TestClient(app, base_url="http://127.0.0.1")


def _links(page: str, prefix: str) -> list[str]:
    return [html.unescape(link) for link in re.findall(rf'href="({re.escape(prefix)}[^"]*)"', page)]


@pytest.mark.parametrize("text", ["AC/DC", "100%", "50%2F", "%", "a%%2Fb/", "%zz", "日本/語 x", "%25"])
def test_a_segment_holds_any_text(client: TestClient, text: str) -> None:
    encoded = quote(text, safe="")
    assert client.get(f"/test-echo/{encoded}/{encoded}").json() == {"one": text, "rest": text}
    assert client.get(f"/test-echo/x/a/{encoded}/b").json() == {"one": "x", "rest": f"a/{text}/b"}


def test_author_and_institution_links_open_their_pages(client: TestClient) -> None:
    page = client.get(f"/paper/{PAPER}").text
    named = {unquote(link.split("/", 2)[2]): link for link in _links(page, "/author/") + _links(page, "/institution/")}
    assert named.keys() >= {*AUTHORS, *PLACES}  # and the authors of the papers shown beside it
    for name in (*AUTHORS, *PLACES):
        answer = client.get(named[name])
        assert answer.status_code == 200, (named[name], answer.status_code)
        assert PAPER in answer.text and name in html.unescape(answer.text), named[name]


def test_keyword_links_find_the_paper_carrying_the_keyword(client: TestClient) -> None:
    """A keyword holding quotes or a backslash is linked as a quoted phrase the query language reads back whole."""
    page = client.get(f"/paper/{PAPER}").text
    links = _links(page, "/search?q=keyword")
    assert len(links) == len(KEYWORDS)
    for link in links:
        found = client.get(link.replace("/search", "/api/search", 1))
        assert found.status_code == 200, (link, found.text)
        assert [h["id"] for h in found.json()["hits"]] == [PAPER], link
