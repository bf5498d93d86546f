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
