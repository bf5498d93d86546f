"""Experts quality on ICLR 2021: is an author found for a topic they work on, against a keyword-count baseline.

People are told apart by profile ids (`people.py`). Two case sets, each rule fixed before any figure was seen:
  - own keyword: every person with at least 3 papers in ICLR 2021, and the author keyword they used most there
    (on at least 2 of those papers; ties alphabetical) as the topic. The baseline below counts exactly the
    keyword the case was chosen by, so this set favours it;
  - earlier keyword: every person with at least 2 papers in ICLR 2021 and the author keyword they used most in
    ICLR 2020 (on at least 2 of those papers; ties alphabetical): what they were known for a year before, asked
    of the next year's papers, which were not used to choose it.
Figure: the share of cases whose person is in the top 10 of
  - experts: `find_experts` with its weights (docs/search.md);
  - relevance alone: the evidence weights (1, 0, 0), the method before the weights were fitted;
  - fitted: weights fitted here by maximum likelihood (each case's person against the other candidates, a
    conditional logit) on the people of the fit half, both sets pooled;
  - baseline: people ranked by their count of papers with a keyword containing the topic (ties shared out: a
    person tied with others over the last places counts the chance a random order puts them in).
People are split in halves by a hash of their key: weights are fitted on the first and figures given on the
second (held out), and on all cases.
Run: python benchmarks/experts_eval.py [--db STORE] [--model tfidf-svd|all-MiniLM-L6-v2] [--cases N]
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import DATA, ICLR2021, machine
from confnav.embed import choose_embedder
from confnav.embed.sparse import SPARSE_MODEL
from confnav.index import build_index
from confnav.ingest import ingest
from confnav.model import Paper
from confnav.people import PeopleIndex
from confnav.search.engine import Searcher
from confnav.search.experts import EVIDENCE, WEIGHTS, candidates
from confnav.store import SqliteStore

TOP = 10
ICLR2020 = DATA / "iclr2020" / "paperlists-iclr2020.json"
RELEVANCE_ALONE = {name: float(name == "relevance") for name in EVIDENCE}


@dataclass
class Case:
    """One question: the case set, the person wanted, the topic, the candidates' keys and evidence, the
    baseline's chance of a hit."""

    kind: str
    key: str
    topic: str
    keys: list[str]
    evidence: np.ndarray
    baseline: float

    @property
    def held_out(self) -> bool:
        return hashlib.sha1(self.key.encode()).digest()[0] % 2 == 1

    def hit(self, weights: dict[str, float]) -> bool:
        """Whether the person is among the TOP candidates ranked by these weights (ties by key, as experts)."""
        score = self.evidence @ np.array([weights[name] for name in EVIDENCE])
        ranked = sorted(zip(-score, self.keys, strict=True))[:TOP]
        return any(key == self.key for _, key in ranked)


def prepare(folder: Path, db: Path | None, model: str) -> Path:
    """A store with ICLR 2021 indexed by `model` (a copy of `db` when given) and ICLR 2020's papers."""
    path = folder / "experts.db"
    if db:
        shutil.copy(db, path)
    with SqliteStore(path) as store:
        loaded = {s.venue.id for s in store.venues()}
        if "iclr2021" not in loaded:
            ingest(store, ICLR2021)
            build_index(store, choose_embedder(model)[0])
        if "iclr2020" not in loaded:
            ingest(store, [ICLR2020])
    return path


def most_used(theirs: list[Paper]) -> str | None:
    """The author keyword used on most of these papers (at least 2; ties alphabetical), lower-cased."""
    used = Counter(k for p in theirs for k in {k.strip().lower() for k in p.keywords if k.strip()})
    best = sorted((-n, k) for k, n in used.items() if n >= 2)
    return best[0][1] if best else None


def case_topics(store: SqliteStore, people: PeopleIndex) -> list[tuple[str, str, str]]:
    """(case set, person key, topic) of both case sets, by the rules of the module's docstring."""
    owned: dict[tuple[str, str], list[Paper]] = defaultdict(list)
    for venue in ("iclr2021", "iclr2020"):
        for paper in store.iter_papers(venue):
            for key in dict.fromkeys(people.key(a) for a in paper.authors):
                owned[venue, key].append(paper)
    found = []
    for (venue, key), theirs in sorted(owned.items()):
        if venue != "iclr2021":
            continue
        if len(theirs) >= 3 and (topic := most_used(theirs)):
            found.append(("own keyword", key, topic))
        if len(theirs) >= 2 and (topic := most_used(owned.get(("iclr2020", key), []))):
            found.append(("earlier keyword", key, topic))
    return found


def baseline_hit(papers: list[Paper], people: PeopleIndex, key: str, topic: str) -> float:
    """The chance `key` is in the top 10 of people ranked by papers with a keyword containing `topic`."""
    counts: Counter[str] = Counter({people.key(a): 0 for p in papers for a in p.authors})
    for paper in papers:
        if any(topic in k.lower() for k in paper.keywords):
            counts.update({people.key(a) for a in paper.authors})
    mine = counts[key]
    above = sum(1 for n in counts.values() if n > mine)
    tied = sum(1 for n in counts.values() if n == mine)
    return max(0.0, min(1.0, (TOP - above) / tied))


def fit(cases: list[Case], penalty: float = 1.0) -> dict[str, float]:
    """Weights making each case's person the likeliest of its candidates (a conditional logit with a ridge
    penalty, by damped Newton steps); cases whose person is no candidate say nothing and are left out. Evidence
    only adds: a kind fitted below zero is held at zero and the others fitted again."""
    kept = list(range(len(EVIDENCE)))
    while True:
        w = _logit([(c.evidence[:, kept], c.keys.index(c.key)) for c in cases if c.key in c.keys], penalty)
        if w.min() >= 0:
            break
        kept.pop(int(np.argmin(w)))
    weights = dict.fromkeys(EVIDENCE, 0.0)
    weights.update({EVIDENCE[i]: round(float(v), 3) for i, v in zip(kept, w, strict=True)})
    return weights


def _logit(usable: list[tuple[np.ndarray, int]], penalty: float) -> np.ndarray:
    """The conditional logit's weights for (candidates' evidence, the wanted row) pairs."""

    def objective(w: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """The penalised log-likelihood with its gradient and Hessian."""
        value, gradient, hessian = -penalty * w @ w / 2, -penalty * w, -penalty * np.eye(len(w))
        for x, wanted in usable:
            s = x @ w
            p = np.exp(s - s.max())
            value += s[wanted] - s.max() - np.log(p.sum())
            p /= p.sum()
            mean = p @ x
            gradient += x[wanted] - mean
            hessian -= (x * p[:, None]).T @ x - np.outer(mean, mean)
        return value, gradient, hessian

    w = np.zeros(usable[0][0].shape[1])
    value, gradient, hessian = objective(w)
    for _ in range(100):
        step, size = np.linalg.solve(hessian, gradient), 1.0
        while size > 1e-4 and (trial := objective(w - size * step))[0] < value:
            size /= 2
        if size <= 1e-4 or np.abs(size * step).max() < 1e-6:
            break
        w -= size * step
        value, gradient, hessian = trial
    return w


def gather(store: SqliteStore, limit: int) -> list[Case]:
    """Every case (every k-th, to at most `limit`, when given) with its candidates' evidence."""
    people = PeopleIndex(store.iter_papers())
    papers = list(store.iter_papers("iclr2021"))
    chosen = case_topics(store, people)
    if limit and len(chosen) > limit:
        chosen = chosen[:: len(chosen) // limit][:limit]
    searcher = Searcher(store)
    cases = []
    for kind, key, topic in chosen:
        found = candidates(searcher, topic, "iclr2021")[0].experts
        evidence = np.array([[e.evidence[name] for name in EVIDENCE] for e in found]).reshape(-1, len(EVIDENCE))
        cases.append(Case(kind, key, topic, [e.key for e in found], evidence, baseline_hit(papers, people, key, topic)))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="an ICLR 2021 store indexed already (copied; else one is built)")
    parser.add_argument("--model", default=SPARSE_MODEL, help="the embedder when building (default: TF-IDF)")
    parser.add_argument("--cases", type=int, default=0, help="every k-th case only, to at most this many")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, SqliteStore(prepare(Path(tmp), args.db, args.model)) as store:
        started = time.perf_counter()
        cases = gather(store, args.cases)
        seconds = time.perf_counter() - started
        model = Searcher(store).vectors()
        name = model.embedder.name if model and model.embedder else "none"
    fitted = fit([c for c in cases if not c.held_out])
    print(f"experts on ICLR 2021 ({machine()}), index {name}, {len(cases)} cases, top {TOP}")
    print(f"  weights ({', '.join(EVIDENCE)}): experts {WEIGHTS}, fitted on the fit half {fitted}")
    print("  case set          part      cases  experts  relevance alone  fitted  baseline (keyword counts)")
    for kind in ("own keyword", "earlier keyword"):
        for part in ("held out", "all"):
            chosen = [c for c in cases if c.kind == kind and (part == "all" or c.held_out)]
            if not chosen:
                continue
            n = len(chosen)
            shares = [sum(c.hit(w) for c in chosen) / n for w in (WEIGHTS, RELEVANCE_ALONE, fitted)]
            baseline = sum(c.baseline for c in chosen) / n
            figures = "  ".join(f"{s:>7.1%}" for s in shares)
            print(f"  {kind:<16}  {part:<8}  {n:>5}  {figures}          {baseline:>7.1%}")
    reached = sum(c.key in c.keys for c in cases) / len(cases)
    print(f"  the person is a candidate in {reached:.1%} of cases; {seconds / len(cases) * 1000:.0f} ms per topic")


if __name__ == "__main__":
    main()
