"""Must-read ranking: signals from the store, a weighted score, reasons in plain words."""

from confnav.rank.ranker import RankedPaper, Ranker, Ranking, WeightedRanker
from confnav.rank.signals import compute_signals
from confnav.rank.weights import DEFAULT_WEIGHTS, load_weights

__all__ = ["DEFAULT_WEIGHTS", "RankedPaper", "Ranker", "Ranking", "WeightedRanker", "compute_signals", "load_weights"]
