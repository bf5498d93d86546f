"""BibTeX ready to cite, parsed by a real BibTeX parser: protected capitals, each track's proceedings, unique keys,
stored TeX math kept as math and typography as TeX writes it (RIS and CSL-JSON: readable text instead)."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import pytest

from confnav.export import bib_text, to_bibtex, to_csl_json, to_ris
from confnav.export.tex import latex_text
from confnav.ingest import ingest
from confnav.personal import export_profile, import_library
from confnav.store import open_store
from confnav.store.sql import SqlStore
from tests.conftest import DATA


@pytest.fixture(scope="module")
def real_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ACL 2022 (long, short, findings), ICLR 2018 (with its workshop track), ICLR 2021 and CoRL 2023, as
    published."""
    path = tmp_path_factory.mktemp("bib") / "bib.db"
    files = [DATA / "paperlists" / name for name in ("acl2022.json", "iclr2018.json", "corl2023.json")]
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


def _titles(store: SqlStore, ids: list[str]) -> list:  # type: ignore[type-arg]
    by_id = {p.id: p for p in store.iter_papers()}
    return [by_id[i] for i in ids]


def test_stored_tex_math_stays_math_and_typography_becomes_tex(real_db: Path) -> None:
    """Titles as OpenReview and the ACL Anthology give them: math in `$...$` kept for LaTeX to typeset (braced,
    so no style lower-cases it), ligatures as letters, dashes and curly quotes as TeX's `--`, `---`, ``` `` ```."""
    ids = ["0p-aRvcVs-U", "r1RQdCg0W", "0hQMcWfjG9", "yobahDU4HPP", "B13EC5u6W", "BybQ7zWCb", "2022.acl-long.191"]
    with open_store(real_db) as store:
        papers = _titles(store, ids)
    titles = [e["title"] for e in parsed(papers).values()]
    assert titles[0] == "{{$\\alpha$}VIL:} Learning to Leverage Auxiliary Tasks for Multitask Learning"
    assert "{$O(d\\log{K})$}" in titles[1] and "\\$" not in titles[1]
    assert titles[2].startswith("{{$\\alpha$}-MDF:} An Attention-based")
    assert titles[3] == "Learning Realistic Traffic Agents in Closed-loop"
    assert "machine --- generating" in titles[4] and titles[5].startswith("``Style'' Transfer")
    assert "Global--Local" in titles[6]
    assert all(t.isascii() for t in titles)
    # Read back as TeX prints it, each is the title a reader sees on OpenReview.
    assert latex_text(titles[0]) == "αVIL: Learning to Leverage Auxiliary Tasks for Multitask Learning"
    assert (
        latex_text(titles[4])
        == "Thinking like a machine — generating visual rationales through latent space optimization"
    )


def test_ris_and_csl_json_show_math_as_text(real_db: Path) -> None:
    with open_store(real_db) as store:
        papers = _titles(store, ["0p-aRvcVs-U", "yobahDU4HPP", "2022.findings-acl.1"])
    ris = to_ris(papers)
    assert (
        "TI  - αVIL: Learning to Leverage Auxiliary Tasks" in ris and "TI  - Learning Realistic Traffic Agents" in ris
    )
    items = json.loads(to_csl_json(papers))
    assert [i["title"][:22] for i in items] == [
        "αVIL: Learning to Leve",
        "Learning Realistic Tra",
        "“Is Whole Word Masking",
    ]
    assert "$" not in ris and all("$" not in i.get("abstract", "") for i in items)


def test_an_own_text_is_cited_by_its_family_name(store: SqlStore, tmp_path: Path) -> None:
    """A Zotero/JabRef entry's "Family, Given" authors: the key is the family name's, as for "Given Family"."""
    bib = tmp_path / "mine.bib"
    bib.write_text(
        "@article{myown2024,\n  title = {My Own Unpublished Work on Tactile Sensing},\n"
        '  author = {M{\\"u}ller, J{\\"o}rg and Nobody, A.},\n  year = {2024}\n}\n'
        "@misc{other,\n  title = {Another Draft of Mine},\n  author = {Ludwig van Beethoven},\n  year = 2023\n}\n",
        encoding="utf-8",
    )
    import_library(store, [bib])
    keys = [e.key for e in bibtexparser.parse_string(export_profile(store, "me", "bibtex")).entries]
    assert keys == ["muller2024unpublished", "beethoven2023another"]
