"""CPU of `confnav index` on ICLR 2021 with the default model (all-MiniLM-L6-v2, ONNX int8), this code against an
earlier commit's, in the same run: each indexes its own copy of the same ingested store in a fresh process (the
model loaded before the clock starts), then the two stores' vectors are compared.

CPU-seconds are the indexing process's (all its threads); `embed` is the part spent in the embedder. The vectors:
the largest difference of any coordinate, and the cosine of each paper's two vectors (lowest and mean).
Run: python benchmarks/index_cpu.py [--baseline REV] [--papers N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ROOT, machine
from confnav.embed.views import VIEWS
from confnav.store import SqliteStore
from index_speed import ingested

CHILD = """
import json, sys, time
from pathlib import Path
from confnav.embed import choose_embedder
from confnav.navigator import Navigator
from confnav.settings import Settings
from confnav.store import SqliteStore

embedder = choose_embedder()[0]
embedder.embed(["load check"])  # the model loaded before the clock starts, as a warm process would have it
inner, spent = embedder.embed, [0.0]


def timed(texts, progress=None):
    start = time.process_time()
    vectors = inner(texts, progress)
    spent[0] += time.process_time() - start
    return vectors


embedder.embed = timed
cpu, wall = time.process_time(), time.perf_counter()
with SqliteStore(Path(sys.argv[1])) as store:
    result = Navigator(Settings()).index(store, embedder)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
print(json.dumps({"cpu": cpu, "wall": wall, "embed": spent[0], "texts": result.texts, "model": result.model}))
"""


def export(revision: str, folder: Path) -> Path:
    """The `src` folder of the project at `revision`, written into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / "src.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", revision, "src"], stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return folder / "src"


def index_with(source: Path, store: Path) -> dict[str, float]:
    """Index `store` in a fresh process running the code in `source`; its CPU and wall seconds."""
    env = os.environ | {"PYTHONPATH": str(source)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(store)], env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"indexing with {source} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def compare(old: Path, new: Path, model: str) -> None:
    """The largest coordinate difference and the cosines of the two stores' vectors, per view."""
    for view in VIEWS:
        with SqliteStore(old) as a, SqliteStore(new) as b:
            pks_a, blobs_a = a.embeddings(model + view)
            pks_b, blobs_b = b.embeddings(model + view)
        by_pk = dict(zip(pks_b, blobs_b, strict=True))
        va = np.stack([np.frombuffer(blob, dtype=np.float32) for blob in blobs_a])
        vb = np.stack([np.frombuffer(by_pk[pk], dtype=np.float32) for pk in pks_a])
        cosines = (va * vb).sum(axis=1)
        print(
            f"  vectors {view or '(text)':10} {len(pks_a):,}: max |difference| {np.abs(va - vb).max():.2e},"
            f" cosine lowest {cosines.min():.4f}, mean {cosines.mean():.5f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="main", help="the commit to compare with (default: main)")
    parser.add_argument("--papers", type=int, help="only the first N papers of ICLR 2021")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        source, _ = ingested(folder, args.papers)
        old_src = export(args.baseline, folder / "baseline")
        runs = {}
        for label, code in ((f"baseline ({args.baseline})", old_src), ("this code", ROOT / "src")):
            store = folder / f"{label.split()[0]}.db"
            shutil.copy(source, store)
            runs[label] = (index_with(code, store), store)
            run = runs[label][0]
            print(
                f"  {label:22} {run['cpu']:7.1f} CPU-s  {run['wall']:7.1f} s wall  (embed {run['embed']:.1f} CPU-s,"
                f" {run['texts']:,} texts)"
            )
        (old, old_store), (new, new_store) = runs.values()
        print(f"  this code / baseline: CPU {new['cpu'] / old['cpu']:.2f}x, wall {new['wall'] / old['wall']:.2f}x")
        compare(old_store, new_store, str(new["model"]))


if __name__ == "__main__":
    main()
