"""Author names with letters Unicode does not decompose (ø, ł, æ, ß) are found as people type them without the
stroke, in a new store and in one made before such names were folded."""

from __future__ import annotations

from pathlib import Path

from confnav.ingest import ingest
from confnav.search.engine import Searcher
from confnav.store import PaperFilter, open_store


def _store(tmp_path: Path) -> Path:
    listing = tmp_path / "emnlp2020.csv"
    listing.write_text(
        "id,title,authors,decision\n"
        "p1,Probing for parsing,Anders Søgaard|Grzegorz Chrupała,Accept\n"
        "p2,Lexical semantics,Ann Lee,Accept\n",
        encoding="utf-8",
    )
    location = tmp_path / "s.db"
    with open_store(location, create=True) as store:
        ingest(store, [listing])
    return location


def test_a_name_is_found_without_its_stroke_letters(tmp_path: Path) -> None:
    with open_store(_store(tmp_path)) as store:
        for typed in ("Anders Sogaard", "anders søgaard", "Grzegorz Chrupala", "Chrupała"):
            assert [p.id for p in store.papers(PaperFilter(author=typed))] == ["p1"], typed
        assert [h.paper.id for h in Searcher(store).search('author:"Anders Sogaard"').hits] == ["p1"]


def test_a_store_made_before_finds_them_once_opened(tmp_path: Path) -> None:
    location = _store(tmp_path)
    with open_store(location) as store, store.transaction():  # as an older version stored the key
        store.conn.execute("UPDATE paper_authors SET name_key = 'anders søgaard' WHERE name_key = 'anders sogaard'")
        store.conn.execute("DELETE FROM schema_migrations WHERE version = 22")
    with open_store(location) as store:
        assert [p.id for p in store.papers(PaperFilter(author="Anders Sogaard"))] == ["p1"]
