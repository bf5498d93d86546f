"""TL;DR quality: confnav's extractive TL;DRs against the authors' own, with the authors' TL;DRs withheld.

ROUGE-1/2/L F1 (×100, rouge-score with stemming) on the papers of ../shared/data/paperlists iclr2018.json
and corl2023.json that have both an abstract and an author TL;DR, against baselines in the same run:
the abstract's first sentence, its first "we …" contribution sentence, and the best single sentence
(oracle: the sentence with the highest ROUGE-1 against the reference, an upper bound for one sentence).
Rules: every ICLR 2021 abstract's TL;DR is checked by `rule_violations` (≤ 30 words, self-contained,
a contribution sentence, no result-only, background, question or fragment sentence); the count must be 0.
Also counted: TL;DRs in which the authors do not speak (likely background or a detail, not the contribution).
confnav's sentence weights (summarize/scoring.py) were fitted on these two venues; each venue is also
scored with weights fitted on the other venue only ("held out"). `--fit` prints weights fitted on both.
Speed: TL;DRs of a whole venue.
Run: python benchmarks/tldr_eval.py [--fit]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from rouge_score import rouge_scorer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import DATA, ICLR2021, machine
from confnav.sources import SourceRecord, read_file
from confnav.summarize import scoring
from confnav.summarize.shorten import shorten
from confnav.summarize.text import clean, sentences
from confnav.summarize.tldr import (
    background_sentences,
    extractive_tldr,
    is_acceptable,
    rule_violations,
)

VENUES = {"ICLR 2018": "iclr2018.json", "CoRL 2023": "corl2023.json"}
MEASURES = ("rouge1", "rouge2", "rougeL")
_WE = re.compile(r"\b(we|our|this (paper|work))\b", re.I)
_AUTHORS = re.compile(r"\b(we|our|this (paper|work|study)|propose[sd]?|introduce[sd]?|present[sd]?)\b", re.I)
scorer = rouge_scorer.RougeScorer(list(MEASURES), use_stemmer=True)


Item = tuple[str, str, str, list[str]]  # abstract, author TL;DR, title, keywords


def items(path: Path) -> list[Item]:
    """Every record with both an abstract and an author TL;DR."""
    _, read = read_file(path)
    found = []
    for item in read:
        if isinstance(item, SourceRecord):
            abstract, tldr = item.fields.get("abstract"), item.fields.get("tldr")
            if isinstance(abstract, str) and isinstance(tldr, str) and abstract.strip() and tldr.strip():
                title, keywords = str(item.fields.get("title") or ""), list(item.fields.get("keywords") or [])
                found.append((abstract, tldr, title, keywords))
    return found


def fit_weights(data: list[Item]) -> dict[str, float]:
    """Ridge regression, over the sentences a TL;DR may show, of how much better than its abstract's average each
    shown sentence's ROUGE-1 against the author's TL;DR is (what matters is the choice within an abstract)."""
    from sklearn.linear_model import Ridge

    rows, targets = [], []
    for abstract, tldr, title, keywords in data:
        found = sentences(clean(abstract))
        shown = [shorten(sentence) for sentence in found]
        acceptable = [i for i, summary in enumerate(shown) if is_acceptable(summary)]
        background = background_sentences(found, title)  # chosen only when nothing else will do: fit on the rest
        usable = [i for i in acceptable if i not in background] or acceptable
        if not usable:
            continue
        features = scoring.features_of(found, title, keywords, shown)
        gains = np.array([scorer.score(tldr, shown[i])["rouge1"].fmeasure for i in usable])
        rows += [features[i] for i in usable]
        targets += list(gains - gains.mean())
    model = Ridge(alpha=1.0).fit(np.array(rows), np.array(targets))
    return {name: round(float(w), 4) for name, w in zip(scoring.FEATURES, model.coef_, strict=True)}


def with_weights(weights: dict[str, float], data: list[Item]) -> list[str]:
    shipped = dict(scoring.WEIGHTS)
    scoring.WEIGHTS.update(weights)
    try:
        return [extractive_tldr(a, title, keywords) or "" for a, _, title, keywords in data]
    finally:
        scoring.WEIGHTS.update(shipped)


def first_sentence(abstract: str) -> str:
    return (sentences(clean(abstract)) or [""])[0]


def first_we(abstract: str) -> str:
    found = sentences(clean(abstract))
    return next((s for s in found if _WE.search(s)), found[0] if found else "")


def oracle(abstract: str, reference: str) -> str:
    found = sentences(clean(abstract)) or [""]
    return max(found, key=lambda s: scorer.score(reference, s)["rouge1"].fmeasure)


def scores(candidates: list[str], references: list[str]) -> dict[str, float]:
    rows = [scorer.score(ref, cand or "") for cand, ref in zip(candidates, references, strict=True)]
    return {m: 100 * float(np.mean([r[m].fmeasure for r in rows])) for m in MEASURES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="print sentence weights fitted on both venues")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    data = {venue: items(DATA / "paperlists" / name) for venue, name in VENUES.items()}
    if args.fit:
        print(json.dumps(fit_weights([item for found in data.values() for item in found]), indent=1))
        return
    print("ROUGE F1 ×100 against the authors' TL;DRs (withheld from the input); goal ROUGE-1 ≥ 38")
    print(f"{'venue':<17}{'method':<36}" + "".join(f"{m:>9}" for m in MEASURES) + f"{'mean words':>12}")
    for venue, found in data.items():
        other = [item for v, rest in data.items() if v != venue for item in rest]
        references = [tldr for _, tldr, _, _ in found]
        methods = {
            "first sentence": [first_sentence(a) for a, *_ in found],
            'first "we" sentence': [first_we(a) for a, *_ in found],
            "confnav extractive": [extractive_tldr(a, t, k) or "" for a, _, t, k in found],
            "confnav, weights of the other venue": with_weights(fit_weights(other), found),
            "best sentence (oracle)": [oracle(a, r) for a, r, *_ in found],
        }
        for method, candidates in methods.items():
            scored = scores(candidates, references)
            words = np.mean([len(c.split()) for c in candidates])
            label = f"{venue} ({len(found)})" if method == "first sentence" else ""
            print(f"{label:<17}{method:<36}" + "".join(f"{scored[m]:>9.1f}" for m in MEASURES) + f"{words:>12.1f}")
    _, read = read_file(ICLR2021[0])
    records = [i.fields for i in read if isinstance(i, SourceRecord) and i.fields.get("abstract")]
    start = time.perf_counter()
    made = [extractive_tldr(r["abstract"], r.get("title") or "", r.get("keywords") or []) for r in records]
    took = time.perf_counter() - start
    broken = Counter(rule for tldr in made if tldr for rule in rule_violations(tldr))
    print(
        f"\nICLR 2021: {len(records):,} abstracts, TL;DRs in {took:.2f} s; none for {made.count(None)}; "
        f"rule violations {sum(broken.values())}" + (f" ({dict(broken)})" if broken else "")
    )
    silent = sum(1 for tldr in made if tldr and not _AUTHORS.search(tldr))
    print(f"ICLR 2021: TL;DRs in which the authors do not speak (no we/our/this paper/propose): {silent}")


if __name__ == "__main__":
    main()
