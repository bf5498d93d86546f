"""`index --venue` with a model fitted on the store's own papers (tfidf-svd): a refit re-embeds the other venues
too, so their semantic search keeps finding the same papers, and every vector the refit drops is counted."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from confnav.cli import cli
from confnav.cli.search import _index_line
from confnav.index import IndexResult
from confnav.store import open_store
from tests.backends import Location, new_location
from tests.conftest import DATA

PAPERLISTS = DATA / "paperlists"


def invoke(db: Location, *args: str) -> str:
    result = CliRunner().invoke(cli, [args[0], "--db", str(db), *args[1:]])
    assert result.exit_code == 0, result.stderr + (str(result.exception) if result.exception else "")
    return result.stdout


def semantic_hits(db: Location, query: str, venue: str) -> list[str]:
    """The ids of the top five semantic hits, after checking the search gave no notice (a paper unindexed)."""
    result = CliRunner().invoke(
        cli, ["search", "--db", str(db), query, "--venue", venue, "--mode", "semantic", "--limit", "5", "--json"]
    )
    assert result.exit_code == 0 and "note:" not in result.stderr, result.stderr
    return [hit["id"] for hit in json.loads(result.stdout)["hits"]]


def whole_store_hits(tmp_path: Path, files: list[str], query: str, venue: str) -> list[str]:
    """The hits of a store holding the same files, indexed as a whole: what a venue-scoped run must match."""
    whole = new_location(tmp_path, "whole")
    invoke(whole, "ingest", "-q", *(str(PAPERLISTS / name) for name in files))
    invoke(whole, "index", "-q", "--model", "tfidf-svd")
    return semantic_hits(whole, query, venue)


def test_a_new_venue_refits_and_re_embeds_the_venue_indexed_before(fresh_location: Location, tmp_path: Path) -> None:
    """ACL 2022 then CVPR 2019: the same vector size, so before the fix ACL's vectors stayed in the old space and
    its semantic search returned unrelated papers (document layout, legal fairness) without a notice."""
    query = "question answering over knowledge bases"
    invoke(fresh_location, "ingest", "-q", str(PAPERLISTS / "acl2022.json"))
    invoke(fresh_location, "index", "-q", "--model", "tfidf-svd")
    before = semantic_hits(fresh_location, query, "acl2022")
    invoke(fresh_location, "ingest", "-q", str(PAPERLISTS / "cvpr2019.json"))
    result = json.loads(invoke(fresh_location, "index", "-q", "--venue", "cvpr2019", "--json"))
    assert result["other_venues"] == 1031 and result["embedded"] == 1031 + 1294  # every ACL paper re-embedded
    assert result["dropped_vectors"] == 0 and result["unchanged"] == 0
    after = semantic_hits(fresh_location, query, "acl2022")
    assert after[0] == before[0] and len(set(before) & set(after)) >= 3  # the same papers (scores of a new fit)
    assert after == whole_store_hits(tmp_path, ["acl2022.json", "cvpr2019.json"], query, "acl2022")
    # the fit is current now: another venue-scoped run has nothing to do, for its venue or the others
    again = json.loads(invoke(fresh_location, "index", "-q", "--venue", "cvpr2019", "--json"))
    assert (again["embedded"], again["other_venues"], again["unchanged"]) == (0, 0, 1294)


def test_a_refit_of_another_size_counts_the_vectors_it_drops(fresh_location: Location, tmp_path: Path) -> None:
    """CoRL 2023 then SIGGRAPH 2022: CoRL's 199 papers fit fewer than 256 dimensions, so the refit's vectors have
    another size and the old ones are dropped; before the fix CoRL was left unindexed and the drop said 0."""
    query = "dexterous grasping with a robot hand"
    invoke(fresh_location, "ingest", "-q", str(PAPERLISTS / "corl2023.json"))
    invoke(fresh_location, "index", "-q", "--model", "tfidf-svd")
    before = semantic_hits(fresh_location, query, "corl2023")
    invoke(fresh_location, "ingest", "-q", str(PAPERLISTS / "siggraph2022.json"))
    result = json.loads(invoke(fresh_location, "index", "-q", "--venue", "siggraph2022", "--json"))
    assert (result["embedded"], result["other_venues"], result["unchanged"]) == (512, 199, 0)
    assert result["dropped_vectors"] == result["refit_dropped"] == 398  # CoRL's text and keyword vectors
    text = _index_line(IndexResult(**result))
    assert "512 papers embedded" in text and "199 of them of other venues" in text
    assert "398 vectors of the old fit dropped" in text and "of other models" not in text
    with open_store(fresh_location) as store:
        assert store.embedding_models() == {"tfidf-svd": 512, "tfidf-svd|keywords": 512}
    after = semantic_hits(fresh_location, query, "corl2023")
    assert after[0] == before[0] and len(set(before) & set(after)) >= 3
    assert after == whole_store_hits(tmp_path, ["corl2023.json", "siggraph2022.json"], query, "corl2023")
