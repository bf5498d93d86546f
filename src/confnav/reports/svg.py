"""Small charts as inline SVG, drawn on the server: readable without JavaScript, each with a title and a
description that screen readers announce, every text escaped.

A chart plots counts over categories (ratings, `6`, `5.5`) as lines (one series per date) or as bars side by side
(before and after); the categories keep the order given.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 16, 64  # margins for the axes' labels and the legend
COLOURS = ("#1f5fa8", "#b2182b", "#1b7837", "#e08214", "#762a83", "#8c510a", "#2166ac", "#5a6472")


@dataclass(frozen=True)
class Series:
    """One line or one set of bars: its name in the legend and a count per category."""

    name: str
    counts: dict[str, int]


def _frame(chart_id: str, title: str, description: str, body: list[str], height: int) -> str:
    ids = f"{chart_id}-title {chart_id}-desc"
    return (
        f'<svg class="chart" id="{escape(chart_id)}" role="img" aria-labelledby="{escape(ids)}" '
        f'viewBox="0 0 {WIDTH} {height}" width="100%" preserveAspectRatio="xMidYMid meet" '
        f'xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif" font-size="12">'
        f'<title id="{escape(chart_id)}-title">{escape(title)}</title>'
        f'<desc id="{escape(chart_id)}-desc">{escape(description)}</desc>' + "".join(body) + "</svg>"
    )


def _scale(series: list[Series]) -> tuple[int, float]:
    """The y axis' top (a round number at or above the largest count) and pixels per unit."""
    top = max((n for s in series for n in s.counts.values()), default=0) or 1
    step = 10 ** max(0, len(str(top)) - 1)
    top = -(-top // step) * step
    return top, (HEIGHT - TOP - BOTTOM) / top


def _axes(categories: list[str], top: int, x_of: list[float], x_label: str, y_label: str) -> list[str]:
    base = HEIGHT - BOTTOM
    parts = [
        f'<line x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}" stroke="currentColor" stroke-width="1"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}" stroke="currentColor" stroke-width="1"/>',
        f'<text x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end" fill="currentColor">{top:,}</text>',
        f'<text x="{LEFT - 6}" y="{base}" text-anchor="end" fill="currentColor">0</text>',
        f'<text x="14" y="{(TOP + base) / 2:.0f}" text-anchor="middle" fill="currentColor" '
        f'transform="rotate(-90 14 {(TOP + base) / 2:.0f})">{escape(y_label)}</text>',
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{base + 32}" text-anchor="middle" fill="currentColor">'
        f"{escape(x_label)}</text>",
    ]
    parts += [
        f'<text x="{x:.1f}" y="{base + 15}" text-anchor="middle" fill="currentColor">{escape(c)}</text>'
        for c, x in zip(categories, x_of, strict=True)
    ]
    return parts


def _legend(series: list[Series]) -> tuple[list[str], int]:
    """The legend, in as many rows under the chart as its names need, and the chart's height with them."""
    parts, x, y = [], LEFT, HEIGHT - 16
    for i, one in enumerate(series):
        width = 24 + 7 * len(one.name)
        if x > LEFT and x + width > WIDTH - RIGHT:
            x, y = LEFT, y + 16
        colour = COLOURS[i % len(COLOURS)]
        parts.append(f'<rect x="{x}" y="{y}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{x + 14}" y="{y + 9}" fill="currentColor">{escape(one.name)}</text>')
        x += width
    return parts, y + 16


def line_chart(
    chart_id: str, title: str, description: str, categories: list[str], series: list[Series], x_label: str, y_label: str
) -> str:
    """A line per series over the categories, with a dot at each count (a category a series lacks counts 0)."""
    top, unit = _scale(series)
    span = (WIDTH - LEFT - RIGHT) / max(1, len(categories))
    x_of = [LEFT + span * (i + 0.5) for i in range(len(categories))]
    body = _axes(categories, top, x_of, x_label, y_label)
    for i, one in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        points = [(x, HEIGHT - BOTTOM - unit * one.counts.get(c, 0)) for c, x in zip(categories, x_of, strict=True)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        body += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>' for x, y in points]
    legend, height = _legend(series)
    return _frame(chart_id, title, description, body + legend, height)


def bar_chart(
    chart_id: str, title: str, description: str, categories: list[str], series: list[Series], x_label: str, y_label: str
) -> str:
    """Bars side by side per category, one per series, each with its count as a tooltip."""
    top, unit = _scale(series)
    span = (WIDTH - LEFT - RIGHT) / max(1, len(categories))
    width = span * 0.8 / max(1, len(series))
    x_of = [LEFT + span * (i + 0.5) for i in range(len(categories))]
    body = _axes(categories, top, x_of, x_label, y_label)
    for i, one in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        for category, centre in zip(categories, x_of, strict=True):
            count = one.counts.get(category, 0)
            x, height = centre - span * 0.4 + width * i, unit * count
            body.append(
                f'<rect x="{x:.1f}" y="{HEIGHT - BOTTOM - height:.1f}" width="{width:.1f}" height="{height:.1f}" '
                f'fill="{colour}"><title>{escape(one.name)}, {escape(category)}: {count:,}</title></rect>'
            )
    legend, height = _legend(series)
    return _frame(chart_id, title, description, body + legend, height)
