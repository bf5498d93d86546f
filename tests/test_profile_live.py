"""`confnav profile import ~First_Last1 | s2:ID`: a person's papers from OpenReview or Semantic Scholar, against
local servers holding real venues (ICLR 2021 on API 1, CoRL 2023 on API 2), into the ICLR 2021 store."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.fetch.authors import Person, import_person, openreview_papers, person_of, s2_papers
from confnav.fetch.citations import SemanticScholar
from confnav.fetch.http import FetchError, HttpClient
from confnav.fetch.openreview import OpenReviewClient
from confnav.settings import Settings
from confnav.store import open_store
from tests.backends import Location
from tests.citation_servers import Services, Work
from tests.citation_servers import serving as s2_serving
from tests.conftest import DATA
from tests.openreview_server import FakeOpenReview, Venue, api1_note, api2_note, serving, signed_in

ICLR2021, CORL = "ICLR.cc/2021/Conference", "robot-learning.org/CoRL/2023/Conference"


def _records(name: str) -> list[dict[str, Any]]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def _ids(record: dict[str, Any]) -> set[str]:
    return {a.strip() for a in record.get("authorids", "").split(";") if a.strip().startswith("~")}


@pytest.fixture(scope="module")
def venues() -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """ICLR 2021 and CoRL 2023 records, and the person with papers in both (most CoRL papers first)."""
    iclr, corl = _records("iclr2021/paperlists-iclr2021.json"), _records("paperlists/corl2023.json")
    in_iclr = Counter(a for r in iclr for a in _ids(r))
    in_corl = Counter(a for r in corl for a in _ids(r) if a in in_iclr)
    return iclr, corl, in_corl.most_common(1)[0][0]


@pytest.fixture
def openreview(
    venues: tuple[list[dict[str, Any]], list[dict[str, Any]], str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[FakeOpenReview, str]]:
    iclr, corl, _ = venues
    state = FakeOpenReview()
    state.add_venue(Venue(ICLR2021, 1, [api1_note(ICLR2021, i, r, state.tick()) for i, r in enumerate(iclr, 1)]))
    state.add_venue(Venue(CORL, 2, [api2_note(CORL, i, r, state.tick(), "accepted") for i, r in enumerate(corl, 1)]))
    signed_in(monkeypatch)
    with serving(state) as url:
        monkeypatch.setenv("CONFNAV_OPENREVIEW_URL", url)
        monkeypatch.setenv("CONFNAV_OPENREVIEW_V1_URL", url + "/v1")
        yield state, url


def _client(url: str) -> OpenReviewClient:
    return OpenReviewClient.from_settings(Settings.load(), url, url + "/v1", timeout=5.0, backoff=0.0)


def _cli(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_the_syntax_tells_people_from_files() -> None:
    assert person_of("~Sergey_Levine1") == Person("openreview", "~Sergey_Levine1")
    assert person_of("s2:1741101") == Person("s2", "1741101")
    assert person_of("S2:1741101") == Person("s2", "1741101")
    assert person_of("mine.bib") is None and person_of("~/mine.bib") is None and person_of("s2:abc") is None


def test_an_openreview_profile_brings_its_papers_matched_or_kept_as_own_texts(
    openreview, venues, iclr2021_copy: Location
) -> None:  # type: ignore[no-untyped-def]
    iclr, corl, person = venues
    db = str(iclr2021_copy)
    with open_store(iclr2021_copy) as store:
        stored = {p.id for p in store.iter_papers()}
    mine_iclr = [r for r in iclr if person in _ids(r) and r["id"] in stored]
    mine_corl = [r for r in corl if person in _ids(r)]
    result = _cli("profile", "import", person, "--profile", "levine", "--json", "--db", db)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["matched"], report["own"]) == (len(mine_iclr), len(mine_corl)) and report["problems"] == []
    with open_store(iclr2021_copy) as store:
        items = store.profile_items("levine")
    assert {i.paper_id for i in items if i.paper_id} == {r["id"] for r in mine_iclr}
    own = [i for i in items if not i.paper_id]
    assert {i.title for i in own} == {" ".join(r["title"].split()) for r in mine_corl}
    assert all(i.abstract and i.year == 2023 and i.data["source"] == person for i in own)
    assert all(i.data["openreview"] for i in items)
    # a second import adds nothing: the same papers are already there
    again = _cli("profile", "import", person, "--profile", "levine", "--db", db)
    assert again.exit_code == 0 and " 0 new" in again.stdout


def test_pages_and_rate_limits_are_followed(openreview, venues, iclr2021_copy: Location) -> None:  # type: ignore[no-untyped-def]
    _, _, person = venues
    state, url = openreview
    client = _client(url)
    whole = openreview_papers(client, person)
    client = _client(url)
    client.page_size = 2  # the API's pages hold at most 1,000: the same walk, at a size the real data fills
    before = state.requests
    state.faults = ["429", "429"]
    paged = openreview_papers(client, person)
    assert [e.title for e in paged] == [e.title for e in whole]
    assert state.requests - before > len(whole) // 2 + 2  # many pages, and the two refusals were retried
    with open_store(iclr2021_copy) as store:
        report = import_person(store, [Person("openreview", person)], "me", openreview=client)
    assert report.matched + report.own == len(whole)


def test_an_unknown_profile_or_an_unreachable_service_writes_nothing(openreview, iclr2021_copy: Location) -> None:  # type: ignore[no-untyped-def]
    db = str(iclr2021_copy)
    result = _cli("profile", "import", "~Nobody_Here1", "--db", db)
    assert result.exit_code != 0
    assert "OpenReview has no profile '~Nobody_Here1'" in result.stderr and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
    with open_store(iclr2021_copy) as store:
        assert store.profiles() == []
        nowhere = OpenReviewClient(
            HttpClient("http://127.0.0.1:9", retries=1, backoff=0), HttpClient("http://127.0.0.1:9")
        )
        with pytest.raises(FetchError, match=r"cannot reach 127\.0\.0\.1:9"):
            import_person(store, [Person("openreview", "~Sergey_Levine1")], "me", openreview=nowhere)
        assert store.profiles() == []


def test_a_file_import_stays_offline(openreview, iclr2021_copy: Location, tmp_path) -> None:  # type: ignore[no-untyped-def]
    state, _ = openreview
    ids = tmp_path / "ids.txt"
    ids.write_text("10.1000/not-in-the-store\n", encoding="utf-8")
    result = _cli("profile", "import", str(ids), "--db", str(iclr2021_copy))
    assert result.exit_code == 0, result.output
    assert state.requests == 0


@pytest.fixture
def scholar(
    venues: tuple[list[dict[str, Any]], list[dict[str, Any]], str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Services, str, dict[str, str]]]:
    """Semantic Scholar knowing ICLR 2021 and CoRL 2023 papers (titles, abstracts, authors), author ids numbered."""
    iclr, corl, _ = venues
    numbers: dict[str, str] = {}
    works = []
    for records, year in ((iclr, 2021), (corl, 2023)):
        for r in records:
            names = [a.strip() for a in r["author"].split(";")]
            ids = [a.strip() for a in r.get("authorids", "").split(";")]
            authors = [(numbers.setdefault(i, str(1000 + len(numbers))), n) for n, i in zip(names, ids, strict=False)]
            works.append(Work(r["title"], year, 0, authors=authors, abstract=r.get("abstract"), venue=str(year)))
    services = Services(works)
    monkeypatch.delenv("S2_API_KEY", raising=False)
    with s2_serving(services) as url:
        monkeypatch.setenv("CONFNAV_S2_URL", url + "/graph/v1")
        yield services, url, numbers


def test_a_semantic_scholar_author_brings_their_papers(scholar, venues, iclr2021_copy: Location) -> None:  # type: ignore[no-untyped-def]
    services, url, numbers = scholar
    iclr, corl, person = venues
    author = numbers[person]
    with open_store(iclr2021_copy) as store:
        stored = {p.id for p in store.iter_papers()}
    titles_iclr = {r["id"] for r in iclr if person in _ids(r) and r["id"] in stored}
    mine_corl = [r for r in corl if person in _ids(r)]
    result = _cli("profile", "import", f"s2:{author}", "--json", "--db", str(iclr2021_copy))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["matched"], report["own"]) == (len(titles_iclr), len(mine_corl))
    with open_store(iclr2021_copy) as store:
        items = store.profile_items("me")
    assert {i.paper_id for i in items if i.paper_id} == titles_iclr
    assert all(i.year == 2023 and i.abstract and i.data["source"] == f"s2:{author}" for i in items if not i.paper_id)

    http = SemanticScholar.from_settings(Settings.load(), url + "/graph/v1", backoff=0.0).http
    services.faults = ["429"]
    paged = s2_papers(http, author, page=3)
    assert len(paged) == sum(author in dict(w.authors) for w in services.works)
    assert http.requests == 1 + -(-len(paged) // 3)  # the refusal, then one request a page of three


def test_an_unknown_semantic_scholar_author_is_one_line(scholar, iclr2021_copy: Location) -> None:  # type: ignore[no-untyped-def]
    result = _cli("profile", "import", "s2:999999999", "--db", str(iclr2021_copy))
    assert result.exit_code != 0
    assert "Semantic Scholar has no author '999999999'" in result.stderr and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
    with open_store(iclr2021_copy) as store:
        assert store.profiles() == []
