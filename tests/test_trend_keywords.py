"""Trends count the spellings of one keyword together and run forward in time within one series (real files)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.errors import ConfnavError
from confnav.ingest import ingest
from confnav.model import Venue
from confnav.store import open_store
from confnav.topics.spellings import Spellings, abbreviates
from confnav.topics.trends import comparison_notice, earlier_in_series, keyword_changes
from tests.conftest import DATA, ICLR2020


@pytest.fixture(scope="module")
def iclr_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ICLR 2020 and ICLR 2021 as the paperlists project published them."""
    path = tmp_path_factory.mktemp("iclr") / "iclr.db"
    with open_store(path, create=True) as store:
        ingest(store, [ICLR2020, DATA / "iclr2021" / "paperlists-iclr2021.json"])
    return path


def test_spellings_of_one_keyword_are_one_row(iclr_db: Path) -> None:
    with open_store(iclr_db) as store:
        before, after = list(store.iter_papers("iclr2020")), list(store.iter_papers("iclr2021"))
    grown, shrunk, new = keyword_changes(before, after, top=100, min_count=8)
    rows = [*grown, *shrunk, *new]
    names = [row.name for row in rows]
    assert len(set(names)) == len({row.name for row in grown + shrunk})  # each keyword once
    for spelled in (("transformer", "transformers"), ("graph neural network", "graph neural networks", "gnn")):
        assert len([n for n in names if n in spelled]) == 1, spelled
    transformer = next(r for r in rows if r.name in ("transformer", "transformers"))
    assert transformer.count_before > 34 and transformer.count_after > 32  # both spellings counted
    assert transformer.change > 0  # grew: no longer "transformers grew, transformer shrank"
    spellings = Spellings([*before, *after])
    assert spellings.group("NLP") == spellings.group("natural language processing")  # as the papers pair them
    assert spellings.group("Self-Supervised Learning") == spellings.group("self supervised learning")
    assert spellings.group("GNNs") == spellings.group("Graph Neural Network")
    assert spellings.group("meta-learning") != spellings.group("meta reinforcement learning")
    assert spellings.group("robustness") != spellings.group("reinforcement learning")


def test_an_acronym_needs_every_word_of_its_expansion() -> None:
    assert abbreviates("vae", "variational autoencoder") and abbreviates("ood", "out of distribution")
    assert abbreviates("bert", "bidirectional encoder representations from transformers")
    assert not abbreviates("gan", "generative learning") and not abbreviates("meta", "meta learning")
    assert not abbreviates("dynamics", "dynamical systems") and not abbreviates("adam", "adaptive gradient methods")


def test_trends_run_forward_within_one_series() -> None:
    iclr2020, iclr2021 = Venue.parse("iclr2020"), Venue.parse("iclr2021")
    acl2022, siggraph2022 = Venue.parse("acl2022"), Venue.parse("siggraph2022")
    assert comparison_notice(iclr2020, iclr2021) is None
    assert "different conferences" in (comparison_notice(iclr2020, acl2022) or "")
    with pytest.raises(ConfnavError, match="ACL 2022 is later than ICLR 2021: trends run forward in time"):
        comparison_notice(acl2022, iclr2021)
    venues = [iclr2020, iclr2021, acl2022, siggraph2022, Venue.parse("iclr2018")]
    assert [v.id for v in earlier_in_series(venues, iclr2021)] == ["iclr2020", "iclr2018"]
    assert earlier_in_series(venues, iclr2020) == [Venue.parse("iclr2018")]
    assert earlier_in_series(venues, acl2022) == []


def test_cli_refuses_backwards_trends_in_one_line(iclr_db: Path) -> None:
    result = CliRunner().invoke(cli, ["trends", "--db", str(iclr_db), "--from", "iclr2021", "--to", "iclr2020"])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert (
        "ICLR 2021 is later than ICLR 2020: trends run forward in time (--from iclr2020 --to iclr2021)" in result.stderr
    )
    with open_store(iclr_db) as store:
        assert not store.themes("iclr2020", 1)  # refused before any theme was built
