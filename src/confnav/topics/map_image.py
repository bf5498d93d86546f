"""A static map of a venue: every paper a dot coloured by theme, theme labels at their centres."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from confnav.store.protocols import AnalysisStore
from confnav.topics.facts import theme_facts


def render_map(store: AnalysisStore, venue: str, out: Path, title: str | None = None) -> Path:
    """Write a PNG (or SVG, by the file's suffix) of the venue's 2D layout."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.patheffects as effects
    import matplotlib.pyplot as plt

    info = store.get_venue(venue)
    venue = info.id
    themes = theme_facts(store, venue, level=1)
    order = {t.id: i for i, t in enumerate(themes)}
    points = list(store.assignments(venue).values())
    palette = [plt.get_cmap(name)(i) for name in ("tab20", "tab20b") for i in range(20)]
    colours = [palette[order[p.theme] % len(palette)] for p in points]
    figure, axes = plt.subplots(figsize=(14, 11), dpi=110)
    axes.scatter([p.x for p in points], [p.y for p in points], c=colours, s=9, alpha=0.8, linewidths=0)
    axes.set_title(title or f"{info.name}: {len(points):,} papers in {len(themes)} themes", fontsize=14)
    axes.margins(0.08)
    axes.set_axis_off()
    figure.tight_layout()
    outline = [effects.withStroke(linewidth=3.5, foreground="white")]
    style = {"ha": "center", "va": "center", "fontsize": 9.5, "weight": "bold", "color": "#1a1a1a"}
    style["path_effects"] = outline
    place_labels(axes, [(t.x, t.y, t.label) for t in sorted(themes, key=lambda t: -t.size)], style)
    figure.savefig(out)
    plt.close(figure)
    return out


OFFSETS = (0, 11, -11, 22, -22, 33, -33)  # points above or below the centre, nearest first


def place_labels(axes: Any, labels: list[tuple[float, float, str]], style: dict[str, Any]) -> list[Any]:
    """Write each label at its point, or just above or below it when it would cover a label already
    written (earlier labels win); returns the text boxes in display units."""
    renderer = axes.figure.canvas.get_renderer()
    placed: list[Any] = []
    for x, y, label in labels:
        for offset in OFFSETS:
            text = axes.annotate(label, (x, y), xytext=(0, offset), textcoords="offset points", **style)
            box = text.get_window_extent(renderer)
            if offset == OFFSETS[-1] or not any(box.overlaps(other) for other in placed):
                placed.append(box)
                break
            text.remove()
    return placed
