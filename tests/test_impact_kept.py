"""The impact estimates are kept in the store: a second process reads them, a change to the store makes them stale."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from confnav.ingest import ingest
from confnav.rank import impact
from confnav.rank.impact import ImpactEstimates, impact_estimates
from confnav.store import open_store
from tests.backends import Location, clone
from tests.conftest import DATA, ROOT

CORL = DATA / "paperlists" / "corl2023.json"
ICLR2018 = DATA / "paperlists" / "iclr2018.json"

_SECOND = """
import json, sys
from dataclasses import asdict
from confnav.rank import impact
from confnav.store import open_store

def fitted_again(*args):
    raise AssertionError("the estimates were fitted again")

impact._estimate = fitted_again
with open_store(sys.argv[1]) as store:
    print(json.dumps(asdict(impact.impact_estimates(store, "iclr2021"))))
"""


@pytest.fixture(scope="module")
def with_corl(light_topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """ICLR 2021 (and 2020) with CoRL 2023, whose citation counts the predictor learns from."""
    location = clone(light_topics_db, tmp_path_factory.mktemp("kept"), "kept")
    with open_store(location) as store:
        ingest(store, [CORL])
    return location


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as a new one: nothing estimated in it yet."""
    monkeypatch.setattr(impact, "_memo", {})


def test_a_second_process_reads_the_kept_estimates(with_corl: Location, fresh_process: None) -> None:
    with open_store(with_corl) as store:
        first = impact_estimates(store, "iclr2021")
    assert isinstance(first, ImpactEstimates) and first.trained_on == ["CoRL 2023"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", _SECOND, str(with_corl)], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == json.dumps(asdict(first))  # the same estimates, none fitted


def test_a_change_to_the_store_makes_the_kept_estimates_stale(
    with_corl: Location, tmp_path: Path, fresh_process: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    location = clone(with_corl, tmp_path)
    with open_store(location) as store:
        impact_estimates(store, "iclr2021")
        ingest(store, [ICLR2018])  # another venue with citation counts: a different training set
        monkeypatch.setattr(impact, "_memo", {})
        fitted: list[str] = []
        estimate = impact._estimate
        monkeypatch.setattr(impact, "_estimate", lambda s, v: fitted.append(v) or estimate(s, v))
        again = impact_estimates(store, "iclr2021")
    assert fitted == ["iclr2021"]
    assert isinstance(again, ImpactEstimates) and "ICLR 2018" in again.trained_on


def test_a_read_only_store_still_ranks(with_corl: Location, fresh_process: None) -> None:
    with open_store(with_corl, read_only=True) as store:
        assert isinstance(impact_estimates(store, "iclr2020"), ImpactEstimates)
