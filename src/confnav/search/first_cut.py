"""A first cut of the candidates when the database finds the nearest neighbours (stored.py): only the papers
that can reach the first hits are fused, not every row.

There a query's meaning score is exact for a few hundred rows (the nearest neighbours and the best keyword
matches) and one neutral value elsewhere, so every other row's fused score is its keyword score's share, and a
row outside the best keyword matches cannot pass the last of them. The figures the fusion needs of all admitted
rows (the mean and best meaning score, the best keyword score, the quantiles that align records without an
abstract) follow from counts, so the answer is the whole-array fusion's without its passes over every row
(about a third of a search's time at 500,000 papers). Where the shortcut cannot promise that answer (another
fusion, a lift that lowers, a neutral value above the mean) it declines and the caller fuses every row.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from confnav.search.fusion import ConvexFusion, lift_accepted, normalize_keyword, normalize_semantic

ALIGN_MINIMUM = 20  # as fusion.align_groups: fewer rows of either shape and nothing is aligned
KEYWORD_CUT = 1000  # best keyword rows fused besides the exact ones (more when more hits are asked for)


@dataclass(frozen=True)
class Exact:
    """Meaning scores known exactly for some rows (ascending, unique) and one neutral value for every other; the
    admitted rows matching a word (`matching`) and the best of them by keyword score (`best`), both ascending."""

    rows: np.ndarray
    values: np.ndarray
    neutral: float
    matching: np.ndarray
    best: np.ndarray

    def dense(self, size: int) -> np.ndarray:
        """Every row's score, as one array."""
        scores = np.full(size, self.neutral, dtype=np.float32)
        scores[self.rows] = self.values
        return scores


@dataclass(frozen=True)
class Cut:
    """The candidates that can be first, best first (`rows`), with their fused, keyword and meaning scores by row,
    and how many admitted rows match a word (`matching`); `complete` when no other admitted row scores above 0."""

    rows: list[int]
    score: dict[int, float]
    semantic: dict[int, float]
    matching: int
    complete: bool


def best_keyword_rows(keyword: np.ndarray, mask: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The admitted rows matching a word (ascending), and the `count` of them with the best keyword scores."""
    matching = np.flatnonzero(keyword > 0)  # scores are never negative; a comparison first is 3-6x faster
    matching = matching[mask[matching]]
    if matching.size <= count:
        return matching, matching
    best = np.argpartition(-keyword[matching], count - 1)[:count]
    return matching, np.sort(matching[best])


def first_cut(
    keyword: np.ndarray,
    mask: np.ndarray,
    exact: Exact,
    short: np.ndarray,
    standing: np.ndarray,
    fusion: object,
    lift: float,
) -> Cut | None:
    """The hybrid ranking's first candidates under `fusion` (normalised over the `mask` rows) and the acceptance
    `lift`: every row fused that can pass the last of `exact.best`; None when only fusing every row gives the
    answer."""
    if not isinstance(fusion, ConvexFusion) or lift < 0:
        return None
    admitted = int(np.count_nonzero(mask))
    kept = mask[exact.rows]
    inside, values = exact.rows[kept], exact.values[kept].astype(np.float32)
    if admitted == 0 or inside.size == admitted:
        return None  # nothing to spare: every admitted row is scored exactly
    is_short = short[inside] if short.size == mask.size else np.zeros(inside.size, dtype=bool)
    shorts = int(np.count_nonzero(mask & short)) if short.size == mask.size else 0
    values, neutral_short = _aligned(values, is_short, exact.neutral, shorts, admitted - shorts)
    neutral_long = np.float32(exact.neutral)
    rest_short = shorts - int(np.count_nonzero(is_short))
    rest_long = admitted - inside.size - rest_short
    total = float(values.sum(dtype=np.float64)) + float(neutral_long) * rest_long + float(neutral_short) * rest_short
    mean = float(np.float32(total / admitted))
    neutrals = [float(neutral) for neutral, rest in ((neutral_long, rest_long), (neutral_short, rest_short)) if rest]
    top = max([*values.tolist(), *neutrals])  # admitted rows exist: one of the two is not empty
    if top > mean and ((rest_long and neutral_long > mean) or (rest_short and neutral_short > mean)):
        return None  # unscored rows would score above 0 by meaning: the whole array decides
    matching, best = exact.matching, exact.best
    keyword_top = float(keyword[best].max()) if best.size else 0.0  # the best of all is among the best kept
    rows = np.union1d(inside, best)  # ascending, as the whole-array ranking breaks ties
    semantic = np.full(rows.size, neutral_long, dtype=np.float32)
    if rest_short:
        semantic[short[rows]] = neutral_short
    semantic[np.searchsorted(rows, inside)] = values
    weight = fusion.keyword_weight
    fused = weight * normalize_keyword(keyword[rows], keyword_top) + (1.0 - weight) * normalize_semantic(
        semantic, float(mean), top
    )
    scores = lift_accepted(fused.astype(np.float64), standing[rows], lift)
    # A row left out scores at most its keyword share, at most that of the last best keyword row, lifted in full.
    left_out = matching.size > best.size
    bound = weight * float(normalize_keyword(keyword[best], keyword_top).min()) * (1.0 + lift) if left_out else 0.0
    above = np.flatnonzero(scores > bound)
    order = above[np.argsort(-scores[above], kind="stable")]
    chosen = rows[order].tolist()
    return Cut(
        chosen,
        dict(zip(chosen, scores[order].tolist(), strict=True)),
        dict(zip(chosen, semantic[order].tolist(), strict=True)),
        int(matching.size),
        not left_out,
    )


def _aligned(
    values: np.ndarray, is_short: np.ndarray, neutral: float, shorts: int, longs: int
) -> tuple[np.ndarray, np.float32]:
    """As fusion.align_groups over every admitted row, from the exact values and how many rows hold the neutral
    one: each short record's score at its quantile among the short ones, mapped onto the other rows' scores.
    Returns the exact values aligned and what the neutral value of a short record becomes."""
    if shorts < ALIGN_MINIMUM or longs < ALIGN_MINIMUM:
        return values, np.float32(neutral)
    own, other = np.sort(values[is_short]), np.sort(values[~is_short])
    own_rest, other_rest = shorts - own.size, longs - other.size
    neutral32 = np.float32(neutral)

    def quantile(value: np.ndarray) -> np.ndarray:
        below = np.searchsorted(own, value, side="left") + own_rest * (neutral32 < value)
        upto = np.searchsorted(own, value, side="right") + own_rest * (neutral32 <= value)
        return (below + upto) / 2 / shorts

    lower = np.searchsorted(other, neutral32, side="left")  # other scores below the neutral ones

    def at(position: np.ndarray) -> np.ndarray:
        """The sorted scores of the other rows (neutral ones included) at these whole positions."""
        index = position.astype(np.int64)
        below, above = index < lower, index >= lower + other_rest
        found = np.full(index.shape, neutral32, dtype=np.float32)
        found[below] = other[index[below]]
        found[above] = other[index[above] - other_rest]
        return found.astype(np.float64)

    def mapped(value: np.ndarray) -> np.ndarray:
        position = quantile(value) * (longs - 1)
        low = np.floor(position)
        high = np.minimum(low + 1, longs - 1)
        return at(low) + (position - low) * (at(high) - at(low))

    aligned = values.copy()
    aligned[is_short] = mapped(values[is_short]).astype(np.float32)
    return aligned, np.float32(mapped(np.array([neutral32]))[0])


def best_first(rows: np.ndarray, score: np.ndarray, first: int) -> Iterator[int]:
    """Rows by falling score, ties in row order, as a full stable sort gives, but sorting only the best
    `first` until more are asked for (a search shows 10 hits of thousands of rows)."""
    negated = -score[rows]
    if first >= rows.size:
        yield from rows[np.argsort(negated, kind="stable")]
        return
    threshold = np.partition(negated, first - 1)[first - 1]
    for part in (np.flatnonzero(negated <= threshold), np.flatnonzero(negated > threshold)):
        yield from rows[part[np.argsort(negated[part], kind="stable")]]
