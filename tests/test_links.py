"""Code, project, video, slides and poster links from the real paperlists and MiniConf files: counts per venue, the
"has code" filter in the CLI, the web search and the API, and links that are never rendered unless http(s)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.ingest import ingest
from confnav.sources.links import link_url, resource_kind, resource_links
from confnav.store import PaperFilter, open_store
from confnav.store.sql import SqlStore
from confnav.web.app import create_app
from tests.backends import Location, freeze, new_location
from tests.conftest import DATA, ICLR2020

LISTS = sorted((DATA / "paperlists").glob("*.json"))
CODE_HOSTS = {"github.com", "www.github.com", "gitlab.com", "bitbucket.org", "huggingface.co"}
ICLR2021_LIST = DATA / "iclr2021" / "paperlists-iclr2021.json"
MINICONF = DATA / "miniconf" / "iclr2020" / "papers.csv"
HOSTILE_ID = "hostile-links"


@pytest.fixture(scope="module")
def links_db(tmp_path_factory: pytest.TempPathFactory) -> Location:
    """The six paperlists files, both ICLR lists, ICLR 2020's MiniConf site and one record with hostile links."""
    folder = tmp_path_factory.mktemp("links")
    hostile = folder / "hostile.csv"
    hostile.write_text(
        "id,title,venue,code,project,video,slides\n"
        f'{HOSTILE_ID},Hostile links,ICLR 2021,javascript:alert(1),"https://example.org/""><script>alert(2)</script>",'
        '"data:text/html;base64,PHNjcmlwdD4=",//evil.example/x\n'
    )
    location = new_location(folder, "links")
    with open_store(location, create=True) as store:
        ingest(store, [*LISTS, ICLR2020, ICLR2021_LIST, MINICONF, hostile])
    return freeze(location)


def with_code(records: list[dict[str, object]]) -> int:
    """Records whose `github` field holds the address of a repository on a code host: a URL, or an address without
    its scheme that names a path (a bare host such as "github.com" names no repository; a project page such as
    "keypointnet.github.io" or a Google Sites page is no code, nor is a Papers with Code listing)."""
    found = 0
    for record in records:
        value = str(record.get("github") or "").strip()
        url = re.search(r"https?://[^\s)\]]+", value)
        address = url.group(0).split("://", 1)[1] if url else value.removeprefix("git@")
        host, _, path = re.split(r"[/:]", address, maxsplit=1)[0], None, re.split(r"[/:]", address, maxsplit=1)[1:]
        found += host.lower() in CODE_HOSTS and bool(path and path[0].strip("/"))
    return found


def test_code_links_per_venue_match_the_files(links_db: Location) -> None:
    with open_store(links_db) as store:
        counts = {s.venue.id: len(store.papers(PaperFilter(venue=s.venue.id, has_code=True))) for s in store.venues()}
    expected = {}
    for path in LISTS:
        records = json.loads(path.read_text())
        expected[path.stem.replace("nips", "neurips")] = with_code(records)
    assert expected == {k: v for k, v in counts.items() if k in expected}
    assert counts["acl2022"] == 411  # bare `github.com/…`, `github.com:owner/repo` read as https; not `github.io`
    assert counts["iclr2018"] == 197  # Markdown links `[![github](icon) owner/repo](https://github.com/…)`
    assert counts["cvpr2019"] == 166  # not a bare "github.com" (no repository), nor 9 `github.io` project pages
    assert counts["neurips2018"] == 60  # not a `github.io` project page
    assert counts["siggraph2022"] == 0 and counts["iclr2021"] == 0 and counts["iclr2020"] == 0


def test_every_kind_of_link_is_kept_and_merged(links_db: Location) -> None:
    with open_store(links_db) as store:
        iclr2018 = store.get_paper("B12Js_yRb", "iclr2018")
        assert iclr2018.resources == {"code": "https://github.com/Cyanogenoid/vqa-counting"}
        listed = store.get_paper("B18WgG-CZ", "iclr2018")  # its code, and a listing of others' implementations
        assert listed.links["code"].startswith("https://github.com/facebookresearch/")
        assert listed.links["implementations"].startswith("https://paperswithcode.com/")
        accepted = store.get_paper("Ua6zuk0WRH", "iclr2021")
        assert set(accepted.resources) == {"video", "slides"}
        assert accepted.links["forum"] == "https://openreview.net/forum?id=Ua6zuk0WRH"
        projects = store.papers(PaperFilter(venue="cvpr2019"))
        assert sum("project" in p.resources for p in projects) == 104  # `www.eth3d.net` read as https, and 9
        # project pages (`*.github.io`) given as the code's address
        assert sum("supplement" in p.links for p in projects) == 621
        hostile = store.get_paper(HOSTILE_ID, "iclr2021")
        assert set(hostile.links) == {"project"}  # javascript:, data: and scheme-relative links are dropped
        assert not hostile.has_code


def test_link_variations() -> None:
    assert link_url("git@gitlab.com:group/tool.git", True, "code") == "https://gitlab.com/group/tool"
    assert link_url("https://github.com/a/b; https://github.com/a/c") == "https://github.com/a/b"
    assert link_url("see https://youtu.be/x for the talk") == "https://youtu.be/x"
    assert link_url("github.com", True, "code") is None and link_url("github.com/a", False) is None
    for bad in ("javascript:alert(1)", "[x](javascript:alert(1))", "JAVASCRIPT://github.com/%0a", "vbscript:x"):
        assert link_url(bad, True, "code") is None
    assert [resource_kind(n) for n in ("github_url", "Project Page", "slides_link", "Poster", "code_of_ethics")] == [
        "code",
        "project",
        "slides",
        "poster",
        None,
    ]
    assert resource_links({"code": {"value": 1}, "repository": ["https://github.com/x/y"]}) == {
        "code": "https://github.com/x/y"
    }


def run(location: Location, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--db", str(location), *args])
    return result.exit_code, result.stdout, result.stderr


def test_has_code_filter_in_the_cli(links_db: Location) -> None:
    code, stdout, stderr = run(links_db, "search", "question answering", "--has-code", "--mode", "keyword", "--json")
    assert code == 0, stderr
    hits = json.loads(stdout)["hits"]
    assert hits and all("code" in h["resources"] for h in hits)
    code, stdout, _ = run(links_db, "search", "question answering", "--has-code", "--mode", "keyword")
    assert " · code · " in stdout
    code, stdout, _ = run(links_db, "show", "B12Js_yRb", "--venue", "iclr2018", "--json")
    shown = json.loads(stdout)
    assert shown["has_code"] is True and shown["resources"]["code"].startswith("https://github.com/")


def test_has_code_filter_on_the_web_and_the_api(links_db: Location) -> None:
    client = TestClient(create_app(links_db), base_url="http://127.0.0.1")
    answer = client.get("/api/search", params={"q": "counting", "mode": "keyword", "has_code": "true", "limit": 50})
    assert answer.status_code == 200
    hits = answer.json()["hits"]
    assert hits and all(h["resources"].get("code") for h in hits)
    every = client.get("/api/search", params={"q": "counting", "mode": "keyword", "limit": 50}).json()["hits"]
    assert len(every) > len(hits)
    page = client.get("/search", params={"q": "counting", "mode": "keyword", "has_code": "1"}).text
    assert 'id="has_code" type="checkbox" value="1" checked' in page
    assert 'class="resource code" href="https://github.com/' in page
    assert "has_code=1" in page  # the export links and the next page keep the filter


def test_hostile_links_are_never_rendered(links_db: Location) -> None:
    client = TestClient(create_app(links_db), base_url="http://127.0.0.1")
    page = client.get(f"/paper/{HOSTILE_ID}", params={"venue": "iclr2021"}).text
    assert "javascript:" not in page.lower() and "data:text" not in page
    assert "<script>alert(2)" not in page
    assert 'href="https://example.org/&#34;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"' in page
    found = client.get("/api/search", params={"q": "hostile links", "mode": "keyword"}).json()["hits"]
    assert found[0]["resources"] == {"project": 'https://example.org/"><script>alert(2)</script>'}


def test_has_code_filter_in_the_store(store: SqlStore) -> None:
    """The filter is answered inside the database, on either backend."""
    ingest(store, [DATA / "paperlists" / "corl2023.json", ICLR2020])
    found = store.papers(PaperFilter(has_code=True))
    assert len(found) == 93 and all(p.has_code and p.venue == "corl2023" for p in found)  # not its Google Sites pages
    assert store.papers(PaperFilter(venue="iclr2020", has_code=True)) == []
    assert len(store.filter_pks(PaperFilter(venue="corl2023", has_code=True, decision="oral"))) == sum(
        p.decision.kind == "oral" for p in found
    )


def test_openreview_notes_code_field(tmp_path: Path) -> None:
    """An OpenReview snapshot's `code` content field (API 2 wraps it as {"value": …}) becomes the code link."""
    note = {
        "id": "AbCdEfGh12",
        "forum": "AbCdEfGh12",
        "content": {
            "title": {"value": "A paper with code"},
            "code": {"value": "https://github.com/owner/repo"},
            "code_of_ethics": {"value": "I acknowledge that I and all co-authors of this work have read the code"},
        },
    }
    snapshot = tmp_path / "notes.jsonl"
    snapshot.write_text(json.dumps({"note": note, "api": 2, "venue": "ICLR.cc/2024/Conference", "fetched": "x"}))
    with open_store(new_location(tmp_path, "notes"), create=True) as store:
        ingest(store, [snapshot])
        paper = store.get_paper("AbCdEfGh12")
    assert paper.resources == {"code": "https://github.com/owner/repo"}
    assert paper.links["forum"] == "https://openreview.net/forum?id=AbCdEfGh12"
