"""The capacity model of benchmarks/capacity.py: its fits, and docs/deploy.md's tables equal to its output."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.capacity import RESOURCES, SIZES, TARGET, Point, breaking, fit, load, report

ROOT = Path(__file__).resolve().parents[1]


def points(resource: str, values: dict[int, float]) -> list[Point]:
    return [Point(resource, "postgres", n, v, "cmd", "2026-11-26", "") for n, v in values.items()]


def test_a_growing_figure_gets_a_line_through_its_points() -> None:
    model = fit(points("rss_mb", {10_000: 110.0, 100_000: 200.0, 500_000: 600.0}))
    assert model.form == "linear"
    assert model.slope == pytest.approx(0.001)
    assert model.at(TARGET) == pytest.approx(3100.0)
    assert model.crossing(1000.0) == 900_000


def test_a_figure_that_does_not_grow_is_flat_at_its_largest_measured_value() -> None:
    falling = fit(points("p99_ms", {50_000: 195.0, 100_000: 216.0, 500_000: 59.0}))
    assert (falling.form, falling.at(TARGET), falling.crossing(100.0)) == ("flat", 216.0, None)
    scattered = fit(points("p50_ms", {10_000: 10.0, 20_000: 30.0, 30_000: 10.0, 40_000: 31.0}))
    assert scattered.form == "flat" and scattered.r2 < 0.8
    assert fit(points("start_s", {100_000: 1.0})).form == "one size"  # nothing to fit


def test_the_figures_file_is_complete_and_every_figure_has_its_source() -> None:
    found = load()
    assert {p.resource for p in found if p.backend == "postgres"} == set(RESOURCES)
    assert all(p.command.startswith("python benchmarks/") and "2026-" in p.date for p in found)
    for size in SIZES:  # measured at every size the table shows, on the backend a deployment past one machine uses
        assert any(p.papers == size and p.backend == "postgres" for p in found)


def test_the_first_figure_to_break_comes_first() -> None:
    found = [
        *points("rss_mb", {10_000: 110.0, 100_000: 200.0}),
        *points("start_s", {10_000: 0.5, 100_000: 1.5}),
        *points("p99_ms", {10_000: 50.0}),
    ]
    order = [(at, what, how) for at, _, what, how in breaking(found)]
    assert order == [
        (145_000, "worker start passes 2 s", "by the model"),
        (900_000, "RAM per worker passes 1,000 MB", "by the model"),
    ]


def test_a_figure_over_its_goal_from_the_start_breaks_at_every_size() -> None:
    slow = points("start_s", {10_000: 3.0, 100_000: 4.0})
    assert [(at, how) for at, _, _, how in breaking(slow)] == [(0, "by the model")]
    assert "worker start passes 2 s at every size (by the model)" in report(slow)


def test_a_figure_that_is_not_a_number_is_named_by_its_line(tmp_path: Path) -> None:
    figures = tmp_path / "capacity.tsv"
    head = "resource\tbackend\tpapers\tvalue\tcommand\tdate\tnote\tfitted\n"
    figures.write_text(head + "rss_mb\tpostgres\t10000\t242 MB\tcmd\t2026-11-26\t\tyes\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"capacity.tsv:2: papers and value must be numbers"):
        load(figures)


def test_the_deploy_guide_shows_the_model_as_the_script_prints_it() -> None:
    """The capacity tables of docs/deploy.md are the script's output: refresh them with
    `python benchmarks/capacity.py --markdown` after changing benchmarks/capacity.tsv."""
    guide = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    assert report(load()) in guide
