"""Bad search input: clear messages, exit status 1, no traceback; keyword search without an index."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.embed.sparse import SPARSE_MODEL, SparseEmbedder
from confnav.embed.views import KEYWORD_VIEW
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.store import SqlStore
from tests.conftest import MARKDOWN_PAGE

CASES = {
    "empty query": (["search", "   "], "empty query"),
    "too long": (["search", "word " * 2000], "the limit is 4,000"),
    "unbalanced quotes": (["search", '"graph neural'], "unbalanced quote"),
    "unknown field": (["search", "venue:neurips graphs"], "unknown field 'venue:'"),
    "any unknown field": (["search", "foo:bar"], "unknown field 'foo:' (fields: author:, title:, keyword:); to search"),
    "unknown id for similar": (["similar", "no-such-id"], "no paper with id 'no-such-id'"),
    "unknown venue filter": (["search", "graphs", "--venue", "neurips1999"], "unknown venue 'neurips1999'"),
    "recommend without input": (["recommend"], "needs at least one --like"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_search_input(case: str, iclr2021_copy: Path) -> None:
    args, message = CASES[case]
    result = CliRunner().invoke(cli, [args[0], "--db", str(iclr2021_copy), *args[1:]])
    assert result.exit_code == 1, result.stdout
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_model_that_cannot_load_leaves_the_index_as_it_was(store: SqlStore) -> None:
    ingest(store, [MARKDOWN_PAGE])
    build_index(store, SparseEmbedder())
    before = store.embedding_models()
    result = CliRunner().invoke(cli, ["index", "--db", str(store.location), "--model", "no-such-org/no-such-model"])
    assert result.exit_code == 1 and "cannot load the model" in result.stderr
    assert "Traceback" not in result.stderr
    assert store.embedding_models() == before == {SPARSE_MODEL: 200, SPARSE_MODEL + KEYWORD_VIEW: 200}


def test_unknown_decision_value_names_the_decisions_in_the_store(iclr2021_db: Path) -> None:
    result = CliRunner().invoke(cli, ["search", "--db", str(iclr2021_db), "graphs", "--decision", "maybe"])
    assert result.exit_code == 1 and "no paper has the decision 'maybe'" in result.stderr
    assert "accepted" in result.stderr and "desk-reject" in result.stderr


def test_without_index_keyword_works_and_semantic_explains(iclr2021_db: Path) -> None:
    keyword = CliRunner().invoke(cli, ["search", "--db", str(iclr2021_db), "graph", "--mode", "keyword"])
    assert keyword.exit_code == 0 and "graph" in keyword.stdout.lower()
    hybrid = CliRunner().invoke(cli, ["search", "--db", str(iclr2021_db), "graph"])
    assert hybrid.exit_code == 0 and "run 'confnav index'" in hybrid.stderr
    semantic = CliRunner().invoke(cli, ["search", "--db", str(iclr2021_db), "graph", "--mode", "semantic"])
    assert semantic.exit_code == 1 and "confnav index" in semantic.stderr
