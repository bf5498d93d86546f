"""Signal weights: documented defaults per ranking mode, overridable from a TOML or JSON `[weights]` table."""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Mapping
from pathlib import Path

from confnav.errors import ConfnavError, InputError, excerpt, read_utf8
from confnav.rank.signals import CORE_SIGNALS

# Reviews and the decision carry the evidence when a conference opens; on ICLR 2021
# no other signal predicts orals and spotlights among accepted papers (each alone has
# a ROC AUC of 0.46-0.59), so they only break ties between equally rated papers.
# Chosen on ICLR 2021 with benchmarks/rank_eval.py (see BENCHMARKS.md). Giving the
# review-independent signals more weight makes the top 100 steadier under review
# resampling (Kendall tau 0.77 at 0.05 each, 0.82 at 0.15) but costs ROC AUC (0.919 → 0.900).
# Citations (looking back) and predicted impact (from the venues with citations) lead where the store has
# them; chosen with benchmarks/impact_eval.py (see BENCHMARKS.md). Without them the weights below decide.
DEFAULT_WEIGHTS: dict[str, float] = {
    "citations": 6.0,
    "impact": 4.0,
    "decision": 3.0,
    "rating_mean": 2.0,
    "confidence_weighted": 0.25,
    "rating_min": 0.1,
    "agreement": 0.05,
    "track_record": 0.05,
    "code": 0.05,
    "centrality": 0.05,
    "momentum": 0.05,
    "novelty": 0.05,
}
# Looking back, the venue's citation counts (on a log scale, see ranker.py) lead: the most cited papers come
# first whatever their decision; decision and reviews only order papers cited alike. Predicted impact stands in
# for a paper whose count is unknown. Chosen with benchmarks/rank_eval.py and impact_eval.py.
LOOKING_BACK_WEIGHTS: dict[str, float] = DEFAULT_WEIGHTS | {
    "citations": 12.0,
    "impact": 0.5,
    "decision": 0.5,
    "rating_mean": 0.5,
}
EXTERNAL_DEFAULT = 1.0


def award_weight(others: dict[str, float], looking_back: bool) -> float:
    """An award's weight, by the rule of docs/ranking.md: the sum of the other signals' weights (an awarded paper
    comes before every paper without one), except looking back with citation counts, which lead: half their
    weight (an award counts as half the venue's citation range on the log scale)."""
    if looking_back and others.get("citations"):
        return others["citations"] / 2
    return sum(w for name, w in others.items() if name != "award")


def weights_for(looking_back: bool) -> dict[str, float]:
    """The default weights of a mode."""
    return dict(LOOKING_BACK_WEIGHTS if looking_back else DEFAULT_WEIGHTS)


def load_weights(path: Path | None) -> dict[str, float]:
    """The file's `[weights]` (they override the mode's defaults); errors name the file and the offending key."""
    weights: dict[str, float] = {}
    if path is None:
        return weights
    if not path.exists():
        raise InputError(path, "no such file")
    try:
        text = read_utf8(path)
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise InputError(path, f"cannot read the weights: {exc}") from None
    table = data.get("weights", data) if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise InputError(path, "expected a [weights] table of signal = number")
    for name, value in table.items():
        if problem := weight_problem(name, value):
            raise InputError(path, problem, field=name)
        weights[name] = float(value)
    return weights


def weight_problem(name: object, value: object) -> str | None:
    """What is wrong with one weight, a file's or a caller's: an unknown signal, or a value that is no
    non-negative number; None when it is right."""
    if not isinstance(name, str) or (name not in CORE_SIGNALS and not name.startswith("external:")):
        return f"unknown signal {name!r} (signals: {', '.join(CORE_SIGNALS)}, external:NAME)"
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        return f"weight {value!r} is not a non-negative number"
    return None


def checked_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    """A caller's `weights` argument as the ranker keeps them, each checked as a weights file's are (a ConfnavError
    naming the argument and the signal)."""
    if weights is None:
        return {}
    if not isinstance(weights, Mapping):
        raise ConfnavError(f"weights: give a mapping of signal to weight, not {excerpt(weights)}")
    for name, value in weights.items():
        if problem := weight_problem(name, value):
            raise ConfnavError(f"weights[{excerpt(name)}]: {problem}")
    return {name: float(value) for name, value in weights.items()}


def weight_of(weights: dict[str, float], name: str) -> float:
    return weights.get(name, EXTERNAL_DEFAULT if name.startswith("external:") else 0.0)
