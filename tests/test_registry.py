"""Step registries: unknown names and bad imports are one-line errors; a `module:Class` plugs in a step of one's own,
and vectors stored under a plugged embedder's name resolve back to it when searched."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.embed import EMBEDDERS, SPARSE_MODEL, choose_embedder, load_embedder
from confnav.embed.base import PretrainedEmbedder, ProgressFn, normalize
from confnav.embed.sparse import SparseEmbedder
from confnav.errors import ConfnavError, InputError
from confnav.index import build_index, semantic_model
from confnav.ingest import ingest
from confnav.rank import RANKERS, WeightedRanker
from confnav.registry import Registry, is_import_spec
from confnav.search.engine import Searcher
from confnav.search.keyword import INDEXES, KeywordIndex
from confnav.settings import Settings
from confnav.sources import FORMATS, make_reader, read_file
from confnav.sources.tabular import CsvReader
from confnav.store import SqlStore
from confnav.summarize import SUMMARIZERS, ExtractiveSummarizer
from confnav.summarize.llm import make_summarizer
from confnav.topics import CLUSTERERS, LABELERS, LAYOUTS
from tests.conftest import MARKDOWN_PAGE

SPEC = f"{__name__}:TinyEmbedder"


class TinyEmbedder(PretrainedEmbedder):
    """Hashed bag of words: a plugged embedder small enough for a test, named by its own `module:Class`."""

    name = SPEC

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        rows = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                rows[row, zlib.crc32(word.encode()) % 64] += 1.0
        return normalize(rows)


class Misnamed(TinyEmbedder):
    name = "tiny"  # would not lead back to this class


class Shape:
    pass


def test_unknown_name_is_one_line_naming_the_kind_and_the_known_names() -> None:
    shapes: Registry[Shape] = Registry("shape")
    shapes.register("plain", Shape)
    assert isinstance(shapes.create("plain"), Shape) and shapes.names() == ("plain",) and "plain" in shapes
    with pytest.raises(ConfnavError) as caught:
        shapes.create("round")
    assert str(caught.value) == "unknown shape 'round'; known: plain, or package.module:Class"


def test_module_class_names_are_imported_and_checked() -> None:
    shapes: Registry[Shape] = Registry("shape", ("area",))
    assert is_import_spec("a.b:C") and not is_import_spec("org/model:onnx-int8pc") and not is_import_spec("plain")
    with pytest.raises(ConfnavError, match=r"cannot import shape 'no_such_pkg\.mod:Shape' .*known: "):
        shapes.create("no_such_pkg.mod:Shape")
    with pytest.raises(ConfnavError, match=f"module '{__name__}' has no shape 'Circle'"):
        shapes.create(f"{__name__}:Circle")
    with pytest.raises(ConfnavError, match="is not a class"):
        shapes.create(f"{__name__}:test_unknown_name_is_one_line_naming_the_kind_and_the_known_names")
    with pytest.raises(ConfnavError, match=r"is not a shape: it has no 'area'"):
        shapes.create(f"{__name__}:Shape")
    assert isinstance(Registry[Shape]("shape").create(f"{__name__}:Shape"), Shape)


def test_every_kind_has_its_built_in_names() -> None:
    assert FORMATS == ("paperlists", "openreview-tsv", "openreview-notes", "markdown", "miniconf", "jsonl", "csv")
    assert SPARSE_MODEL in EMBEDDERS and isinstance(load_embedder(SPARSE_MODEL), SparseEmbedder)
    assert isinstance(RANKERS.create("weighted"), WeightedRanker)
    assert (CLUSTERERS.names(), LABELERS.names(), LAYOUTS.names()) == (
        ("leiden",),
        ("ctfidf", "centroid", "ctfidf-centroid"),
        ("tsne",),
    )
    index = INDEXES.create("bm25f", documents=[{"title": "graph networks"}, {"title": "vision"}])
    assert isinstance(index, KeywordIndex) and index.score("graph")[0] > 0 == index.score("graph")[1]
    assert SUMMARIZERS.names() == ("extractive", "llm")
    assert isinstance(make_summarizer(Settings()), ExtractiveSummarizer)


def test_a_plugged_embedder_indexes_and_its_stored_name_resolves_back(store: SqlStore) -> None:
    ingest(store, [MARKDOWN_PAGE])
    embedder, notice = choose_embedder(SPEC)
    assert isinstance(embedder, TinyEmbedder) and notice is None
    result = build_index(store, embedder)
    assert result.model == SPEC == semantic_model(store) and result.embedded == 200
    assert isinstance(load_embedder(SPEC), TinyEmbedder)
    results = Searcher(store).search("graph neural networks", mode="semantic")
    assert results.model == SPEC and results.hits


def test_a_plugged_embedder_must_name_its_vectors_so_they_lead_back() -> None:
    with pytest.raises(ConfnavError, match=f"names its vectors 'tiny'.*set its name to '{__name__}:Misnamed'"):
        choose_embedder(f"{__name__}:Misnamed")


def test_a_stored_name_no_embedder_has_says_to_reindex() -> None:
    with pytest.raises(
        ConfnavError, match=r"made with 'gone_pkg:Model', which this confnav cannot load .*confnav index"
    ):
        load_embedder("gone_pkg:Model")
    with pytest.raises(ConfnavError, match="unknown embedder 'model:odd-suffix'"):
        choose_embedder("model:odd-suffix")


def test_the_cli_takes_a_plugged_model_and_refuses_an_unknown_one(store: SqlStore) -> None:
    ingest(store, [MARKDOWN_PAGE])
    build_index(store, SparseEmbedder())
    runner = CliRunner()
    result = runner.invoke(cli, ["index", "--db", str(store.location), "--model", "no_such_pkg:Embedder"])
    assert result.exit_code == 1 and "cannot import embedder 'no_such_pkg:Embedder'" in result.stderr
    assert "Traceback" not in result.stderr and semantic_model(store) == SPARSE_MODEL
    result = runner.invoke(cli, ["index", "--db", str(store.location), "--model", SPEC])
    assert result.exit_code == 0, result.stderr
    assert semantic_model(store) == SPEC


def test_format_names_and_plugged_readers(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^fmt: unknown format 'tsv'; known: paperlists, .*, csv"):
        make_reader("tsv")
    table = tmp_path / "papers.csv"
    table.write_text("id,title\np1,Graph networks\n", encoding="utf-8")
    name, items = read_file(table, "confnav.sources.tabular:CsvReader")
    assert name == "confnav.sources.tabular:CsvReader"
    assert [item.fields["title"] for item in items if not isinstance(item, InputError)] == ["Graph networks"]
    assert isinstance(make_reader("confnav.sources.tabular:CsvReader", {"title": "title"}), CsvReader)
    result = CliRunner().invoke(cli, ["ingest", "--db", str(tmp_path / "x.db"), "--format", "tsv", str(table)])
    assert result.exit_code == 2 and "unknown format 'tsv'" in result.stderr and not (tmp_path / "x.db").exists()


def test_a_server_never_imports_an_embedder_named_by_stored_data() -> None:
    """A store's vectors name their embedder; on a server that name is data, so a `module:Class` is not imported."""
    with pytest.raises(ConfnavError, match="a server does not import"):
        load_embedder(SPEC, imports=False)
    assert load_embedder(SPEC).name == SPEC  # the command line and the library may
    assert load_embedder(SPARSE_MODEL, imports=False).name == SPARSE_MODEL  # registered names always resolve
