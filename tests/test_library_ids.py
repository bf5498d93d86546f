"""Library entries matched by ACL Anthology id and DOI, one title at two venues told apart, and BibTeX entries
that are no paper (volumes, undefined @string values) reported by line: EMNLP 2020 (MiniConf lists, whose
papers hold their Anthology links) beside ICLR 2020 (TinyBERT was submitted to both), from the real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from confnav.ingest import ingest
from confnav.personal import import_library
from confnav.personal.formats import ids_in
from confnav.store import open_store
from tests.backends import Location, clone
from tests.conftest import DATA

EMNLP = [DATA / "miniconf" / "emnlp2020" / f"{part}_papers.csv" for part in ("main", "findings", "demo")]


@pytest.fixture(scope="module")
def two_venues(iclr2020_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """The session's ICLR 2020 store with EMNLP 2020's three MiniConf lists added; copy before writing."""
    location = clone(iclr2020_db, tmp_path_factory.mktemp("acl"), "two")
    with open_store(location) as store:
        ingest(store, EMNLP)
    return location


def _anthology(uid: str) -> str:
    """The Anthology id of an EMNLP 2020 paper, from the `pdf_url` its MiniConf row gives."""
    import csv

    for path in EMNLP:
        with path.open(encoding="utf-8") as rows:
            for row in csv.DictReader(rows):
                if row["UID"] == uid:
                    return row["pdf_url"].rstrip("/").rsplit("/", 1)[1]
    raise KeyError(uid)


def test_anthology_ids_are_read_from_links_dois_and_text() -> None:
    for text in (
        "https://www.aclweb.org/anthology/2020.emnlp-main.188",
        "https://aclanthology.org/2020.emnlp-main.188/",
        "https://aclanthology.org/2020.emnlp-main.188v2.pdf",
        "doi:10.18653/v1/2020.emnlp-main.188",
        "https://doi.org/10.18653/v1/2020.emnlp-main.188",
        "2020.emnlp-main.188",
        "AnswerFact: Fact Checking in Product Question Answering. 2020.emnlp-main.188",
    ):
        assert ids_in(text)["acl"] == "2020.emnlp-main.188", text
    assert ids_in("https://www.aclweb.org/anthology/P19-1001.pdf")["acl"] == "P19-1001"
    assert ids_in("10.18653/v1/N19-1423") == {"doi": "10.18653/v1/n19-1423", "acl": "N19-1423"}
    for text in ("COVID-19 and A10-2020", "version 2020.1.5", "https://aclanthology.org/volumes/2020.emnlp-main/"):
        assert "acl" not in ids_in(text), text


def test_dois_and_anthology_links_match_acl_papers(two_venues: Location, tmp_path: Path) -> None:
    """A DOI-only reading list, Anthology links and ids, and an ACL Anthology BibTeX entry whose title ICLR 2020
    shares: each the EMNLP paper it names."""
    answer_fact, tinybert = _anthology("main.1004"), _anthology("findings.372")
    assert (answer_fact, tinybert) == ("2020.emnlp-main.188", "2020.findings-emnlp.372")
    lines = tmp_path / "dois.txt"
    lines.write_text(
        f"# from Semantic Scholar\n10.18653/v1/{tinybert}\nhttps://www.aclweb.org/anthology/{answer_fact}\n"
        f"{answer_fact}\nhttps://aclanthology.org/{_anthology('demo.102')}.pdf\n10.18653/v1/2099.nothing-main.1\n",
        encoding="utf-8",
    )
    with open_store(clone(two_venues, tmp_path)) as store:
        report = import_library(store, [lines], "dois")
        assert (report.matched, report.own, report.added) == (4, 0, 3)
        assert report.problems == [
            "dois.txt: line 6: no paper in the store with doi 10.18653/v1/2099.nothing-main.1, "
            "ACL Anthology id 2099.nothing-main.1, skipped"
        ]
        held = {(i.venue, i.paper_id) for i in store.profile_items("dois")}
        assert held == {("emnlp2020", "findings.372"), ("emnlp2020", "main.1004"), ("emnlp2020", "demo.102")}


def test_one_title_at_two_venues_is_the_one_the_entry_names(two_venues: Location, tmp_path: Path) -> None:
    """TinyBERT was rejected at ICLR 2020 and is in EMNLP 2020's Findings: the venue an entry names (a short name
    or the proceedings' title) decides which, whatever the order the store lists them in."""
    with open_store(two_venues) as store:
        shared = [p for p in store.iter_papers() if p.title.startswith("TinyBERT")]
    assert sorted(p.venue for p in shared) == ["emnlp2020", "iclr2020"]
    iclr = next(p.id for p in shared if p.venue == "iclr2020")
    bib = tmp_path / "scholar.bib"
    bib.write_text(  # as Google Scholar writes an entry: no DOI, no link
        "@inproceedings{jiao2020tinybert,\n  title={Tinybert: Distilling bert for natural language understanding},\n"
        "  author={Jiao, Xiaoqi and Yin, Yichun and Shang, Lifeng},\n  booktitle={Findings of the Association for"
        " Computational Linguistics: EMNLP 2020},\n  pages={4163--4174},\n  year={2020}\n}\n",
        encoding="utf-8",
    )
    ris = tmp_path / "mendeley.ris"
    ris.write_text(
        "TY  - CONF\r\nTI  - TinyBERT: Distilling BERT for Natural Language Understanding\r\nPY  - 2020\r\n"
        "T2  - International Conference on Learning Representations\r\nER  - \r\n",
        encoding="utf-8",
    )
    csl = tmp_path / "zotero.json"
    csl.write_text(
        json.dumps(
            [
                {
                    "id": "http://zotero.org/users/1/items/AB12CD34",
                    "type": "paper-conference",
                    "title": "TinyBERT: Distilling BERT for Natural Language Understanding",
                    "container-title": "Findings of the Association for Computational Linguistics: EMNLP 2020",
                    "issued": {"date-parts": [["2020", 11]]},
                }
            ]
        ),
        encoding="utf-8",
    )
    with open_store(clone(two_venues, tmp_path)) as store:
        picked = {}
        for path in (bib, ris, csl):
            import_library(store, [path], path.stem)
            (item,) = store.profile_items(path.stem)
            picked[path.name] = (item.venue, item.paper_id)
    assert picked == {
        "scholar.bib": ("emnlp2020", "findings.372"),
        "mendeley.ris": ("iclr2020", iclr),
        "zotero.json": ("emnlp2020", "findings.372"),
    }


def test_volumes_and_undefined_strings_are_reported_by_line(two_venues: Location, tmp_path: Path) -> None:
    """A DBLP/JabRef file: papers citing their @proceedings by crossref (inheriting its year and title as their
    booktitle), a @book only cited as a volume, a @periodical, and a title that is an @string defined elsewhere."""
    with open_store(two_venues) as store:
        snow = next(p for p in store.iter_papers("iclr2020") if p.title.startswith("SNOW:"))
    bib = tmp_path / "dblp.bib"
    bib.write_text(
        "@string{iclr = {International Conference on Learning Representations}}\n"  # line 1
        "\n"
        "@inproceedings{DBLP:conf/iclr/YooKC20,\n"  # line 3
        f"  title     = {{{{SNOW:}} {snow.title.split(': ', 1)[1]}}},\n"
        "  author    = {Chungkuk Yoo and Bumsoo Kang and Minsik Cho},\n"
        "  crossref  = {DBLP:conf/iclr/2020},\n"
        "}\n"
        "\n"
        "@proceedings{DBLP:conf/iclr/2020,\n"  # line 9
        "  title     = {8th International Conference on Learning Representations, {ICLR} 2020},\n"
        "  publisher = {OpenReview.net},\n"
        "  year      = {2020},\n"
        "}\n"
        "@book{volume, title = {Deep Learning Volume}, year = 2016}\n"  # line 14
        "@incollection{chapter, title = {A Chapter of Mine on Sparse Coding}, crossref = {volume}}\n"
        "@periodical{jmlr, title = {Journal of Machine Learning Research}}\n"  # line 16
        "@book{mine, title = {A Book of My Own on Learning Theory}, year = 2019}\n"
        "@article{elsewhere, title = undefinedmacro, journal = iclr, year = 2021}\n"  # line 18
        "@misc{joined, title = {Notes on } # otherfile, year = 2022}\n",  # line 19
        encoding="utf-8",
    )
    with open_store(clone(two_venues, tmp_path)) as store:
        report = import_library(store, [bib])
        items = store.profile_items("me")
    assert report.problems == [
        "dblp.bib: line 9: a @proceedings entry is a volume, not a paper ('DBLP:conf/iclr/2020'), skipped",
        "dblp.bib: line 14: a @book entry other entries cite as their crossref volume, not a paper ('volume'), skipped",
        "dblp.bib: line 16: a @periodical entry is a volume, not a paper ('jmlr'), skipped",
        "dblp.bib: line 18: title is 'undefinedmacro', an @string this file does not define; read as empty",
        "dblp.bib: line 19: title is 'otherfile', an @string this file does not define; read as empty",
        "dblp.bib: line 18: an entry with neither a title nor an id, skipped",
    ]
    assert [(i.paper_id, i.venue) for i in items if i.paper_id] == [(snow.id, "iclr2020")]
    own = {i.title: i.year for i in items if not i.paper_id}
    assert own == {
        "A Chapter of Mine on Sparse Coding": 2016,
        "A Book of My Own on Learning Theory": 2019,
        "Notes on": 2022,
    }
