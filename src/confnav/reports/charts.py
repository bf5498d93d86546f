"""Charts for the statistics report (matplotlib, PNG bytes), drawn headless."""

from __future__ import annotations

import io

from confnav.model import Decision, Paper

COLOURS = {"oral": "#b2182b", "spotlight": "#ef8a62", "poster": "#67a9cf", "reject": "#9e9e9e", "withdrawn": "#d0d0d0"}


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
    bins = [1 + 0.5 * i for i in range(19)]
    for decision in (Decision.REJECT, Decision.POSTER, Decision.SPOTLIGHT, Decision.ORAL):
        values = [p.rating_mean for p in papers if p.decision is decision and p.rating_mean is not None]
        axes.hist(
            values, bins=bins, alpha=0.75, label=f"{decision.value} ({len(values)})", color=COLOURS[decision.value]
        )
    axes.set_xlabel("mean reviewer rating")
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
