"""The overview read as a researcher reads it, on ICLR 2021 (offline path), with the faults issue 39 names counted.

Each must be 0: facts said twice (a fact shown twice, or a facts-block line repeating another's label), sentences
opening on a connective or pointer ("However, …", "This …", "To implement the idea, …"), hover cards whose TL;DR
repeats the sentence they sit on. Words per theme paragraph for the largest themes (goal 150-250), the whole
report's words, the structure (an opening, a closing "where to start", the smaller themes in brief), and the
time to build it (goal <= 10 s), and to build, render (Markdown + HTML) and verify it (medians of 3).

`--llm URL` (an OpenAI-compatible endpoint, e.g. llama.cpp's server with SmolLM2) builds it once more with the
model writing its paragraphs, checked sentence by sentence: the same faults counted, it verifies, and the share of
the model's sentences the checks dropped or replaced.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import machine, themed_iclr
from confnav.reports.faults import dangling_sentences, hover_repeats, repeated_facts, word_count
from confnav.reports.model import Report
from confnav.reports.overview import build_overview
from confnav.reports.render import to_html, to_markdown
from confnav.reports.verify import verify_text
from confnav.summarize.llm import ChatClient, LLMConfig

WORDS = (150, 250)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="An indexed store with ICLR 2021 (and 2020) to start from.")
    parser.add_argument("--llm", metavar="URL", help="Also with this LLM endpoint (…/v1) writing the paragraphs.")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with themed_iclr(args.db) as store:
        times, built = [], []
        for _ in range(3):
            start = time.perf_counter()
            report = build_overview(store, "iclr2021")
            built.append(time.perf_counter() - start)
            markdown, html = to_markdown(report), to_html(report)
            assert verify_text(store, markdown).ok and verify_text(store, html).ok
            times.append(time.perf_counter() - start)
        print("offline:")
        read(report, markdown, html, built, times)
        if args.llm:
            start = time.perf_counter()
            client = ChatClient(LLMConfig(args.llm, "local", timeout=300))  # TL;DRs stay the stored ones
            written = build_overview(store, "iclr2021", client=client)
            took = time.perf_counter() - start
            markdown, html = to_markdown(written), to_html(written)
            verified = verify_text(store, markdown).ok and verify_text(store, html).ok
            print(f"with the LLM at {args.llm} (verifies: {verified}):")
            print("  " + "\n  ".join(written.notes))
            read(written, markdown, html, [took], [took])


def read(report: Report, markdown: str, html: str, built: list[float], times: list[float]) -> None:
    """The faults, lengths and times of one built overview."""
    themes = [s for s in report.sections if s.anchor]
    words = [word_count(s.summary) for s in themes]
    prose = [report.intro, *(s.summary for s in report.sections)]
    faults = {
        "repeated facts": repeated_facts(markdown),
        "dangling openers": dangling_sentences(prose),
        "hover cards repeating their sentence": hover_repeats(html),
    }
    for fault, found in faults.items():
        print(f"  {fault}: {len(found)}" + (f" (e.g. {found[0]!r})" if found else ""))
    inside = sum(WORDS[0] <= n <= WORDS[1] for n in words)
    print(
        f"  theme paragraphs: {len(themes)}, words each: median {statistics.median(words):.0f}, "
        f"min {min(words)}, max {max(words)}; within {WORDS[0]}-{WORDS[1]}: {inside} of {len(themes)}"
    )
    others = [s.title for s in report.sections if not s.anchor]
    print(
        f"  opening: {word_count(report.intro)} words; sections besides the themes: {', '.join(others) or 'none'}; "
        f"whole report: {len(markdown.split()):,} words of Markdown"
    )
    print(
        f"  build: median {statistics.median(built):.2f} s (runs {', '.join(f'{t:.2f}' for t in built)}); goal <= 10 s"
    )
    print(
        f"  build + render + verify (md and html): median {statistics.median(times):.2f} s "
        f"(runs {', '.join(f'{t:.2f}' for t in times)})"
    )


if __name__ == "__main__":
    main()
