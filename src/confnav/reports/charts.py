"""Charts for the statistics report (matplotlib, PNG bytes), drawn headless."""

from __future__ import annotations

import io

from confnav.model import Paper, RatingScale

COLOURS = {"oral": "#b2182b", "spotlight": "#ef8a62", "poster": "#67a9cf", "reject": "#9e9e9e", "withdrawn": "#d0d0d0"}
OTHER_COLOURS = ("#1b7837", "#762a83", "#e08214", "#2166ac", "#8c510a")


def _png(figure: object) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)  # type: ignore[attr-defined]
    plt.close(figure)  # type: ignore[arg-type]
    return buffer.getvalue()


def rating_histogram(papers: list[Paper]) -> bytes:
    """Distribution of papers' mean ratings, one colour per decision."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 4))
    rated = [p for p in papers if p.reviewed_rating_mean is not None]
    scale = RatingScale.of([r for p in rated for r in p.reviewed_ratings])
    steps = max(1, int((scale.high - scale.low) * 2))
    bins = [scale.low + (scale.high - scale.low) * i / steps for i in range(steps + 1)]
    groups: dict[str, list[float]] = {}
    for paper in sorted(rated, key=lambda p: -p.decision.tier):
        groups.setdefault(paper.decision.name, []).append(paper.rating_mean or 0.0)
    spare = iter(OTHER_COLOURS * 4)
    for name, values in groups.items():
        colour = COLOURS.get(name) or next(spare)
        axes.hist(values, bins=bins, alpha=0.75, label=f"{name} ({len(values)})", color=colour)
    axes.set_xlabel(f"mean reviewer rating (scale {scale.describe()})")
    axes.set_ylabel("papers")
    axes.legend(frameon=False)
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    return _png(figure)


def bar_chart(labels: list[str], values: list[float], xlabel: str) -> bytes:
    """Horizontal bars, largest at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 0.32 * len(labels) + 1))
    axes.barh(labels[::-1], values[::-1], color="#1f5fa8")
    axes.set_xlabel(xlabel)
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    return _png(figure)


def paired_bars(
    labels: list[str], first: list[float], second: list[float], names: tuple[str, str], xlabel: str
) -> bytes:
    """Two bars per label, side by side (before and after, say), with a legend naming them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 3.6))
    places = list(range(len(labels)))
    axes.bar([x - 0.2 for x in places], first, width=0.4, color="#1f5fa8", label=names[0])
    axes.bar([x + 0.2 for x in places], second, width=0.4, color="#b2182b", label=names[1])
    axes.set_xticks(places, labels)
    axes.set_xlabel(xlabel)
    axes.set_ylabel("reviews")
    axes.legend(frameon=False)
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    return _png(figure)
