"""A file ingested again that no longer lists a paper: the paper is said to be no longer listed, out of every
count and rate, unless another file still lists it; listed again, it is as that file says."""

from __future__ import annotations

from pathlib import Path

from confnav.ingest import ingest
from confnav.model import Outcome
from confnav.reports.facts import venue_facts
from confnav.store import open_store

HEADER = "id,title,authors,decision\n"
ROWS = {
    "p1": "p1,Alpha graphs,Ann Lee,Accept\n",
    "p2": "p2,Beta graphs,Bo Chen,Accept\n",
    "p3": "p3,Gamma graphs,Cy Dee,Reject\n",
}


def _csv(path: Path, *ids: str) -> Path:
    path.write_text(HEADER + "".join(ROWS[i] for i in ids), encoding="utf-8")
    return path


def _facts(store, venue: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {f.key: str(f.value) for f in venue_facts(store, venue)}


def test_a_paper_a_file_drops_is_no_longer_listed_and_out_of_the_rates(tmp_path: Path) -> None:
    listing = tmp_path / "kconf2024.csv"
    with open_store(tmp_path / "k.db", create=True) as store:
        ingest(store, [_csv(listing, "p1", "p2", "p3")])
        assert _facts(store, "kconf2024")["venue.acceptance_rate"] == "66.7%"
        result = ingest(store, [_csv(listing, "p1", "p3")])
        dropped = store.get_paper("p2", "kconf2024")
        assert dropped.decision.outcome is Outcome.OTHER and dropped.decision.kind == "removed"
        assert dropped.title == "Beta graphs"  # as the file last described it
        facts = _facts(store, "kconf2024")
        assert (facts["venue.accepted"], facts["venue.acceptance_rate"]) == ("1", "50.0%")
        assert any(
            "kconf2024.csv: 1 paper it listed before no longer in it" in w and "p2" in w for w in result.warnings
        )
        assert result.to_dict()["no_longer_listed"] == ["kconf2024.csv: kconf2024/p2"]
        again = ingest(store, [_csv(listing, "p1", "p3")])  # said once: the next run changes nothing
        assert again.updated == 0 and not again.dropped
        ingest(store, [_csv(listing, "p1", "p2", "p3")])
        assert store.get_paper("p2", "kconf2024").decision.kind != "removed"
        assert _facts(store, "kconf2024")["venue.acceptance_rate"] == "66.7%"


def test_a_paper_another_file_still_lists_stays_as_that_file_says(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "kconf2024.csv", tmp_path / "b" / "kconf2024-extra.csv"
    first.parent.mkdir()
    second.parent.mkdir()
    with open_store(tmp_path / "k.db", create=True) as store:
        ingest(store, [_csv(first, "p1", "p2", "p3"), _csv(second, "p2")])
        ingest(store, [_csv(first, "p1", "p3")])
        assert store.get_paper("p2", "kconf2024").decision.outcome is Outcome.ACCEPTED


def test_a_corrected_title_in_a_list_without_ids_leaves_no_phantom_paper(tmp_path: Path) -> None:
    listing = tmp_path / "iconf2022.csv"
    rows = ["Fast text-driven art,Ann Lee,Accept\n", "Slow art,Bo Chen,Accept\n"]
    with open_store(tmp_path / "i.db", create=True) as store:
        listing.write_text("title,authors,decision\n" + "".join(rows), encoding="utf-8")
        ingest(store, [listing])
        listing.write_text("title,authors,decision\nFast text-driven art revisited,Ann Lee,Accept\n" + rows[1])
        ingest(store, [listing])
        facts = _facts(store, "iconf2022")
        assert facts["venue.accepted"] == "2"
        kinds = sorted(p.decision.kind for p in store.iter_papers("iconf2022"))
        assert len(kinds) == 3 and kinds.count("removed") == 1, kinds
