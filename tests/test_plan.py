"""Conference plans on real virtual-conference data: MiniConf paper lists and schedules (EMNLP 2020, ICLR 2020),
an ICS schedule, CSV and JSON schedules, the plan by day and session with its ICS calendar read back by a real
iCalendar parser, the venue without a schedule, and bad schedule files refused whole."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import icalendar
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.errors import ConfnavError, InputError
from confnav.ingest import ingest
from confnav.model import Session
from confnav.plan import build_plan, import_schedule, plan_calendar
from confnav.plan.ics import LINE_OCTETS
from confnav.store import open_store
from confnav.store.sql import SqlStore
from confnav.web.app import create_app
from tests.conftest import DATA, ICLR2020

MINICONF = DATA / "miniconf"
EMNLP = [MINICONF / "emnlp2020" / f"{part}_papers.csv" for part in ("main", "findings", "demo")]


@pytest.fixture(scope="module")
def emnlp_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """EMNLP 2020's three MiniConf paper lists and its paper sessions, in a real SQLite file."""
    path = tmp_path_factory.mktemp("emnlp") / "emnlp.db"
    with open_store(path, create=True) as store:
        ingest(store, EMNLP)
        import_schedule(store, MINICONF / "emnlp2020" / "paper_sessions.yml")
    return path


@pytest.fixture(scope="module")
def iclr_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ICLR 2020's paperlists file and its MiniConf paper list (same OpenReview ids)."""
    path = tmp_path_factory.mktemp("iclr") / "iclr.db"
    with open_store(path, create=True) as store:
        ingest(store, [ICLR2020, MINICONF / "iclr2020" / "papers.csv"])
    return path


def copy_of(db: Path, tmp_path: Path) -> Path:
    target = tmp_path / db.name
    shutil.copy(db, target)
    return target


def test_miniconf_paper_lists_ingest_like_any_other(emnlp_db: Path, iclr_db: Path) -> None:
    with open_store(emnlp_db) as store:
        papers = {p.id: p for p in store.iter_papers("emnlp2020")}
        assert len(papers) == 781 + 447 + 29
        paper = papers["main.1006"]
        assert paper.keywords[:2] == ["knowledge-grounded generation", "equipping"]  # `|`-separated
        assert paper.primary_area == "Dialog and Interactive Systems"  # MiniConf's track is a subject area
        assert paper.decision.kind == "long"
        assert papers["findings.1"].decision.kind == "findings"  # named by its UID
        assert papers["demo.102"].decision.kind == "demo"
        assert {p.decision.kind for i, p in papers.items() if i.startswith(("TACL.", "CL."))} == {"journal"}
        assert store.records("emnlp2020")["main.1006"][0].kind == "miniconf"
    with open_store(iclr_db) as store:
        papers = {p.id: p for p in store.iter_papers("iclr2020")}
        assert len(papers) == 2594  # the 687 MiniConf rows joined the paperlists records by id
        assert sum(1 for p in papers.values() if p.abstract) == 687
        assert papers["B1xSperKvH"].session == "Tues Session 1 | Mon Session 1"
        assert papers["B1xSperKvH"].decision.kind in ("oral", "spotlight", "poster")  # paperlists' label kept


def test_emnlp_paper_sessions_matched_to_papers(emnlp_db: Path, tmp_path: Path) -> None:
    with open_store(emnlp_db) as store:
        sessions = store.sessions("emnlp2020")
        links = store.session_papers("emnlp2020")
    assert len(sessions) == 115 and all(s.timed and s.end and s.end > s.start for s in sessions)
    assert len(links) == 810 and len({paper for _, paper in links}) == 810
    first = next(s for s in sessions if s.id == "z1A")
    assert first.start == datetime(2020, 11, 16, 16, tzinfo=UTC)
    assert first.name.startswith("Zoom Q&A Session 1A: Sentiment Analysis")
    with open_store(copy_of(emnlp_db, tmp_path)) as store:  # importing again replaces, never doubles
        report = import_schedule(store, MINICONF / "emnlp2020" / "paper_sessions.yml", "emnlp2020")
        assert (report.sessions, report.links, report.by_id, report.unmatched) == (115, 810, 810, [])
        assert len(store.sessions("emnlp2020")) == 115
        calendar = import_schedule(store, MINICONF / "emnlp2020" / "overall_calendar.yml", "emnlp2020")
        assert calendar.sessions == 10 and calendar.links == 0
        names = {s.name for s in store.sessions("emnlp2020")}
        assert "Gather Session 1K Sponsor Booths" in names  # MiniConf's HTML in titles is dropped
        assert len(store.sessions("emnlp2020")) == 115 + 10


def test_iclr_calendar_links_papers_by_the_session_names_they_give(iclr_db: Path, tmp_path: Path) -> None:
    with open_store(copy_of(iclr_db, tmp_path)) as store:
        report = import_schedule(store, MINICONF / "iclr2020" / "main_calendar.json", "iclr2020")
        assert report.format == "json" and report.sessions == report.timed == 56
        posters = [s for s in store.sessions("iclr2020") if s.name.startswith("Poster Day")]
        assert len(posters) == 20
        assert all(s.end - s.start == timedelta(hours=2) for s in posters)
        # The one paper whose `sessions` cell names sessions ("Mon Session 1") meets them through the calendar's
        # links (`papers.html?session=Mon+Session+1`).
        linked = {s for s, p in store.session_papers("iclr2020") if p == "B1xSperKvH"}
        named = {s.id: s.name for s in store.sessions("iclr2020")}
        assert {named[s] for s in linked} >= {"Poster Day 1 Session 1 (P1S1)", "Poster Day 2 Session 1 (P2S1)"}
        assert report.by_session_name == 2 and report.unmatched == []


ICS_TITLES = {  # real ICLR 2020 titles (MiniConf's papers.csv) with their OpenReview ids
    "B1xSperKvH": "Enabling Deep Spiking Neural Networks with Hybrid Conversion and Spike Timing "
    "Dependent Backpropagation",
    "SJlbGJrtDB": "Dynamic Sparse Training: Find Efficient Sparse Network From Scratch With Trainable Masked Layers",
    "HkgxW0EYDS": "Scalable Model Compression by Entropy Penalized Reparameterization",
    "HJeiDpVFPr": "An Inductive Bias for Distances: Neural Nets that Respect the Triangle Inequality",
    "rkgO66VKDS": "LEARNED STEP SIZE QUANTIZATION",
}


def ics_schedule() -> str:
    """A calendar as conference tools export one: a session listing its papers in its description (a title, an
    id with its title, a title in other case, one paper not at ICLR 2020), a talk named by its summary, a
    keynote with no papers; zones given by TZID and as UTC, a long description folded."""
    t = ICS_TITLES
    description = "\\n".join(
        [
            f"- {t['SJlbGJrtDB']}",
            f"HkgxW0EYDS: {t['HkgxW0EYDS']}",
            f"• {t['HJeiDpVFPr'].lower()} — Some Author\\, Other Author",
            "- A Paper That Was Never At This Conference",
        ]
    )
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Example//Conference//EN",
        "BEGIN:VEVENT",
        "UID:poster-1@example.org",
        "DTSTART;TZID=Africa/Addis_Ababa:20200427T100000",
        "DTEND;TZID=Africa/Addis_Ababa:20200427T120000",
        "SUMMARY:Poster session 1: efficiency",
        "LOCATION:Hall A\\, east wing",
        f"DESCRIPTION:{description[:60]}\r\n {description[60:]}",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:talk-7@example.org",
        "DTSTART:20200428T150000Z",
        "DURATION:PT15M",
        f"SUMMARY:{t['rkgO66VKDS']}",
        "URL:https://iclr.cc/virtual/poster_rkgO66VKDS.html",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:keynote@example.org",
        "DTSTART:20200429T160000Z",
        "DTEND:20200429T170000Z",
        "SUMMARY:Keynote: the year in learning representations",
        "DESCRIPTION:Chair: someone\\nQuestions afterwards",
        "END:VEVENT",
        "END:VCALENDAR",
    ]
    return "\r\n".join(lines) + "\r\n"


def test_ics_schedule_matched_by_id_title_and_summary(iclr_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "iclr2020-program.ics"
    path.write_text(ics_schedule(), encoding="utf-8", newline="")
    with open_store(copy_of(iclr_db, tmp_path)) as store:
        report = import_schedule(store, path)  # the venue named by the file
        assert (report.venue, report.format, report.sessions, report.timed) == ("iclr2020", "ics", 3, 3)
        assert report.links == 4 and report.by_id == 1 and report.by_title == 3
        assert len(report.unmatched) == 1
        assert "iclr2020-program.ics, line 4, field 'DESCRIPTION'" in report.unmatched[0]
        assert "A Paper That Was Never At This Conference" in report.unmatched[0]
        sessions = {s.id: s for s in store.sessions("iclr2020")}
        poster = sessions["poster-1@example.org"]
        assert poster.start == datetime(2020, 4, 27, 7, tzinfo=UTC) and poster.timezone == "Africa/Addis_Ababa"
        assert poster.room == "Hall A, east wing"
        talk = sessions["talk-7@example.org"]
        assert talk.end - talk.start == timedelta(minutes=15) and talk.link
        papers = {}
        for session, paper in store.session_papers("iclr2020"):
            papers.setdefault(session, []).append(paper)
        assert papers["poster-1@example.org"] == ["SJlbGJrtDB", "HkgxW0EYDS", "HJeiDpVFPr"]
        assert papers["talk-7@example.org"] == ["rkgO66VKDS"]
        assert "keynote@example.org" not in papers


def test_csv_and_json_schedules(iclr_db: Path, tmp_path: Path) -> None:
    rows = [
        "paper_id,title,session,date,start,end,room",
        f'B1xSperKvH,"{ICS_TITLES["B1xSperKvH"]}",Orals 1,2020-04-27,09:00,10:30,Room 2',
        f',"{ICS_TITLES["SJlbGJrtDB"].upper()}",Orals 1,2020-04-27,09:00,10:30,Room 2',
        "nosuchid,,Orals 1,2020-04-27,09:00,10:30,Room 2",
    ]
    table = tmp_path / "schedule.csv"
    table.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with open_store(copy_of(iclr_db, tmp_path)) as store:
        with pytest.raises(
            InputError,
            match=r"schedule.csv, line 2, field 'start': .* no time zone; pass zone \(e.g. zone='Europe/Vienna'\)",
        ):
            import_schedule(store, table, "iclr2020")
        report = import_schedule(store, table, "iclr2020", zone="America/New_York")
        assert (report.sessions, report.links, report.by_id, report.by_title) == (1, 2, 1, 1)
        (unmatched,) = report.unmatched
        assert unmatched.endswith("schedule.csv, line 4, field 'paper_id': no paper of the venue matches 'nosuchid'")
        (session,) = [s for s in store.sessions("iclr2020") if s.source.endswith("schedule.csv")]
        assert session.start == datetime(2020, 4, 27, 9, tzinfo=timezone(timedelta(hours=-4)))
        assert session.room == "Room 2" and session.timezone == "America/New_York"
        listing = tmp_path / "sessions.json"
        listing.write_text(
            '{"sessions": [{"id": "s1", "name": "Spotlights", "start": "2020-04-28T08:00:00Z",'
            ' "end": "2020-04-28T09:00:00Z", "papers": ["HkgxW0EYDS", {"title": "learned step size quantization"}]}]}'
        )
        report = import_schedule(store, listing, "iclr2020")
        assert (report.sessions, report.links, report.unmatched) == (1, 2, [])
        # each file's sessions kept beside the other's, and beside those the paper list names
        assert sorted(s.source.rsplit("/", 1)[-1] for s in store.sessions("iclr2020")) == [
            "paper list",
            "paper list",
            "schedule.csv",
            "sessions.json",
        ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.ics", "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nnot a content line\n", "malformed iCalendar"),
        ("bad.json", '[{"name": "x", "start": "2020-04-27T09:00Z",}]', "line 1: malformed JSON"),
        ("bad.yml", "z1:\n  name: [unclosed\n", "malformed YAML"),
        ("when.yml", "z1:\n  name: Orals\n  start: next tuesday\n", "field 'z1.start': 'next tuesday' is not a date"),
        ("noname.csv", "start,end\n2020-04-27T09:00Z,2020-04-27T10:00Z\n", "line 1: header has no session or name"),
        ("rows.csv", "session,start\nA,2020-04-27T09:00Z,extra\n", "line 2: expected 2 columns, found 3"),
        ("zone.json", '[{"name": "x", "start": "2020-04-27T09:00", "timezone": "Mars/Olympus"}]', "unknown time zone"),
    ],
)
def test_bad_schedule_files_are_refused_whole(
    iclr_db: Path, tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    db = copy_of(iclr_db, tmp_path)
    with open_store(db) as store:
        before = (store.sessions("iclr2020"), store.session_papers("iclr2020"))
    result = CliRunner().invoke(cli, ["--db", str(db), "schedule", "import", str(path), "--venue", "iclr2020"])
    assert result.exit_code == 1, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output
    with open_store(db) as store:  # only the paper list's own sessions, as before
        assert (store.sessions("iclr2020"), store.session_papers("iclr2020")) == before
        assert {s.source for s in before[0]} == {"paper list"}


def test_plan_by_day_and_session_with_a_calendar_that_parses(emnlp_db: Path, tmp_path: Path) -> None:
    ics = tmp_path / "plan.ics"
    result = CliRunner().invoke(cli, ["--db", str(emnlp_db), "plan", "--venue", "emnlp2020", "--top", "12"])
    assert result.exit_code == 0, result.output
    assert "must-read papers in" in result.output
    with open_store(emnlp_db) as store:
        plan = build_plan(store, "emnlp2020", top=12)
    assert plan.schedule == "timed" and not plan.unscheduled
    placed = [p for s in plan.sessions for p in s.papers]
    assert sorted(p.rank for p in placed) == list(range(1, 13))
    days = [day for day, _ in plan.days()]
    assert days == sorted(days) and all(day.startswith("2020-11-") for day in days)
    for planned in plan.sessions:  # conflicts are exactly the overlapping chosen sessions
        others = [o.session for o in plan.sessions if o is not planned and o.session.overlaps(planned.session)]
        assert planned.conflicts == others
    text = plan_calendar(plan)
    later = plan_calendar(plan, datetime(2030, 1, 1, tzinfo=UTC))
    assert _uids(later) == _uids(text) and "DTSTAMP:20300101T000000Z" in later  # UIDs stable, so re-imports update
    ics.write_text(text, encoding="utf-8", newline="")
    assert all(len(line.encode()) <= LINE_OCTETS for line in text.split("\r\n"))
    events = icalendar.Calendar.from_ical(ics.read_bytes()).walk("VEVENT")
    assert len(events) == len(plan.sessions)
    for event, planned in zip(events, plan.sessions, strict=True):
        assert event.decoded("DTSTART") == planned.session.start
        assert event.decoded("DTEND") == planned.session.end
        assert str(event["SUMMARY"]) == planned.session.name  # commas and semicolons survive escaping
        assert event.get("DTSTAMP") is not None and str(event["UID"]).endswith("@confnav")
        description = str(event["DESCRIPTION"])
        for item in planned.papers:
            assert f"{item.rank}. {item.paper.title} ({item.paper.id})" in description
        assert ("Overlaps: " in description) == bool(planned.conflicts)


def _uids(text: str) -> list[str]:
    return [line for line in text.split("\r\n") if line.startswith("UID:")]


def test_untimed_sessions_from_the_paper_list_and_no_schedule(tmp_path: Path) -> None:
    with open_store(tmp_path / "lists.db", create=True) as store:
        ingest(store, [DATA / "paperlists" / "cvpr2019.json", DATA / "paperlists" / "corl2023.json"])
        sessions = store.sessions("cvpr2019")
        assert len(sessions) == 15 and not any(s.timed for s in sessions)
        assert len(store.session_papers("cvpr2019")) == 1294
        plan = build_plan(store, "cvpr2019", top=5)
        assert plan.schedule == "untimed" and "have no times" in plan.notice
        assert sum(len(s.papers) for s in plan.sessions) == 5 and plan.conflicts == 0
        with pytest.raises(ConfnavError, match="its sessions have no times"):  # no calendar of no event
            plan_calendar(plan)
        none = build_plan(store, "corl2023", top=5)
        assert none.schedule == "none" and none.sessions == []
        assert none.notice.startswith("corl2023 has no schedule in the store") and "by theme" in none.notice
        assert sum(len(papers) for _, papers in none.themes) == 5
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "lists.db"), "plan", "--venue", "corl2023"])
    assert result.exit_code == 0 and "has no schedule" in result.output
    ics = tmp_path / "cvpr.ics"
    refused = CliRunner().invoke(
        cli, ["--db", str(tmp_path / "lists.db"), "plan", "--venue", "cvpr2019", "--ics", str(ics)]
    )
    assert refused.exit_code == 1 and "no calendar" in refused.stderr and not ics.exists()
    from fastapi.testclient import TestClient

    from confnav.web.app import create_app

    served = TestClient(create_app(tmp_path / "lists.db", allowed_hosts=None), base_url="http://127.0.0.1")
    answer = served.get("/venues/cvpr2019/plan.ics")  # the page offers no calendar; asked anyway, it says why
    assert answer.status_code == 400 and "its sessions have no times" in answer.text


def test_list_sessions_follow_the_papers_that_name_them(tmp_path: Path) -> None:
    """Sessions named by papers appear, follow a paper that moves, and go when no paper names one any more; a
    venue whose papers name none gets none."""
    records = json.loads((DATA / "paperlists" / "cvpr2019.json").read_text())[:40]
    first = tmp_path / "cvpr2019.json"
    first.write_text(json.dumps(records))
    with open_store(tmp_path / "lists.db", create=True) as store:
        ingest(store, [first])
        named = {s.name for s in store.sessions("cvpr2019")}
        assert named == {r["session"] for r in records}
        moved = [{**r, "session": "A new session"} if i == 0 else r for i, r in enumerate(records)]
        first.write_text(json.dumps(moved))
        ingest(store, [first])
        ids = {s.name: s.id for s in store.sessions("cvpr2019")}
        assert set(ids) == {r["session"] for r in moved}
        assert sum(session == ids["A new session"] for session, _ in store.session_papers("cvpr2019")) == 1
        first.write_text(json.dumps([{k: v for k, v in r.items() if k != "session"} for r in records]))
        ingest(store, [first])
        assert store.sessions("cvpr2019") == [] and store.session_papers("cvpr2019") == []
        first.write_text(json.dumps([{k: v for k, v in r.items() if k != "session"} for r in records[:10]]))
        other = tmp_path / "cvpr2018.json"
        other.write_text(first.read_text())
        ingest(store, [other])
        assert store.sessions("cvpr2018") == []


def test_plan_page_and_calendar_download(emnlp_db: Path) -> None:
    client = TestClient(create_app(emnlp_db), base_url="http://127.0.0.1")
    page = client.get("/venues/emnlp2020/plan?top=12")
    assert page.status_code == 200
    assert "Zoom Q&amp;A Session" in page.text or "Gather Session" in page.text
    assert 'href="/venues/emnlp2020/plan.ics?top=12"' in page.text
    calendar = client.get("/venues/emnlp2020/plan.ics?top=12")
    assert calendar.status_code == 200 and calendar.headers["content-type"].startswith("text/calendar")
    assert 'filename="emnlp2020-plan.ics"' in calendar.headers["content-disposition"]
    assert len(icalendar.Calendar.from_ical(calendar.content).walk("VEVENT")) >= 1
    assert client.get("/venues/nosuch2020/plan").status_code == 404
    # A local app reads profiles (this one has none); a shared server only with the profile's secret, else it
    # plans by the must-read.
    assert "no profile named" in client.get("/venues/emnlp2020/plan?profile=ana").text
    shared = TestClient(create_app(emnlp_db, read_only=True, allowed_hosts=None), base_url="http://papers.example")
    refused = shared.get("/venues/emnlp2020/plan?profile=ana&top=12")
    assert refused.status_code == 200 and "profiles are personal" in refused.text


def test_sessions_round_trip_in_the_store(store: SqlStore) -> None:
    ingest(store, [MINICONF / "iclr2020" / "papers.csv"])
    zone = timezone(timedelta(hours=2))
    sessions = [
        Session("iclr2020", "a", "Orals; part 1", datetime(2020, 4, 27, 9, tzinfo=zone), None, "Europe/Vienna"),
        Session("iclr2020", "b", "Posters", None, None, None, "Hall B", "https://example.org/b"),
    ]
    with store.transaction():
        store.put_sessions("iclr2020", "x.csv", sessions, [("a", "B1xSperKvH"), ("b", "SJlbGJrtDB")])
    assert [s for s in store.sessions("iclr2020") if s.source == "x.csv"] == [
        Session(
            "iclr2020",
            "a",
            "Orals; part 1",
            datetime(2020, 4, 27, 9, tzinfo=zone),
            None,
            "Europe/Vienna",
            source="x.csv",
        ),
        Session("iclr2020", "b", "Posters", None, None, None, "Hall B", "https://example.org/b", "x.csv"),
    ]
    with store.transaction():
        store.put_sessions("iclr2020", "x.csv", sessions[:1], [("a", "B1xSperKvH")])
    assert [s.id for s in store.sessions("iclr2020") if s.source == "x.csv"] == ["a"]
    assert [link for link in store.session_papers("iclr2020") if link[0] in "ab"] == [("a", "B1xSperKvH")]


def test_a_profiles_plan_places_its_recommendations(emnlp_db: Path, tmp_path: Path) -> None:
    """`plan --for NAME` with a real profile (a BibTeX library of three EMNLP 2020 papers on one subject): its
    recommendations, each with its reason, placed in their sessions, and the calendar names the profile."""
    from confnav.embed.sparse import SparseEmbedder
    from confnav.index import build_index
    from confnav.personal import recommend_for

    db = copy_of(emnlp_db, tmp_path)
    with open_store(db) as store:
        build_index(store, SparseEmbedder())
        own = [p for p in store.iter_papers("emnlp2020") if "question answering" in p.title.lower()][:3]
    assert len(own) == 3
    library = tmp_path / "mine.bib"
    library.write_text("".join(f"@inproceedings{{p{n}, title = {{{p.title}}}}}\n" for n, p in enumerate(own)))
    runner = CliRunner()
    imported = runner.invoke(cli, ["--db", str(db), "profile", "import", str(library), "--profile", "ada"])
    assert imported.exit_code == 0 and "3 entries matched" in imported.output, imported.output
    ics = tmp_path / "ada.ics"
    result = runner.invoke(
        cli, ["--db", str(db), "plan", "--venue", "emnlp2020", "--for", "ada", "--top", "10", "--ics", str(ics)]
    )
    assert result.exit_code == 0, result.output
    with open_store(db) as store:
        plan = build_plan(store, "emnlp2020", profile="ada", top=10)
        expected = [r.paper.id for r in recommend_for(store, "ada", "emnlp2020", limit=10)]
    assert plan.profile == "ada" and plan.schedule == "timed"
    placed = sorted((p for s in plan.sessions for p in s.papers), key=lambda p: p.rank)
    unplaced = sorted(plan.unscheduled, key=lambda p: p.rank)
    assert len(placed) + len(unplaced) == 10
    assert [p.paper.id for p in sorted([*placed, *unplaced], key=lambda p: p.rank)] == expected
    assert not {p.id for p in own} & set(expected)  # the profile's own papers are not suggested back
    assert all(p.reason for p in placed) and any("question answering" in p.paper.title.lower() for p in placed)
    events = icalendar.Calendar.from_ical(ics.read_bytes()).walk("VEVENT")
    assert len(events) == len(plan.sessions) > 0
