"""CPU a researcher's commands cost as whole `confnav` processes, this code against an earlier commit's, same run.

Each command runs in a fresh process on its own copy of one indexed, themed ICLR 2021 store (one copy per code, so
what one version keeps in the store's cache cannot serve the other), first once to fill what a command keeps, then
`--runs` times, the two versions taking turns. The figure is the process's user + system CPU-seconds (the machine
may be shared: CPU, not wall time) and its peak RSS.
Run: python benchmarks/command_cpu.py --db STORE [--baseline REV] [--runs N]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ROOT, machine, median, prepare_store
from index_cpu import export

COMMANDS: list[list[str]] = [
    ["--version"],
    ["venues"],
    ["show", "Ua6zuk0WRH"],
    ["search", "linear attention with random features", "--limit", "5"],
    ["rank", "--venue", "iclr2021", "--top", "20", "--explain"],
    ["stats", "--venue", "iclr2021"],
    ["report", "digest", "--venue", "iclr2021", "--top", "20", "-o", "{out}/digest.md"],
    ["report", "overview", "--venue", "iclr2021", "-o", "{out}/overview.md"],
    ["verify", "{out}/overview.md"],
]


def run(src: Path, store: Path, command: list[str], out: Path) -> tuple[float, float]:
    """(CPU-seconds, peak RSS MB) of one `confnav` process with `src` on the path, as GNU time reads them (a
    child's own peak: the benchmark's memory does not count)."""
    args = [arg.replace("{out}", str(out)) for arg in command]
    env = {"PYTHONPATH": str(src), "OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    said = out / "time.txt"
    timed = ["/usr/bin/time", "-f", "%U %S %M", "-o", str(said), sys.executable, "-m", "confnav", "--db", str(store)]
    done = subprocess.run([*timed, *args], env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(args)} with {src} ended with status {done.returncode}: {done.stderr[-500:]}")
    user, system, peak_kb = said.read_text().split()[-3:]
    return float(user) + float(system), int(peak_kb) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="an indexed ICLR 2021 store (else one is built: minutes)")
    parser.add_argument("--baseline", default="HEAD~1", help="the commit to compare with")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        source = prepare_store(folder, args.db, with_2020=False)
        versions = {
            f"baseline ({args.baseline})": export(args.baseline, folder / "baseline"),
            "this code": ROOT / "src",
        }
        stores, outs = {}, {}
        for index, (label, src) in enumerate(versions.items()):
            stores[label] = folder / f"store{index}.db"
            shutil.copy(source, stores[label])
            if source.with_name(source.name + ".search").is_dir():
                shutil.copytree(
                    source.with_name(source.name + ".search"), stores[label].with_name(f"store{index}.db.search")
                )
            outs[label] = folder / f"out{index}"
            outs[label].mkdir()
            subprocess.run(
                [sys.executable, "-m", "confnav", "--db", str(stores[label]), "topics", "--venue", "iclr2021"],
                env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
                capture_output=True,
                check=True,
            )
        print(f"{'command':60} " + "  ".join(f"{label:>26}" for label in versions) + "   ratio")
        for command in COMMANDS:
            figures: dict[str, list[tuple[float, float]]] = {label: [] for label in versions}
            for label, src in versions.items():
                run(src, stores[label], command, outs[label])  # fills what the command keeps
            for _ in range(args.runs):
                for label, src in versions.items():
                    figures[label].append(run(src, stores[label], command, outs[label]))
            cpus = {label: median([cpu for cpu, _ in runs]) for label, runs in figures.items()}
            rss = {label: max(mb for _, mb in runs) for label, runs in figures.items()}
            cells = "  ".join(f"{cpus[label]:6.2f} CPU-s {rss[label]:6.0f} MB  " for label in versions)
            old, new = cpus.values()
            print(f"{' '.join(command)[:60]:60} {cells} {new / old:5.2f}x", flush=True)


if __name__ == "__main__":
    main()
