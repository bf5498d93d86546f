"""A venue named by any spelling (`ICLR 2021`, `ICLR'21`) gets the answer its id gets, from every web route and
CLI verb that takes one and from the library; a series held more than once is named ambiguous with its venues, and
a name with words left over (a workshop, a track, a file name) is refused. On a real store of ICLR 2020 and 2021."""

from __future__ import annotations

import ast
import html
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner, Result
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.cli.common import flag_of
from confnav.errors import ConfnavError, VenueNameError
from confnav.rank import WeightedRanker
from confnav.store import PaperFilter, open_store
from confnav.topics import ensure_topics
from confnav.topics.facts import theme_facts
from confnav.topics.trends import trends
from confnav.web.app import create_app
from tests.backends import Location, clone
from tests.conftest import DATA, ROOT

SPELLED = "ICLR 2021"
LEFT_OVER = ["ICLR 2021 blah blah", "ICLR 2021 Workshop", "iclr2021.json", "ICLR 2020 Datasets and Benchmarks"]


@pytest.fixture(scope="module")
def db(light_topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    return clone(light_topics_db, tmp_path_factory.mktemp("spellings"), "spellings")


@pytest.fixture(scope="module")
def client(db: Location) -> Iterator[TestClient]:
    with TestClient(create_app(db, read_only=True), base_url="http://127.0.0.1") as served:
        yield served


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


# Every route that takes a venue, with VENUE where it goes (a path segment or a query value).
ROUTES = [
    "/api/stats?venue=VENUE",
    "/api/rank?venue=VENUE&top=5",
    "/api/topics?venue=VENUE",
    "/api/map?venue=VENUE",
    "/api/history/VENUE",
    "/api/search?q=attention&mode=keyword&venue=VENUE",
    "/api/export?q=attention&mode=keyword&format=csv&venue=VENUE",
    "/api/experts?q=reinforcement+learning&venue=VENUE",
    "/api/rebuttal/VENUE",
    "/api/ask?q=how+many+orals&venue=VENUE",
    "/themes/VENUE",
    "/themes/VENUE/t01",
    "/trends?from=iclr2020&to=VENUE",
    "/map?venue=VENUE",
    "/history/VENUE",
    "/reports/VENUE/stats",
    "/venues/VENUE/rebuttal",
    "/venues/VENUE/ask?q=how+many+orals",
]


@pytest.mark.parametrize("route", ROUTES)
def test_every_web_route_answers_a_spelled_venue_as_its_id(client: TestClient, route: str) -> None:
    by_id = client.get(route.replace("VENUE", "iclr2021"))
    by_name = client.get(route.replace("VENUE", quote(SPELLED)))
    assert by_id.status_code == (404 if route.startswith("/api/rebuttal") else 200), (
        route,
        by_id.text[:300],
    )  # no history
    assert by_name.status_code == by_id.status_code, (route, by_name.text[:300])
    if by_id.headers["content-type"].startswith("application/json"):
        assert by_name.json() == by_id.json(), route
    else:  # a page: the same page, but for the spelling it echoes in its forms and links
        assert by_name.text.replace(quote(SPELLED), "iclr2021") == by_id.text or route.startswith("/venues/")


def test_the_trends_page_reads_both_ends_spelled(client: TestClient) -> None:
    by_id = client.get("/trends?from=iclr2020&to=iclr2021")
    by_name = client.get("/trends?" + "from=" + quote("ICLR'20") + "&to=" + quote(SPELLED))
    assert by_id.status_code == by_name.status_code == 200 and by_name.text == by_id.text


VERBS = [
    ["stats", "--json", "--venue", "VENUE"],
    ["rank", "--json", "--top", "5", "--venue", "VENUE"],
    ["topics", "--json", "--venue", "VENUE"],
    ["topic", "t01", "--json", "--venue", "VENUE"],
    ["trends", "--json", "--from", "iclr2020", "--to", "VENUE"],
    ["report", "stats", "--venue", "VENUE"],
    ["ls", "--json", "--limit", "5", "--venue", "VENUE"],
    ["search", "attention", "--mode", "keyword", "--json", "--venue", "VENUE"],
    ["decisions", "--json", "--venue", "VENUE"],
    ["history", "--json", "--venue", "VENUE"],
    ["ask", "how many orals", "--json", "--venue", "VENUE"],
]


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: " ".join(v[:2]))
def test_every_cli_verb_answers_a_spelled_venue_as_its_id(db: Location, verb: list[str]) -> None:
    by_id = run(*[a.replace("VENUE", "iclr2021") for a in verb], "--db", str(db))
    by_name = run(*[a.replace("VENUE", SPELLED) for a in verb], "--db", str(db))
    assert by_id.exit_code == 0, (verb, by_id.stderr)
    assert by_name.exit_code == 0, (verb, by_name.stderr)
    assert by_name.stdout == by_id.stdout, verb


def test_the_library_reads_a_spelled_venue_as_its_id(db: Location) -> None:
    with open_store(db, read_only=True) as store:
        assert [r.paper.id for r in WeightedRanker().rank(store, SPELLED).papers[:20]] == [
            r.paper.id for r in WeightedRanker().rank(store, "iclr2021").papers[:20]
        ]
        assert ensure_topics(store, "ICLR'21") == ensure_topics(store, "iclr2021")
        assert theme_facts(store, SPELLED, 1) == theme_facts(store, "iclr2021", 1)
        spelled_trends, by_id = trends(store, "ICLR 2020", SPELLED), trends(store, "iclr2020", "iclr2021")
        assert (spelled_trends.source, spelled_trends.target) == ("iclr2020", "iclr2021")
        assert spelled_trends.themes == by_id.themes


def test_no_caller_checks_a_venue_then_goes_on_with_the_spelling() -> None:
    """A function that looks a venue parameter up in the store must go on with the id it gets back (rebind the
    parameter, or use the answer's `.id`): checking a spelling and then passing it on is how `ICLR 2021` became
    '0 papers' and 'themes not built'."""
    careless = []
    for path in sorted((ROOT / "src" / "confnav").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
            params = {a.arg for a in function.args.args + function.args.kwonlyargs}
            rebound = {
                name.id
                for node in ast.walk(function)
                if isinstance(node, ast.Assign)
                for target in node.targets
                for name in ast.walk(target)
                if isinstance(name, ast.Name)
            }
            for call in ast.walk(function):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                    continue
                if call.func.attr != "get_venue" or not call.args or not isinstance(call.args[0], ast.Name):
                    continue
                given, used = call.args[0].id, parents[call]
                if (
                    given in params
                    and given not in rebound
                    and not (isinstance(used, ast.Attribute) and used.attr == "id")
                ):
                    careless.append(f"{path.relative_to(ROOT)}:{call.lineno} {function.name}({given})")
    assert not careless, careless


def test_a_series_held_more_than_once_is_ambiguous_and_named(db: Location, client: TestClient) -> None:
    said = run("stats", "--venue", "ICLR", "--db", str(db))
    assert said.exit_code == 1 and "unknown" not in said.stderr
    assert "venue 'ICLR' is ambiguous: it could mean iclr2020 (ICLR 2020), iclr2021 (ICLR 2021)" in said.stderr
    answer = client.get("/api/stats?venue=ICLR")
    assert answer.status_code == 400 and "ambiguous" in answer.text and "iclr2020" in answer.text
    with open_store(db, read_only=True) as store, pytest.raises(VenueNameError, match=r"ambiguous.*iclr2020.*iclr2021"):
        store.get_venue("ICLR")


AMBIGUOUS = "venue 'ICLR' is ambiguous: it could mean iclr2020 (ICLR 2020), iclr2021 (ICLR 2021); name one of them"
WORKSHOP = "'ICLR 2021 Workshop' is not the name of a venue: 'Workshop' is not part of ICLR 2021's name"
TOO_LONG = "ICLR 2021 " + "x" * 300
# The routes above, and pages that take a venue beside another name (a paper's, a profile's, a schedule's).
EVERY_ROUTE = [
    *ROUTES,
    "/paper/Ua6zuk0WRH?venue=VENUE",
    "/venues/VENUE/for-you",
    "/venues/VENUE/plan",
    "/venues/VENUE/plan.ics",
    "/search?q=attention&venue=VENUE",
]


@pytest.mark.parametrize("route", EVERY_ROUTE)
def test_a_bad_venue_name_is_a_400_naming_it_and_an_absent_venue_a_404(client: TestClient, route: str) -> None:
    """A name that cannot name one venue is the request's fault (400 with the library's own line, as the CLI
    prints it), on pages and API routes alike; only a venue the store does not hold is a 404."""
    page = not route.startswith("/api/")
    for name, status, said in [
        ("ICLR", 400, AMBIGUOUS),
        ("ICLR 2021 Workshop", 400, WORKSHOP),
        (TOO_LONG, 400, "is not the name of a venue: no venue name is over 200 characters"),
        ("NeurIPS 2019", 404, "unknown venue 'NeurIPS 2019'"),
    ]:
        answer = client.get(route.replace("VENUE", quote(name)))
        assert answer.status_code == status, (route, name, answer.status_code, answer.text[-400:])
        text = html.unescape(answer.text) if page else answer.json()["error"]
        assert said in text, (route, name, text[-400:])
        kind = answer.headers["content-type"]
        assert kind.startswith("text/html" if page else "application/json"), (route, name, kind)


@pytest.mark.parametrize("name", LEFT_OVER)
def test_a_name_with_words_left_over_is_refused(db: Location, client: TestClient, name: str) -> None:
    said = run("stats", "--venue", name, "--db", str(db))
    assert said.exit_code == 1 and "is not the name of a venue" in said.stderr, said.stderr
    assert "a workshop or a track named after a venue is another venue" in said.stderr
    assert client.get("/api/stats?venue=" + quote(name)).status_code == 400
    with open_store(db, read_only=True) as store, pytest.raises(VenueNameError, match="is not part of"):
        store.get_venue(name)
    # words that say nothing more still name the venue
    with open_store(db, read_only=True) as store:
        assert store.get_venue("ICLR 2021 Conference").id == "iclr2021"


@pytest.mark.parametrize("name", LEFT_OVER)
def test_ingest_and_fetch_refuse_a_name_with_words_left_over_too(db: Location, name: str) -> None:
    # `ingest --venue "iclr2021 workshop"` once filed the stored papers of ICLR 2021 into a track "workshop"
    paperlist = str(DATA / "iclr2021" / "paperlists-iclr2021.json")
    for verb in (
        ["ingest", paperlist, "--venue", name],
        ["fetch", "paperlists", name, "--base-url", "http://127.0.0.1:9"],
    ):
        said = run(*verb, "--db", str(db))
        assert said.exit_code == 1 and "is not part of" in said.stderr and said.stderr.count("\n") == 1, said.output
        assert "a workshop or a track named after a venue is another venue" in said.stderr
    with open_store(db, read_only=True) as store:
        assert not any(p.track for p in store.papers(PaperFilter(venue="iclr2021")))


@pytest.mark.parametrize("name", ["iclr", "", "%", "../../etc/passwd", "2021"])
def test_a_venue_without_a_year_to_fetch_or_override_is_one_line(db: Location, name: str, tmp_path: Path) -> None:
    said = run("fetch", "paperlists", name, "--base-url", "http://127.0.0.1:9", "--db", str(db))
    assert said.exit_code == 1 and isinstance(said.exception, SystemExit), said.output  # no traceback
    assert said.stderr.startswith(f"error: cannot read a venue from {name!r}") and said.stderr.count("\n") == 1
    config = tmp_path / "c.toml"
    config.write_text(f'[decisions."%{name}2021"]\n"Foo" = "accepted"\n', encoding="utf-8")
    paperlist = str(DATA / "iclr2021" / "paperlists-iclr2021.json")
    said = run("ingest", "--config", str(config), paperlist, "--db", str(db))
    assert said.exit_code == 1 and f"field 'decisions.%{name}2021': cannot read a venue" in said.stderr, said.output


def test_api_search_and_export_filter_by_year(db: Location, client: TestClient) -> None:
    every = client.get("/api/search?q=attention&mode=keyword&limit=100").json()
    of_2020 = client.get("/api/search?q=attention&mode=keyword&limit=100&year=2020").json()
    assert {h["venue"] for h in every["hits"]} == {"iclr2020", "iclr2021"}
    assert {h["venue"] for h in of_2020["hits"]} == {"iclr2020"}
    assert of_2020["meeting_filters"] < every["meeting_filters"]
    by_cli = run(
        "search", "attention", "--mode", "keyword", "--year", "2020", "--limit", "100", "--json", "--db", str(db)
    )
    assert json.loads(by_cli.stdout)["meeting_filters"] == of_2020["meeting_filters"]
    listed = client.get("/api/search?q=&year=2020&limit=5").json()
    assert listed["hits"] and all(h["venue"] == "iclr2020" for h in listed["hits"])
    rows = client.get("/api/export?q=attention&mode=keyword&format=csv&year=2020").text.splitlines()[1:]
    assert rows and all("iclr2020" in row or "ICLR 2020" in row for row in rows)
    refused = client.get("/api/search?q=attention&year=99999")
    assert refused.status_code == 400 and "year 99999: give a venue's year" in refused.text
    spec = client.get("/openapi.json").json()["paths"]
    for path in ("/api/search", "/api/export"):
        assert "year" in [p["name"] for p in spec[path]["get"]["parameters"]], path


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"year": "2021"}, "year '2021': give a venue's year as a whole number"),
        ({"year": 99999}, "year 99999: give a venue's year"),
        ({"year": True}, "year true: give a venue's year"),
        ({"min_rating": "x"}, "min_rating 'x': give a number"),
        ({"min_rating": float("nan")}, "min_rating nan: give a number"),
        ({"venue": 2021}, "venue 2021: give text"),
        ({"has_code": "yes"}, "has_code 'yes': give True or False"),
    ],
)
def test_paper_filter_names_the_argument_as_the_caller_spells_it(
    db: Location, given: dict[str, object], said: str
) -> None:
    with pytest.raises(ConfnavError) as raised:
        PaperFilter(**given)  # type: ignore[arg-type]
    assert str(raised.value).startswith(said), str(raised.value)
    assert "--" not in str(raised.value)
    assert raised.value.spelled(flag_of).startswith(flag_of(next(iter(given))) + " ")


def test_the_cli_names_a_filter_by_its_flag(db: Location) -> None:
    said = run("search", "", "--min-rating", "nan", "--db", str(db))
    assert said.exit_code == 1 and said.stderr.startswith("error: --min-rating nan: give a number"), said.stderr
