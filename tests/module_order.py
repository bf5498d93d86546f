"""Longest modules first: the order in which two workers (`-n 2 --dist loadfile --no-loadscope-reorder`) take
the modules, from each test's seconds in earlier runs (pytest's cache), so that no long module starts last and
leaves the other worker idle (longest-processing-time-first scheduling). Without earlier runs, a test counts as the
mean of the known ones (one second when none is known): modules then go by their number of tests."""

from __future__ import annotations

from collections import defaultdict

import pytest

KEY = "confnav/test-seconds"
_seconds: dict[str, float] = defaultdict(float)  # this run's, by test id (the controller's, or a lone process's)


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


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add up each test's setup, call and teardown (on xdist's controller, the workers' reports)."""
    _seconds[report.nodeid] += report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Keep this run's seconds, test by test, over the earlier ones (a worker leaves it to the controller)."""
    cache = getattr(session.config, "cache", None)
    if cache is None or hasattr(session.config, "workerinput") or not _seconds:
        return
    cache.set(KEY, {**cache.get(KEY, {}), **{k: round(v, 3) for k, v in _seconds.items()}})
