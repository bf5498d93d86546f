"""Theme labels by two labelers on the same themes, same run: by default plain c-TF-IDF (label.py) against the
default labeler, which reads the theme's centre where only titles name it (centroid.py, BERTopic's KeyBERT-inspired
representation verified against the members' own words); `--labelers A B` compares any two.

For ICLR 2021 and NeurIPS 2018 (the real data), and CVPR 2019 and ACL 2022 (held out): label fidelity (the share of
a theme's papers whose own keywords or title contain its label or its synonym, fidelity.py) size-weighted over
themes and over sub-themes, and cut labels; then every theme side by side with its members' own top keywords, and
the examples of issue 39: NeurIPS 2018's "Gaussian processes" and "blind deconvolution" themes, ICLR 2021's
"interpretability and data augmentation", and whether ICLR 2021 has a transformer theme.

`--examples` prints only those four as a reader sees them now (the default labeler): each theme's label, the papers
that lead it (first in the must-read ranking, and closest to its centre) and its largest sub-theme with its own
leading papers; for the transformer example, how many papers name the word in their keywords and which themes hold
them. `--keep DIR` keeps the indexed stores there and reuses them on the next run.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import DATA, machine, prepare_store
from confnav.embed import choose_embedder
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.rank import make_ranker
from confnav.store import SqliteStore
from confnav.topics import LABELERS, TopicBuilder, ensure_topics, theme_facts
from confnav.topics.facts import ThemeFacts
from confnav.topics.fidelity import coverage, is_cut
from confnav.topics.label import TOO_GENERIC

LABELERS_COMPARED = ("ctfidf", "ctfidf-centroid")


HELD_OUT = (("cvpr2019", "cvpr2019.json"), ("acl2022", "acl2022.json"))  # no keywords, never looked at to choose


def paperlist_store(folder: Path, venue: str, file: str, db: Path | None = None, name: str | None = None) -> Path:
    """An indexed store of one paperlists venue: a copy of `db` when given, else built from its file."""
    path = folder / (name or f"{venue}.db")
    if db:
        shutil.copy(db, path)
    with SqliteStore(path) as store:
        if venue not in {s.venue.id for s in store.venues()}:
            ingest(store, [DATA / "paperlists" / file])
        build_index(store, choose_embedder()[0])
    return path


def labelled(path: Path, venue: str, labeler: str) -> tuple[dict[str, tuple], float]:
    """Each theme (id → level, label, members, fidelity) as `labeler` names it, and the build's labelling time."""
    with SqliteStore(path) as store:
        build = TopicBuilder(labeler=LABELERS.create(labeler)).build(store, venue)
        papers = {p.id: p for p in store.iter_papers(venue)}
        themes = theme_facts(store, venue)
    rows = {}
    for theme in themes:
        members = [papers[i] for i in theme.paper_ids]
        rows[theme.id] = (theme.level, theme.label, members, coverage(theme.label, members))
    return rows, build.seconds["label"]


def summary(rows: dict[str, tuple], level: int) -> str:
    chosen = [r for r in rows.values() if r[0] == level]
    sizes = np.array([len(r[2]) for r in chosen])
    shares = np.array([r[3] for r in chosen])
    cut = sum(is_cut(r[1], r[2]) for r in chosen)
    return (
        f"size-weighted {np.sum(sizes * shares) / sizes.sum():.1%}, median {np.median(shares):.1%}, "
        f"under 20%: {int(np.sum(shares < 0.2))} of {len(chosen)}, cut: {cut}"
    )


def own_keywords(members: list) -> str:  # type: ignore[type-arg]
    common = Counter(k.strip().lower() for p in members for k in p.keywords if k.strip().lower() not in TOO_GENERIC)
    return ", ".join(k for k, _ in common.most_common(4))


def compare(path: Path, venue: str, examples: tuple[str, ...], labelers: tuple[str, ...] = LABELERS_COMPARED) -> None:
    results = {name: labelled(path, venue, name) for name in labelers}
    print(f"\n{venue}:")
    for name, (rows, seconds) in results.items():
        print(f"  {name:9} themes: {summary(rows, 1)}; sub-themes: {summary(rows, 2)}; labelling {seconds:.1f} s")
    before, after = (results[name][0] for name in labelers)
    print(f"  themes: size, fidelity and label by {' → '.join(labelers)} — the members' own top keywords")
    for tid, (level, label, members, share) in sorted(before.items(), key=lambda kv: -len(kv[1][2])):
        if level != 1:
            continue
        new = after[tid]
        mark = "*" if any(e in label.lower() or e in new[1].lower() for e in examples) else " "
        print(
            f"  {mark}{len(members):>5}  {share:>6.1%} {label!r} → {new[3]:>6.1%} {new[1]!r} — {own_keywords(members)}"
        )
    for name, (rows, _) in results.items():
        transformer = [r[1] for r in rows.values() if "transformer" in r[1].lower()]
        print(f"  {name}: labels naming transformers: {', '.join(transformer) or 'none'}")


LEADING = 3  # papers shown for a theme, and for its largest sub-theme


def _titles(ids: list[str], papers: dict, limit: int = LEADING) -> str:  # type: ignore[type-arg]
    return "; ".join(f"“{papers[i].title}”" for i in ids[:limit] if i in papers) or "none"


def _holding(themes: list[ThemeFacts], word: str, papers: dict) -> Counter[str]:  # type: ignore[type-arg]
    """How many papers naming `word` in their keywords each theme holds."""
    naming = {i for i, p in papers.items() if any(word in k.lower() for k in p.keywords)}
    return Counter({t.id: len(naming & set(t.paper_ids)) for t in themes})


def examples(path: Path, venue: str, phrases: tuple[str, ...]) -> None:
    """The themes the phrases name (by label, else the parent of a sub-theme it names, else the theme holding most
    papers whose keywords name the phrase) as the default labeler shows them: label, leading papers, largest
    sub-theme."""
    with SqliteStore(path) as store:
        ensure_topics(store, venue, TopicBuilder(), rebuild=True)
        themes = theme_facts(store, venue)
        papers = {p.id: p for p in store.iter_papers(venue)}
        ranked = [item.paper.id for item in make_ranker(store.settings).rank(store, venue).papers]
    top = [t for t in themes if t.level == 1]
    print(f"\n{venue}: {len(top)} themes, {len(themes) - len(top)} sub-themes (default labeler)")
    for phrase in phrases:
        named = [t for t in themes if phrase in t.label.lower()]
        held = _holding(top, phrase, papers)
        naming = sum(any(phrase in k.lower() for k in p.keywords) for p in papers.values())
        print(
            f"  “{phrase}”: {naming} papers name it in their keywords; labels naming it: "
            + (", ".join(f"{t.id} {t.label!r} ({t.size})" for t in named) or "none")
        )
        parents = {t.parent for t in named}  # a theme named by the phrase, else the theme of a sub-theme it names
        chosen = (
            [t for t in named if t.level == 1]
            or [t for t in top if t.id in parents]
            or [t for t in top if held[t.id] == max(held.values())][:1]
        )
        for theme in chosen:
            members = set(theme.paper_ids)
            subs = sorted((t for t in themes if t.parent == theme.id), key=lambda t: -t.size)
            print(f"    {theme.id} {theme.label!r}: {theme.size} papers, {held[theme.id]} of them naming “{phrase}”")
            print(f"      first in the ranking: {_titles([i for i in ranked if i in members], papers)}")
            print(f"      closest to its centre: {_titles(theme.representative, papers)}")
            if subs:
                largest = subs[0]
                inside = set(largest.paper_ids)
                print(
                    f"      largest sub-theme: {largest.label!r} ({largest.size} papers): "
                    f"{_titles([i for i in ranked if i in inside], papers)}"
                )
                print(f"      its other sub-themes: {', '.join(f'{s.label!r} ({s.size})' for s in subs[1:])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="An indexed ICLR 2021 store to start from.")
    parser.add_argument("--neurips-db", type=Path, help="An indexed NeurIPS 2018 store to start from.")
    parser.add_argument("--examples", action="store_true", help="Only the four examples of issue 39, as now.")
    parser.add_argument("--keep", type=Path, help="Keep the indexed stores in this folder (reused when there).")
    parser.add_argument("--labelers", nargs=2, default=LABELERS_COMPARED, help="The two labelers compared.")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as name:
        folder = args.keep or Path(name)
        folder.mkdir(parents=True, exist_ok=True)
        # a kept store is opened where it is, brought up to date
        nips = paperlist_store(folder, "neurips2018", "nips2018.json", args.neurips_db, name="nips.db")
        iclr = prepare_store(folder, args.db, with_2020=False)
        for path, venue, phrases in (
            (nips, "neurips2018", ("gaussian process", "deconvolution")),
            (iclr, "iclr2021", ("interpretability", "transformer")),
        ):
            if not args.examples:
                compare(path, venue, phrases, tuple(args.labelers))
            examples(path, venue, phrases)
        for venue, file in () if args.examples else HELD_OUT:
            compare(paperlist_store(folder, venue, file), venue, (), tuple(args.labelers))
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
