"""Longest modules first: the order in which two workers (`-n 2 --dist loadfile --no-loadscope-reorder`) take
the modules, from each test's seconds in earlier runs (pytest's cache), so that no long module starts last and
leaves the other worker idle (longest-processing-time-first scheduling). A fresh clone (CI) has no cache: it takes
the modules' seconds recorded in MODULE_SECONDS (`make test-seconds` writes them from the caches of both passes). A
test neither knows counts as the mean of the known ones (one second when none is known)."""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from pathlib import Path

import pytest

KEY = "confnav/test-seconds"
MODULE_SECONDS = Path("tests/module-seconds.json")  # from the repository's root: {pass: {module: seconds}}
PASSES = {"sqlite": ".pytest_cache", "postgres": ".pytest_cache/postgres"}  # each pass's cache, as the Makefile sets


@pytest.hookimpl(trylast=True)  # after conftest.py's marks and the PostgreSQL run's choice
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Reorder the tests module by module, the longest expected module first; within a module the order stays."""
    cache = getattr(config, "cache", None)
    known: dict[str, float] = cache.get(KEY, {}) if cache is not None else {}
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    if known:
        guess = sum(known.values()) / len(known)
        expected = {name: sum(known.get(i.nodeid, guess) for i in tests) for name, tests in modules.items()}
    else:
        recorded = _recorded(config.rootpath).get(os.environ.get("CONFNAV_TEST_BACKEND", "sqlite"), {})
        counted = sum(len(tests) for name, tests in modules.items() if name in recorded)
        per_test = sum(recorded.values()) / counted if counted else 1.0
        expected = {name: recorded.get(name, per_test * len(tests)) for name, tests in modules.items()}
    items[:] = [item for name in sorted(modules, key=lambda m: -expected[m]) for item in modules[name]]


class Timing:
    """This run's seconds, test by test (on xdist's controller, from the workers' reports), kept at its end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] += report.duration  # setup, call and teardown

    def pytest_sessionfinish(self) -> None:
        cache = getattr(self.config, "cache", None)
        if cache is None or not self.seconds:
            return
        root = self.config.rootpath
        kept = {k: v for k, v in cache.get(KEY, {}).items() if (root / k.split("::")[0]).exists()}  # no removed ones
        cache.set(KEY, {**kept, **{k: round(v, 3) for k, v in self.seconds.items()}})


def pytest_configure(config: pytest.Config) -> None:
    """Time the tests in the process that reports them all (a worker leaves it to the controller)."""
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(Timing(config), "confnav-test-seconds")


def _recorded(root: Path) -> dict[str, dict[str, float]]:
    """The committed record of each pass's module seconds; empty when absent (another project) or unreadable."""
    try:
        return json.loads((root / MODULE_SECONDS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def record(root: Path) -> dict[str, dict[str, float]]:
    """Each pass's seconds per module from its cache (the last run), for the committed record."""
    passes: dict[str, dict[str, float]] = {}
    for name, folder in PASSES.items():
        try:
            seconds = json.loads((root / folder / "v" / KEY).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        modules: dict[str, float] = defaultdict(float)
        for test, spent in seconds.items():
            module = test.split("::")[0]
            if (root / module).exists():
                modules[module] += spent
        passes[name] = {module: round(spent, 1) for module, spent in sorted(modules.items())}
    return passes


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    (root / MODULE_SECONDS).write_text(json.dumps(record(root), indent=1) + "\n", encoding="utf-8")
