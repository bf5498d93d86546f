"""Same paper or a conflict: a record reusing a paper's id with another title is kept apart with a warning, whether
that paper came earlier in its file, in another file of the run or from the store (real ICLR 2021 records)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from confnav.ingest import ingest
from confnav.store import open_store
from tests.backends import Location, clone
from tests.conftest import DATA, ICLR2021

Write = Callable[[str, str], Path]
REJECTED = "--GJkm7nt0"  # a rejected ICLR 2021 paper of the paperlists file
TITLE = "Enhancing Visual Representations for Efficient Object Recognition during Online Distillation"


def _impostor(write: Write, name: str, **changes: str) -> Path:
    """A paperlists file (whose name sorts before the real one) reusing the rejected paper's id for another paper."""
    record = {"id": REJECTED, "title": "Scaling Laws for Oral Presentations", "status": "Oral", "author": "Ann Other"}
    return write(name, json.dumps([{**record, **changes}]))


def _kept_apart(location: Location, warnings: list[str]) -> None:
    with open_store(location) as store:
        real = store.get_paper(REJECTED, "iclr2021")
        others = [p for p in store.iter_papers("iclr2021") if p.id.startswith(f"{REJECTED}~")]
    assert real is not None and real.title.startswith("Enhancing Visual Representations")
    assert real.decision.label == "Reject" and real.authors[0].name == "Shashanka Venkataramanan"
    assert [(p.title, p.decision.label, p.authors[0].name) for p in others] == [
        ("Scaling Laws for Oral Presentations", "Oral", "Ann Other")
    ]
    assert any(f"id {REJECTED!r} is another paper's too in" in w and "kept apart" in w for w in warnings), warnings


def test_a_later_ingest_reusing_an_id_for_another_paper_never_overwrites_it(
    iclr2021_copy: Location, write: Write
) -> None:
    impostor = _impostor(write, "a-iclr2021.json")
    with open_store(iclr2021_copy) as store:
        result = ingest(store, [impostor])
        again = ingest(store, [impostor])
    _kept_apart(iclr2021_copy, result.warnings)
    assert result.added == 1 and result.updated == 0 and again.added == again.updated == 0


def test_two_files_of_one_run_sharing_an_id_keep_both_papers(fresh_location: Location, write: Write) -> None:
    impostor = _impostor(write, "a-iclr2021.json")
    with open_store(fresh_location, create=True) as store:
        result = ingest(store, [*ICLR2021, impostor])
        assert store.count_papers("iclr2021") == 3015
    _kept_apart(fresh_location, result.warnings)
    # the OpenReview list gives submitted titles, the paperlists file final ones: 163 papers differ, none split
    assert sum("another paper's too" in w for w in result.warnings) == 1


def test_the_same_paper_retitled_or_with_shared_authors_stays_one_paper(
    iclr2021_db: Location, write: Write, tmp_path: Path
) -> None:
    # a list of the same format with a paper renamed by its own authors, or a typo mended, is still that paper
    renamed = _impostor(write, "b-iclr2021.json", title="Online Distillation", author="Abhijit Mahalanobis")
    typo = write("c-iclr2021.json", json.dumps([{"id": REJECTED, "title": TITLE.replace("Online", "Onlien")}]))
    for name, path in (("renamed", renamed), ("typo", typo)):
        with open_store(clone(iclr2021_db, tmp_path, name)) as store:
            result = ingest(store, [path])
            assert result.warnings == [] and store.count_papers("iclr2021") == 3014, name


def test_colleagues_papers_under_one_id_stay_two_papers(fresh_location: Location, write: Write) -> None:
    """Two track files numbering their papers 1, 2, 3, and one file giving two papers one id: real CoRL 2023
    papers of one lab, each pair sharing authors (but not most of them) or a track apart, are never merged."""
    records = json.loads((DATA / "paperlists" / "corl2023.json").read_text(encoding="utf-8"))
    lab = [r for r in records if "Sergey Levine" in r.get("author", "")]
    main = [{**r, "id": str(n), "track": "main"} for n, r in enumerate(lab[:3], start=1)]
    other = [{**r, "id": str(n), "track": "Datasets and Benchmarks"} for n, r in enumerate(lab[3:6], start=1)]
    names = [set(r["author"].split(";")) for r in lab[:4]]
    assert names[0] & names[3] and not names[0] <= names[3]
    one_file = [{**lab[0], "id": "x"}, {**lab[3], "id": "x"}]
    with open_store(fresh_location, create=True) as store:
        result = ingest(store, [write("corl2023.json", json.dumps(main)), write("corl2023_db.json", json.dumps(other))])
        assert store.count_papers("corl2023") == 6
        assert sum("kept apart" in w for w in result.warnings) == 3
        result = ingest(store, [write("corl2023_x.json", json.dumps(one_file))])
        titles = {p.title for p in store.iter_papers("corl2023") if p.id.startswith("x")}
    assert titles == {lab[0]["title"], lab[3]["title"]}, result.warnings


def test_a_title_mended_in_a_list_without_ids_stays_its_paper(fresh_location: Location, write: Write) -> None:
    """Real SIGGRAPH 2022 records (no paper ids: each proposes its session id): the list ingested again with one
    title mended updates that paper instead of adding a second one beside it."""
    records = json.loads((DATA / "paperlists" / "siggraph2022.json").read_text(encoding="utf-8"))[:30]
    with open_store(fresh_location, create=True) as store:
        ingest(store, [write("siggraph2022.json", json.dumps(records))])
        before = {p.id for p in store.iter_papers("siggraph2022")}
        mended = [{**records[0], "title": records[0]["title"] + " Revisited"}, *records[1:]]
        result = ingest(store, [write("siggraph2022.json", json.dumps(mended))])
        after = {p.id: p.title for p in store.iter_papers("siggraph2022")}
    assert set(after) == before and (result.added, result.updated) == (0, 1)
    assert after[records[0]["ssid"]] == records[0]["title"] + " Revisited"
