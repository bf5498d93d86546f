"""Each reader on small inline samples, and format detection."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from confnav.errors import InputError
from confnav.sources import SourceRecord, detect_format, read_file
from confnav.sources.base import venue_and_track_from_path
from tests.conftest import DATA

MARKDOWN = """# Some list

## [0] Deep Things: A Study

**Authors**: *Ann Lee, Bo Chen*

**Conference**: *iclr 2021*

**URL**: [https://openreview.net/forum?id=abc123XYZ](https://openreview.net/forum?id=abc123XYZ)

**Abstract**:

First line of the abstract.
Second line.

----

## [1] Another Paper

**Authors**: *Cy Dee*

**Conference**: *iclr 2021*

**URL**: [https://example.org/p/2](https://example.org/p/2)

**Abstract**:

Short.

----

[Go to the next page](next.md)
"""

PAPERLIST_TSV = (
    "paper_id\ttitle\tlink\tkeywords\tabstract\n"
    "abc123XYZ\tDeep Things\thttps://openreview.net/forum?id=abc123XYZ\tgraphs, deep learning\tAn abstract.\n"
    "def456\tOther\thttps://openreview.net/forum?id=def456\t\t\n"
)
RATINGS_TSV = "paper_id\t0\t1\t2\tdecision\nabc123XYZ\t6.0\t8.0\t\tAccept (Oral)\ndef456\t\t\t\tUnknown\n"
PAPERLISTS = """[
 {"id": "abc123XYZ", "title": "Deep  Things: Final", "status": "Spotlight", "keywords": "graphs;deep learning",
  "author": "Ann Lee;Bo Chen;Cy Dee", "authorids": "~Ann_Lee1;bo@x.org;~Cy_Dee1", "aff": "MIT;ETH",
  "rating": "6;8", "confidence": "4;3", "github": "https://github.com/x/y", "site": "https://iclr.cc/virtual/2021/poster/1"},
 {"id": "zz9", "title": "Talk Paper", "status": "Talk", "author": "A B", "aff": "", "rating": "", "confidence": ""}
]"""


def records(path: Path, fmt: str | None = None) -> list[SourceRecord]:
    _, items = read_file(path, fmt)
    result = list(items)
    assert all(isinstance(r, SourceRecord) for r in result), result
    return result  # type: ignore[return-value]


def test_markdown_reader(write) -> None:  # type: ignore[no-untyped-def]
    first, second = records(write("list.md", MARKDOWN))
    assert first.id == "abc123XYZ" and first.venue == "iclr2021" and first.line == 3
    assert first.fields["title"] == "Deep Things: A Study"
    assert [a["name"] for a in first.fields["authors"]] == ["Ann Lee", "Bo Chen"]
    assert first.fields["abstract"] == "First line of the abstract.\nSecond line."
    assert first.fields["links"]["pdf"] == "https://openreview.net/pdf?id=abc123XYZ"
    assert second.id is None and second.fields["links"] == {"site": "https://example.org/p/2"}
    assert second.fields["abstract"] == "Short."


def test_openreview_tsv_pair(write) -> None:  # type: ignore[no-untyped-def]
    papers = records(write("paperlist.tsv", PAPERLIST_TSV))
    assert papers[0].fields["keywords"] == ["graphs", "deep learning"]
    assert papers[0].fields["abstract"] == "An abstract."
    assert "abstract" not in papers[1].fields
    assert papers[1].fields["keywords"] == []  # an empty cell of the column: the file says it has none
    ratings = records(write("ratings.tsv", RATINGS_TSV))
    assert ratings[0].fields == {"ratings": [6.0, 8.0], "decision": "Accept (Oral)"}  # labels kept as given
    assert ratings[1].fields == {"ratings": [], "decision": "Unknown"}


def test_paperlists_reader_pairs_affiliations_only_when_aligned(write) -> None:  # type: ignore[no-untyped-def]
    first, second = records(write("paperlists-iclr2021.json", PAPERLISTS))
    assert first.fields["title"] == "Deep Things: Final"
    assert first.fields["decision"] == "Spotlight"
    # two affiliations for three authors: whose is whose is not said (counting profiles is a guess that the
    # real ICLR 2021 list proves wrong), so they stay the paper's, in order
    assert [a["affiliation"] for a in first.fields["authors"]] == [None, None, None]
    assert first.fields["affiliations"] == ["MIT", "ETH"]
    assert first.fields["ratings"] == [6.0, 8.0] and first.fields["confidences"] == [4.0, 3.0]
    assert first.fields["links"]["code"] == "https://github.com/x/y"
    assert second.fields["decision"] == "Talk"  # ICLR 2020's oral, read through the decision table
    assert second.fields["ratings"] == []


def test_paperlists_unalignable_affiliations_stay_on_the_paper(write) -> None:  # type: ignore[no-untyped-def]
    text = '[{"id": "q1", "title": "T", "status": "Poster", "author": "A;B;C", "aff": "X;Y", "authorids": "a;b;c"}]'
    (record,) = records(write("p.json", text), "paperlists")
    assert all(a["affiliation"] is None for a in record.fields["authors"])
    assert record.fields["affiliations"] == ["X", "Y"]


def test_paperlists_unique_index_pairs_institutions_past_blank_affiliations(write) -> None:  # type: ignore[no-untyped-def]
    aligned = {"author": "A;B;C", "aff": "IBM Research;;MIT CSAIL", "aff_unique_norm": "IBM;MIT"}
    short = {"author": "A;B;C", "aff": "IBM Research;MIT CSAIL", "aff_unique_norm": "IBM;MIT"}
    rows = [
        {"id": "a1", "title": "Index skips the blank", **aligned, "aff_unique_index": "0;1"},
        {"id": "a2", "title": "Index per author", **aligned, "aff_unique_index": "0;;1"},
        {"id": "a3", "title": "Affiliations not aligned", **short, "aff_unique_index": "0;1"},
    ]
    skipping, per_author, unaligned = records(write("p.json", json.dumps(rows)), "paperlists")
    for record in (skipping, per_author):
        assert [a.get("institution") for a in record.fields["authors"]] == ["IBM", None, "MIT"]
        assert [a["affiliation"] for a in record.fields["authors"]] == ["IBM Research", None, "MIT CSAIL"]
    assert all("institution" not in a and a["affiliation"] is None for a in unaligned.fields["authors"])
    assert unaligned.fields["institutions"] == ["IBM", "MIT"]  # the paper's list all the same


def test_profile_ordered_lists_are_put_in_the_bylines_order(write) -> None:  # type: ignore[no-untyped-def]
    """CoRL 2023's `or_profile` and what was read from the profiles (`aff`) follow the profiles' order, not always
    the byline's: matched by the same id in `authorids`, else by the name the id spells, else left unaligned."""
    byline = {"author": "Ann Lee;Bo Chen;Cy Diaz", "authorids": "~Ann_Lee1;~Bo_Chen2;~Cy_Diaz1"}
    rows = [
        {
            "id": "s1",
            "title": "Swapped",
            **byline,
            "or_profile": "~Ann_Lee1;~Cy_Diaz1;~Bo_Chen3",
            "aff": "MIT;UW;CMU",
            "aff_unique_norm": "MIT;UW;CMU",
            "aff_unique_index": "0;1;2",
        },
        {"id": "s2", "title": "Unknowable", **byline, "or_profile": "~Ann_Lee1;~Xu_Yi1;~Zed_Wu1", "aff": "MIT;UW;CMU"},
    ]
    swapped, unknowable = records(write("p.json", json.dumps(rows)), "paperlists")
    authors = swapped.fields["authors"]
    assert [(a["name"], a["profile"], a["affiliation"], a["institution"]) for a in authors] == [
        ("Ann Lee", "~Ann_Lee1", "MIT", "MIT"),
        ("Bo Chen", "~Bo_Chen3", "CMU", "CMU"),
        ("Cy Diaz", "~Cy_Diaz1", "UW", "UW"),
    ]
    assert [a.get("profile") for a in unknowable.fields["authors"]] == ["~Ann_Lee1", "~Bo_Chen2", "~Cy_Diaz1"]
    assert all(a["affiliation"] is None for a in unknowable.fields["authors"])  # whose is whose is not known
    (corl,) = [r for r in records(DATA / "paperlists" / "corl2023.json") if r.id == "QNPuJZyhFE"]
    fox = corl.fields["authors"][-1]
    assert fox["name"] == "Dieter Fox" and fox["profile"] == "~Dieter_Fox1"


def test_csv_reader_with_aliases_and_mapping(write) -> None:  # type: ignore[no-untyped-def]
    text = (
        'Paper Title,Authors,Decision,Scores,Venue\n"Graph, Nets",Ann Lee; Bo Chen,Accept (Poster),"5,6",NeurIPS 2023\n'
    )
    path = write("x.csv", text)
    _, items = read_file(path, "csv", {"title": "Paper Title"})
    (record,) = list(items)
    assert isinstance(record, SourceRecord)
    assert record.fields["title"] == "Graph, Nets"
    assert record.venue == "neurips2023"
    assert [a["name"] for a in record.fields["authors"]] == ["Ann Lee", "Bo Chen"]
    assert record.fields["ratings"] == [5.0, 6.0] and record.fields["decision"] == "Accept (Poster)"


def test_jsonl_reader(write) -> None:  # type: ignore[no-untyped-def]
    text = (
        '{"id": "p1", "title": "One", "authors": [{"name": "A", "affiliation": "X"}], "keywords": ["k1", "k2"]}\n'
        '\n{"title": "Two", "url": "https://openreview.net/forum?id=p2", "tldr": "Short claim."}\n'
    )
    one, two = records(write("x.jsonl", text))
    assert one.fields["authors"] == [{"name": "A", "affiliation": "X"}] and one.fields["keywords"] == ["k1", "k2"]
    assert two.id == "p2" and two.fields["tldr"] == "Short claim." and two.line == 3


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("a.txt", MARKDOWN, "markdown"),
        ("a.txt", PAPERLIST_TSV, "openreview-tsv"),
        ("a.txt", RATINGS_TSV, "openreview-tsv"),
        ("a.txt", PAPERLISTS, "paperlists"),
        ("a.txt", "id,title\n1,x\n", "csv"),
        ("a.txt", '{"title": "x"}\n', "jsonl"),
    ],
)
def test_format_is_detected_from_content(name: str, content: str, expected: str) -> None:
    assert detect_format(Path(name), content) == expected


def test_undetectable_format_names_the_flag() -> None:
    """The library names its argument `fmt`; the CLI prints it as its flag."""
    from confnav.cli.common import flag_of

    with pytest.raises(InputError, match=r"cannot tell the format.*pass fmt \(") as caught:
        detect_format(Path("notes.txt"), "just some words\nand more\n")
    assert "pass --format (paperlists, " in caught.value.spelled(flag_of)


def test_json_arrays_and_wrapped_arrays_are_read_with_their_own_keys(write) -> None:  # type: ignore[no-untyped-def]
    """Real CoRL 2023 papers as other tools save them: a plain array keyed as CSV columns are (decision, ratings,
    venue), the paperlists array inside an object (one line or indented, an API answer with a count), and an
    object holding no array of papers, refused in one line."""
    papers = json.loads((DATA / "paperlists" / "corl2023.json").read_text(encoding="utf-8"))[:5]
    plain = [
        {"id": p["id"], "title": p["title"], "authors": p["author"], "decision": "Accept", "ratings": "6;8"}
        for p in papers
    ]
    name, items = read_file(write("plain.json", json.dumps(plain, indent=1)))
    first = next(iter(items))
    assert name == "jsonl" and isinstance(first, SourceRecord) and first.record == 1
    assert first.fields["decision"] == "Accept" and first.fields["ratings"] == [6.0, 8.0]
    for wrapper in ({"papers": papers}, {"notes": papers, "count": 5}):
        for indent in (None, 2):
            name, items = read_file(write("corl2023.json", json.dumps(wrapper, indent=indent)))
            titles = [r.fields["title"] for r in items if isinstance(r, SourceRecord)]
            assert name == "paperlists" and titles == [p["title"] for p in papers], wrapper.keys()
    for bad, says in (({}, "keys: none"), ({"a": papers, "b": papers}, "several arrays (a, b)")):
        with pytest.raises(InputError, match=rf"a JSON object, not paper records.*{re.escape(says)}"):
            read_file(write("corl2023.json", json.dumps(bad)))


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("paperlists-iclr2021.json", ("iclr2021", None)),
        ("nips/nips2018.json", ("neurips2018", None)),
        ("iclr2024/papers_2024.json", ("iclr2024", None)),  # `papers` names no conference: the folder does
        ("icml/accepted-2024.json", (None, None)),  # a folder without a year could be any folder: --venue is asked
        ("neurips2023_workshop_foo.json", ("neurips2023", "workshop foo")),
        ("lists/iclr2024-tinypapers.json", ("iclr2024", "tinypapers")),
        ("iclr2021/paperlist.tsv", ("iclr2021", None)),
    ],
)
def test_venue_and_track_from_a_files_name(path: str, expected: tuple[str | None, str | None]) -> None:
    assert venue_and_track_from_path(Path(path)) == expected


def test_a_track_comes_from_the_file_never_from_the_venue(fresh_location, write) -> None:  # type: ignore[no-untyped-def]
    from confnav.errors import ConfnavError
    from confnav.ingest import ingest
    from confnav.store import open_store

    papers = json.loads((DATA / "paperlists" / "corl2023.json").read_text(encoding="utf-8"))[:3]
    plain = "\n".join(json.dumps({"title": p["title"], "authors": p["author"]}) for p in papers)
    with open_store(fresh_location, create=True) as store:
        ingest(store, [write("icml2024_workshop_x.jsonl", plain)])
        assert {p.track for p in store.iter_papers("icml2024")} == {"workshop x"}
        # a venue with words left over is refused as by every verb: it would move stored papers to a track
        with pytest.raises(ConfnavError, match=r"'Workshop X' is not part of ICML 2024's name.*a track field"):
            ingest(store, [write("accepted.jsonl", plain)], venue="ICML 2024 Workshop X")
        assert {p.track for p in store.iter_papers("icml2024")} == {"workshop x"}


def test_terminal_escapes_are_taken_out_of_texts(write) -> None:  # type: ignore[no-untyped-def]
    """A title holding an escape sequence would recolour (or drive) the terminal that lists it."""
    paper = json.loads((DATA / "paperlists" / "corl2023.json").read_text(encoding="utf-8"))[0]
    hostile = {**paper, "title": "Red\x1b[31m title\x07", "author": "Ann\x1b]0;owned\x07 Lee"}
    _, items = read_file(write("corl2023.json", json.dumps([hostile])))
    (record,) = list(items)
    assert isinstance(record, SourceRecord)
    assert record.fields["title"] == "Red title" and "\x1b" not in json.dumps(record.fields)
    assert any("terminal escapes taken out" in w for w in record.warnings)


def test_a_control_character_before_a_name_leaves_no_space(write) -> None:  # type: ignore[no-untyped-def]
    """ICLR 2018's `\x06 Daniel Crawford`: the control character goes, and the name is trimmed, in every format."""
    paper = json.loads((DATA / "paperlists" / "corl2023.json").read_text(encoding="utf-8"))[0]
    names = "Ann Lee;\x06 Daniel Crawford \x0f"
    files = {
        "corl2023.json": json.dumps([{**paper, "author": names}]),
        "plain.jsonl": json.dumps({"title": "A Paper", "authors": names.split(";")}),
        "objects.jsonl": json.dumps({"title": "A Paper", "authors": [{"name": n} for n in names.split(";")]}),
        "table.csv": f'title,authors\nA Paper,"{names}"\n',
        "table.tsv": f"title\tauthors\nA Paper\t{names}\n",
    }
    for name, text in files.items():
        _, items = read_file(write(name, text))
        (record,) = list(items)
        assert isinstance(record, SourceRecord), name
        assert [a["name"] for a in record.fields["authors"]] == ["Ann Lee", "Daniel Crawford"], name


def test_tables_as_spreadsheets_save_them(write) -> None:  # type: ignore[no-untyped-def]
    """Headers in words ("Paper ID", "Paper Title"), a semicolon-separated file (spreadsheets of some locales),
    and of two columns of one name the first."""
    paper = json.loads((DATA / "paperlists" / "corl2023.json").read_text(encoding="utf-8"))[0]
    worded = f'Paper ID,Paper Title,Authors\n{paper["id"]},"{paper["title"]}","{paper["author"]}"\n'
    semicolons = f'id;title;title;authors\n{paper["id"]};{paper["title"]};other;"{paper["author"]}"\n'
    for name, text in (("worded.txt", worded), ("semicolons.csv", semicolons)):
        fmt, items = read_file(write(name, text))
        (record,) = list(items)
        assert fmt == "csv" and isinstance(record, SourceRecord), name
        assert (record.id, record.fields["title"]) == (paper["id"], paper["title"]), name
        assert [a["name"] for a in record.fields["authors"]] == paper["author"].split(";"), name


def test_lists_scraped_from_web_pages_read_as_text(write) -> None:  # type: ignore[no-untyped-def]
    """HTML character references (`&amp;`, `&#x27;`) read as the characters they stand for; a bare `&` stays."""
    paper = json.loads((DATA / "paperlists" / "corl2023.json").read_text(encoding="utf-8"))[0]
    scraped = {**paper, "title": "Cats &amp; Dogs: R&D &lt;3 &#x27;quoted&#39;", "author": "Ren&eacute;e Roe"}
    _, items = read_file(write("corl2023.json", json.dumps([scraped])))
    (record,) = list(items)
    assert isinstance(record, SourceRecord) and not record.warnings
    assert record.fields["title"] == "Cats & Dogs: R&D <3 'quoted'"
    assert record.fields["authors"][0]["name"] == "Renée Roe"


def test_counts_written_with_thousands_separators_are_read() -> None:
    from confnav.sources.values import citation_count

    assert [citation_count(v, "gs")["count"] for v in ("1,234", "12 345", "1,234,567", 7)] == [1234, 12345, 1234567, 7]  # type: ignore[index]
    assert citation_count("1,23", "gs") is None


@pytest.mark.parametrize("newer_first", [False, True])
def test_the_newer_of_two_dated_snapshots_wins_whatever_the_order(fresh_location, write, newer_first: bool) -> None:  # type: ignore[no-untyped-def]
    from confnav.ingest import ingest
    from confnav.store import open_store

    early = [
        {"id": "d1", "title": "T1", "status": "Active", "rating": "4;6"},
        {"id": "d2", "title": "T2", "status": "Reject"},
    ]
    late = [
        {"id": "d1", "title": "T1", "status": "Accept (Poster)", "rating": "5;6"},
        {"id": "d2", "title": "T2", "status": "Active"},
    ]
    files = [write("iclr2021-2020-11-10.json", json.dumps(early)), write("iclr2021-2021-01-15.json", json.dumps(late))]
    with open_store(fresh_location, create=True) as store:
        for path in reversed(files) if newer_first else files:
            ingest(store, [path])
        assert [v.id for v in store.venue_list()] == ["iclr2021"]  # the date is no part of the venue
        first, second = store.get_paper("d1", "iclr2021"), store.get_paper("d2", "iclr2021")
    assert first.ratings == [5.0, 6.0] and first.decision.label == "Accept (Poster)"
    assert second.decision.label == "Reject"  # a decision made beats a later "still pending"


def test_a_json_array_of_other_keys_is_read_by_their_names_not_as_paperlists(write) -> None:  # type: ignore[no-untyped-def]
    """ "authors", "decision" and "ratings" beside a "track" are read (a paperlists reader would drop them all)."""
    text = (
        '[{"id": "p1", "title": "Alpha", "authors": ["Ann Lee", "Bo Chen"], "decision": "Accept (Oral)",'
        ' "track": "Main Track", "ratings": [6, 8]},'
        ' {"id": "p2", "title": "Beta", "authors": ["Cy Dee"], "decision": "Reject", "track": "Main Track"}]'
    )
    path = write("bbconf2024.json", text)
    assert detect_format(path, text) == "jsonl"
    one, two = records(path)
    assert [a["name"] for a in one.fields["authors"]] == ["Ann Lee", "Bo Chen"] and one.fields["ratings"] == [6, 8]
    assert (one.fields["decision"], two.fields["decision"]) == ("Accept (Oral)", "Reject")


def test_records_in_a_notes_shape_are_read_from_their_content(write) -> None:  # type: ignore[no-untyped-def]
    """MiniConf serves its papers as OpenReview notes (`content` holding the fields; API 2 wraps each value)."""
    text = (
        '[{"id": "main.1004", "forum": "main.1004", "content": {"title": "Alpha", "authors": ["Ann Lee"],'
        ' "keywords": ["graphs"], "abstract": "A."}},'
        ' {"id": "main.7", "content": {"title": {"value": "Beta"}, "authors": {"value": ["Bo Chen"]}}}]'
    )
    one, two = records(write("papers.json", text))
    assert (one.id, one.fields["title"], one.fields["keywords"]) == ("main.1004", "Alpha", ["graphs"])
    assert (two.id, two.fields["title"], [a["name"] for a in two.fields["authors"]]) == ("main.7", "Beta", ["Bo Chen"])


def test_a_file_none_of_whose_records_has_a_title_is_refused(write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from confnav.ingest import IngestError, ingest
    from confnav.store import open_store

    path = write("zconf2024.csv", "id,title,venue_title\na,,Alpha\nb,,Beta\n")  # the titles in a column of its own
    with open_store(tmp_path / "z.db", create=True) as store, pytest.raises(IngestError, match="none of its 2 records"):
        ingest(store, [path])


def test_a_csv_error_names_the_line_its_record_starts_on(write) -> None:  # type: ignore[no-untyped-def]
    text = 'id,title,abstract,ratings\np1,One,"first\nsecond\nthird",6\np2,Two,"x\ny",6|7\n'
    _, items = read_file(write("xconf2023.csv", text))
    found = list(items)
    assert isinstance(found[0], SourceRecord) and found[0].line == 2
    assert isinstance(found[1], InputError) and found[1].line == 5, found[1]


def test_columns_no_field_reads_are_named_once(write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from confnav.ingest import ingest
    from confnav.store import open_store

    path = write(
        "mconf2024.csv", "Paper No,Paper Title,Writers,Verdict,Scores\n1,Alpha,Ann,Accept,6;7\n2,Beta,Bo,Reject,5\n"
    )
    with open_store(tmp_path / "m.db", create=True) as store:
        result = ingest(store, [path])
    (said,) = [w for w in result.warnings if "not read" in w]
    assert "'Paper No', 'Writers', 'Verdict'" in said and "; mapping (a field to a column) reads one" in said


def test_an_award_is_read_as_named_or_as_a_bare_flag(write) -> None:  # type: ignore[no-untyped-def]
    from confnav.model import AWARD_UNNAMED

    table = "title,award\nOne,Best Paper\nTwo,yes\nThree,False\nFour,\n"
    _, items = read_file(write("awards.csv", table), "csv")
    assert [r.fields.get("award") for r in items] == ["Best Paper", AWARD_UNNAMED, None, None]
    listed = [{"id": "a1", "title": "Flagged", "award": True}, {"id": "a2", "title": "Plain", "award": False}]
    _, items = read_file(write("paperlists-acl2022.json", json.dumps(listed)), "paperlists")
    assert [r.fields.get("award") for r in items] == [AWARD_UNNAMED, None]
    bad = [{"id": "a3", "title": "Odd", "award": {"name": "Best"}}]
    _, items = read_file(write("paperlists-acl2022.json", json.dumps(bad)), "paperlists")
    (problem,) = list(items)
    assert not isinstance(problem, SourceRecord) and "award" in str(problem)


def test_footnote_marks_are_no_part_of_a_name_and_code_hosts_are_code() -> None:
    from confnav.sources.links import link_name
    from confnav.sources.values import author_name

    marked = ["Ryan Lowe*", "Yi Wu†", "Bob Ray¹", "Ann Lee^", "Jo Kim#", "Eve Li²,³"]
    assert [author_name(n) for n in marked] == ["Ryan Lowe", "Yi Wu", "Bob Ray", "Ann Lee", "Jo Kim", "Eve Li"]
    assert author_name("C. D. Manning") == "C. D. Manning"
    hosts = ["https://gist.github.com/a/b", "https://anonymous.4open.science/r/x", "https://gitlab.inria.fr/a/b"]
    assert [link_name("code", u) for u in hosts] == ["code", "code", "code"]
    assert link_name("code", "https://team.github.io/site") == "project"
