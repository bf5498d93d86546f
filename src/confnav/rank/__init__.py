"""Must-read ranking: signals from the store, a weighted score, reasons in plain words, in one of two modes."""

from confnav.rank.mode import RankMode, default_mode, parse_mode, resolve_mode
from confnav.rank.ranker import RANKERS, RankedPaper, Ranker, Ranking, WeightedRanker, make_ranker
from confnav.rank.signals import compute_signals
from confnav.rank.weights import DEFAULT_WEIGHTS, LOOKING_BACK_WEIGHTS, load_weights

__all__ = [
    "DEFAULT_WEIGHTS",
    "LOOKING_BACK_WEIGHTS",
    "RANKERS",
    "RankMode",
    "RankedPaper",
    "Ranker",
    "Ranking",
    "WeightedRanker",
    "compute_signals",
    "default_mode",
    "load_weights",
    "make_ranker",
    "parse_mode",
    "resolve_mode",
]
