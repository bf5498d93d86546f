"""TL;DRs kept in the store by `index`: the same as made on demand, and made again once a paper changes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from confnav.embed.sparse import SparseEmbedder
from confnav.index import build_index
from confnav.navigator import Navigator
from confnav.settings import Settings
from confnav.store import open_store
from confnav.summarize.stored import keep_tldrs, store_tldrs, stored_tldrs, tldr_cache, venue_summarizer
from confnav.summarize.tldr import extractive_tldr
from tests.backends import Location, clone


def test_index_keeps_the_tldr_of_every_paper_with_an_abstract(indexed_db: Location) -> None:
    with open_store(indexed_db) as store:
        kept = stored_tldrs(store, "iclr2021")
        papers = [p for p in store.iter_papers("iclr2021") if p.abstract and not p.tldr]
        assert len(papers) > 2500 and {p.id for p in papers} == set(kept)
        summarizer = venue_summarizer(store, "iclr2021")
        for paper in papers[::100]:
            made = extractive_tldr(paper.abstract, paper.title, paper.keywords)
            assert kept[paper.id] == made == summarizer.tldr(paper).tldr
        assert store_tldrs(store, "iclr2021") == 0  # up to date: nothing made again


def test_a_changed_paper_makes_the_venue_tldrs_stale(indexed_db: Location, tmp_path: Path) -> None:
    with open_store(clone(indexed_db, tmp_path, "changed")) as store:
        paper = next(p for p in store.iter_papers("iclr2021") if p.abstract and not p.tldr)
        abstract = "We propose a kettle that boils water with graph neural networks. It is fast."
        with store.transaction():
            store.put_papers([replace(paper, abstract=abstract)])
        assert stored_tldrs(store, "iclr2021") == {}
        changed = store.get_paper(paper.id, "iclr2021")
        assert venue_summarizer(store, "iclr2021").tldr(changed).tldr == extractive_tldr(
            abstract, paper.title, paper.keywords
        )
        assert store_tldrs(store, "iclr2021") > 2500
        assert stored_tldrs(store, "iclr2021")[paper.id] == extractive_tldr(abstract, paper.title, paper.keywords)


def test_a_damaged_entry_is_made_again_not_shown(indexed_db: Location, tmp_path: Path) -> None:
    with open_store(clone(indexed_db, tmp_path, "damaged")) as store:
        with store.transaction():
            store.put_cache(tldr_cache("iclr2021"), store.venue_generation("iclr2021"), b'["<script>", 1]')
        assert stored_tldrs(store, "iclr2021") == {}
        assert store_tldrs(store, "iclr2021") > 2500 and len(stored_tldrs(store, "iclr2021")) > 2500


def test_the_tldrs_are_the_step_after_the_index_job(iclr2021_db: Location, tmp_path: Path) -> None:
    """The index job keeps vectors and the keyword index; `confnav index` (`Navigator.index`) then keeps every
    venue's TL;DRs, and counts them in its result as before."""
    with open_store(clone(iclr2021_db, tmp_path, "steps")) as store:
        alone = build_index(store, SparseEmbedder())
        assert alone.tldrs == 0 and stored_tldrs(store, "iclr2021") == {}
        both = Navigator(Settings()).index(store, SparseEmbedder())
        assert both.tldrs > 2500 and len(stored_tldrs(store, "iclr2021")) == both.tldrs
        assert both.seconds >= 0 and keep_tldrs(store) == 0  # up to date: nothing made again
