"""BibTeX ready to cite, parsed by a real BibTeX parser: protected capitals, each track's proceedings, unique keys."""

from __future__ import annotations

from pathlib import Path

import bibtexparser
import pytest

from confnav.export import bib_text, to_bibtex
from confnav.ingest import ingest
from confnav.store import open_store
from tests.conftest import DATA


@pytest.fixture(scope="module")
def real_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ACL 2022 (long, short, findings), ICLR 2018 (with its workshop track) and ICLR 2021, as published."""
    path = tmp_path_factory.mktemp("bib") / "bib.db"
    files = [DATA / "paperlists" / "acl2022.json", DATA / "paperlists" / "iclr2018.json"]
    with open_store(path, create=True) as store:
        ingest(store, [*files, DATA / "iclr2021" / "paperlists-iclr2021.json"])
    return path


def parsed(papers: list) -> dict[str, dict[str, str]]:  # type: ignore[type-arg]
    library = bibtexparser.parse_string(to_bibtex(papers))
    assert not library.failed_blocks, [b.error for b in library.failed_blocks]  # type: ignore[attr-defined]
    assert len(library.entries) == len(papers)
    return {e.key: {f.key: f.value for f in e.fields} | {"type": e.entry_type} for e in library.entries}


def test_every_real_paper_parses_with_unique_keys(real_db: Path) -> None:
    with open_store(real_db) as store:
        for venue in ("acl2022", "iclr2018", "iclr2021"):
            papers = list(store.iter_papers(venue))
            entries = parsed(papers)  # keys unique: one entry per paper
            assert len(entries) == len(papers)


def test_titles_keep_their_capitals_and_each_track_its_proceedings(real_db: Path) -> None:
    with open_store(real_db) as store:
        acl = list(store.iter_papers("acl2022"))
        iclr = list(store.iter_papers("iclr2021"))
        iclr2018 = list(store.iter_papers("iclr2018"))
    findings = [p for p in acl if p.decision.kind == "findings"]
    main = [p for p in acl if p.decision.kind == "long"]
    entries = parsed(findings[:50] + main[:50])
    books = [e["booktitle"] for e in entries.values()]
    assert books.count("Findings of the Association for Computational Linguistics: ACL 2022") == 50
    assert books.count("Annual Meeting of the Association for Computational Linguistics") == 50
    delight = next(p for p in iclr if p.title.startswith("DeLighT"))
    bert = [p for p in acl if " BERT " in f" {p.title} "][:3]
    titles = [e["title"] for e in parsed([delight, *bert]).values()]
    assert titles[0].startswith("{DeLighT:}") and all("{BERT}" in t for t in titles[1:])
    workshop = next(p for p in iclr2018 if p.decision.outcome.value == "workshop")
    entry = next(iter(parsed([workshop]).values()))
    assert entry["type"] == "inproceedings"
    assert entry["booktitle"] == "International Conference on Learning Representations, Workshop Track"


def test_special_characters_are_tex() -> None:
    assert bib_text("Bernhard Schölkopf, Miličić") == "Bernhard Sch{\\\"o}lkopf, Mili{\\v{c}}i{\\'c}"
    assert bib_text("100% & $x_1$ #1") == "100\\% \\& \\$x\\_1\\$ \\#1"
