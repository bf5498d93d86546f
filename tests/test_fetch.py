"""`confnav fetch openreview` against a local server that answers like OpenReview (API 1 and API 2)."""

from __future__ import annotations

import functools
import json
import shutil
import socket
from collections.abc import Iterator
from contextlib import AbstractContextManager
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.fetch import FetchError, fetch_openreview
from confnav.fetch.http import redact, secrets_of
from confnav.fetch.openreview import OpenReviewClient
from confnav.ingest import ingest
from confnav.model import Outcome
from confnav.settings import Settings
from confnav.sources.openreview_notes import venue_of_group
from confnav.store import open_store
from tests.conftest import DATA
from tests.local_http import local_server
from tests.openreview_server import USER, FakeOpenReview, Venue, api1_note, api2_note, serving, signed_in

ICLR2021, ICLR2018 = "ICLR.cc/2021/Conference", "ICLR.cc/2018/Conference"
CORL = "robot-learning.org/CoRL/2023/Conference"


def records(name: str) -> list[dict[str, str]]:
    return json.loads((DATA / name).read_text())


def build_server() -> FakeOpenReview:
    """Three venues: ICLR 2021 on API 1, CoRL 2023 on API 2 (decided), ICLR 2018 on API 2 still in review."""
    state = FakeOpenReview()
    iclr = records("iclr2021/paperlists-iclr2021.json")
    state.add_venue(Venue(ICLR2021, 1, [api1_note(ICLR2021, i, r, state.tick()) for i, r in enumerate(iclr, 1)]))
    corl = records("paperlists/corl2023.json")
    state.add_venue(Venue(CORL, 2, [api2_note(CORL, i, r, state.tick(), "accepted") for i, r in enumerate(corl, 1)]))
    review = []
    for i, record in enumerate(records("paperlists/iclr2018.json")[:300], 1):
        note = api2_note(ICLR2018, i, record, state.tick(), "review")
        if i % 3 == 0:
            note["details"]["replies"] = []  # reviews not public yet on some papers
        review.append(note)
    state.add_venue(Venue(ICLR2018, 2, review))
    return state


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeOpenReview, str]]:
    signed_in(monkeypatch)
    state = build_server()
    with serving(state) as url:
        yield state, url


def client(url: str, **http: object) -> OpenReviewClient:
    # 5 s: far above a local answer's time even on a busy machine, far below the fake's 20 s "timeout" fault
    return OpenReviewClient.from_settings(Settings.load(), url, url, timeout=5.0, backoff=0.0, **http)  # type: ignore[arg-type]


def run_fetch(db: Path, url: str, venue: str, *extra: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        cli, ["fetch", "openreview", venue, "--db", str(db), "--base-url", url, "--v1-url", url, "-q", *extra]
    )
    return result.exit_code, result.stdout, result.stderr


def test_three_venues_give_the_papers_ratings_and_decisions_of_the_server(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    db = tmp_path / "live.db"
    for venue in (ICLR2021, CORL, ICLR2018):
        code, _, err = run_fetch(db, url, venue)
        assert code == 0, err
    reference = tmp_path / "files.db"
    with open_store(reference, create=True) as files:
        ingest(files, [DATA / "iclr2021" / "paperlists-iclr2021.json"])
        expected = {p.id: p for p in files.iter_papers("iclr2021")}
    with open_store(db, create=True) as store:
        iclr = {p.id: p for p in store.iter_papers("iclr2021")}
        corl = {p.id: p for p in store.iter_papers("corl2023")}
        review = list(store.iter_papers("iclr2018"))
    assert set(iclr) == set(expected)  # API 1, withdrawn and desk-rejected included
    for paper_id, paper in iclr.items():
        want = expected[paper_id]
        assert (paper.title, paper.decision.outcome, paper.decision.kind) == (
            want.title,
            want.decision.outcome,
            want.decision.kind,
        ), paper_id
        assert paper.ratings == want.ratings and paper.links["forum"].endswith(paper_id)
    notes = {n["id"]: n for n in state.venues[CORL].notes}
    assert set(corl) == set(notes) and all(p.decision.accepted for p in corl.values())
    for paper_id, paper in corl.items():
        reviews = [r for r in notes[paper_id]["details"]["replies"] if "rating" in r["content"]]
        assert len(paper.ratings) == len(reviews) and paper.decision.kind in ("oral", "poster")
    corl_paper = corl["-3G6_D66Aua"]
    assert [a.profile for a in corl_paper.authors] == ["~Bibit_Bianchini1", "~Mathew_Halm1", "~Michael_Posa1"]
    assert len(review) == 300 and all(p.decision.outcome is Outcome.PENDING for p in review)
    unrated = {n["id"] for n in state.venues[ICLR2018].notes if not n["details"]["replies"]}
    assert {p.id for p in review if not p.ratings} == unrated and len(unrated) >= 100  # hidden: unknown, not zero


def test_a_second_fetch_asks_only_for_what_changed(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    db = tmp_path / "live.db"
    assert run_fetch(db, url, ICLR2018)[0] == 0
    before = state.notes_served
    assert run_fetch(db, url, ICLR2018)[0] == 0
    assert state.notes_served - before == 1  # nothing changed: one note read to see that
    changed = state.venues[ICLR2018].notes[0]  # a decision arrives for one paper, a new review for another
    changed["details"]["replies"].append(
        {
            "id": "late-decision",
            "forum": changed["id"],
            "tmdate": state.tick(),
            "domain": ICLR2018,
            "invitations": [f"{ICLR2018}/Submission1/-/Decision"],
            "content": {"decision": {"value": "Accept (Oral)"}},
        }
    )
    changed["content"]["venueid"] = {"value": ICLR2018}
    other = state.venues[ICLR2018].notes[2]
    other["details"]["replies"].append(
        {
            "id": "late-review",
            "forum": other["id"],
            "tmdate": state.tick(),
            "domain": ICLR2018,
            "invitations": [f"{ICLR2018}/Submission3/-/Official_Review"],
            "content": {"rating": {"value": 9}},
        }
    )
    before = state.notes_served
    code, out, _ = run_fetch(db, url, ICLR2018)
    assert code == 0 and "1 updated" not in out
    # pages of 1 and 10 notes find the two changed replies, put in place in the submissions already held
    assert state.notes_served - before == 1 + 10
    with open_store(db, create=True) as store:
        assert store.get_paper(changed["id"]).decision.kind == "oral"
        assert store.get_paper(other["id"]).ratings[-1] == 9


def test_without_a_login_the_error_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENREVIEW_USERNAME", "OPENREVIEW_PASSWORD", "OPENREVIEW_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    with serving(build_server()) as url:
        code, _, err = run_fetch(tmp_path / "s.db", url, CORL)
        assert code == 1 and "ChallengeRequiredError" in err and "OPENREVIEW_USERNAME" in err
        monkeypatch.setenv("OPENREVIEW_USERNAME", USER)
        monkeypatch.setenv("OPENREVIEW_PASSWORD", "wrong")
        code, _, err = run_fetch(tmp_path / "s.db", url, CORL)
    assert code == 1 and "refused the login of OPENREVIEW_USERNAME (Invalid username or password" in err
    assert "wrong" not in err and "Traceback" not in err


@pytest.mark.parametrize("password", ["wrong horse", 'p@ss "wörd"\\ & more', "ünïcode/+%"])
def test_a_login_error_echoing_the_request_body_never_prints_the_password(
    password: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENREVIEW_USERNAME", USER)
    monkeypatch.setenv("OPENREVIEW_PASSWORD", password)
    monkeypatch.delenv("OPENREVIEW_TOKEN", raising=False)
    with serving(build_server()) as url:
        code, out, err = run_fetch(tmp_path / "s.db", url, CORL)
    assert code == 1 and "refused the login of OPENREVIEW_USERNAME" in err and "[redacted]" in err
    echoed = {password, json.dumps(password)[1:-1], quote(password, safe=""), quote_plus(password)}
    assert not any(form in err + out for form in echoed), err
    assert len(err.strip().splitlines()) == 1


def test_every_secret_a_request_carries_is_redacted_from_what_a_service_says() -> None:
    headers = {"Authorization": "Bearer tok-123456", "x-api-key": "k-987", "Accept": "application/json"}
    secrets = secrets_of(headers, {"api_key": "q/s 1", "limit": 10}, {"id": "me", "password": "hunter2"})
    said = {"message": "bad tok-123456, k-987, q%2Fs+1, hunter2 for me", "detail": ["hunter2"], "n": 1}
    assert redact(said, secrets) == {
        "message": "bad [redacted], [redacted], [redacted], [redacted] for me",
        "detail": ["[redacted]"],
        "n": 1,
    }


def test_unknown_venue_and_no_network_fail_in_one_line(server, tmp_path: Path, no_back_off: None) -> None:  # type: ignore[no-untyped-def]
    _, url = server
    code, _, err = run_fetch(tmp_path / "s.db", url, "Nowhere.cc/2024/Conference")
    assert code == 1 and "OpenReview has no venue 'Nowhere.cc/2024/Conference'" in err
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    result = CliRunner().invoke(
        cli, ["fetch", "openreview", CORL, "--db", str(tmp_path / "s.db"), "--base-url", closed, "--v1-url", closed]
    )
    assert result.exit_code == 1 and f"cannot reach {closed[7:]}" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_429_500_and_timeouts_are_retried(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    state.faults = ["429", "500", "timeout", "429"]
    with open_store(tmp_path / "s.db", create=True) as store:
        result = fetch_openreview(store, tmp_path / "s.db", CORL, client=client(url))
        assert result.ingest.added == 199 and store.count_papers("corl2023") == 199
    assert state.faults == []


def test_malformed_answers_fail_clearly_and_leave_the_store_alone(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    state.faults = ["garbage"]
    with open_store(tmp_path / "s.db", create=True) as store, pytest.raises(FetchError, match="not JSON"):
        fetch_openreview(store, tmp_path / "s.db", CORL, client=client(url))
    with open_store(tmp_path / "s.db", create=True) as store:
        assert store.count_papers() == 0


def test_an_interrupted_fetch_writes_nothing_and_resumes(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    db = tmp_path / "s.db"
    first_page = 1
    state.faults = [""] * first_page + ["500"] * 10  # the second page keeps failing
    with open_store(db, create=True) as store, pytest.raises(FetchError, match="HTTP 500"):
        fetch_openreview(store, db, ICLR2021, client=client(url, retries=2))
    with open_store(db, create=True) as store:
        assert store.count_papers() == 0
    state.faults = []
    served = state.notes_served
    with open_store(db, create=True) as store:
        result = fetch_openreview(store, db, ICLR2021, client=client(url))
        assert result.resumed_pages == 1 and store.count_papers("iclr2021") == 3014
    assert state.notes_served - served == 3014 - 1000  # the page fetched before the failure is not asked again
    snapshot = result.snapshot
    with open_store(tmp_path / "offline.db", create=True) as offline:  # the snapshot ingests again without the network
        assert ingest(offline, [snapshot]).added == 3014


def test_venue_ids_of_openreview() -> None:
    assert venue_of_group("ICLR.cc/2025/Conference")[0].id == "iclr2025"
    assert venue_of_group("colmweb.org/COLM/2024/Conference")[0].name == "COLM 2024"
    venue, track = venue_of_group("NeurIPS.cc/2024/Datasets_and_Benchmarks_Track")
    assert (venue.name, track) == ("NeurIPS 2024", "Datasets and Benchmarks Track")


def static_files(folder: Path) -> AbstractContextManager[str]:
    """A plain file server like the one publishing the paperlists project's raw files."""
    return local_server(functools.partial(QuietFiles, directory=str(folder)))


class QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def test_fetch_paperlists_downloads_and_ingests_a_venue(tmp_path: Path) -> None:
    published = tmp_path / "published"
    (published / "nips").mkdir(parents=True)
    shutil.copy(DATA / "paperlists" / "nips2018.json", published / "nips" / "nips2018.json")
    db = tmp_path / "s.db"
    with static_files(published) as url:
        result = CliRunner().invoke(cli, ["fetch", "paperlists", "neurips2018", "--db", str(db), "--base-url", url])
        assert result.exit_code == 0, result.output
        assert "1009 papers added" in result.stdout
        missing = CliRunner().invoke(cli, ["fetch", "paperlists", "nips2031", "--db", str(db), "--base-url", url])
    assert missing.exit_code == 1 and "the paperlists project has no file for nips2031" in missing.stderr
    with open_store(db, create=True) as store:
        assert store.count_papers("neurips2018") == 1009
    assert (tmp_path / "snapshots" / "paperlists" / "nips2018.json").exists()
