"""Speed of the personal navigator: a personal must-read of a 10,000-paper venue (ICLR 2021 replicated with new
ids and its papers' vectors, semantic model), warm; refitting after one mark; importing a 2,000-entry BibTeX
library made from real papers' metadata (ICLR 2018, NeurIPS 2018, ICLR 2020: a third match stored papers by
title, a third by OpenReview URL, the rest are the researcher's own texts with abstracts).

Uses the store of benchmarks/recommend_eval.py (built there once, kept under artifacts/recommend-eval/).
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _people import EARLIER, build_store
from _util import machine
from confnav.personal import import_library, mark, personal_rank, recommend_for
from confnav.personal.recommend import load_profile, model_of
from confnav.personal.taste import DEFAULT_PARAMS
from confnav.store import SqliteStore
from confnav.store.profiles import ProfileItem
from rank_eval import big_venue
from recommend_eval import BLEND, CACHE

LIBRARY = 2000
PROFILE_ITEMS = 30


def bibtex_library(path: Path, store: SqliteStore) -> None:
    """LIBRARY BibTeX entries from the earlier venues' real metadata, in three shapes."""
    records = [r for file in EARLIER.values() for r in json.loads(file.read_text(encoding="utf-8")) if r.get("id")]
    stored = {p.id for p in store.iter_papers()}
    entries = []
    for n, record in enumerate(records[:LIBRARY]):
        authors = " and ".join(a.strip() for a in str(record.get("author") or "").split(";") if a.strip())
        fields = {"title": record["title"], "author": authors, "year": "2019"}
        if n % 3 == 1 and record["id"] in stored:
            fields["url"] = f"https://openreview.net/forum?id={record['id']}"
            fields["title"] = "A title as the library spells it"
        elif n % 3 == 2:
            fields["title"] = f"{record['title']}: extended version {n}"
            fields["abstract"] = str(record.get("abstract") or record.get("tldr") or "")
        body = ",\n".join(f"  {k} = {{{v.replace('{', '(').replace('}', ')')}}}" for k, v in fields.items() if v)
        entries.append(f"@inproceedings{{key{n},\n{body}\n}}\n")
    path.write_text("\n".join(entries), encoding="utf-8")


def timed(action: object, repeat: int = 5) -> tuple[float, float]:
    """Median and max seconds of `repeat` calls of `action`."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times), max(times)


def main() -> None:
    cached = build_store(CACHE)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "speed.db"
        shutil.copy(cached, path)
        with SqliteStore(path) as store:
            venue = big_venue(store)
            earlier = list(store.iter_papers("iclr2018"))[:PROFILE_ITEMS]
            store.create_profile("bench")
            store.add_profile_items("bench", [ProfileItem(p.title, None, 2018, p.venue, p.id) for p in earlier])
            collaborators = len(load_profile(store, "bench", model_of(store)).collaborators)
            print(f"# personal navigator speed ({machine()})")
            print(
                f"venue {venue}: {store.count_papers(venue):,} papers; profile of {PROFILE_ITEMS} papers"
                f" ({collaborators} papers by their authors)"
            )
            start = time.perf_counter()
            personal_rank(store, venue, "bench")
            first = time.perf_counter() - start
            print(f"personal must-read: first {first:.2f} s (the venue's words view made once)")
            for name, params in (("default", DEFAULT_PARAMS), ("blend (before)", BLEND)):
                warm = timed(lambda p=params: personal_rank(store, venue, "bench", params=p))  # type: ignore[misc]
                plain = timed(lambda p=params: recommend_for(store, "bench", venue, 50, params=p))  # type: ignore[misc]
                print(
                    f"{name}: personal must-read warm median {warm[0]:.3f} s (max {warm[1]:.3f} s);"
                    f" recommend --for top 50 warm median {plain[0] * 1000:.0f} ms (max {plain[1] * 1000:.0f})"
                )

            candidates = iter(recommend_for(store, "bench", venue, 40))

            def mark_and_refit() -> None:
                hit = next(candidates)
                mark(store, "bench", [hit.paper.id], "dislike")
                recommend_for(store, "bench", venue, 50)

            refit = timed(mark_and_refit, 10)
            print(f"one mark, then the refitted top 50: median {refit[0] * 1000:.0f} ms (max {refit[1] * 1000:.0f})")

            library = Path(tmp) / "library.bib"
            bibtex_library(library, store)
            start = time.perf_counter()
            report = import_library(store, [library], "big")
            took = time.perf_counter() - start
            print(
                f"import of a {LIBRARY:,}-entry BibTeX library: {took:.2f} s ({report.matched} matched,"
                f" {report.own} own texts, {len(report.problems)} problems)"
            )
            start = time.perf_counter()
            recommend_for(store, "big", venue, 50)
            once = time.perf_counter() - start
            again = timed(lambda: recommend_for(store, "big", venue, 50))[0]
            print(f"first recommendations (embeds {report.own} own texts once): {once:.1f} s; then {again:.3f} s")


if __name__ == "__main__":
    main()
