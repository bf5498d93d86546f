"""A plugged embedder's vectors are checked where they enter the store: rows of another length are normalised,
and vectors of the wrong shape or size, non-finite ones, or an exception inside `embed` are one ConfnavError naming
the embedder, with the store as it was."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.embed.base import PretrainedEmbedder, ProgressFn
from confnav.embed.sparse import SPARSE_MODEL, SparseEmbedder
from confnav.errors import ConfnavError
from confnav.index import build_index, semantic_model
from confnav.ingest import ingest
from confnav.search.engine import Searcher
from confnav.store import SqlStore
from tests.conftest import MARKDOWN_PAGE

HERE = __name__


class Counts(PretrainedEmbedder):
    """Hashed word counts, left unnormalised (each row as long as its text's word count)."""

    name = f"{HERE}:Counts"
    size = 64

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        rows = np.zeros((len(texts), self.size), dtype=np.float64)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                rows[row, zlib.crc32(word.encode()) % self.size] += 1.0
        return rows


class Wider(Counts):
    """The same model grown to more numbers under the same name."""

    size = 96


class Flat(Counts):
    """One number per text, as a flat array."""

    name = f"{HERE}:Flat"

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        return super().embed(texts).sum(axis=1)


class Holes(Counts):
    """Infinity in the first number of every row."""

    name = f"{HERE}:Holes"

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        rows = super().embed(texts)
        rows[:, 0] = np.inf
        return rows


class Broken(Counts):
    """An embedder whose model fails inside `embed`."""

    name = f"{HERE}:Broken"

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        raise RuntimeError("CUDA out of memory")


@pytest.fixture
def indexed(store: SqlStore) -> SqlStore:
    ingest(store, [MARKDOWN_PAGE])
    build_index(store, SparseEmbedder())
    return store


def vectors(store: SqlStore) -> dict[str, dict[int, str]]:
    return {model: dict(store.embedding_hashes(model)) for model in store.embedding_models()}


def test_unnormalised_rows_are_stored_at_unit_length_and_search(indexed: SqlStore) -> None:
    result = build_index(indexed, Counts())
    assert result.model == Counts.name == semantic_model(indexed) and result.embedded == 200
    pks, blobs = indexed.embeddings(Counts.name)
    norms = np.linalg.norm(np.vstack([np.frombuffer(blob, dtype=np.float32) for blob in blobs]), axis=1)
    assert len(pks) == 200 and np.allclose(norms, 1.0, atol=1e-5)
    hits = Searcher(indexed).search("graph neural networks", mode="semantic").hits
    assert hits and all(
        -1.0 - 1e-5 <= hit.semantic_score <= 1.0 + 1e-5 for hit in hits if hit.semantic_score is not None
    )


@pytest.mark.parametrize(
    ("embedder", "error"),
    [
        (Flat(), rf"^embedder '{HERE}:Flat' \({HERE}:Flat\) gave an array of shape \(1,\) for 1 texts: give one row"),
        (Holes(), rf"^embedder '{HERE}:Holes' \({HERE}:Holes\) gave vectors with NaN or infinite values for 1 of 1"),
        (Broken(), rf"^embedder '{HERE}:Broken' \({HERE}:Broken\) failed: RuntimeError: CUDA out of memory$"),
    ],
)
def test_bad_vectors_or_a_failing_embedder_are_one_error_naming_it_and_the_store_is_untouched(
    indexed: SqlStore, embedder: Counts, error: str
) -> None:
    before = vectors(indexed)
    with pytest.raises(ConfnavError, match=error):
        build_index(indexed, embedder)
    assert vectors(indexed) == before and semantic_model(indexed) == SPARSE_MODEL


def test_a_model_changing_its_size_under_one_name_is_refused_before_writing(indexed: SqlStore) -> None:
    build_index(indexed, Counts())
    before = vectors(indexed)
    with pytest.raises(ConfnavError, match=rf"^embedder '{HERE}:Counts' gives vectors of 96 numbers, but the store"):
        build_index(indexed, Wider())
    assert vectors(indexed) == before


def test_the_cli_says_what_the_embedder_did_wrong_in_one_line(indexed: SqlStore) -> None:
    for spec, said in ((f"{HERE}:Broken", "failed: RuntimeError: CUDA out of memory"), (f"{HERE}:Holes", "NaN")):
        result = CliRunner().invoke(cli, ["index", "--db", str(indexed.location), "--model", spec])
        assert result.exit_code == 1 and result.stderr.startswith(f"error: embedder '{spec}'"), result.stderr
        assert said in result.stderr and "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1
    assert semantic_model(indexed) == SPARSE_MODEL
