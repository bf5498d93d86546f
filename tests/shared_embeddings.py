"""One run of the semantic model per text for both test passes: `make test` runs the SQLite and the PostgreSQL
passes at once, and both index the same corpus with the same model. With CONFNAV_TEST_SHARED set (the Makefile
sets it for one `make test`), the first pass to index saves its vectors there and the other reads them."""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from confnav.embed.base import Embedder, ProgressFn


class SharedEmbeddings:
    """`inner`'s vectors, looked up by text in `known` first; new ones are added to it."""

    def __init__(self, inner: Embedder, known: dict[str, np.ndarray]) -> None:
        self.inner, self.known = inner, known
        self.name, self.fitted_on_corpus, self.languages = inner.name, inner.fitted_on_corpus, inner.languages

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        keys = [hashlib.sha1(text.encode()).hexdigest() for text in texts]
        missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in self.known}.items())
        if missing:
            made = self.inner.embed([text for _, text in missing])
            self.known.update((key, vector) for (key, _), vector in zip(missing, made, strict=True))
        if progress:
            progress(len(texts))
        return np.stack([self.known[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)

    def fit(self, texts: Sequence[str]) -> None:
        self.inner.fit(texts)

    def dumps(self) -> bytes | None:
        return self.inner.dumps()

    def loads(self, state: bytes) -> None:
        self.inner.loads(state)


@contextmanager
def shared_embedder(inner: Embedder) -> Iterator[Embedder]:
    """`inner` as a SharedEmbeddings over the vectors both passes saved (the other pass waits meanwhile),
    or `inner` itself when CONFNAV_TEST_SHARED is not set or the model is fitted on the corpus."""
    folder = os.environ.get("CONFNAV_TEST_SHARED")
    if not folder or inner.fitted_on_corpus:
        yield inner
        return
    path = Path(folder) / f"{hashlib.sha1(inner.name.encode()).hexdigest()[:12]}.npz"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        known: dict[str, np.ndarray] = {}
        if path.exists():
            with np.load(path) as saved:
                known = dict(zip(saved["keys"].tolist(), saved["vectors"], strict=True))
        shared = SharedEmbeddings(inner, known)
        yield shared
        if not known:
            return
        partial = path.with_suffix(".partial.npz")
        np.savez(partial, keys=np.array(list(known)), vectors=np.stack(list(known.values())))
        partial.replace(path)
