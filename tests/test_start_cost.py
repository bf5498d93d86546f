"""What a command pays before it works: a verb that does not use scikit-learn or scipy does not import them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.backends import Location
from tests.conftest import ROOT

# scikit-learn and scipy take about a CPU-second to import: only the verbs that fit, cluster or search pay it
_RUN = """
import json, sys
from click.testing import CliRunner
from confnav.cli import cli
result = CliRunner().invoke(cli, sys.argv[1:])
heavy = sorted({".".join(m.split(".")[:2]) for m in sys.modules if m.split(".")[0] in ("sklearn", "scipy")})
print(json.dumps({"code": result.exit_code, "output": result.output, "heavy": heavy}))
"""


def _run(*args: str) -> dict[str, object]:
    """A verb run in a fresh interpreter, with the heavy packages it imported."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", _RUN, *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    assert result["code"] == 0, result["output"]
    return result


def test_the_version_imports_neither_scikit_learn_nor_scipy() -> None:
    assert _run("--version")["heavy"] == []


@pytest.mark.parametrize("verb", [["venues"], ["show", "Ua6zuk0WRH"], ["ls", "--venue", "iclr2021", "--limit", "3"]])
def test_reading_verbs_import_neither_scikit_learn_nor_scipy(iclr2021_db: Location, verb: list[str]) -> None:
    result = _run("--db", str(iclr2021_db), *verb)
    assert result["heavy"] == [], result["heavy"]
    assert result["output"]


def test_a_keyword_search_imports_no_scikit_learn_nor_scipy_stats(iclr2021_db: Location) -> None:
    result = _run("--db", str(iclr2021_db), "search", "offline reinforcement learning", "--mode", "keyword")
    assert "sklearn" not in result["heavy"] and "scipy.stats" not in result["heavy"], result["heavy"]
    assert "Offline" in str(result["output"]) or "offline" in str(result["output"])


def test_a_ranking_imports_neither_scikit_learn_nor_scipy(light_topics_db: Location) -> None:
    result = _run("--db", str(light_topics_db), "rank", "--venue", "iclr2021", "--top", "3")
    assert result["heavy"] == [], result["heavy"]


def test_average_ranks_are_scipys(iclr2021_db: Location) -> None:
    """The ranking's percentiles rank as scipy.stats.rankdata does, on every numeric signal of a real venue."""
    import numpy as np
    from scipy.stats import rankdata

    from confnav.rank.features import average_ranks
    from confnav.rank.signals import compute_signals
    from confnav.store import open_store

    with open_store(iclr2021_db) as store:
        papers = compute_signals(store, "iclr2021").papers
    names = {name for p in papers for name, value in p.values.items() if value is not None}
    assert {"rating_mean", "decision", "agreement"} <= names
    for name in names:
        values = np.array([p.values[name] for p in papers if p.values.get(name) is not None], dtype=float)
        assert (average_ranks(values) == rankdata(values, method="average")).all(), name
