"""The Embedder interface: texts in, L2-normalised float32 vectors out, under a stable model name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from confnav.errors import ConfnavError
from confnav.registry import step_name

ProgressFn = Callable[[int], None]


class Embedder(Protocol):
    """A text embedder. `name` is stored with the vectors, so a change of model re-embeds.

    Pretrained models ignore `fit`; corpus-fitted ones (the sparse fallback) learn
    from the corpus there and save that state with `dumps` / restore it with `loads`.
    `languages` declares the languages it reads (ISO 639-1 codes; None: not declared, taken to read any), so
    that search can tell a query the model cannot read and send it to a stored model that can.
    """

    name: str
    fitted_on_corpus: bool
    languages: frozenset[str] | None

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray: ...

    def fit(self, texts: Sequence[str]) -> None: ...

    def dumps(self) -> bytes | None: ...

    def loads(self, state: bytes) -> None: ...


class PretrainedEmbedder:
    """Shared do-nothing fit/state for embedders whose model is fixed in advance."""

    name = "pretrained"
    fitted_on_corpus = False
    languages: frozenset[str] | None = None

    def fit(self, texts: Sequence[str]) -> None:
        return None

    def dumps(self) -> bytes | None:
        return None

    def loads(self, state: bytes) -> None:
        return None


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def embed_checked(
    embedder: Embedder, texts: Sequence[str], progress: ProgressFn | None = None, size: int | None = None
) -> np.ndarray:
    """`embedder.embed(texts)` checked where its vectors enter the store or a search: one float32 row per text, of
    `size` numbers when given, all finite, scaled to unit length (zero rows, a text with no word a
    fitted model knows, stay zero; search scores by dot product, so a plugged
    embedder's rows of another length are normalised here); anything else, or an exception inside `embed`, is one
    ConfnavError naming the embedder."""
    who = f"embedder {getattr(embedder, 'name', '?')!r} ({step_name(embedder)})"
    try:
        vectors = embedder.embed(texts, progress) if progress is not None else embedder.embed(texts)
    except ConfnavError:
        raise
    except Exception as exc:  # a plugged step's own failure, reported as one line
        raise ConfnavError(f"{who} failed: {type(exc).__name__}: {exc}") from exc
    try:
        vectors = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ConfnavError(f"{who} gave no array of numbers ({exc})") from None
    if vectors.ndim != 2 or vectors.shape[0] != len(texts) or (texts and vectors.shape[1] == 0):
        raise ConfnavError(
            f"{who} gave an array of shape {vectors.shape} for {len(texts)} texts: give one row of numbers per text"
        )
    if size is not None and texts and vectors.shape[1] != size:
        raise ConfnavError(f"{who} gave vectors of {vectors.shape[1]} numbers, not {size} as its other vectors have")
    bad = ~np.isfinite(vectors).all(axis=1)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ConfnavError(
            f"{who} gave vectors with NaN or infinite values for {int(bad.sum())} of {len(texts)} texts"
            f" (the first: {texts[first][:60]!r})"
        )
    return normalize(vectors)
