"""News of a profile's watches on the real ICLR files: ICLR 2021's list, then its ratings and decisions, a later
snapshot with changed ratings, then ICLR 2020's papers; listed newest first, filtered by date, and served as an
Atom feed that a real feed parser reads. Also notes, tags and reading lists of profiles, and bad input."""

from __future__ import annotations

import csv
import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import bibtexparser
import feedparser
import pytest
import rispy
from click.testing import CliRunner
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.personal.access import rotate_secret
from confnav.personal.feed import atom_feed
from confnav.store import open_store
from confnav.web.app import create_app
from tests.backends import Location, clone
from tests.conftest import DATA, ICLR2020

PAPERLIST = DATA / "iclr2021" / "paperlist.tsv"
RATINGS = DATA / "iclr2021" / "ratings.tsv"
ATOM = "{http://www.w3.org/2005/Atom}"
QUERY = "graph neural networks"


def run(location: Location, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--db", str(location), *args])
    return result.exit_code, result.stdout, result.stderr


def ok(location: Location, *args: str) -> str:
    code, stdout, stderr = run(location, *args)
    assert code == 0, stderr
    return stdout


@pytest.fixture
def watched(listed_db: Location, tmp_path: Path) -> Location:
    """A copy of the list with three watches: a query (me, any venue), the same query of ICLR 2021 only (topics),
    and an author (bob)."""
    location = clone(listed_db, tmp_path)
    ok(location, "watch", "add", QUERY)
    ok(location, "watch", "add", QUERY, "--venue", "iclr2021", "--profile", "topics")
    ok(location, "watch", "add", "--author", "Yoshua Bengio", "--profile", "bob")
    return location


def news(location: Location, *args: str) -> list[dict[str, Any]]:
    return json.loads(ok(location, "news", "--json", *args))


def gnn_ids() -> set[str]:
    """Ids of the ICLR 2021 papers whose title, abstract or keywords hold the query's words (read independently)."""
    with PAPERLIST.open(encoding="utf-8") as handle:
        csv.field_size_limit(10**9)
        rows = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        found = set()
        for row in rows:
            text = " ".join([row["title"], row["abstract"] or "", row["keywords"] or ""]).lower()
            if "graph" in text and "neural" in text and "network" in text:
                found.add(row["paper_id"])
        return found


def test_ingests_keep_news_of_each_watch(watched: Location, tmp_path: Path) -> None:
    assert news(watched) == []  # watches look forward: nothing is news before the next ingest
    ok(watched, "ingest", str(RATINGS), "-q")
    first = news(watched)
    assert first and {n["watch"] for n in first} == {"w1"}
    assert {n["paper_id"] for n in first} <= gnn_ids()
    assert len(first) > 50  # the query's papers all got reviews and a decision
    reviewed = next(n for n in first if n["kind"] == "reviews+decision")
    assert "new reviews, mean rating" in reviewed["summary"] and "decision: " in reviewed["summary"]
    assert {n["paper_id"] for n in news(watched, "--profile", "topics")} == {n["paper_id"] for n in first}

    # A later snapshot of the ratings file: one watched paper's first rating changed.
    changed = next(n["paper_id"] for n in first)
    snapshot = tmp_path / "later" / "iclr2021" / "ratings.tsv"
    snapshot.parent.mkdir(parents=True)
    lines = RATINGS.read_text(encoding="utf-8").splitlines(keepends=True)
    for i, line in enumerate(lines):
        cells = line.split("\t")
        if cells[0] == changed:
            before = cells[1]
            cells[1] = "1.0" if cells[1] != "1.0" else "10.0"
            lines[i] = "\t".join(cells)
    snapshot.write_text("".join(lines), encoding="utf-8")
    time.sleep(0.01)
    middle = news(watched)[0]["created"]
    ok(watched, "ingest", str(snapshot), "-q")
    latest = news(watched)
    rated = [n for n in latest if n["created"] > middle]
    assert [(n["paper_id"], n["kind"]) for n in rated] == [(changed, "ratings")]
    assert f"ratings changed: [{float(before):g}" in rated[0]["summary"]

    # ICLR 2020: new papers for the watch of any venue and for the author watch, none for the ICLR 2021 one.
    stamp = latest[0]["created"]
    ok(watched, "ingest", str(ICLR2020), "-q")
    fresh = [n for n in news(watched) if n["created"] > stamp]
    assert fresh and {n["venue"] for n in fresh} == {"iclr2020"} and {n["kind"] for n in fresh} == {"new"}
    assert all(n["kind"] != "new" for n in news(watched, "--profile", "topics"))
    by_bengio = news(watched, "--profile", "bob")
    assert by_bengio and {n["venue"] for n in by_bengio} == {"iclr2020"}
    with open_store(watched) as store:
        for item in by_bengio:
            assert any("Yoshua Bengio" in a.name for a in store.get_paper(item["paper_id"], "iclr2020").authors)

    # Newest first; --since keeps what came from then on.
    listed = news(watched)
    assert [n["created"] for n in listed] == sorted((n["created"] for n in listed), reverse=True)
    since = news(watched, "--since", stamp.replace("+00:00", "Z"))
    assert {n["id"] for n in since} >= {n["id"] for n in fresh} and len(since) < len(listed)
    assert news(watched, "--since", "2999-01-01") == []
    assert len(news(watched, "--since", listed[-1]["created"][:10])) == len(listed)

    # The Atom feed, read by a real feed parser.
    out = tmp_path / "me.atom"
    ok(watched, "news", "--atom", str(out))
    parsed = feedparser.parse(out.read_bytes())
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    assert parsed.feed.id.startswith("urn:uuid:") and parsed.feed.title == "confnav news for me"
    assert parsed.feed.updated_parsed and parsed.feed.author
    assert len(parsed.entries) == min(200, len(listed))
    for entry, item in zip(parsed.entries, listed, strict=False):
        assert entry.id == f"urn:uuid:{item['id']}" and item["title"] in entry.title
        assert entry.updated_parsed and item["paper_id"] in entry.summary
        assert entry.link.startswith("https://openreview.net/")
    _required_atom_elements(ET.fromstring(out.read_bytes()))
    again = tmp_path / "again.atom"
    ok(watched, "news", "--atom", str(again))
    assert feedparser.parse(again.read_bytes()).feed.id == parsed.feed.id  # a stable id: readers see one feed


def _required_atom_elements(feed: ET.Element) -> None:
    """RFC 4287: a feed has id, title, updated and an author (or every entry has one); each entry id, title,
    updated, and content or an alternate link."""
    assert feed.tag == f"{ATOM}feed"
    for name in ("id", "title", "updated", "author"):
        assert feed.find(f"{ATOM}{name}") is not None, name
    assert feed.find(f"{ATOM}author/{ATOM}name") is not None
    for entry in feed.findall(f"{ATOM}entry"):
        for name in ("id", "title", "updated", "summary"):
            assert (entry.findtext(f"{ATOM}{name}") or "").strip(), name
        assert entry.find(f"{ATOM}content") is not None or entry.find(f"{ATOM}link[@rel='alternate']") is not None


def test_feed_route_on_loopback_and_with_its_secret_off_it(watched: Location) -> None:
    ok(watched, "ingest", str(RATINGS), "-q")
    local = TestClient(create_app(watched), base_url="http://127.0.0.1")
    answer = local.get("/feeds/me.atom")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/atom+xml")
    parsed = feedparser.parse(answer.content)
    assert not parsed.bozo and parsed.entries
    assert parsed.entries[0].link.startswith("http://127.0.0.1/paper/")
    assert any(link.rel == "self" for link in parsed.feed.links)
    assert local.get("/feeds/nobody.atom").status_code == 404
    shared = TestClient(create_app(watched, allowed_hosts=None), base_url="http://example.org")
    assert shared.get("/feeds/me.atom").status_code == 404  # a shared server opens a profile with its secret only
    with open_store(watched) as store:
        secret = rotate_secret(store, "me", check=False)
    opened = shared.get(f"/feeds/me.atom?key={secret}")
    assert opened.status_code == 200 and feedparser.parse(opened.content).entries
    with open_store(watched) as store:
        rotate_secret(store, "me", check=False)
    assert shared.get(f"/feeds/me.atom?key={secret}").status_code == 404  # the rotated secret no longer opens it


def test_hostile_titles_are_escaped_in_the_feed(watched: Location, tmp_path: Path) -> None:
    hostile = tmp_path / "odd2021.jsonl"
    title = 'Graph neural networks & <script>alert("x")</script> \x07 "quoted"'
    hostile.write_text(json.dumps({"id": "odd1", "title": title, "abstract": "a < b & c"}) + "\n", encoding="utf-8")
    ok(watched, "ingest", str(hostile), "--venue", "odd2021", "-q")
    with open_store(watched) as store:
        text = atom_feed(store, "me")
    parsed = feedparser.parse(text.encode())
    assert not parsed.bozo and "<script>" in parsed.entries[0].title and "\x07" not in text
    assert "<script>" not in text


def test_bad_watches_are_refused_with_one_line(watched: Location, listed_db: Location) -> None:
    before = ok(watched, "watch", "ls", "--json")
    for args, says in [
        (["watch", "add", ""], "empty query"),
        (["watch", "add", "   "], "empty query"),
        (["watch", "add", "the of and"], "only common words"),
        (["watch", "add", '"unclosed'], "unbalanced quote"),
        (["watch", "add", "graphs", "--author", "X"], "watch one thing"),
        (["watch", "add", "--theme", "t01"], "no themes yet"),
        (["watch", "add", "graphs", "--venue", "nips1999"], "nips1999"),
        (["watch", "add", f"  {QUERY.upper()} "], "me already has this watch: w1 (query 'graph neural networks')"),
        (["watch", "rm", "w99"], "no watch 'w99'"),
        (["news", "--profile", "nobody"], "no profile named 'nobody'"),
    ]:
        code, _, stderr = run(watched, *args)
        assert code != 0 and says in stderr, (args, stderr)
        assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
    code, _, stderr = run(watched, "news", "--since", "last week")  # a bad date is a usage error, as --from's
    assert code == 2 and "'--since': last week: give a date" in stderr, stderr
    assert ok(watched, "watch", "ls", "--json") == before
    ok(watched, "watch", "rm", "w3")
    assert [w["id"] for w in json.loads(ok(watched, "watch", "ls", "--json"))] == ["w1", "w2"]


def test_theme_watches(light_topics_db: Location, tmp_path: Path) -> None:
    location = clone(light_topics_db, tmp_path)
    with open_store(location) as store:
        themes = store.themes("iclr2021", 1)
        theme = themes[0].id
        members = [pk for pk, a in store.assignments("iclr2021").items() if a.theme == theme]
        paper = next(p for p in store.papers_by_pk(members).values() if p.ratings)
    code, _, stderr = run(location, "watch", "add", "--theme", "t999", "--venue", "iclr2021")
    assert code != 0 and "--theme t999: no such theme of iclr2021" in stderr
    ok(location, "watch", "add", "--theme", theme, "--venue", "iclr2021")
    source = DATA / "iclr2021" / "paperlists-iclr2021.json"
    records = json.loads(source.read_text(encoding="utf-8"))
    for record in records:
        if record["id"] == paper.id:
            record["rating"] = "2;2;2" if record.get("rating") != "2;2;2" else "9;9;9"
    snapshot = tmp_path / "later" / "iclr2021" / source.name
    snapshot.parent.mkdir(parents=True)
    snapshot.write_text(json.dumps(records), encoding="utf-8")
    ok(location, "ingest", str(snapshot), "-q")
    assert [(n["paper_id"], n["watch"]) for n in news(location)] == [(paper.id, "w1")]
    other = themes[1]  # the themes built again: the watched subject now has the other number
    with open_store(location) as store, store.transaction():
        for theme_id, label in ((theme, other.label), (other.id, themes[0].label)):
            store.conn.execute("UPDATE themes SET label = ? WHERE venue = ? AND id = ?", (label, "iclr2021", theme_id))
    assert f"— now {other.id}" in ok(location, "watch", "ls")
    for record in records:
        if record["id"] == paper.id:
            record["rating"] = "5;5;5"
    snapshot.write_text(json.dumps(records), encoding="utf-8")
    ok(location, "ingest", str(snapshot), "-q")
    assert len(news(location)) == 1  # the paper is no longer in the watched subject's theme


def test_notes_tags_and_lists_of_profiles(iclr2021_copy: Location, tmp_path: Path) -> None:
    with open_store(iclr2021_copy) as store:
        first, second = (p.id for p in store.papers(limit=2))
        store.create_list("to read")
        store.create_list("bob list")
        store.add_to_list("bob list", second)
    ok(iclr2021_copy, "profile", "like", first)
    ok(iclr2021_copy, "profile", "note", first, "Read section 3 & the {appendix}")
    ok(iclr2021_copy, "profile", "note", first, "Read section 4 first")  # replaces the first note
    ok(iclr2021_copy, "profile", "tag", first, "to-cite", "graphs")
    ok(iclr2021_copy, "profile", "tag", second, "later")
    ok(iclr2021_copy, "profile", "list", "bob list", "--profile", "bob")
    shown = json.loads(ok(iclr2021_copy, "profile", "show", "--json"))
    notes = {n["id"]: n for n in shown["notes"]}
    assert notes[first]["note"] == "Read section 4 first" and notes[first]["tags"] == ["graphs", "to-cite"]
    assert notes[second] == {"venue": "iclr2021", "id": second, "note": None, "tags": ["later"]}
    assert [entry["name"] for entry in shown["lists"]] == ["to read"]  # a list no profile was given is `me`'s
    bob = json.loads(ok(iclr2021_copy, "profile", "show", "--profile", "bob", "--json"))
    assert bob["lists"] == [{"name": "bob list", "papers": 1}]
    assert "note on" in ok(iclr2021_copy, "profile", "show")

    with open_store(iclr2021_copy) as store:
        title, other = store.get_paper(first).title, store.get_paper(second).title
    bib = bibtexparser.parse_string(ok(iclr2021_copy, "profile", "export", "--format", "bibtex"))
    entries = {" ".join(e["title"].split()): e for e in bib.entries}
    assert entries[title]["annote"] == "Read section 4 first" and entries[title]["keywords"] == "graphs, to-cite"
    assert entries[other]["keywords"] == "later" and "annote" not in entries[other].fields_dict
    ris = {e["title"]: e for e in rispy.loads(ok(iclr2021_copy, "profile", "export", "--format", "ris"))}
    assert ris[title]["notes"] == ["Read section 4 first"] and ris[title]["keywords"] == ["graphs", "to-cite"]
    csl = {e["title"]: e for e in json.loads(ok(iclr2021_copy, "profile", "export", "--format", "csl-json"))}
    assert csl[title]["annote"] == "Read section 4 first" and csl[title]["keyword"] == "graphs, to-cite"

    for args, says in [
        (["profile", "note", "nope", "text"], "no paper with id 'nope'"),
        (["profile", "note", first, "  "], "a note needs some text"),
        (["profile", "tag", first, "a, b"], "tag 'a, b'"),
        (["profile", "tag", first, "fine", "a, b"], "tag 'a, b'"),  # one bad tag keeps none of them
        (["profile", "tag", "nope", "x"], "no paper with id 'nope'"),
        (["profile", "list", "missing"], "no reading list named 'missing'"),
    ]:
        code, _, stderr = run(iclr2021_copy, *args)
        assert code != 0 and says in stderr and len(stderr.strip().splitlines()) == 1, (args, stderr)
    assert json.loads(ok(iclr2021_copy, "profile", "show", "--json")) == shown
