"""Report speed on ICLR 2021 (offline path): overview and statistics, built, rendered and verified.

Goals (issue 6): overview ≤ 10 s, statistics report ≤ 5 s. Themes are built once first (their own
cost is in topics_eval.py); each report is then timed as `confnav report` does it, 3 runs, median.
Also the overview's prose (issue 15): how many sentences tell what a theme's papers do, whether the
theme's top-ranked paper is among them, the mean list position of the papers told, and how many are
named only "one paper", "another paper" (no name in the title or abstract, a title too long to quote).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import machine, peak_rss_mb, themed_iclr, timed_runs
from confnav.reports.model import Report
from confnav.reports.overview import build_overview
from confnav.reports.render import to_html, to_markdown
from confnav.reports.stats import build_stats_report
from confnav.reports.verify import verify_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="An indexed store with ICLR 2021 (and 2020) to start from.")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with themed_iclr(args.db) as store:

        def overview() -> None:
            report = build_overview(store, "iclr2021")
            for text in (to_markdown(report), to_html(report)):
                assert verify_text(store, text).ok

        def stats() -> None:
            text = to_html(build_stats_report(store, "iclr2021"))
            assert verify_text(store, text).ok

        for label, make, goal in (
            ("overview (md + html, verified)", overview, 10),
            ("statistics (html)", stats, 5),
        ):
            runs = timed_runs(make)
            each = ", ".join(f"{t:.2f}" for t in runs)
            print(f"  {label:32} median {statistics.median(runs):.2f} s (runs {each}); goal <= {goal} s")
        prose(build_overview(store, "iclr2021"))
    print(f"  peak RSS {peak_rss_mb():.0f} MB")


def prose(report: Report) -> None:
    """What the overview's paragraphs tell of their themes' papers."""
    told, positions, first = 0, [], 0
    for section in report.sections:
        listed = [c.paper_id for c in section.citations]
        cited = re.findall(r"\[\[cite:([^\]]+)\]\]", section.summary)
        told += len(cited)
        positions += [listed.index(i) + 1 for i in cited if i in listed]
        first += bool(listed) and listed[0] in cited
    unnamed = sum(len(re.findall(r"\b(One|Another|A \w+) paper\b", s.summary)) for s in report.sections)
    sections = len(report.sections)
    print(
        f"  overview prose: {told} paper sentences in {sections} sections; the top-ranked paper told in {first} "
        f"of {sections}; mean list position of the papers told {sum(positions) / max(1, len(positions)):.2f}; "
        f"named only by an ordinal: {unnamed}"
    )


if __name__ == "__main__":
    main()
