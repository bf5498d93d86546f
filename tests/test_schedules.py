"""Schedule files as people write them, imported into the real ICLR 2020 store: spreadsheet headers (`Start Time`,
`Session Name`), one-digit hours, `;`-separated CSV; and bad files refused whole in one line that quotes the file."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.plan import import_schedule, plan_calendar
from confnav.plan.planner import Plan, PlannedSession
from confnav.store import open_store
from tests.backends import Location
from tests.conftest import DATA

MINICONF = DATA / "miniconf"

TITLES = {  # real ICLR 2020 papers
    "B1xSperKvH": "Enabling Deep Spiking Neural Networks with Hybrid Conversion and Spike Timing Dependent "
    "Backpropagation",
    "rkgO66VKDS": "Learned Step Size quantization",
}


def _import(db: Location, path: Path, *options: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli, ["--db", str(db), "schedule", "import", str(path), "--venue", "iclr2020", *options]
    )
    return result.exit_code, result.output


def test_headers_as_people_write_them(iclr2020_copy: Location, write) -> None:  # type: ignore[no-untyped-def]
    """Case, spaces, underscores and hyphens in a header do not matter, for the check and for each field."""
    talks = write(
        "talks.csv", "Title,Start Time,End Time,Room\nKeynote A,2020-04-27T10:00:00Z,2020-04-27T11:00Z,Hall B\n"
    )
    posters = write(
        "posters.csv",
        "Session Name,START-TIME,end time,Paper_Title\n"
        + "".join(f'Posters 1,2020-04-28T09:00Z,2020-04-28T11:00Z,"{t}"\n' for t in TITLES.values()),
    )
    with open_store(iclr2020_copy) as store:
        talk = import_schedule(store, talks, "iclr2020")
        poster = import_schedule(store, posters, "iclr2020")
        sessions = {s.name: s for s in store.sessions("iclr2020")}
        linked = [p for s, p in store.session_papers("iclr2020") if s == sessions["Posters 1"].id]
    assert (talk.sessions, talk.timed) == (1, 1)
    assert sessions["Keynote A"].end == datetime(2020, 4, 27, 11, tzinfo=UTC) and sessions["Keynote A"].room == "Hall B"
    assert (poster.sessions, poster.timed, poster.by_title) == (1, 1, 2)
    assert sessions["Posters 1"].start == datetime(2020, 4, 28, 9, tzinfo=UTC) and linked == list(TITLES)


def test_one_digit_hours_and_semicolon_csv(iclr2020_copy: Location, write) -> None:  # type: ignore[no-untyped-def]
    """`9:00` beside a date, and a CSV as spreadsheets in many locales save one: `;` between cells, commas in them."""
    table = write(
        "excel.csv",
        "Session;Date;Start;End;Paper ID;Notes\n"
        "Orals 1;2020-04-27;9:00;10:30;B1xSperKvH;first, short\n"
        "Orals 1;2020-04-27;9:00;10:30;rkgO66VKDS;\n",
    )
    with open_store(iclr2020_copy) as store:
        report = import_schedule(store, table, "iclr2020", zone="UTC")
        (session,) = [s for s in store.sessions("iclr2020") if s.source.endswith("excel.csv")]
    assert (report.sessions, report.links, report.by_id, report.unmatched) == (1, 2, 2, [])
    assert (session.start, session.end) == (
        datetime(2020, 4, 27, 9, tzinfo=UTC),
        datetime(2020, 4, 27, 10, 30, tzinfo=UTC),
    )


YAML_ENDS = "z1:\n  name: Orals\n  start: 2020-04-27T12:00:00Z\n  end: 2020-04-27T11:00:00Z\n"


def test_a_paper_in_two_sessions_is_one_paper_and_two_links(iclr2020_copy: Location, write) -> None:  # type: ignore[no-untyped-def]
    table = write(
        "twice.csv",
        "Session,Date,Start,End,Paper ID\n"
        "Posters 1,2020-04-27,9:00,10:30,B1xSperKvH\n"
        "Posters 2,2020-04-28,9:00,10:30,B1xSperKvH\n",
    )
    with open_store(iclr2020_copy) as store:
        report = import_schedule(store, table, "iclr2020", zone="UTC")
    assert (report.sessions, report.papers, report.links) == (2, 1, 2)
    assert report.to_dict()["papers_linked"] == 1 and report.to_dict()["links"] == 2


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("hour.csv", "name,date,start\nA,2020-04-27,25:00\n", "line 2, field 'start': '25:00' on '2020-04-27' is not"),
        ("day.csv", "name,start\nA,2020-04-27T9:60Z\n", "field 'start': '2020-04-27T9:60Z' is not a date and time"),
        ("zone.csv", "name,Date,Start\nA,2020-04-27,9:00\n", "'Start': '9:00' on '2020-04-27' has no time zone"),
        ("mixed.csv", "name;start;end\nA,2020-04-27T09:00Z,x\n", "line 2: expected 3 columns, found 1 (split by ';'"),
        (
            "pipes.csv",
            "Speaker|Start\nA|2020-04-27T09:00Z\n",
            "no session or name column (read as 2 columns split by '|'",
        ),
        (
            "ends.csv",
            "name,start,end\nA,2020-04-27T12:00Z,2020-04-27T11:00Z\n",
            "line 2, field 'end': end '2020-04-27T11",
        ),
        ("ends.yml", YAML_ENDS, "field 'z1.end': end '2020-04-27 11:00:00+00:00' is before start '2020-04-27 12:00"),
    ],
)
def test_bad_rows_are_refused_whole_quoting_the_file(
    iclr2020_copy: Location,
    write,  # type: ignore[no-untyped-def]
    name: str,
    content: str,
    message: str,
) -> None:
    _refused(iclr2020_copy, write(name, content), message)


def _refused(db: Location, path: Path, message: str, *options: str) -> None:
    """The import fails in one line holding `message`, and the venue's sessions are as they were."""
    with open_store(db) as store:
        before = (store.sessions("iclr2020"), store.session_papers("iclr2020"))
    code, output = _import(db, path, *options)
    assert code == 1 and message in output, output
    assert len(output.strip().splitlines()) == 1 and "Traceback" not in output
    with open_store(db) as store:
        assert (store.sessions("iclr2020"), store.session_papers("iclr2020")) == before


def test_files_that_are_no_schedule_of_the_venue(iclr2020_copy: Location, write) -> None:  # type: ignore[no-untyped-def]
    """Another venue's schedule (EMNLP 2020's, none of whose papers is at ICLR 2020) and a paper list (MiniConf's
    ICLR 2020 `papers.csv`: no times, no sessions) are refused; a schedule giving only times, or only which
    papers a session presents, is one."""
    _refused(iclr2020_copy, MINICONF / "emnlp2020" / "paper_sessions.yml", "none of the 810 papers its sessions name")
    _refused(iclr2020_copy, MINICONF / "iclr2020" / "papers.csv", "no session has a time or presents a paper of")
    untimed = write("untimed.csv", "session,paper_id\nOrals 1,B1xSperKvH\nOrals 1,NOSUCHID\n")
    timed = write("timed.csv", "name,start\nWelcome,2020-04-26T08:00Z\n")
    with open_store(iclr2020_copy) as store:
        assert import_schedule(store, untimed, "iclr2020").links == 1
        assert import_schedule(store, timed, "iclr2020").timed == 1


def test_ingest_refuses_a_schedule_and_names_schedule_import(iclr2020_copy: Location, write) -> None:  # type: ignore[no-untyped-def]
    """MiniConf's ICLR 2020 `main_calendar.json` (events with start and end times, no authors), as given and as
    JSONL or CSV, is no paper list: ingest refuses it in one line pointing to `schedule import`, nothing written.
    A paper list holding one event among its papers names that record; its papers are papers."""
    calendar = MINICONF / "iclr2020" / "main_calendar.json"
    events = json.loads(calendar.read_text(encoding="utf-8"))
    lines = write("calendar.jsonl", "".join(json.dumps(e) + "\n" for e in events))
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=list(events[0]))
    writer.writeheader()
    writer.writerows(events)
    spreadsheet = write("calendar.csv", table.getvalue())
    with open_store(iclr2020_copy) as store:
        before = (store.generation(), store.venues()[0].papers)
    for path in (calendar, lines, spreadsheet):
        result = CliRunner().invoke(cli, ["--db", str(iclr2020_copy), "ingest", "--venue", "iclr2020", str(path)])
        assert result.exit_code == 1
        (line,) = result.stderr.strip().splitlines()
        assert f"{path}: a schedule, not a paper list: its 56 records are events with a start time" in line
        assert f"'confnav schedule import {path}'" in line and "nothing was written" in line
    paper = {"id": "B1xSperKvH", "title": TITLES["B1xSperKvH"], "authors": ["Nitin Rathi"], "start": "2020-04-27"}
    mixed = write("mixed.json", json.dumps([paper, events[0]]))
    result = CliRunner().invoke(cli, ["--db", str(iclr2020_copy), "ingest", "--venue", "iclr2020", str(mixed)])
    assert result.exit_code == 1
    assert (
        f"{mixed}, record 2, field 'start': a schedule's event (a start time, no authors, abstract or decision)"
        in result.stderr
    )
    with open_store(iclr2020_copy) as store:
        assert (store.generation(), store.venues()[0].papers) == before
        assert import_schedule(store, calendar, "iclr2020").timed == len(events)  # what it is for
    timed = [paper, {"id": "p2", "title": "A Spotlight Without Its Byline", "status": "Spotlight", "start": "10:30"}]
    listed = write("talks.json", json.dumps(timed))  # a paper list giving talk times: a decided paper is a paper
    result = CliRunner().invoke(cli, ["--db", str(iclr2020_copy), "ingest", "--venue", "iclr2020", str(listed)])
    assert result.exit_code == 0, result.stderr


def _calendar(*events: str) -> str:
    """A calendar of VEVENTs given as their own lines (`\n`-separated), CRLF line ends."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Example//Conference//EN"]
    for number, event in enumerate(events):
        lines += ["BEGIN:VEVENT", f"UID:e{number}@example.org", *event.split("\n"), "END:VEVENT"]
    return "\r\n".join([*lines, "END:VCALENDAR"]) + "\r\n"


ALL_DAY = (
    f"DTSTART;VALUE=DATE:20200426\nDTEND;VALUE=DATE:20200428\nSUMMARY:Workshops\nDESCRIPTION:{TITLES['rkgO66VKDS']}"
)
ONE_DAY = "DTSTART;VALUE=DATE:20200429\nSUMMARY:Socials\nDESCRIPTION:B1xSperKvH"
FLOATING = "DTSTART:20200427T090000\nDTEND:20200427T100000\nSUMMARY:Floating talk"


def test_all_day_events_stay_days_in_the_plans_calendar(iclr2020_copy: Location, write) -> None:  # type: ignore[no-untyped-def]
    """All-day events (one of two days, one of a date alone: that day) are placed by --timezone and written back
    as dates, not 24-hour slots; a timed session from midnight to noon stays timed."""
    path = write("days.ics", _calendar(ALL_DAY, ONE_DAY, FLOATING))
    with open_store(iclr2020_copy) as store:
        report = import_schedule(store, path, "iclr2020", zone="Europe/Vienna")
        sessions = {s.name: s for s in store.sessions("iclr2020") if s.source.endswith("days.ics")}
    assert (report.timed, report.links) == (3, 2)
    workshops, socials = sessions["Workshops"], sessions["Socials"]
    assert workshops.start == datetime(2020, 4, 26, tzinfo=ZoneInfo("Europe/Vienna")) and workshops.all_day
    assert socials.end - socials.start == timedelta(days=1) and socials.all_day
    assert not sessions["Floating talk"].all_day
    morning = replace(socials, id="m", end=socials.start + timedelta(hours=12))
    plan = Plan("iclr2020", None, "timed", "", [PlannedSession(s) for s in (workshops, socials, morning)])
    events = icalendar.Calendar.from_ical(plan_calendar(plan)).walk("VEVENT")
    assert [(e.decoded("DTSTART"), e.decoded("DTEND")) for e in events[:2]] == [
        (date(2020, 4, 26), date(2020, 4, 28)),
        (date(2020, 4, 29), date(2020, 4, 30)),
    ]
    assert events[2].decoded("DTSTART") == morning.start and events[2].decoded("DTEND") == morning.end


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (FLOATING, "field 'DTSTART': DTSTART '20200427T090000' has no time zone (a floating time); pass --timezone"),
        (ONE_DAY, "line 4, field 'DTSTART': DTSTART '20200429' is a whole day with no time zone; pass --timezone"),
        (FLOATING.replace("T1000", "T0800"), "'DTEND': DTEND '20200427T080000' is before DTSTART '20200427T090000'"),
    ],
)
def test_ics_times_refused_saying_why(iclr2020_copy: Location, write, event: str, message: str) -> None:  # type: ignore[no-untyped-def]
    """A floating time and an all-day date without --timezone are refused alike, saying what to pass."""
    options = ("--timezone", "UTC") if "DTEND '" in message else ()
    _refused(iclr2020_copy, write("zoneless.ics", _calendar(event)), message, *options)
