"""The workers' order of the test modules: the longest first, as the last run timed them (tests/module_order.py)."""

from __future__ import annotations

import pytest

SLOW = "import time\n\ndef test_slow():\n    time.sleep(0.3)\n"
QUICK = "def test_one():\n    pass\n\ndef test_two():\n    pass\n\ndef test_three():\n    pass\n"


def collected(pytester: pytest.Pytester) -> list[str]:
    result = pytester.runpytest("-p", "tests.module_order", "--collect-only", "-q")
    return [line.split("::")[0] for line in result.outlines if "::" in line]


def project(pytester: pytest.Pytester) -> None:
    """Two test modules in a project of their own (its own ini file: a run's folder may sit inside this project)."""
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_a_quick=QUICK, test_b_slow=SLOW)


def test_the_longest_module_of_the_last_run_goes_first(pytester: pytest.Pytester) -> None:
    project(pytester)
    assert collected(pytester)[0] == "test_a_quick.py"  # nothing timed yet: the module of more tests first
    pytester.runpytest("-p", "tests.module_order").assert_outcomes(passed=4)
    assert collected(pytester) == ["test_b_slow.py", *["test_a_quick.py"] * 3]


def test_a_removed_module_is_forgotten(pytester: pytest.Pytester) -> None:
    project(pytester)
    pytester.runpytest("-p", "tests.module_order").assert_outcomes(passed=4)
    (pytester.path / "test_b_slow.py").unlink()
    pytester.runpytest("-p", "tests.module_order").assert_outcomes(passed=3)
    cache = pytester.parseconfigure().cache
    assert cache is not None and set(cache.get("confnav/test-seconds", {})) == {
        f"test_a_quick.py::{name}" for name in ("test_one", "test_two", "test_three")
    }


def test_a_fresh_clone_takes_the_recorded_module_seconds(pytester: pytest.Pytester) -> None:
    project(pytester)
    record = '{"sqlite": {"test_b_slow.py": 5.0, "test_a_quick.py": 0.1}, "postgres": {"test_b_slow.py": 5.0}}'
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "module-seconds.json").write_text(record)
    assert collected(pytester) == ["test_b_slow.py", *["test_a_quick.py"] * 3]  # no cache: the record decides
    pytester.runpytest("-p", "tests.module_order").assert_outcomes(passed=4)
    cache = pytester.parseconfigure().cache
    assert cache is not None
    cache.set("confnav/test-seconds", {f"test_a_quick.py::{n}": 9.0 for n in ("test_one", "test_two", "test_three")})
    assert collected(pytester)[0] == "test_a_quick.py"  # a run's own timing goes before the record


def test_the_record_is_written_from_both_passes_caches(pytester: pytest.Pytester) -> None:
    from tests.module_order import record

    project(pytester)
    for folder, seconds in ((".pytest_cache", 1.5), (".pytest_cache/postgres", 2.5)):
        kept = pytester.path / folder / "v" / "confnav" / "test-seconds"
        kept.parent.mkdir(parents=True)
        kept.write_text(f'{{"test_b_slow.py::test_slow": {seconds}, "test_gone.py::test_x": 1}}')
    assert record(pytester.path) == {"sqlite": {"test_b_slow.py": 1.5}, "postgres": {"test_b_slow.py": 2.5}}
