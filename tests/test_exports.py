"""Exports a reference manager imports: BibTeX, RIS and CSL-JSON of real ICLR 2021 and ACL 2022 papers, read back
by real parsers; the CLI verb and the web downloads of a reading list, a search, a theme and a paper; a download
named in any script."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote

import bibtexparser
import pytest
import rispy
from click.testing import CliRunner
from fastapi.testclient import TestClient

from confnav.cli import cli
from confnav.export import booktitle, export_papers
from confnav.export.fields import is_published, split_name
from confnav.export.tex import readable
from confnav.ingest import ingest
from confnav.model import Paper
from confnav.store import PaperFilter, open_store
from confnav.topics import get_theme
from confnav.web.app import create_app
from confnav.web.downloads import content_disposition
from tests.backends import Location, clone
from tests.conftest import DATA

# The CSL-JSON item types (csl-data.json, CSL 1.0.2) and the variables this export may write.
CSL_TYPES = {"paper-conference", "article-journal", "manuscript"}
CSL_STRINGS = {"id", "type", "title", "container-title", "abstract", "URL", "DOI", "keyword", "note"}
RIS_LINE = re.compile(r"[A-Z][A-Z0-9]  - ")
LIST = "Ȫ lecturas 读书"  # a name no Latin-1 header can carry


@pytest.fixture(scope="module")
def papers(tmp_path_factory: pytest.TempPathFactory) -> list[Paper]:
    """Every ICLR 2021 submission (accepted, rejected, withdrawn) and ACL 2022 paper (long, short, findings)."""
    path = tmp_path_factory.mktemp("exports") / "exports.db"
    with open_store(path, create=True) as store:
        ingest(store, [DATA / "paperlists" / "acl2022.json", DATA / "iclr2021" / "paperlists-iclr2021.json"])
        return [*store.iter_papers("acl2022"), *store.iter_papers("iclr2021")]


def strict_ris(text: str) -> list[list[tuple[str, str]]]:
    """RIS read by the letter of the format: every line a `TAG  - value`, CR LF ends, entries from TY to ER."""
    entries: list[list[tuple[str, str]]] = []
    for block in text.split("\r\n\r\n"):
        lines = block.strip("\r\n").split("\r\n")
        assert all(RIS_LINE.match(line) for line in lines), block
        assert lines[0].startswith("TY  - ") and lines[-1] == "ER  - ", block
        entries.append([(line[:2], line[6:]) for line in lines[:-1]])
    return entries


def test_ris_reads_back_with_rispy_and_a_strict_reader(papers: list[Paper]) -> None:
    text = export_papers(papers, "ris")
    strict = strict_ris(text)
    entries = rispy.loads(text)
    assert len(entries) == len(strict) == len(papers)
    assert len({e["id"] for e in entries}) == len(papers)  # ids unique as the BibTeX keys
    for paper, entry in zip(papers, entries, strict=True):
        assert entry["title"] == " ".join(str(readable(paper.title)).split())  # TeX math as the text it prints
        assert entry["authors"] == [split_name_ris(a.name) for a in paper.authors]
        assert entry["year"] == str(paper.year)
        assert entry.get("keywords", []) == [" ".join(k.split()) for k in paper.keywords if k.strip()]
        if is_published(paper):
            assert entry["type_of_reference"] == "CONF" and entry["secondary_title"] == booktitle(paper)
        else:
            assert entry["type_of_reference"] == "UNPB" and "secondary_title" not in entry
            assert entry["notes"] == [f"Submitted to ICLR 2021 ({paper.decision.name})"]
        if paper.abstract:
            assert entry["abstract"] == " ".join(str(readable(paper.abstract)).split())
    kinds = [e["type_of_reference"] for e in entries]
    assert kinds.count("CONF") == 1031 + 860 and kinds.count("UNPB") == len(papers) - 1031 - 860
    findings = [e for e in entries if e.get("secondary_title", "").startswith("Findings of the Association")]
    assert len(findings) == sum(p.decision.kind == "findings" for p in papers) > 300


def split_name_ris(name: str) -> str:
    parts = split_name(name)
    return ", ".join(p for p in (parts.family, parts.given, parts.suffix) if p)


def test_csl_json_has_the_schema_fields_and_types(papers: list[Paper]) -> None:
    items = json.loads(export_papers(papers, "csl-json"))
    assert isinstance(items, list) and len(items) == len(papers)
    assert len({item["id"] for item in items}) == len(papers)
    for paper, item in zip(papers, items, strict=True):
        assert {"id", "type", "title", "author", "issued"} <= set(item) <= CSL_STRINGS | {"author", "issued"}
        assert all(isinstance(item[k], str) and item[k] for k in CSL_STRINGS & set(item))
        assert item["type"] in CSL_TYPES
        assert item["issued"] == {"date-parts": [[paper.year]]}
        assert all(set(a) <= {"family", "given", "suffix"} and a["family"] for a in item["author"])
        assert all(isinstance(v, str) for a in item["author"] for v in a.values())
        assert [" ".join(filter(None, [a.get("given"), a["family"], a.get("suffix")])) for a in item["author"]] == [
            " ".join(a.name.split()) for a in paper.authors
        ]
        if item["type"] == "paper-conference":
            assert item["container-title"] == booktitle(paper)
    types = [item["type"] for item in items]
    assert types.count("paper-conference") == 1031 + 860 and types.count("manuscript") == len(papers) - 1891


def test_bibtex_through_the_registry_still_parses(papers: list[Paper]) -> None:
    library = bibtexparser.parse_string(export_papers(papers, "bibtex"))
    assert not library.failed_blocks and len(library.entries) == len(papers)


@pytest.mark.parametrize(
    ("name", "family", "given", "suffix"),
    [
        ("Mohammad Taher Pilehvar", "Pilehvar", "Mohammad Taher", ""),
        ("Ludwig van der Maaten", "van der Maaten", "Ludwig", ""),
        ("Martin Luther King Jr.", "King", "Martin Luther", "Jr."),
        ("Schölkopf, Bernhard", "Schölkopf", "Bernhard", ""),
        ("Madonna", "Madonna", "", ""),
    ],
)
def test_names_split_as_bibtex_does(name: str, family: str, given: str, suffix: str) -> None:
    parts = split_name(name)
    assert (parts.family, parts.given, parts.suffix) == (family, given, suffix)


def test_download_names_in_any_script_are_latin1_safe() -> None:
    header = content_disposition(f"{LIST}.bib")
    header.encode("latin-1")  # what the server sends: it must not fail
    assert header == f"attachment; filename=\"O_lecturas.bib\"; filename*=UTF-8''{quote(LIST, safe='')}.bib"
    assert (
        content_disposition("读书.ris")
        == "attachment; filename=\"download.ris\"; filename*=UTF-8''%E8%AF%BB%E4%B9%A6.ris"
    )
    assert content_disposition('a/b\\.."c.bib').startswith("attachment; filename=\"a_b_c.bib\"; filename*=UTF-8''a_b_")


@pytest.fixture(scope="module")
def web_db(light_topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2021 with themes, and a reading list named in three scripts."""
    path = clone(light_topics_db, tmp_path_factory.mktemp("web-exports"), "exports")
    with open_store(path) as store:
        ids = [p.id for p in store.papers(PaperFilter(venue="iclr2021"), limit=5)]
        store.create_list(LIST)
        for paper_id in ids:
            store.add_to_list(LIST, paper_id, "iclr2021")
    return path


def test_web_downloads_a_list_named_in_any_script(web_db: Location) -> None:
    client = TestClient(create_app(web_db), base_url="http://127.0.0.1")
    for url in (f"/api/lists/{quote(LIST)}/export.bib", f"/api/lists/{quote(LIST)}/export.csv"):
        answer = client.get(url)
        assert answer.status_code == 200, answer.text
        assert f"filename*=UTF-8''{quote(LIST, safe='')}." in answer.headers["content-disposition"]
    for fmt, extension in (("bibtex", "bib"), ("ris", "ris"), ("csl-json", "json")):
        answer = client.get("/api/export", params={"format": fmt, "list": LIST})
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-disposition"].endswith(f"{quote(LIST, safe='')}.{extension}")
    assert len(rispy.loads(client.get("/api/export", params={"format": "ris", "list": LIST}).text)) == 5
    page = client.get("/lists", params={"name": LIST}).text
    assert f'href="/api/export?format=ris&amp;list={quote(LIST, safe="").replace("%20", "+")}"' in page


def test_web_exports_a_search_a_theme_and_a_paper(web_db: Location) -> None:
    client = TestClient(create_app(web_db), base_url="http://127.0.0.1")
    found = client.get("/api/export", params={"format": "csl-json", "q": "graph neural networks", "limit": 7})
    assert found.status_code == 200 and len(found.json()) == 7
    assert 'filename="search_graph_neural_networks.json"' in found.headers["content-disposition"]
    search_page = client.get("/search", params={"q": "graph neural networks", "venue": "iclr2021"}).text
    assert "/api/export?format=bibtex&amp;q=graph+neural+networks&amp;venue=iclr2021&amp;limit=20" in search_page
    themes = client.get("/api/topics", params={"venue": "iclr2021"}).json()
    theme = themes[0]
    bib = client.get("/api/export", params={"format": "bibtex", "theme": theme["id"], "venue": "iclr2021"})
    assert bib.status_code == 200 and len(bibtexparser.parse_string(bib.text).entries) == theme["size"]
    assert (
        f"/api/export?format=ris&amp;theme={theme['id']}&amp;venue=iclr2021"
        in client.get(f"/themes/iclr2021/{theme['id']}").text
    )
    paper = theme["paper_ids"][0]
    ris = client.get("/api/export", params={"format": "ris", "ids": paper, "venue": "iclr2021"})
    assert ris.status_code == 200 and rispy.loads(ris.text)[0]["title"]
    assert (
        f"/api/export?format=csl-json&amp;ids={quote(paper, safe='')}&amp;venue=iclr2021"
        in client.get(f"/paper/{quote(paper, safe='')}", params={"venue": "iclr2021"}).text
    )
    assert client.get("/api/export", params={"format": "docx", "list": LIST}).status_code == 400
    assert client.get("/api/export", params={"format": "ris"}).status_code == 400  # nothing chosen
    assert client.get("/api/export", params={"format": "ris", "list": "no such list"}).status_code == 404


def test_web_exports_by_filters_alone_as_the_cli_does(web_db: Location, tmp_path: Path) -> None:
    """`confnav export --search ""` with filters exports every paper meeting them; the web export needed words.
    Now a venue's accepted papers download from the filters alone (no limit: the whole set), linked from the
    search page that lists them."""
    client = TestClient(create_app(web_db), base_url="http://127.0.0.1")
    filters = {"venue": "iclr2021", "decision": "accepted"}
    bib = client.get("/api/export", params={"format": "bibtex", **filters})
    assert bib.status_code == 200, bib.text
    entries = bibtexparser.parse_string(bib.text).entries
    out = tmp_path / "accepted.bib"
    args = ["export", "--search", "", "--venue", "iclr2021", "--decision", "accepted", "-o", str(out)]
    said = CliRunner().invoke(cli, [*args, "--db", str(web_db)])
    assert said.exit_code == 0, said.stderr
    assert len(entries) == 860 == len(bibtexparser.parse_string(out.read_text()).entries)  # ICLR 2021's accepted
    assert [e.key for e in entries] == [e.key for e in bibtexparser.parse_string(out.read_text()).entries]
    assert client.get("/api/export", params={"format": "csv", "q": "", **filters}).text.count("\n") == 861
    page = client.get("/search", params=filters).text
    assert 'href="/api/export?format=bibtex&amp;venue=iclr2021&amp;decision=accepted"' in page
    assert "every paper meeting these filters" in page
    linked = client.get("/api/export?format=bibtex&venue=iclr2021&decision=accepted")
    assert linked.status_code == 200 and linked.text == bib.text
    assert client.get("/api/export", params={"format": "bibtex", "q": ""}).status_code == 400  # nothing chosen
    odd = client.get("/api/export", params={"format": "bibtex", "sort": "\x15", **filters})  # sorted here: checked here
    assert odd.status_code == 400 and "unknown sort" in odd.text


def test_cli_export_writes_all_three(web_db: Location, tmp_path: Path) -> None:
    runner = CliRunner()
    for fmt, extension in (("bibtex", "bib"), ("ris", "ris"), ("csl-json", "json")):
        target = tmp_path / f"list.{extension}"
        run = runner.invoke(cli, ["export", "--db", str(web_db), "--format", fmt, "--list", LIST, "-o", str(target)])
        assert run.exit_code == 0, run.output
        assert target.exists()
    assert len(bibtexparser.parse_string((tmp_path / "list.bib").read_text()).entries) == 5
    ris = (tmp_path / "list.ris").read_bytes().decode()
    assert len(strict_ris(ris)) == len(rispy.loads(ris)) == 5  # the file keeps RIS's CR LF line ends
    assert len(json.loads((tmp_path / "list.json").read_text())) == 5
    args = ["export", "--db", str(web_db), "--format", "ris"]
    run = runner.invoke(
        cli, [*args, "--search", "offline reinforcement learning", "--venue", "iclr2021", "--limit", "4"]
    )
    assert run.exit_code == 0 and len(rispy.loads(run.stdout)) == 4
    with open_store(web_db) as store:
        theme = get_theme(store, "iclr2021", store.themes("iclr2021", 1)[0].id)
    run = runner.invoke(cli, [*args, "--theme", theme.id, "--venue", "iclr2021"])
    assert run.exit_code == 0, run.stderr
    assert len(rispy.loads(run.stdout)) == theme.size
    run = runner.invoke(cli, [*args, "--list", LIST, "--search", "x"])
    assert run.exit_code == 1 and run.stderr.startswith("error: export needs exactly one of")
    run = runner.invoke(cli, [*args, "--theme", theme.id])
    assert run.exit_code == 1 and "name its venue" in run.stderr
