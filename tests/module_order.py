"""Longest modules first: the order in which two workers (`-n 2 --dist loadfile --no-loadscope-reorder`) take
the modules, from each test's seconds in earlier runs (pytest's cache), so that no long module starts last and
leaves the other worker idle (longest-processing-time-first scheduling). Without earlier runs, a test counts as the
mean of the known ones (one second when none is known): modules then go by their number of tests."""

from __future__ import annotations

from collections import defaultdict

import pytest

KEY = "confnav/test-seconds"


@pytest.hookimpl(trylast=True)  # after conftest.py's marks and the PostgreSQL run's choice
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Reorder the tests module by module, the longest expected module first; within a module the order stays."""
    cache = getattr(config, "cache", None)
    known: dict[str, float] = cache.get(KEY, {}) if cache is not None else {}
    guess = sum(known.values()) / len(known) if known else 1.0
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    expected = {name: sum(known.get(i.nodeid, guess) for i in tests) for name, tests in modules.items()}
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
