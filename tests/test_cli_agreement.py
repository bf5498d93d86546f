"""The verbs agree on what a user gives them: which venue a command reads (and how it may be spelt), the model a
venue is embedded with, the files a command writes, and the input it refuses; on a real store of two venues."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from confnav.cli import cli
from confnav.store import open_store
from tests.backends import Location, clone
from tests.test_registry import SPEC


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def invoke(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.stderr + (str(result.exception) if result.exception else "")
    return result.stdout


def vectors(location: Location) -> dict[str, int]:
    with open_store(location) as store:
        return store.embedding_models()


def test_index_of_one_venue_keeps_the_other_venues_vectors(light_topics_db: Location, tmp_path: Path) -> None:
    db = str(clone(light_topics_db, tmp_path))
    before = vectors(db)
    refused = run("index", "--db", db, "--venue", "iclr2020", "--model", SPEC, "-q")
    assert refused.exit_code == 1 and "other venues are embedded with 'tfidf-svd'" in refused.stderr
    assert "give --model tfidf-svd" in refused.stderr and "Traceback" not in refused.output
    assert vectors(db) == before
    # without --model, one venue is embedded with the store's model: nothing of the other venue is dropped
    assert invoke("index", "--db", db, "--venue", "iclr2020", "-q").startswith("tfidf-svd: ")
    assert vectors(db) == before
    # a whole store changing model says how many vectors it dropped
    text = invoke("index", "--db", db, "--model", SPEC, "-q")
    assert f"{sum(before.values()):,} vectors of other models dropped" in text
