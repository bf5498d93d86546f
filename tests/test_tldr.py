"""Extractive TL;DRs: the rules on the issue's bad examples, and on every abstract of the shared corpora."""

from __future__ import annotations

from pathlib import Path

import pytest

from confnav.sources import SourceRecord, read_file
from confnav.summarize.tldr import extractive_tldr, rule_violations

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = [DATA / "iclr2021" / "paperlist.tsv", *sorted((DATA / "paperlists").glob("*.json"))]


@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        ("Extensive experiments on the COCO benchmark demonstrate the effectiveness of our approach.", "result only"),
        ("We show that this reliance on CNNs is not necessary.", "points outside itself"),
        ("We analyse this PCA game and its Nash equilibria.", "points outside itself"),
        ("Under the standard distributional assumption that the data is isotropic Gaussian.", "fragment"),
        ("Recently, deep networks have achieved great success in vision.", "background"),
        ("We propose a method that learns the structure of large graphs from raw data and scales to many millions of "
         "nodes and edges with very little memory, no labels and no tuning at all.", "too long"),
    ],
)  # fmt: skip
def test_rules_catch_the_bad_kinds(sentence: str, rule: str) -> None:
    assert rule in rule_violations(sentence)


def test_a_contribution_sentence_passes() -> None:
    assert rule_violations("We propose Performers, linear-time Transformers that approximate softmax attention.") == []


def test_long_sentences_end_at_a_clause_not_mid_phrase() -> None:
    abstract = (
        "We propose a new deep reinforcement learning algorithm based on counterfactual regret minimization that "
        "iteratively updates an approximation to a cumulative clipped advantage function and is robust to partially "
        "observed state."
    )
    tldr = extractive_tldr(abstract)
    assert tldr == (  # cut before the last clause word ("and") that fits, not mid-phrase with "…"
        "We propose a new deep reinforcement learning algorithm based on counterfactual regret minimization that "
        "iteratively updates an approximation to a cumulative clipped advantage function."
    )


@pytest.mark.parametrize("path", CORPORA, ids=lambda p: p.name)
def test_every_tldr_of_the_shared_corpora_follows_the_rules(path: Path) -> None:
    _, items = read_file(path)
    records = [i.fields for i in items if isinstance(i, SourceRecord) and i.fields.get("abstract")]
    made = [extractive_tldr(r["abstract"], r.get("title") or "", r.get("keywords") or []) for r in records]
    assert sum(m is None for m in made) <= max(1, len(made) // 100)  # absent rather than broken, and rarely
    broken = [(m, rule_violations(m)) for m in made if m and rule_violations(m)]
    assert broken == []
