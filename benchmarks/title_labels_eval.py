"""Theme labels of venues whose lists give no author keywords (NeurIPS 2018, CVPR 2019, ACL 2022, CoRL 2023, and
SIGGRAPH 2022, which gives titles alone).

Their labels come from title word runs alone. For each venue: themes and sub-themes built on the
venue's vectors (MiniLM when the store given by --db holds them, else a fresh TF-IDF index), the
labels with a part cut from a longer phrase or a modifier ("distributed stochastic",
"information-theoretic", "shot learning"), judged on the members' titles and on the venue's
prose (topics/fidelity.py); the labels only one member's title holds, and how many of those run on
into a word of that title ("efficiency-aware multiple" importance sampling); every label, and the
label step's time; the share of labels each of whose parts two members' titles or more hold (the support
docs/topics.md promises), and the smallest sub-theme.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import DATA, machine
from confnav.embed import SparseEmbedder
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.store import SqliteStore
from confnav.topics import TopicBuilder, theme_facts
from confnav.topics.fidelity import PhraseUse, Prose, label_faults, parts

VENUES = {
    "neurips2018": "nips2018.json",
    "cvpr2019": "cvpr2019.json",
    "acl2022": "acl2022.json",
    "corl2023": "corl2023.json",
    "siggraph2022": "siggraph2022.json",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="A store already holding these venues with their vectors.")
    parser.add_argument("--as-built", action="store_true", help="Judge the themes in --db (built by another version).")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / "labels.db"
        if args.db:
            shutil.copy(args.db, path)
        with SqliteStore(path) as store:
            loaded = {s.venue.id for s in store.venues()}
            missing = [DATA / "paperlists" / file for venue, file in VENUES.items() if venue not in loaded]
            if missing:
                ingest(store, missing)
                build_index(store, SparseEmbedder())
            labels = cut_labels = phrases = cut_phrases = singles = runs_on = supported = 0
            for venue in VENUES:
                took = "" if args.as_built else _build(store, venue)
                themes = [t for level in (1, 2) for t in theme_facts(store, venue, level=level)]
                papers = {p.id: p for p in store.iter_papers(venue)}
                prose = Prose(list(papers.values()))
                faults = [label_faults(t.label, [papers[i] for i in t.paper_ids], prose, t.keywords) for t in themes]
                cut = [t.label for t, f in zip(themes, faults, strict=True) if f.cut]
                beside = sum(len(t.keywords) for t in themes)
                cut_beside = [k for f in faults for k in f.cut_beside]
                single = sum(f.one_title for f in faults)
                running = [t.label for t, f in zip(themes, faults, strict=True) if f.runs_on]
                singles, runs_on = singles + single, runs_on + len(running)
                backed = [_supported(t.label, [papers[i] for i in t.paper_ids]) for t in themes]
                supported += sum(backed)
                labels, cut_labels = labels + len(themes), cut_labels + len(cut)
                phrases, cut_phrases = phrases + beside, cut_phrases + len(cut_beside)
                print(f"\n{venue}: {len(themes)} labels, {len(cut)} with a cut part or modifier: {cut or 'none'}")
                print(f"  phrases shown beside them: {beside}, {len(cut_beside)} cut: {cut_beside or 'none'}")
                print(f"  from one title: {single}, running on in it: {len(running)}: {running or 'none'}")
                for level in (1, 2):
                    at = [(t, ok) for t, ok in zip(themes, backed, strict=True) if t.level == level]
                    smallest = min((len(t.paper_ids) for t, _ in at), default=0)
                    print(
                        f"  level {level}: {sum(ok for _, ok in at)} of {len(at)} labels in two members' titles or"
                        f" more ({sum(ok for _, ok in at) / max(len(at), 1):.0%}); smallest theme {smallest} papers;"
                        f" unsupported: {[t.label for t, ok in at if not ok] or 'none'}"
                    )
                print(f"  {took}" if took else "  (themes as built)")
                for level in (1, 2):
                    shown = [t.label for t in themes if t.level == level]
                    print(f"  level {level}: " + "; ".join(shown))
            print(f"\nall: {cut_labels} of {labels} labels cut or modifiers; {cut_phrases} of {phrases} beside them")
            print(f"all: {singles} labels from one title, {runs_on} of them running on in it")
            print(f"all: {supported} of {labels} labels in two members' titles or more ({supported / labels:.1%})")


def _supported(label: str, members: list) -> bool:  # type: ignore[type-arg]
    """Whether each part of the label is in two members' titles (or keywords) or more."""
    uses = PhraseUse(members)
    return all(int(uses.of(part).sum()) >= 2 for part in parts(label))


def _build(store: SqliteStore, venue: str) -> str:
    start = time.perf_counter()
    built = TopicBuilder().build(store, venue)
    return f"themes + labels + map {time.perf_counter() - start:.1f} s, label step {built.seconds['label']:.2f} s"


if __name__ == "__main__":
    main()
