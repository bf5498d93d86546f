"""Predicted impact of a venue's papers, from a predictor fitted on the other loaded venues with citations.

The venue's own citation counts are never read: the prediction is what could be known when it opened.
Estimates are kept per store state, in the process and in the store's cache (as TL;DRs are), so ranking again
after no change costs nothing, in this process or the next.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from confnav.embed.views import semantic_model
from confnav.model import Paper
from confnav.rank import features, predictor
from confnav.rank.features import FEATURES, FeatureBuilder, VenueFeatures
from confnav.rank.predictor import ImpactModel, cited_venues, fit
from confnav.store.base import keep_derived
from confnav.store.protocols import AnalysisStore, CacheStore

SHOWN = 3  # contributions explained per paper
_memo: dict[tuple[object, ...], ImpactEstimates | str] = {}
_memo_lock = threading.Lock()
_made = 0  # estimates computed in this process: answers that show them are cached under this count


@dataclass
class Contribution:
    """One input's part in a prediction, in words: what it is, the paper's value, percentile points added."""

    feature: str
    words: str
    points: float

    def __str__(self) -> str:
        return f"{self.words} ({self.points:+.0f} points)"


@dataclass
class ImpactEstimates:
    """Predicted citation percentile of each paper (by id), its percentile in the venue, and why."""

    predicted: dict[str, float]
    percentile: dict[str, float]
    contributions: dict[str, list[Contribution]]
    trained_on: list[str]

    def source(self) -> str:
        return f"learned from the citations of {', '.join(self.trained_on)}"


def impact_estimates(store: AnalysisStore, venue: str) -> ImpactEstimates | str:
    """The estimates, or why there are none (no other venue with citation counts is loaded)."""
    key = _key(store, venue)
    with _memo_lock:
        if key in _memo:
            return _memo[key]
    found = _kept(store, venue, key[1])
    if found is None:
        found = _estimate(store, venue)
        _keep(store, venue, key[1], found)
    global _made
    with _memo_lock:
        if len(_memo) > 64:
            _memo.clear()
        _memo[key] = found
        _made += 1
    return found


def estimates_made() -> int:
    """How many estimates this process has computed: a page cached before the last one may lack them."""
    return _made


class Counted(Protocol):
    """What the estimates are kept by: the store's change counters (a store, or a server's thread stores)."""

    def state(self) -> tuple[tuple[str, int], ...]: ...


def known_impact(store: Counted, venue: str) -> ImpactEstimates | None:
    """The estimates if a ranking of this store state computed them already (a page view never fits a model)."""
    with _memo_lock:
        found = _memo.get(_key(store, venue))
    return found if isinstance(found, ImpactEstimates) else None


def _key(store: Counted, venue: str) -> tuple[object, ...]:
    return (getattr(store, "location", id(store)), store.state(), venue)


@cache
def model_version() -> str:
    """A hash of the code that makes the estimates: a new version of it makes the kept ones stale."""
    digest = hashlib.sha1()
    for module in (features, predictor):
        digest.update(Path(module.__file__ or "").read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()[:12]


def impact_cache(venue: str) -> str:
    return f"impact:{venue}:{model_version()}"


def _kept(store: CacheStore, venue: str, state: object) -> ImpactEstimates | str | None:
    """The estimates the store keeps for the venue at this store state; None when missing, stale or unreadable."""
    cached = store.get_cache(impact_cache(venue))
    if cached is None:
        return None
    try:
        found = json.loads(cached[1])
        if found["state"] != json.loads(json.dumps(state)):
            return None
        return _from_data(found["estimates"])
    except (ValueError, KeyError, TypeError):  # a damaged entry is made again, not shown
        return None


def _keep(store: CacheStore, venue: str, state: object, found: ImpactEstimates | str) -> None:
    """Keep the estimates under the state they were made for; never from a server's requests, quietly not into a
    read-only or busy store (the next ranking fits again)."""
    data = {"state": state, "estimates": found if isinstance(found, str) else asdict(found)}
    keep_derived(store, lambda: store.put_cache(impact_cache(venue), 0, json.dumps(data, ensure_ascii=False).encode()))


def _from_data(data: Any) -> ImpactEstimates | str:
    if isinstance(data, str):
        return data
    contributions = {pid: [Contribution(**part) for part in parts] for pid, parts in data["contributions"].items()}
    return ImpactEstimates(dict(data["predicted"]), dict(data["percentile"]), contributions, list(data["trained_on"]))


def _estimate(store: AnalysisStore, venue: str) -> ImpactEstimates | str:
    none = "no other venue with citation counts is loaded to learn from"
    counted = [v.id for v in store.venue_list() if v.id != venue and store.has_citation_counts(v.id, supplied=False)]
    if not counted:
        return none  # checked before any feature is built: most stores have no counts
    builder = FeatureBuilder(store, semantic_model(store))
    training = cited_venues([builder.build(v) for v in counted])
    if not training:
        return none
    model = fit(training)
    target = builder.build(venue, with_target=False)  # its own citations are never read
    predicted = np.clip(model.predict(target), 0.0, 1.0)  # a percentile: the ridge's line runs past both ends
    order = np.argsort(np.argsort(predicted, kind="stable"), kind="stable")
    percentile = order / max(1, len(order) - 1)
    parts = model.contributions(target)
    names = [training_name(builder, t) for t in training]
    ids = [p.id for p in target.papers]
    return ImpactEstimates(
        dict(zip(ids, predicted.tolist(), strict=True)),
        dict(zip(ids, percentile.tolist(), strict=True)),
        {pid: _explain(model, target, row, parts[row]) for row, pid in enumerate(ids)},
        names,
    )


def training_name(builder: FeatureBuilder, features: VenueFeatures) -> str:
    return builder.venues[features.venue.id].name


def _explain(model: ImpactModel, target: VenueFeatures, row: int, parts: np.ndarray) -> list[Contribution]:
    """The largest contributions of one paper, in words."""
    biggest = np.argsort(-np.abs(parts))[:SHOWN]
    paper = target.papers[row]
    values = dict(zip(model.names, [*target.values[row], np.nan], strict=True))
    said = []
    for i in biggest:
        if abs(parts[i]) < 0.005:
            continue
        name = model.names[i]
        if name == "text":
            words = f"its topic: papers with similar text were cited {'more' if parts[i] > 0 else 'less'}"
        else:
            words = _words(name, paper, values[name])
        said.append(Contribution(name, words, 100 * float(parts[i])))
    return said


def _words(feature: str, paper: Paper, value: float) -> str:
    """One input of one paper in plain words, with its figure."""
    known = value == value  # not NaN
    match feature:
        case "decision" | "accepted":
            return f"decision {paper.decision.name}"
        case "rating":
            mean = f"{np.mean(paper.ratings):.2f}" if paper.ratings else "unknown"
            return f"mean rating {mean}" + (f" (percentile {value:.0%} in the venue)" if known else "")
        case "confidence":
            return f"mean confidence {np.mean(paper.confidences):.1f}" if paper.confidences else "confidence unknown"
        case "spread":
            return f"ratings spread {np.std(paper.ratings):.2f}" if len(paper.ratings) > 1 else "one rating"
        case "authors":
            return f"{len(paper.authors)} authors"
        case "author_papers":
            return f"an author with {round(np.expm1(value))} papers at loaded venues" if known else "authors unknown"
        case "institution_papers":
            return f"an institution with {round(np.expm1(value))} papers at loaded venues" if known else "no address"
        case "author_citations":
            return f"authors' earlier papers cited at the {value:.0%} percentile" if known else "no earlier papers"
    return f"{FEATURES[feature]} {value:.2f}" if known else f"{FEATURES[feature]} unknown"
