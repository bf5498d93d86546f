"""Records that name no paper: without a title they are skipped (one line per file), never a refused file, unless
--strict; placeholder titles ("withdraw", "title") stay in the store but out of search, themes, rankings and counts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.ingest import IngestError, ingest
from confnav.model import PLACEHOLDER_TITLES, is_placeholder_title
from confnav.store import SqlStore, open_store
from tests.backends import Location, freeze, new_location
from tests.conftest import DATA, ROOT

PAPERLISTS = DATA / "paperlists"
# ICLR 2018's records whose title only holds a place ("withdraw", "Withdrawn", "title", "Placeholder").
ICLR2018_PLACEHOLDERS = {"BysrYlP0-", "HJWu8i18G", "HksxTdiWz", "HyxSG1Z3IX", "SJvq-EcCZ", "SyWvxWYQf", "rkrqgCWMG"}
UNTITLED = [{"id": "u1", "status": "Poster", "abstract": ""}, {"title": "", "session": "S1"}, {"title": " \t\n "}]


def real_file(tmp_path: Path, name: str, count: int = 20) -> tuple[Path, int]:
    """A file of `count` real records of `name` with the three UNTITLED ones put at records 4, 8 and 12."""
    records = json.loads((PAPERLISTS / name).read_text(encoding="utf-8"))[:count]
    for at, extra in zip((3, 7, 11), UNTITLED, strict=True):
        records.insert(at, extra)
    path = tmp_path / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return path, count


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("name", ["siggraph2022.json", "iclr2018.json"])
def test_records_without_a_title_are_skipped_and_summed_up(name: str, tmp_path: Path) -> None:
    path, count = real_file(tmp_path, name)
    db = tmp_path / "s.db"
    code, stdout, stderr = run("ingest", "--db", str(db), "-q", str(path))
    assert code == 0, stderr
    assert f"skipped: {path}: 3 records without a title skipped (records 4, 8, 12)" in stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert f"{count} records (paperlists)" in stdout
    with open_store(db) as store:
        assert store.count_papers() == count


def test_strict_refuses_a_file_with_a_record_without_a_title(tmp_path: Path) -> None:
    path, _ = real_file(tmp_path, "siggraph2022.json")
    db = tmp_path / "s.db"
    code, _, stderr = run("ingest", "--db", str(db), "-q", "--strict", str(path))
    assert code == 1
    assert f"{path}, record 4, field 'title': missing title" in stderr
    assert stderr.rstrip().endswith("nothing was written") and "Traceback" not in stderr
    with open_store(db, create=True) as store:
        assert store.count_papers() == 0


def test_a_summary_names_the_first_few_records_only(tmp_path: Path) -> None:
    records = [{"id": f"p{i}", "title": f"Paper {i}" if i % 2 else "", "status": "Poster"} for i in range(1, 21)]
    path = tmp_path / "conf2024.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    with open_store(tmp_path / "s.db", create=True) as store:
        result = ingest(store, [path])
        assert result.untitled == [
            f"{path}: 10 records without a title skipped (records 2, 4, 6, 8, 10, …); strict=True refuses such a file"
        ]
        assert store.count_papers() == 10 and result.to_dict()["untitled"] == result.untitled


# Every reader, one file with a paper and a record without a title: (file name, text, where the summary points).
READERS = {
    "openreview-tsv": (
        "paperlist.tsv",
        "paper_id\ttitle\tlink\tkeywords\tabstract\na1\tA Paper\t\tk\tx\na2\t  \t\tk\tplaceholder\n",
        "line 3",
    ),
    "markdown": (
        "iclr2021.md",
        "## [1] A Paper\n**Authors**: *A B*\n**Abstract**:\nText.\n----\n## [2] \n**Authors**: *C D*\n----\n",
        "line 6",
    ),
    "csv": ("conf2024.csv", "id,title,abstract\na1,A Paper,x\n,,orphan\n", "line 3"),
    "csv with an id": ("conf2024.csv", "id,title,abstract\na1,A Paper,x\na9,,placeholder\n", "line 3"),
    "jsonl": ("conf2024.jsonl", '{"id": "a1", "title": "A Paper"}\n{"abstract": "no title", "title": " "}\n', "line 2"),
    "openreview-notes": (
        "snapshot.jsonl",
        "\n".join(
            json.dumps({"venue": "ICLR.cc/2024/Conference", "note": {"id": pid, "forum": pid, "content": content}})
            for pid, content in (("a1", {"title": {"value": "A Paper"}}), ("a2", {"title": {"value": ""}}))
        )
        + "\n",
        "line 2",
    ),
}


@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_skips_a_record_without_a_title(reader: str, tmp_path: Path) -> None:
    name, text, where = READERS[reader]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    fmt = reader.split(" ")[0]
    with open_store(tmp_path / "s.db", create=True) as store:
        result = ingest(store, [path], fmt=fmt, venue="iclr2021")
        assert result.untitled and f"1 record without a title skipped ({where})" in result.untitled[0]
        assert not result.errors and store.count_papers() == 1
    with open_store(tmp_path / "strict.db", create=True) as store:
        with pytest.raises(IngestError, match=r"missing title.*nothing was written"):
            ingest(store, [path], fmt=fmt, venue="iclr2021", strict=True)
        assert store.count_papers() == 0


def test_a_malformed_file_is_still_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "conf2024.json"
    path.write_text(json.dumps([{"title": "A Paper", "status": "Poster"}, {"title": ["a", "list"]}, {"title": ""}]))
    code, _, stderr = run("ingest", "--db", str(tmp_path / "s.db"), "-q", str(path))
    assert code == 1 and "record 2, field 'title'" in stderr and "nothing was written" in stderr


def test_the_placeholder_list_is_documented() -> None:
    docs = (ROOT / "docs" / "ingest.md").read_text(encoding="utf-8")
    assert all(f"`{title}`" in docs for title in PLACEHOLDER_TITLES)
    assert all(is_placeholder_title(t) for t in ("Withdrawn", " WITHDRAW ", "N/A", "title.", "—", "TBD"))
    assert not any(is_placeholder_title(t) for t in ("HexaConv", "Sobolev GAN", "Title Generation at Scale"))


@pytest.fixture(scope="module")
def iclr2018(tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2018 from its real paperlists file, indexed by the TF-IDF embedder, with themes."""
    from confnav.embed.sparse import SparseEmbedder
    from confnav.index import build_index
    from confnav.topics import ensure_topics

    location = new_location(tmp_path_factory.mktemp("iclr2018"), "iclr2018")
    with open_store(location, create=True) as store:
        ingest(store, [PAPERLISTS / "iclr2018.json"])
        build_index(store, SparseEmbedder())
        ensure_topics(store, "iclr2018")
    return freeze(location)


@pytest.fixture
def store2018(iclr2018: Location) -> Iterator[SqlStore]:
    with open_store(iclr2018) as store:
        yield store


def test_placeholders_are_stored_and_shown(store2018: SqlStore) -> None:
    titles = {store2018.get_paper(pid).title for pid in ICLR2018_PLACEHOLDERS}
    assert titles == {"Placeholder", "title", "withdrawn", "Withdrawn", "withdraw", "Withdraw"}


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
@pytest.mark.parametrize("query", ["withdrawn", "withdraw", "title", "placeholder", "conditional sequence generation"])
def test_placeholders_are_never_search_results(store2018: SqlStore, mode: str, query: str) -> None:
    from confnav.search.engine import Searcher

    hits = Searcher(store2018).search(query, mode=mode, limit=200).hits  # type: ignore[arg-type]
    assert not {hit.paper.id for hit in hits} & ICLR2018_PLACEHOLDERS


def test_placeholders_are_never_similar_or_recommended(store2018: SqlStore) -> None:
    from confnav.search.engine import Searcher

    searcher = Searcher(store2018)
    like = searcher.similar("SJvq-EcCZ", limit=200)  # a placeholder's authors' real paper is close in words
    again = searcher.recommend(like=["rkrqgCWMG"], text="withdrawn paper", limit=200)
    assert like.hits and not {h.paper.id for h in [*like.hits, *again.hits]} & ICLR2018_PLACEHOLDERS


def test_placeholders_are_in_no_theme_and_no_ranking(store2018: SqlStore) -> None:
    from confnav.rank import WeightedRanker
    from confnav.topics import theme_facts

    themed = {pid for facts in theme_facts(store2018, "iclr2018") for pid in facts.paper_ids}
    ranked = {item.paper.id for item in WeightedRanker().rank(store2018, "iclr2018").papers}
    assert themed and ranked and not (themed | ranked) & ICLR2018_PLACEHOLDERS
    assert len(ranked) == store2018.count_papers("iclr2018") - len(ICLR2018_PLACEHOLDERS)


def test_statistics_count_placeholders_apart(iclr2018: Location) -> None:
    code, stdout, stderr = run("stats", "--db", str(iclr2018), "--venue", "iclr2018")
    assert code == 0, stderr
    assert "7 placeholder records (Placeholder, title, withdrawn, …) not counted." in stdout
    with open_store(iclr2018) as store:
        counts = {d.name: n for d, n in store.decision_counts("iclr2018")}
        withdrawn = sum(p.decision.name == "withdrawn" for p in store.iter_papers("iclr2018"))
        assert sum(counts.values()) == store.count_papers("iclr2018") - 7
        assert counts["withdrawn"] == withdrawn - 7
    code, stdout, _ = run("stats", "--db", str(iclr2018), "--venue", "iclr2018", "--json")
    assert "7 placeholder records (Placeholder, title, withdrawn, …) not counted." in json.loads(stdout)["notes"]


# ICLR 2021's paperlists records titled "Withdraw", "Blank" and "BLANK", whose OpenReview TSV rows give their titles.
ICLR2021_PLACEHOLDERS = {
    "bXbt3Bvcyud": "Withdraw",
    "cQyybLUoXxc": "Withdraw",
    "O_PZRnYcUCm": "Blank",
    "klB-8BpR5N": "BLANK",
}


def iclr2021_files(tmp_path: Path) -> tuple[Path, Path]:
    """The paperlists records and the TSV rows of ICLR2021_PLACEHOLDERS and ten real papers, from the real files."""
    listed = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text(encoding="utf-8"))
    wanted = set(ICLR2021_PLACEHOLDERS) | {r["id"] for r in listed[:10]}
    (tmp_path / "iclr2021.json").write_text(json.dumps([r for r in listed if r["id"] in wanted]), encoding="utf-8")
    lines = (DATA / "iclr2021" / "paperlist.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    rows = [line for line in lines[1:] if line.split("\t", 1)[0] in wanted]
    (tmp_path / "paperlist.tsv").write_text(lines[0] + "".join(rows), encoding="utf-8")
    return tmp_path / "iclr2021.json", tmp_path / "paperlist.tsv"


def test_a_real_title_of_another_source_wins_over_a_placeholder(tmp_path: Path) -> None:
    """The TSV's titles win over "Withdraw", "Blank" and "BLANK", whichever file comes first."""
    listed, tsv = iclr2021_files(tmp_path)
    real = {"bXbt3Bvcyud": "Adaptive Tree Wasserstein", "O_PZRnYcUCm": "Learning to Generate Videos Using Neural"}
    real["klB-8BpR5N"] = "BaSIL: Learning Incrementally using a Bayesian Memory-Based"
    for order, paths in enumerate(([listed, tsv], [tsv, listed])):
        with open_store(tmp_path / f"s{order}.db", create=True) as store:
            ingest(store, paths, venue="iclr2021")
            for paper_id, start in real.items():
                paper = store.get_paper(paper_id)
                assert paper.title.startswith(start) and not paper.placeholder
            assert store.get_paper("bXbt3Bvcyud").decision.name == "withdrawn"
            assert not any(store.get_paper(paper_id).placeholder for paper_id in ICLR2021_PLACEHOLDERS)


def test_a_paper_titled_only_blank_is_a_placeholder(tmp_path: Path) -> None:
    """With the paperlists file alone, "Blank" and "BLANK" hold a place as "Withdraw" does: stored, but in no
    search, ranking or count."""
    from confnav.rank import WeightedRanker
    from confnav.search.engine import Searcher

    listed, _ = iclr2021_files(tmp_path)
    with open_store(tmp_path / "s.db", create=True) as store:
        ingest(store, [listed], venue="iclr2021")
        assert {pid: store.get_paper(pid).title for pid in ICLR2021_PLACEHOLDERS} == ICLR2021_PLACEHOLDERS
        assert all(store.get_paper(pid).placeholder for pid in ICLR2021_PLACEHOLDERS)
        summary = store.venue_summary(store.get_venue("iclr2021"))
        assert summary.placeholders == 4 and summary.papers == store.count_papers("iclr2021") - 4
        ranked = {item.paper.id for item in WeightedRanker().rank(store, "iclr2021").papers}
        hits = Searcher(store).search("blank", mode="keyword", limit=50).hits
        assert len(ranked) == 10 and not (ranked | {h.paper.id for h in hits}) & set(ICLR2021_PLACEHOLDERS)


def test_every_surface_counts_a_venue_on_one_basis(iclr2018: Location, tmp_path: Path) -> None:
    """The home page's venue line, `confnav venues` and the statistics report count the same 988 records (the 7
    placeholders left out and said so): the breakdown adds up, "entered review" as the reports say it."""
    from fastapi.testclient import TestClient

    from confnav.web.app import create_app
    from tests.backends import clone

    code, stdout, stderr = run("venues", "--db", str(iclr2018))
    assert code == 0, stderr
    assert "988 papers, 337 accepted" in stdout and "62 withdrawn" in stdout and "69 withdrawn" not in stdout
    assert "(7 placeholder records not counted)" in stdout
    code, stdout, _ = run("venues", "--db", str(iclr2018), "--json")
    (venue,) = json.loads(stdout)
    assert venue["papers"] == sum(venue["by_decision"].values()) == 988 and venue["placeholders"] == 7
    client = TestClient(create_app(clone(iclr2018, tmp_path, "home")), base_url="http://127.0.0.1")
    line = client.get("/").text.split('<section class="venue">')[1].split("</p>")[0].strip()
    assert line.startswith("<h2>ICLR 2018</h2>\n<p>988 papers; 988 entered review; 337 accepted")
    breakdown = line.split("of decided): ")[1].split(".")[0]
    assert sum(int(part.split()[0].replace(",", "")) for part in breakdown.split(", ")) == 988
    assert "62 withdrawn" in breakdown and "7 placeholder records not counted." in line
    stats = client.get("/reports/iclr2018/stats").text
    assert "7 placeholder records (Placeholder, title, withdrawn, …) not counted." in stats


def test_filters_without_words_list_every_paper_meeting_them(iclr2018: Location) -> None:
    """ICLR 2018's 90 workshop invitations, listed by a search of filters alone, counted and paged as a search."""
    args = ["search", "", "--db", str(iclr2018), "--venue", "iclr2018", "--decision", "workshop", "--json"]
    code, stdout, stderr = run(*args, "--limit", "100")
    assert code == 0, stderr
    listed = json.loads(stdout)["hits"]
    assert len(listed) == 90 and {h["decision"] for h in listed} == {"workshop"}
    _, second, _ = run(*args, "--limit", "50", "--offset", "50")
    _, first, _ = run(*args, "--limit", "50")
    assert [h["id"] for page in (first, second) for h in json.loads(page)["hits"]] == [h["id"] for h in listed]
    _, text, _ = run(*args[:-1], "--limit", "5")
    assert "90 papers meet these filters; showing 1–5" in text
    code, _, stderr = run("search", "", "--db", str(iclr2018))
    assert code == 1 and "empty query" in stderr
