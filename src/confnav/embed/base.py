"""The Embedder interface: texts in, L2-normalised float32 vectors out, under a stable model name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

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
