"""A running server answers every read while a large ingest writes to its store (write-ahead log, one writer)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from tests.backends import Location
from tests.conftest import DATA
from tests.web_fixtures import running_server

pytestmark = [pytest.mark.failure_injection, pytest.mark.slow]

RECORDS = int(os.environ.get("CONFNAV_LOAD_RECORDS", "20000"))  # 200000 for the full-size run in BENCHMARKS.md
READ_PATHS = (
    "/api/search?q=graph+neural+networks",
    "/api/search?q=contrastive+learning&mode=keyword",
    "/api/paper/1Fqg133qRaI",
    "/api/stats?venue=iclr2021",
    "/",
)


def write_load_file(path: Path, count: int) -> Path:
    """`count` records of a made-up venue, recombined from real ICLR 2021 titles and abstracts."""
    with (DATA / "iclr2021" / "paperlist.tsv").open(encoding="utf-8", newline="") as tsv:
        rows = [r for r in csv.DictReader(tsv, delimiter="\t", quoting=csv.QUOTE_NONE) if r.get("abstract")]
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            row = rows[i % len(rows)]
            record = {
                "id": f"load-{i}",
                "title": f"{row['title']} ({i})",
                "abstract": row["abstract"],
                "authors": [f"Author {i % 997}"],
                "decision": "Accept" if i % 3 else "Reject",
            }
            out.write(json.dumps(record) + "\n")
    return path


def test_reads_are_all_answered_during_a_large_ingest(iclr2021_copy: Location, tmp_path: Path) -> None:
    source = write_load_file(tmp_path / "load2021.jsonl", RECORDS)
    latencies: list[float] = []
    errors: list[str] = []
    writes: list[int] = []
    with running_server(iclr2021_copy) as base:
        done = threading.Event()

        def read(offset: int) -> None:
            i = offset
            while not done.is_set():
                path = READ_PATHS[i % len(READ_PATHS)]
                i += 1
                start = time.perf_counter()
                try:
                    with urllib.request.urlopen(base + path, timeout=60) as answer:
                        answer.read()
                except (urllib.error.URLError, TimeoutError, OSError) as exc:
                    errors.append(f"{path}: {exc}")
                latencies.append(time.perf_counter() - start)

        def write_list(i: int) -> None:
            request = urllib.request.Request(
                base + "/api/lists",
                json.dumps({"name": f"during-{i}"}).encode(),
                {"Content-Type": "application/json"},
                method="POST",
            )
            try:
                with urllib.request.urlopen(request, timeout=60) as answer:
                    writes.append(answer.status)
            except urllib.error.HTTPError as exc:
                writes.append(exc.code)

        readers = [threading.Thread(target=read, args=(k,)) for k in range(3)]
        for reader in readers:
            reader.start()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        command = [sys.executable, "-m", "confnav", "ingest", "-q", "--db", str(iclr2021_copy), str(source)]
        ingest = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
        i = 0
        while ingest.poll() is None:
            write_list(i)
            i += 1
            time.sleep(1.0)
        time.sleep(2.0)  # reads after the commit reload the corpus
        done.set()
        for reader in readers:
            reader.join(timeout=120)
        assert ingest.returncode == 0, ingest.stderr.read() if ingest.stderr else ""
    p50, p99 = np.percentile(latencies, [50, 99]) * 1000
    print(
        f"\n{RECORDS:,} records ingested; {len(latencies)} reads, {len(errors)} errors, "
        f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(latencies) * 1000:.0f} ms; list writes {writes}"
    )
    assert not errors, errors[:5]
    assert set(writes) <= {201, 503}, writes  # a write waits for the ingest, or is told to retry; never a 500
