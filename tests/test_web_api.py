"""The JSON API and pages against a real store built from ../shared/data."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.web.app import create_app
from tests.backends import Location, clone
from tests.web_fixtures import HOSTILE_ID


@pytest.fixture(scope="module")
def client(web_template_db: Location, tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    return TestClient(create_app(clone(web_template_db, tmp_path_factory.mktemp("web"))), base_url="http://127.0.0.1")


def test_search_and_paper_routes(client: TestClient) -> None:
    hits = client.get("/api/search", params={"q": "Rethinking Attention with Performers", "limit": 5}).json()["hits"]
    assert hits[0]["id"] == "Ua6zuk0WRH" and {"id", "title", "snippet", "score"} <= set(hits[0])
    paper = client.get("/api/paper/Ua6zuk0WRH").json()
    assert paper["decision"]["kind"] == "oral" and paper["theme"]["label"] and paper["tldr_text"]
    assert client.get("/api/paper/no-such-paper").status_code == 404
    page = client.get("/paper/Ua6zuk0WRH")
    assert page.status_code == 200 and "Rethinking Attention with Performers" in page.text


def test_the_paper_page_and_api_list_its_sources_and_where_they_disagree(
    client: TestClient, web_template_db: Location
) -> None:
    """9vCLOXwprc has three source records, which disagree on its decision and ratings: `confnav show` lists them;
    the paper page and /api/paper showed neither. Now both give what show gives, from the same library call."""
    by_cli = CliRunner().invoke(cli, ["show", "9vCLOXwprc", "--json", "--db", str(web_template_db)])
    shown = json.loads(by_cli.stdout)
    answer = client.get("/api/paper/9vCLOXwprc").json()
    assert answer["sources"] == shown["sources"] and len(answer["sources"]) == 3
    assert answer["disagreements"] == shown["disagreements"]
    assert [d["field"] for d in answer["disagreements"]] == ["decision", "ratings"]
    page = html.unescape(client.get("/paper/9vCLOXwprc").text)
    assert "3 source records: " + ", ".join(shown["sources"]) in page
    said = re.sub(r"<[^>]+>", "", page.split('id="sources"', 1)[1])  # the section's text, as the CLI prints it
    assert (
        "decision: paperlists:paperlists-iclr2021.json says 'Reject' (shown); openreview-tsv:ratings.tsv says"
        " 'Unknown' (not used: an unknown decision is no decision)" in said
    )
    assert "ratings: paperlists:paperlists-iclr2021.json says 4, 5, 6, 6 (shown)" in said
    agreeing = html.unescape(client.get("/paper/nIAxjsniDzg").text)
    assert "3 source records" in agreeing and "The sources disagree" not in agreeing


def test_search_pages_and_sorts(client: TestClient) -> None:
    first = client.get("/api/search", params={"q": "graph neural networks", "limit": 10}).json()
    second = client.get("/api/search", params={"q": "graph neural networks", "limit": 10, "offset": 10}).json()
    assert isinstance(first["matching"], int) and first["matching"] > 100 and second["offset"] == 10
    assert second["limit"] == 10 and second["meeting_filters"] > second["matching"]  # as `search --json` has them
    assert not {h["id"] for h in first["hits"]} & {h["id"] for h in second["hits"]}
    rated = client.get("/api/search", params={"q": "graph neural networks", "sort": "rating", "limit": 30}).json()
    ratings = [h["rating_mean"] or 0 for h in rated["hits"]]
    assert ratings == sorted(ratings, reverse=True) and all(h["authors"] for h in rated["hits"])
    assert client.get("/api/search", params={"q": "graph", "sort": "colour"}).status_code == 400


def test_similar_leaves_out_rejected_papers_unless_asked(client: TestClient) -> None:
    hidden = client.get("/api/similar/YicbFdNTTy", params={"limit": 20}).json()["hits"]
    everything = client.get("/api/similar/YicbFdNTTy", params={"limit": 20, "include_rejected": True}).json()["hits"]
    assert hidden and all(h["outcome"] != "not-accepted" for h in hidden)
    assert any(h["outcome"] == "not-accepted" for h in everything)
    page = client.get("/paper/YicbFdNTTy").text
    assert "include rejected and withdrawn papers" in page and "similar=all" in page


def test_author_theme_and_trends_pages_link_onwards(client: TestClient) -> None:
    author = client.get("/author/Yang%20Song").text
    assert "Co-authors:" in author and 'href="/author/Stefano%20Ermon"' in author and "Affiliations:" in author
    theme = client.get("/themes/iclr2021/t01").text
    assert 'href="/themes/iclr2021/t01.' in theme or "Sub-themes" not in theme  # sub-themes are linked
    heading = theme.split("<h1>", 1)[1].split("</h1>", 1)[0]
    label = next(t["label"] for t in client.get("/api/topics", params={"venue": "iclr2021"}).json() if t["id"] == "t01")
    assert heading == label[:1].upper() + label[1:]  # "Reinforcement learning": the label as a heading
    kinds = re.findall(r'<span class="badge ([a-z-]+)">', theme.split("accepted first")[1])
    assert kinds == sorted(kinds, key=lambda k: k != "accepted")  # no reject above an accepted paper
    trends = client.get("/trends", params={"from": "iclr2020", "to": "iclr2021"}).text
    assert "<title>Trends ICLR 2020 → ICLR 2021" in trends and 'href="/themes/iclr2021/t' in trends
    assert "Keywords that grew" in trends
    report = client.get("/reports/iclr2021/overview").text
    assert '<header class="site">' in report and '><a href="/paper/' in report  # titles open the app's pages
    assert 'class="away" href="https://openreview.net/' in report  # and their own pages stay one click away


def test_bibtex_of_one_paper_names_the_proceedings(client: TestClient) -> None:
    accepted = client.get("/api/paper/YicbFdNTTy/bibtex").text
    assert accepted.startswith("@inproceedings{dosovitskiy2021image,")
    assert "booktitle = {International Conference on Learning Representations}" in accepted
    rejected = next(
        h
        for h in client.get("/api/search", params={"q": "diffusion", "limit": 50}).json()["hits"]
        if h["outcome"] == "not-accepted"
    )
    entry = client.get(f"/api/paper/{rejected['id']}/bibtex").text
    assert entry.startswith("@misc{") and "booktitle" not in entry and "Submitted to ICLR 2021" in entry
    page = client.get("/paper/YicbFdNTTy").text
    assert 'id="bibtex"' in page
    assert "4 reviews: ratings and reviewers' confidence" in page and '<td class="num">5</td>' in page


def test_filters_and_other_routes(client: TestClient) -> None:
    orals = client.get("/api/search", params={"q": "reinforcement", "decision": "oral", "limit": 50}).json()["hits"]
    assert orals and {h["decision"] for h in orals} == {"oral"}
    similar = client.get("/api/similar/Ua6zuk0WRH").json()["hits"]
    assert similar and "Ua6zuk0WRH" not in [h["id"] for h in similar]
    layout = client.get("/api/map", params={"venue": "iclr2021"}).json()
    assert len(layout["ids"]) == len(layout["titles"]) == len(layout["theme"]) == len(layout["xy"]) // 2 == 3014
    assert all(0 <= v <= 10_000 for v in layout["xy"]) and len(layout["themes"]) > max(layout["theme"])
    assert client.get("/api/topics", params={"venue": "iclr2021"}).json()[0]["label"]
    assert client.get("/api/rank", params={"venue": "iclr2021", "top": 3}).json()[0]["reasons"]
    assert client.get("/api/stats", params={"venue": "iclr2021"}).json()["facts"]["venue.reviewed"] == 2997
    assert "/api/search" in client.get("/openapi.json").json()["paths"]


@pytest.mark.parametrize(
    ("method", "url", "kwargs", "status"),
    [
        ("get", "/api/search", {"params": {"q": ""}}, 400),
        ("get", "/api/search", {"params": {"q": '"open'}}, 400),
        ("get", "/api/search", {"params": {"q": "author:"}}, 400),
        ("get", "/api/search", {"params": {"q": "x" * 5000}}, 422),
        ("get", "/api/search", {"params": {"q": "graphs", "limit": 1000}}, 422),
        ("get", "/api/search", {"params": {"q": "graphs", "decision": "maybe"}}, 400),
        ("get", "/api/search", {"params": {"q": "graphs", "venue": "nips1990"}}, 404),
        ("get", "/api/topics", {"params": {"venue": "nips1990"}}, 404),
        ("post", "/api/lists", {"content": b"{broken", "headers": {"content-type": "application/json"}}, 422),
        ("post", "/api/lists", {"content": b"x" * 70_000, "headers": {"content-type": "application/json"}}, 413),
        ("post", "/api/lists", {"json": {"name": "<bad>"}}, 400),
        ("get", "/api/lists/none-such", {}, 404),
        ("get", "/api/nothing-here", {}, 404),
    ],
)
def test_malformed_requests_get_4xx_json(client: TestClient, method: str, url: str, kwargs: dict, status: int) -> None:  # type: ignore[type-arg]
    response = getattr(client, method)(url, **kwargs)
    assert response.status_code == status, response.text
    assert "error" in response.json() and "Traceback" not in response.text


def test_reading_list_round_trip_and_exports(client: TestClient) -> None:
    assert client.post("/api/lists", json={"name": "api list"}).status_code == 201
    for paper_id in ("Ua6zuk0WRH", "QtTKTdVrFBB"):
        assert client.post("/api/lists/api list/papers", json={"id": paper_id}).status_code == 201
    bib = client.get("/api/lists/api list/export.bib").text
    assert bib.count("@inproceedings{") == 2 and "Rethinking Attention with Performers" in bib
    csv_text = client.get("/api/lists/api list/export.csv").text
    assert csv_text.splitlines()[0].startswith("id,venue,title") and len(csv_text.splitlines()) == 3
    assert client.get("/api/lists/api list/recommend").json()["hits"]
    accepted = client.get("/api/lists/api list/recommend", params={"decision": "accepted"}).json()["hits"]
    assert accepted and {h["decision"] for h in accepted} <= {"oral", "spotlight", "poster"}
    assert client.get("/api/lists/api list/recommend", params={"decision": "maybe"}).status_code == 400
    assert client.delete("/api/lists/api list/papers/QtTKTdVrFBB").status_code == 200
    assert [p["id"] for p in client.get("/api/lists/api list").json()["papers"]] == ["Ua6zuk0WRH"]
    for absent in ("QtTKTdVrFBB", "no-such-paper"):  # taken off already, never held: nothing to remove
        gone = client.delete(f"/api/lists/api list/papers/{absent}", params={"venue": "iclr2021"})
        assert gone.status_code == 404 and "holds no paper" in gone.json()["error"], gone.text
    assert client.delete("/api/lists/api list/papers/Ua6zuk0WRH", params={"venue": "iclr2020"}).status_code == 404
    assert [p["id"] for p in client.get("/api/lists/api list").json()["papers"]] == ["Ua6zuk0WRH"]
    missing = client.get("/lists", params={"name": "no such list"})
    assert missing.status_code == 404 and "There is no list named “no such list”" in missing.text


def test_security_headers_and_escaping(client: TestClient) -> None:
    page = client.get(f"/paper/{HOSTILE_ID}")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "<script>window.pwned" not in page.text and "&lt;script&gt;window.pwned" in page.text
    assert "<b>bold</b>" not in page.text and "<img src=x" not in page.text


def test_author_pages(client: TestClient) -> None:
    song = client.get("/author/Yang Song")
    assert song.status_code == 200 and "Score-Based Generative Modeling" in song.text
    for nobody in ("Nobody Atall", "!!"):  # not in the store, or no letters at all (never every paper)
        assert client.get(f"/author/{nobody}").status_code == 404
    assert client.get("/author/%00").status_code == 400  # a NUL anywhere in a request is refused before any route


def test_writes_need_the_token_off_loopback(web_template_db: Location, tmp_path: Path) -> None:
    guarded = TestClient(create_app(clone(web_template_db, tmp_path), token="s3cret"), base_url="http://127.0.0.1")
    assert guarded.post("/api/lists", json={"name": "x"}).status_code == 403
    assert guarded.post("/api/lists", json={"name": "x"}, headers={"X-Confnav-Token": "s3cret"}).status_code == 201
    assert guarded.get("/api/lists").status_code == 200  # reads stay open


def test_institution_pages_count_what_the_statistics_count(client: TestClient) -> None:
    google = client.get("/api/institution/Google").json()
    stats = client.get("/api/stats", params={"venue": "iclr2021"}).json()["tables"]["institutions"]
    row = next(r for r in stats if r["Institution"] == "Google")
    iclr = next(v for v in google["venues"] if v["venue"] == "iclr2021")
    assert google["name"] == "Google" and "Google Research" in google["spellings"]
    assert iclr["accepted"] == row["Accepted papers"] and 0 < iclr["acceptance"] < 1
    years = [p["year"] for p in google["papers"]]
    assert years == sorted(years, reverse=True) and len(google["papers"]) == sum(v["papers"] for v in google["venues"])
    assert google["authors"][0]["papers"] >= google["authors"][-1]["papers"] >= 1
    assert client.get("/api/institution/google research").json()["name"] == "Google"  # any spelling, folded
    ucf = client.get("/api/institution/University of Central Florida").json()  # not in the table: as written
    assert ucf["name"] == "University of Central Florida" and ucf["papers"]
    assert client.get("/api/institution/Nowhere Institute of Nothing").status_code == 404
    assert client.get("/api/institution/%20").status_code == 404


def test_institution_page_and_links_to_it(client: TestClient) -> None:
    page = client.get("/institution/Mila / Université de Montréal")
    assert page.status_code == 200 and "<h1>Mila / Université de Montréal</h1>" in page.text
    assert 'class="badge accepted"' in page.text and 'href="/author/Yoshua%20Bengio"' in page.text
    assert '<th class="num">Acceptance</th>' in page.text
    counted = client.get("/institution/Google Brain Robotics & Columbia University").text  # the first rule wins
    assert "<h1>Google</h1>" in counted and "“Google Brain Robotics &amp; Columbia University” is counted as" in counted
    missing = client.get("/institution/Nowhere Institute of Nothing")
    assert missing.status_code == 404 and "no institution named" in missing.text and "<h1>" in missing.text
    assert 'href="/institution/' in client.get("/paper/Ua6zuk0WRH").text  # affiliations on a paper
    assert 'href="/institution/' in client.get("/author/Yang Song").text
    stats = client.get("/reports/iclr2021/stats").text
    assert 'href="/institution/Google"' in stats and 'href="/author/' in stats
    assert '<script src="/static/report.js" defer></script>' in client.get("/reports/iclr2021/overview").text


def test_a_served_report_is_verified_first(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    stats = client.get("/reports/iclr2021/stats").text
    assert "was checked against the store when it was made." in stats
    import confnav.web.report_pages as pages

    built = pages.to_html

    def altered(*args: object, **kwargs: object) -> str:  # a report whose first fact the store does not hold
        return re.sub(r'(<strong data-fact="[\w.\-]+">)[^<]*<', r"\g<1>99999<", built(*args, **kwargs), count=1)

    monkeypatch.setattr(pages, "to_html", altered)
    refused = client.get("/reports/iclr2020/stats")
    assert refused.status_code == 409 and "failed verification" in refused.text and "99999" in refused.text
    monkeypatch.undo()
    assert client.get("/reports/iclr2020/stats").status_code == 200


def test_theme_and_overview_pages_take_the_ranking_mode(client: TestClient) -> None:
    theme = client.get("/themes/iclr2021/t01").text  # no citation counts: at the conference by default
    assert 'data-mode="at-conference"' in theme and 'href="/themes/iclr2021/t01?mode=looking-back"' in theme
    back = client.get("/themes/iclr2021/t01", params={"mode": "looking-back"}).text
    assert 'data-mode="looking-back"' in back and "must-read order (looking back)" in back
    overview = client.get("/reports/iclr2021/overview", params={"mode": "looking-back"}).text
    assert "Mode: looking back." in overview and 'href="/reports/iclr2021/overview?mode=at-conference"' in overview
    assert client.get("/themes/iclr2021/t01", params={"mode": "sideways"}).status_code == 400


def _count(page: str) -> str:
    """The search page's status line, tags dropped, as read."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.split('id="status"', 1)[1].split("</p>", 1)[0].split(">", 1)[1]))


def test_filters_without_words_list_the_papers_that_meet_them(client: TestClient, web_template_db: Location) -> None:
    from confnav.store import PaperFilter, open_store

    with open_store(web_template_db) as store:
        orals = {p.id for p in store.papers(PaperFilter(venue="iclr2021", decision="oral")) if not p.placeholder}
    listed = client.get("/api/search", params={"venue": "iclr2021", "decision": "oral", "limit": 100}).json()
    assert listed["matching"] == len(orals) and {h["id"] for h in listed["hits"]} == orals
    page = client.get("/search", params={"venue": "iclr2021", "decision": "oral"}).text
    assert f"{len(orals)} papers meet these filters · showing 1–20" in _count(page) and 'rel="next"' in page
    home = client.get("/").text  # each venue's "Search" link lists its papers
    venue_page = client.get(re.findall(r'href="(/search\?venue=[^"]+)"', home)[0]).text
    assert "papers meet these filters" in _count(venue_page) and venue_page.count('class="hit"') == 20
    nothing = client.get("/search").text
    assert "Type some words, or choose a venue" in _count(nothing) and 'class="hit"' not in nothing
    one = client.get("/search", params={"author": "Mallory Example"}).text
    assert "1 paper meets these filters" in _count(one)


def test_paging_stops_where_the_results_end(client: TestClient) -> None:
    n = client.get("/api/search", params={"venue": "iclr2021", "decision": "oral"}).json()["matching"]
    whole = client.get("/search", params={"venue": "iclr2021", "decision": "oral", "limit": n}).text
    assert whole.count('class="hit"') == n and 'rel="next"' not in whole  # a full page, nothing after it
    short = {"venue": "iclr2021", "decision": "oral", "limit": n - 1}
    assert 'rel="next"' in client.get("/search", params=short).text
    last = client.get("/search", params=short | {"page": 2}).text
    assert last.count('class="hit"') == 1 and 'rel="next"' not in last and 'rel="prev"' in last
    for params in ({"q": "graph", "mode": "keyword", "page": 500}, short | {"page": 40}):
        past = client.get("/search", params=params).text
        assert "No more results" in _count(past) and 'class="hit"' not in past and 'rel="next"' not in past
        assert re.search(r'href="/search\?[^"]*page=1">Back to the first page', past)


def test_odd_inputs_are_named_as_given(client: TestClient) -> None:
    empty_field = client.get("/search", params={"q": "author:"}).text
    assert "'author:' has nothing after it" in _count(empty_field) and 'class="hit"' not in empty_field
    theme = client.get("/themes/iclr2021/%25")
    assert theme.status_code == 404 and "no theme '%'" in html.unescape(theme.text)
    one = client.get("/search", params={"q": "attacks", "mode": "keyword", "venue": "test2021"}).text
    assert "1 paper matches some of these words" in _count(one)


def test_report_pages_carry_the_app_icon(client: TestClient) -> None:
    from confnav.reports.render import ICON

    assert f'<link rel="icon" href="{ICON}">' in client.get("/").text
    for kind in ("stats", "overview"):
        assert f'<link rel="icon" href="{ICON}">' in client.get(f"/reports/iclr2021/{kind}").text, kind
