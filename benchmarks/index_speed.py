"""`confnav index` speed: the whole index job on ICLR 2021 (3,014 papers, two texts each) with the default embedder
(all-MiniLM-L6-v2 exported to ONNX int8) and with sentence-transformers running the same model in torch, in the
same run; then the same papers listed again by a second venue, indexed once more (their texts are embedded once per
model, so the second venue's vectors are copies).

Papers/s is of the whole job (both views embedded and stored, keyword index, TL;DRs); `embed` is the time spent
in the embedder alone. Run: python benchmarks/index_speed.py [--papers N]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import DATA, ICLR2021, machine
from confnav.embed import choose_embedder
from confnav.embed.sentence import SentenceTransformerEmbedder
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.store import SqliteStore


class Timed:
    """An embedder measured: the seconds and texts of its `embed` calls (the load check left out)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.seconds, self.texts = inner, 0.0, 0
        self.name, self.fitted_on_corpus, self.languages = inner.name, inner.fitted_on_corpus, inner.languages

    def embed(self, texts: Sequence[str], progress: Any = None) -> np.ndarray:
        start = time.perf_counter()
        vectors = self.inner.embed(texts, progress)
        if list(texts) != ["load check"]:
            self.seconds += time.perf_counter() - start
            self.texts += len(texts)
        return vectors

    def fit(self, texts: Sequence[str]) -> None:
        self.inner.fit(texts)

    def dumps(self) -> bytes | None:
        return self.inner.dumps()

    def loads(self, state: bytes) -> None:
        self.inner.loads(state)


def ingested(folder: Path, papers: int | None) -> tuple[Path, list[Path]]:
    """A store of ICLR 2021 (its first `papers` papers when given), not indexed, and the files it was made of."""
    path = folder / "ingested.db"
    inputs = ICLR2021
    if papers:
        lines = (DATA / "iclr2021" / "paperlist.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
        cut = folder / "iclr2021" / "paperlist.tsv"
        cut.parent.mkdir()
        cut.write_text("".join(lines[: papers + 1]), encoding="utf-8")
        inputs = [cut]
    with SqliteStore(path) as store:
        ingest(store, inputs, skip_bad=True)
    return path, inputs


def one_job(source: Path, folder: Path, label: str, embedder: Any) -> tuple[float, Path]:
    """Index a copy of the store with `embedder`; print and return papers/s of the whole job."""
    path = folder / f"{label}.db"
    shutil.copy(source, path)
    timed = Timed(embedder)
    timed.embed(["load check"])  # the model loaded before the clock starts, as a warm process would have it
    with SqliteStore(path) as store:
        result = build_index(store, timed)
    rate = result.embedded / result.seconds
    speed = timed.texts / max(timed.seconds, 1e-9)
    print(
        f"  {label:38} {result.seconds:6.1f} s  {rate:6.1f} papers/s  ({result.texts:,} texts;"
        f" embed {timed.seconds:.1f} s, {speed:.1f} texts/s)"
    )
    return rate, path


def second_venue(indexed: Path, inputs: list[Path], embedder: Any) -> None:
    """The same papers listed by a second venue (the same files ingested again under another venue), then
    indexed: what was embedded, and how long it took."""
    with SqliteStore(indexed) as store:
        added = ingest(store, inputs, venue="iclrw2021", skip_bad=True).added
        timed = Timed(embedder)
        result = build_index(store, timed)
    print(
        f"  a second venue listing the same {added:,} papers: {timed.texts:,} texts embedded,"
        f" {result.reused:,} vectors reused, {result.embedded:,} papers indexed in {result.seconds:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, help="only the first N papers of ICLR 2021")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        source, inputs = ingested(folder, args.papers)
        print("confnav index, whole job (same model, same run)")
        default = choose_embedder()[0]
        fast, indexed = one_job(source, folder, "ONNX Runtime int8 (confnav default)", default)
        slow, _ = one_job(source, folder, "sentence-transformers (torch, fp32)", SentenceTransformerEmbedder())
        print(f"  the default is {fast / slow:.2f}x sentence-transformers' papers/s")
        second_venue(indexed, inputs, default)


if __name__ == "__main__":
    main()
