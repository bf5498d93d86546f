"""A researcher's profile: their library imported (BibTeX, CSL-JSON, ids per line) into the ICLR 2021 store,
marks, export, and recommendations that learn from them (TF-IDF vectors: no semantic model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import bibtexparser
import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.errors import ConfnavError
from confnav.personal import export_profile, import_library, mark, recommend_for
from confnav.store import open_store
from tests.backends import Location, clone
from tests.conftest import DATA


def _graph_papers() -> list[dict[str, Any]]:
    """Accepted ICLR 2021 papers about graphs, from the real paper list."""
    papers = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text(encoding="utf-8"))
    return [p for p in papers if p["status"] in ("Poster", "Spotlight", "Oral") and "graph" in p["title"].lower()]


@pytest.fixture(scope="module")
def sparse_iclr(sparse_template_db: Location) -> Location:
    """ICLR 2021 with the TF-IDF index (the session's); copy before writing."""
    return sparse_template_db


@pytest.fixture
def library(tmp_path: Path) -> tuple[Path, Path, list[dict[str, Any]]]:
    """A BibTeX file (two papers by title, one by OpenReview URL, one of the researcher's own, one malformed
    entry) and a CSL-JSON file (two by OpenReview URL, one own)."""
    graph = _graph_papers()
    first, second, third = graph[0], graph[1], graph[2]
    bib = tmp_path / "mine.bib"
    bib.write_text(
        f"""@inproceedings{{a,
  title = {{{{{first["title"].upper()}}}}},
  year = {{2021}}
}}

@inproceedings{{b,
  title = {{{second["title"]}}},
  booktitle = {{ICLR}},
  year = 2021
}}

@misc{{c,
  title = {{Some other title}},
  url = {{https://openreview.net/forum?id={third["id"]}}}
}}

@article{{broken,
  title = {{Unclosed

@article{{own,
  title = {{Message passing on molecular graphs with learned edge features}},
  abstract = {{We study graph neural networks for molecules and learn edge features end to end.}},
  year = {{2019}}
}}
""",
        encoding="utf-8",
    )
    csl = tmp_path / "zotero.json"
    csl.write_text(
        json.dumps(
            [
                {
                    "id": "x1",
                    "type": "paper-conference",
                    "title": p["title"],
                    "URL": f"https://openreview.net/forum?id={p['id']}",
                }
                for p in graph[3:5]
            ]
            + [{"id": "x2", "type": "article", "title": "Graph kernels revisited", "issued": {"date-parts": [[2018]]}}]
        ),
        encoding="utf-8",
    )
    return bib, csl, graph


def test_a_library_is_matched_to_the_store_and_the_rest_kept_as_own_texts(
    sparse_iclr: Location, tmp_path: Path, library: tuple[Path, Path, list[dict[str, Any]]]
) -> None:
    bib, csl, graph = library
    location = clone(sparse_iclr, tmp_path)
    with open_store(location) as store:
        report = import_library(store, [bib, csl])
        assert (report.matched, report.own, report.added) == (5, 2, 7)
        assert len(report.problems) == 1 and "mine.bib: line 17: unreadable BibTeX entry" in report.problems[0]
        items = store.profile_items("me")
        assert {i.paper_id for i in items if i.paper_id} == {p["id"] for p in graph[:5]}
        own = [i for i in items if not i.paper_id]
        assert [(i.title, i.year) for i in own] == [
            ("Message passing on molecular graphs with learned edge features", 2019),
            ("Graph kernels revisited", 2018),
        ]
        assert import_library(store, [bib]).added == 0  # importing again adds nothing twice

        exported = bibtexparser.parse_string(export_profile(store, "me", "bibtex"))
        assert len(exported.entries) == 7 and not exported.failed_blocks
        again = tmp_path / "again.json"
        again.write_text(export_profile(store, "me", "csl-json"), encoding="utf-8")
        assert import_library(store, [again], "copy").matched == 5


def test_a_file_that_is_no_library_is_one_error_and_nothing_written(sparse_iclr: Location, tmp_path: Path) -> None:
    location = clone(sparse_iclr, tmp_path)
    good = tmp_path / "ids.txt"
    good.write_text(f"{_graph_papers()[0]['id']}\n", encoding="utf-8")
    for name, content in (("data.json", b'{"papers": 3}'), ("blob.bib", b"\x89PNG\r\n\x1a\n\xff\x00"), ("x.bib", b"")):
        bad = tmp_path / name
        bad.write_bytes(content)
        with open_store(location) as store, pytest.raises(ConfnavError, match=name):
            import_library(store, [good, bad])
    with open_store(location) as store:
        assert store.profiles() == []
        with pytest.raises(ConfnavError, match="no paper with id"):
            mark(store, "me", ["not-an-id"], "like")


def _cli(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    return result


def test_recommendations_learn_from_the_profile_and_say_why(
    sparse_iclr: Location, tmp_path: Path, library: tuple[Path, Path, list[dict[str, Any]]]
) -> None:
    bib, csl, graph = library
    db = str(clone(sparse_iclr, tmp_path))
    imported = _cli("profile", "import", str(bib), str(csl), "--db", db)
    assert imported.exit_code == 0, imported.output
    assert "5 entries matched" in imported.output and "line 17" in imported.output

    result = _cli("recommend", "--for", "me", "--venue", "iclr2021", "--limit", "15", "--json", "--db", db)
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert len(hits) == 15
    assert not {h["id"] for h in hits} & {p["id"] for p in graph[:5]}
    assert all(h["reason"].startswith("close to your '") for h in hits)
    assert sum("graph" in h["title"].lower() for h in hits) >= 8  # the profile is about graphs
    assert any("(2019)" in h["reason"] or "(2018)" in h["reason"] or "(2021)" in h["reason"] for h in hits)

    top = hits[0]["id"]
    assert _cli("profile", "dislike", top, "--db", db).exit_code == 0
    with open_store(db) as store:
        after = recommend_for(store, "me", "iclr2021", limit=15)
    assert top not in {r.paper.id for r in after}
    assert [r.paper.id for r in after] != [h["id"] for h in hits if h["id"] != top][:15]

    shown = _cli("profile", "show", "--db", db)
    assert "dislike: " + top in shown.output and "your text" in shown.output


def test_an_empty_profile_asks_for_likes(sparse_iclr: Location, tmp_path: Path) -> None:
    db = str(clone(sparse_iclr, tmp_path))
    unknown = tmp_path / "ids.txt"
    unknown.write_text("10.9999/nothing.here\n", encoding="utf-8")
    imported = _cli("profile", "import", str(unknown), "--profile", "new", "--db", db)
    assert imported.exit_code == 0 and "line 1: no paper in the store with doi 10.9999/nothing.here" in imported.output
    result = _cli("recommend", "--for", "new", "--db", db)
    assert result.exit_code != 0 and "profile like" in result.output and "Traceback" not in result.output


def test_ris_and_id_lines_are_read(sparse_iclr: Location, tmp_path: Path) -> None:
    first, second = _graph_papers()[:2]
    ris = tmp_path / "mendeley.ris"
    ris.write_text(
        f"TY  - CONF\nTI  - {first['title']}\nPY  - 2021\nER  - \n\nTY  - JOUR\nTI  - My thesis chapter\n"
        "AB  - On graphs.\nDA  - 2020/05/01\nER  - \n",
        encoding="utf-8",
    )
    lines = tmp_path / "ids.txt"
    lines.write_text(f"# my reading\nhttps://openreview.net/forum?id={second['id']}\n{first['id']}\n", encoding="utf-8")
    with open_store(clone(sparse_iclr, tmp_path)) as store:
        report = import_library(store, [ris, lines])
        assert (report.matched, report.own, report.added, report.problems) == (3, 1, 3, [])
        exported = export_profile(store, "me", "ris")
        assert exported.count("TY  - ") == 3 and "AB  - On graphs." in exported and "PY  - 2020" in exported


def _iclr2021(title_part: str) -> dict[str, Any]:
    """The real ICLR 2021 record whose title holds this text."""
    papers = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text(encoding="utf-8"))
    return next(p for p in papers if title_part in p["title"])


def test_libraries_as_real_tools_write_them_are_matched(sparse_iclr: Location, tmp_path: Path) -> None:
    """TeX in BibTeX titles, @string joins, all-letter OpenReview ids, flat CSL dates, a single CSL item, wrapped
    RIS lines, Latin-1 and UTF-16 files, a title beside its arXiv id, a .txt list opening with a bracket."""
    ito, alpha = _iclr2021("Itô Processes"), _iclr2021("$\\alpha$VIL")
    listed = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text(encoding="utf-8"))
    letters = next(p for p in listed if p["id"].isalpha())
    wrapped = "TY  - JOUR\r\nTI  - Robust Ensembles of\r\n  Neural Networks using Itô Processes\r\nER  - \r\n"
    files = {
        "tex.bib": (
            "@string{conf = {ICLR}}\n@inproceedings{a, title = {Robust Ensembles of Neural Networks using It{\\^o}"
            ' Processes}, booktitle = "Proc. " # conf, year = 2021}\n'
            f"@inproceedings{{b, title = {{{{{alpha['title'].replace(' ', ' ', 1)}}}}}, year = 2021}}\n"
            '@inproceedings{c, title = "Mine: " # conf # { Notes}, author = {M{\\"u}ller, J. and Smith, A.}}\n'
        ).encode(),
        "ids.txt": f"[1] a bracketed line\n{letters['id']}\n".encode(),
        "flat.json": json.dumps({"title": "Flat dates", "issued": {"date-parts": [2019, 4]}}).encode(),
        "wrapped.ris": wrapped.encode(),
        "old.bib": "@misc{d, title = {Caf\u00e9 cr\u00e8me}, year = 2017}\n".encode("latin-1"),
        "win.txt": f"{alpha['title']}\n".encode("utf-16"),
    }
    paths = []
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
        paths.append(tmp_path / name)
    with open_store(clone(sparse_iclr, tmp_path)) as store:
        report = import_library(store, paths)
        items = store.profile_items("me")
        assert {i.paper_id for i in items if i.paper_id} == {ito["id"], alpha["id"], letters["id"]}
        own = {i.title: i.year for i in items if not i.paper_id}
        assert own == {"Mine: ICLR Notes": None, "[1] a bracketed line": None, "Flat dates": 2019, "Café crème": 2017}
        assert report.problems == [] and report.matched == 5  # the RIS entry and the UTF-16 line name two again
        exported = export_profile(store, "me", "csl-json")
    mine = next(e for e in json.loads(exported) if e["title"] == "Mine: ICLR Notes")
    assert mine["author"] == [{"family": "Müller", "given": "J."}, {"family": "Smith", "given": "A."}]


def test_a_profile_exports_as_confnav_export_writes(sparse_iclr: Location, tmp_path: Path) -> None:
    """TeX's special characters escaped, own texts' authors and arXiv ids kept, and the export read back whole."""
    own = tmp_path / "own.json"
    own.write_text(
        json.dumps(
            [
                {
                    "title": "Cats & Dogs: 50% of x_i cost $5 #1 {braced}",
                    "author": [{"family": "Ørsted", "given": "Hans"}, {"literal": "The Team"}],
                    "URL": "https://arxiv.org/abs/2101.00001",
                    "issued": {"date-parts": [[2020]]},
                }
            ]
        ),
        encoding="utf-8",
    )
    with open_store(clone(sparse_iclr, tmp_path)) as store:
        import_library(store, [own])
        texts = {fmt: export_profile(store, "me", fmt) for fmt in ("bibtex", "ris", "csl-json")}
    bib = bibtexparser.parse_string(texts["bibtex"])
    (entry,) = bib.entries
    assert "Cats \\& Dogs: 50\\% of x\\_i cost \\$5 \\#1" in entry["title"] and entry["eprint"] == "2101.00001"
    assert entry["author"] == "{\\O}rsted, Hans and The Team" and entry.entry_type == "misc"
    assert "AU  - Ørsted, Hans" in texts["ris"] and "2101.00001" in texts["ris"]
    for fmt, name in (("bibtex", "back.bib"), ("ris", "back.ris"), ("csl-json", "back.json")):
        (tmp_path / name).write_text(texts[fmt], encoding="utf-8")
        (tmp_path / fmt).mkdir()
        with open_store(clone(sparse_iclr, tmp_path / fmt)) as store:
            import_library(store, [tmp_path / name])
            (item,) = store.profile_items("me")
            assert item.title == "Cats & Dogs: 50% of x_i cost $5 #1 {braced}", fmt


def test_notes_and_tags_come_back_from_an_export_and_from_a_reference_managers_library(
    sparse_iclr: Location, tmp_path: Path
) -> None:
    """A profile's notes and tags, exported in each format and imported into a new store, are its notes and tags
    again; a Zotero RIS note (HTML) and a BibTeX `annote` with `keywords` are read the same way, and the note an
    export derives from the data ("Submitted to …") is no note of the reader's."""
    rejected, accepted = (
        next(p for p in _graph_papers_all() if p["status"] == status) for status in ("Reject", "Poster")
    )
    with open_store(clone(sparse_iclr, tmp_path, "source")) as store:
        for paper in (rejected, accepted):
            store.note_paper("me", paper["id"], f"read the proofs of {paper['id']}, section 3")
            store.tag_paper("me", paper["id"], "graphs")
        store.tag_paper("me", accepted["id"], "to cite")
        texts = {fmt: export_profile(store, "me", fmt) for fmt in ("bibtex", "ris", "csl-json")}
        notes, tags = store.profile_notes("me"), store.profile_tags("me")
    zotero = tmp_path / "zotero.ris"
    zotero.write_text(
        f"TY  - CONF\r\nTI  - {accepted['title']}\r\nKW  - graphs\r\nKW  - to cite\r\n"
        f"N1  - <p>read the proofs of {accepted['id']}, <b>section 3</b></p>\r\nER  - \r\n",
        encoding="utf-8",
    )
    annotated = tmp_path / "annotated.bib"
    annotated.write_text(
        f"@inproceedings{{k, title = {{{accepted['title']}}}, keywords = {{graphs, to cite}},\n"
        f"  annote = {{read the proofs of {accepted['id']}, section 3}}}}\n",
        encoding="utf-8",
    )
    files = {"bibtex": "back.bib", "ris": "back.ris", "csl-json": "back.json"}
    for fmt, name in files.items():
        (tmp_path / name).write_text(texts[fmt], encoding="utf-8")
    for name in [*files.values(), "zotero.ris", "annotated.bib"]:
        with open_store(clone(sparse_iclr, tmp_path, f"into-{name.replace('.', '-')}")) as store:
            import_library(store, [tmp_path / name])
            got_notes, got_tags = store.profile_notes("me"), store.profile_tags("me")
        wanted = {k: v for k, v in notes.items() if name in files.values() or k[1] == accepted["id"]}
        assert got_notes == wanted, name
        assert {k: sorted(v) for k, v in got_tags.items()} == {k: sorted(v) for k, v in tags.items() if k in wanted}, (
            name
        )


def _graph_papers_all() -> list[dict[str, Any]]:
    papers = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text(encoding="utf-8"))
    return [p for p in papers if "graph" in p["title"].lower()]


def test_profile_verbs_read_ids_as_import_does_and_names_as_they_say(iclr2021_copy: Location) -> None:
    """`like`, `note` and `tag` take an OpenReview link or the id in any case, as `profile import` does; a profile
    name may hold letters of any script, accents typed as combining marks too, and a refused one says the rule."""
    paper = next(p for p in _graph_papers() if p["id"][0].isalpha())  # an id like `-6vS_4Kfz0` reads as an option
    db = str(iclr2021_copy)
    decomposed = "U\u0308n\u0131co\u0308de\u0301"  # Ünıcödé as some keyboards send it
    liked = _cli(
        "--db", db, "profile", "like", f"https://openreview.net/forum?id={paper['id']}", "--profile", decomposed
    )
    assert liked.exit_code == 0 and paper["title"] in liked.output, liked.output
    assert _cli("--db", db, "profile", "note", paper["id"].upper(), "a note", "--profile", decomposed).exit_code == 0
    assert _cli("--db", db, "profile", "tag", paper["id"].lower(), "gnn", "--profile", decomposed).exit_code == 0
    with open_store(iclr2021_copy) as store:
        assert store.profile_marks(decomposed) == [("iclr2021", paper["id"], "like")]
        assert store.profile_notes(decomposed) == {("iclr2021", paper["id"]): "a note"}
        assert store.profile_tags(decomposed) == {("iclr2021", paper["id"]): ["gnn"]}
    for name in (".hidden", "two words", "me\n", "x" * 61):
        refused = _cli("--db", db, "profile", "like", paper["id"], "--profile", name)
        assert refused.exit_code == 1 and "'_', '.' or '-', not beginning with '.' or '-'" in refused.output
    missing = _cli("--db", db, "profile", "like", "https://openreview.net/forum?id=NoSuchPaper1", "--profile", "me")
    assert (
        missing.exit_code == 1 and "no paper with id 'https://openreview.net/forum?id=NoSuchPaper1'" in missing.output
    )
