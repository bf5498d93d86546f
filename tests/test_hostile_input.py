"""Hostile and malformed input: one clear line naming the place and the store untouched, never a traceback;
values over the documented limits cut or dropped with a warning; sources kept apart by folder."""

from __future__ import annotations

import errno
import gzip
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav import limits
from confnav.cli import cli
from confnav.ingest import IngestResult, ingest
from confnav.sources import SourceRecord, read_file
from confnav.store import SqlStore
from tests.conftest import DATA, snapshot

pytestmark = pytest.mark.failure_injection

DEEP = "[" * 100_000 + "]" * 100_000
OK = {"venue": "ICLR 2021"}


def jsonl(*rows: dict[str, object]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def paperlists(**fields: object) -> str:
    return json.dumps([{"id": "p1", "title": "A Paper", "status": "Poster", "author": "Ann Lee", **fields}])


def run_ingest(store: SqlStore, files: list[Path], *extra: str) -> tuple[int, str, str]:
    args = ["ingest", "--db", str(store.location), "--venue", "iclr2021", "-q", *map(str, files), *extra]
    result = CliRunner().invoke(cli, args)
    assert "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def assert_refused(store: SqlStore, files: list[Path], expected: str) -> None:
    """Exit 1 with one line that names the place, and nothing written."""
    before = snapshot(store.location)
    code, _, stderr = run_ingest(store, files)
    assert code == 1, stderr
    assert expected in stderr, stderr
    assert stderr.count("\n") == 1 and stderr.rstrip().endswith("nothing was written")
    assert snapshot(store.location) == before


# name: (file name, content, what the one line says)
BAD_RECORDS: dict[str, tuple[str, str | bytes, str]] = {
    "deep jsonl line": (
        "deep.jsonl",
        '{"title": "x", "authors": ' + DEEP + "}\n",
        "deep.jsonl, line 1: malformed JSON: nested too deeply",
    ),
    "deep array forced as jsonl": ("deep.txt", DEEP, "deep.txt: malformed JSON: nested too deeply"),  # one document
    "deep paperlists file": (
        "paperlists-iclr2021.json",
        paperlists()[:-2] + ', "aff": ' + DEEP + "}]",
        "paperlists-iclr2021.json: malformed JSON: nested too deeply",
    ),
    "huge integer": (
        "n.jsonl",
        '{"title": "x", "ratings": [' + "9" * 5000 + "]}\n",
        "n.jsonl, line 1: malformed JSON: Exceeds the limit (4300 digits)",
    ),
    "lone surrogate in jsonl": (
        "s.jsonl",
        '{"title": "bad \\ud800 title"}\n',
        "s.jsonl, line 1, field 'title': contains \\ud800, half of a UTF-16 surrogate pair",
    ),
    "lone surrogate in paperlists": (
        "s.json",
        paperlists(abstract="x @ y").replace("@", "\\udfff"),
        "s.json, record 1, field 'abstract': contains \\udfff",
    ),
    "raw bytes in a csv row": (
        "b.csv",
        b"title,abstract\nGood,fine\nCaf\xe9 paper,x\n",
        "b.csv, line 3: not valid UTF-8 (byte 0xe9 at column 4)",
    ),
    "raw bytes in a markdown abstract": (
        "b.md",
        b"## [0] A Title\n\n**Authors**: A\n\n**Abstract**:\n\nbad \xff byte\n",
        "b.md, line 1, field 'abstract': not valid UTF-8 (byte 0xff)",
    ),
    "raw bytes in a paperlists record": (
        "raw.json",
        paperlists(abstract="@").encode().replace(b"@", b"\xc3("),
        "raw.json, record 1, field 'abstract': not valid UTF-8 (byte 0xc3)",
    ),
    "NUL character": (
        "nul.jsonl",
        jsonl({"title": "a\x00b"}),
        "nul.jsonl, line 1, field 'title': contains a NUL character",
    ),
    "affiliation as an object": (
        "aff.json",
        paperlists(aff={"name": "MIT"}),
        "aff.json, record 1, field 'aff': expected text, found an object",
    ),
    "authors as nested lists": (
        "n.jsonl",
        jsonl({"title": "T", "authors": [["A", "B"], "C"]}),
        "n.jsonl, line 1, field 'authors': item 1: expected text, found a list",
    ),
    "author object with an object affiliation": (
        "o.jsonl",
        jsonl({"title": "T", "authors": [{"name": "A", "affiliation": {"name": "MIT"}}]}),
        "field 'authors[1].affiliation': expected text, found an object",
    ),
    "paperlists authors as objects with a list name": (
        "o.json",
        paperlists(author=[{"name": ["A"]}]),
        "o.json, record 1, field 'author[1].name': expected text, found a list",
    ),
    "title as a list": (
        "t.jsonl",
        jsonl({"title": ["A", "B"]}),
        "t.jsonl, line 1, field 'title': expected text, found a list",
    ),
    "decision true": (
        "d.jsonl",
        jsonl({"title": "T", "decision": True}),
        "d.jsonl, line 1, field 'decision': expected text, found true",
    ),
    "keywords as an object": (
        "k.jsonl",
        jsonl({"title": "T", "keywords": {"a": 1}}),
        "field 'keywords': expected text, found an object",
    ),
    "ratings as an object": (
        "r.jsonl",
        jsonl({"title": "T", "ratings": {"a": 1}}),
        "field 'ratings': rating is an object, not a list of numbers",
    ),
    "rating true": (
        "r.json",
        paperlists(rating=[True]),
        "r.json, record 1, field 'rating': rating true is not a number",
    ),
    "url as an object": (
        "u.jsonl",
        jsonl({"title": "T", "url": {"href": "x"}}),
        "field 'url': expected text, found an object",
    ),
    "id as a list": ("i.json", paperlists(id=["a"]), "i.json, record 1, field 'id': expected text, found a list"),
    "title over its limit": (
        "long.jsonl",
        jsonl({"title": "t" * 1_001}),
        "long.jsonl, line 1, field 'title': title of 1,001 characters, over the 1,000-character limit",
    ),
    "id over its limit": (
        "id.jsonl",
        jsonl({"id": "i" * 201, "title": "T"}),
        "id.jsonl, line 1, field 'id': id of 201 characters, over the 200-character limit",
    ),
    "venue year out of range": (
        "y.jsonl",
        jsonl({"title": "T", "venue": "ICLR 2090"}),
        "y.jsonl, line 1, field 'venue': the year 2090 is outside 1900–",
    ),
    "line over the record limit": (
        "big.jsonl",
        '{"title": "' + "x" * limits.MAX_RECORD_CHARS + '"}\n',
        "big.jsonl, line 1: line of 16,777,229 characters, over the 16,777,216 limit",
    ),
    "csv field over the limit": (
        "big.csv",
        'title,abstract\nT,"' + "x" * (limits.MAX_RECORD_CHARS + 1) + '"\n',
        "big.csv, line 2: malformed CSV: a field of more than 16,777,216 characters",
    ),
    "snapshot with replies not a list": (
        "notes.jsonl",
        jsonl(
            {
                "fetched": "t",
                "api": 2,
                "venue": "ICLR.cc/2021/Conference",
                "note": {"id": "n1", "content": {"title": "T"}, "details": {"replies": {"a": 1}}},
            }
        ),
        "notes.jsonl, line 1, field 'details': expected a list of replies, found an object",
    ),
}


@pytest.mark.parametrize("case", list(BAD_RECORDS))
def test_bad_record_is_one_line_and_nothing_is_written(case: str, store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    name, content, expected = BAD_RECORDS[case]
    path = write(name, content)
    extra = ["--format", "jsonl"] if name.endswith(".txt") else []
    before = snapshot(store.location)
    code, _, stderr = run_ingest(store, [path], *extra)
    assert code == 1 and expected in stderr, stderr
    assert stderr.count("\n") == 1 and stderr.rstrip().endswith("nothing was written")
    assert snapshot(store.location) == before


def test_skip_bad_skips_each_bad_record_and_ingests_the_rest(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"id": "good1", "title": "First Good"},
        {"title": "T", "authors": [["A"]]},
        {"title": "a\ud800b"},
        {"title": "T", "aff": "x", "affiliations": {"name": "MIT"}, "authors": ["A"]},
        {"id": "good2", "title": "Second Good"},
    ]
    path = write("mixed.jsonl", jsonl(*rows) + '{"title": ' + DEEP + "}\n")
    code, stdout, stderr = run_ingest(store, [path], "--skip-bad")
    assert code == 0 and "Traceback" not in stderr
    skipped = [line for line in stderr.splitlines() if line.startswith("skipped:")]
    assert [line.split(", ")[1].split(":")[0] for line in skipped] == ["line 2", "line 3", "line 4", "line 6"]
    assert "field 'affiliations': expected text, found an object" in skipped[2]
    assert "2 papers added" in stdout
    assert {p.id for p in store.papers()} == {"good1", "good2"}


def test_real_process_prints_one_line_for_deep_json(tmp_path: Path) -> None:
    path = tmp_path / "deep-iclr2021.jsonl"
    path.write_text('{"title": "x", "authors": ' + DEEP + "}\n")
    command = [sys.executable, "-m", "confnav", "ingest", "-q", "--db", str(tmp_path / "s.db"), str(path)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert done.stderr == f"error: {path}, line 1: malformed JSON: nested too deeply; nothing was written\n"


def test_what_is_not_a_regular_file_is_named(store: SqlStore, tmp_path: Path) -> None:
    fifo, loop, broken, folder = tmp_path / "pipe.json", tmp_path / "loop.json", tmp_path / "gone.json", tmp_path / "d"
    os.mkfifo(fifo)  # reading it would wait forever for a writer
    os.symlink(loop, loop)
    os.symlink(tmp_path / "missing.json", broken)
    folder.mkdir()
    assert_refused(store, [fifo], "pipe.json: is a named pipe (FIFO), not a regular file")
    assert_refused(store, [loop], "loop.json: symbolic link loop")
    assert_refused(store, [broken], "gone.json: is a symbolic link to a missing file")
    assert_refused(store, [folder], "d: is a directory, not a file")


def test_file_over_the_size_limit_is_refused_unread(store: SqlStore, tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as sparse:  # takes no disk space; refused from its size before any byte is read
        sparse.truncate(limits.MAX_FILE_BYTES + 1)
    assert_refused(store, [huge], "huge.json: is 1,073,741,825 bytes, over the 1,073,741,824-byte limit")


def test_a_file_that_is_not_text_is_told_from_its_start_unread(store: SqlStore, tmp_path: Path) -> None:
    nuls = tmp_path / "nuls.json"
    with nuls.open("wb") as sparse:  # 128 MiB of NULs, taking no disk space
        sparse.truncate(limits.MAX_FILE_BYTES // 8)
    packed = tmp_path / "papers.json"
    packed.write_bytes(gzip.compress((DATA / "iclr2020" / "paperlists-iclr2020.json").read_bytes()))
    utf16 = tmp_path / "list.csv"
    utf16.write_text("title,authors\nA Paper,Ann Lee\n", encoding="utf-16")
    tracemalloc.start()
    try:
        assert_refused(store, [nuls], "nuls.json: cannot tell the format from the content: it is not text")
        assert tracemalloc.get_traced_memory()[1] < 64 << 20  # its start only: never the whole file
    finally:
        tracemalloc.stop()
    assert_refused(store, [packed], "papers.json: cannot tell the format from the content: it is not text")
    assert_refused(store, [utf16], "list.csv: cannot tell the format from the content: it is UTF-16 text")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file_is_named(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    path = write("secret.csv", "title\nT\n")
    path.chmod(0)
    assert_refused(store, [path], "secret.csv: permission denied")


def test_permission_denied_is_named(store: SqlStore, write, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The operating system's refusal, as a process without root meets it (a fake only for the OS call)."""
    path = write("secret.csv", "title\nT\n")

    real_open = os.open

    def refuse(target: object, *args: object) -> int:
        if Path(str(target)) == path:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(target, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refuse)
    assert_refused(store, [path], "secret.csv: permission denied; make the file readable")


def ingest_one(store: SqlStore, path: Path, **options: object) -> IngestResult:
    return ingest(store, [path], venue="iclr2021", **options)  # type: ignore[arg-type]


def test_text_over_its_limit_is_cut_with_a_warning(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    row = {
        "id": "p1",
        "title": "T",
        "abstract": "a" * 50_000,
        "keywords": [f"k{i}" for i in range(150)],
        "authors": [f"Author {i}" for i in range(1_200)],
        "tldr": "t" * 3_000,
    }
    result = ingest_one(store, write("big.jsonl", jsonl(row)))
    paper = store.get_paper("p1")
    assert len(paper.abstract or "") == 20_000 and len(paper.tldr or "") == 2_000
    assert len(paper.keywords) == 100 and len(paper.authors) == 1_000
    cut = (
        "big.jsonl, line 1, field 'abstract': abstract of 50,000 characters, over the 20,000-character limit, cut short"
    )
    assert any(w.endswith(cut) for w in result.warnings)
    assert any(
        "field 'authors': 1,200 authors, over the limit of 1,000; the first 1,000 kept" in w for w in result.warnings
    )


def test_scores_out_of_range_are_dropped_and_the_record_kept(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    text = paperlists(rating="7;99;-1;1e308", confidence="3;4;5;2", gs_citation=1e308)
    result = ingest_one(store, write("paperlists-iclr2021.json", text))
    paper = store.get_paper("p1")
    assert paper.ratings == [7.0] and paper.confidences == [3.0] and paper.citations is None
    dropped = "paperlists-iclr2021.json, record 1, field 'ratings': dropped ratings outside 0–10: 99, -1, 1e+308"
    assert any(w.endswith(dropped) for w in result.warnings)
    assert any("field 'gs_citation': citation count 1e+308 is not a whole number" in w for w in result.warnings)
    nan = write("nan.jsonl", '{"id": "p2", "title": "U", "ratings": [NaN, Infinity, 8], "confidences": [1, 2, 9]}\n')
    result = ingest_one(store, nan)
    assert store.get_paper("p2").ratings == [8.0] and store.get_paper("p2").confidences == []
    assert any("dropped ratings outside 0–10: nan, inf" in w for w in result.warnings)
    assert any("dropped confidences outside 0–5: 9" in w for w in result.warnings)


def test_unknown_citations_stay_silent_and_long_links_are_dropped(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"id": "p1", "title": "T", "citations": -1, "pdf": "https://x.org/" + "p" * 3_000},
        {"id": "p2", "title": "U", "citations": "n/a", "pdf": "https://x.org/p.pdf"},
    ]
    result = ingest_one(store, write("c.jsonl", jsonl(*rows)))
    assert store.get_paper("p1").citations is None and "pdf" not in store.get_paper("p1").links
    assert store.get_paper("p2").links["pdf"] == "https://x.org/p.pdf"
    (warning,) = result.warnings
    assert warning.endswith(
        "c.jsonl, line 1, field 'links.pdf': link of 3,014 characters, over the 2,000-character limit, dropped"
    )


def test_warnings_are_capped_per_file(store: SqlStore, write) -> None:  # type: ignore[no-untyped-def]
    rows = [{"id": f"p{i}", "title": f"Paper {i}", "ratings": [11]} for i in range(70)]
    result = ingest_one(store, write("many.jsonl", jsonl(*rows)))
    assert len(result.warnings) == 51 and result.warnings[-1].endswith("20 more warnings like these")
    assert store.count_papers() == 70


def test_same_file_name_in_two_folders_stays_two_sources(store: SqlStore, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    first, second = tmp_path / "a" / "papers.jsonl", tmp_path / "b" / "papers.jsonl"
    for path, extra in ((first, {"abstract": "From a."}), (second, {"tldr": "From b."})):
        path.parent.mkdir()
        path.write_text(jsonl({"id": "p1", "title": "Same Paper", **extra}))
    ingest_one(store, first)
    ingest_one(store, second)  # a separate run: must not replace what a/papers.jsonl said
    paper = store.get_paper("p1")
    assert (paper.abstract, paper.tldr) == ("From a.", "From b.")
    assert paper.provenance["abstract"] == "jsonl:papers.jsonl"
    monkeypatch.chdir(tmp_path)
    again = ingest(store, [Path("a/papers.jsonl"), Path("b/papers.jsonl")], venue="iclr2021")
    assert (again.added, again.updated, again.unchanged) == (0, 0, 1)
    assert sorted(r.source for r in store.records("iclr2021")["p1"]) == ["a/papers.jsonl", "b/papers.jsonl"]


def test_records_under_a_bare_file_name_give_way_to_the_same_file(store: SqlStore, tmp_path: Path) -> None:
    """A store written before sources carried their folder: the file's new record replaces its old one."""
    old = SourceRecord("papers.jsonl", "jsonl", "p1", {"title": "Same Paper", "abstract": "Old."}, "iclr2021", line=1)
    old._key = ("iclr2021", "p1")
    with store.transaction():
        store.put_records([old])
    path = tmp_path / "a" / "papers.jsonl"
    path.parent.mkdir()
    path.write_text(jsonl({"id": "p1", "title": "Same Paper", "tldr": "New."}))
    ingest_one(store, path)
    paper = store.get_paper("p1")
    assert (paper.abstract, paper.tldr) == (None, "New.")


@pytest.mark.parametrize("path", sorted([*DATA.glob("*/*.json"), *DATA.glob("*/*.tsv")]), ids=lambda p: p.name)
def test_real_corpus_never_meets_a_limit(path: Path) -> None:
    _, items = read_file(path)
    records = list(items)
    assert all(isinstance(r, SourceRecord) and not r.warnings for r in records)
