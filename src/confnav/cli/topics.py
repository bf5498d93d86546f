"""Verbs over themes: topics, topic, trends, map."""

from __future__ import annotations

from pathlib import Path

import click

from confnav.cli import cli
from confnav.cli.common import (
    OutputFile,
    cli_navigator,
    err,
    json_option,
    out,
    print_json,
    said,
    venue_option,
    with_store,
    writing,
)
from confnav.cli.progress import RichProgress, themes_with_progress
from confnav.errors import ConfnavError
from confnav.limits import MAX_THEMES
from confnav.store.protocols import Store
from confnav.topics import ensure_topics, get_theme, theme_facts, trends
from confnav.topics.map_image import render_map
from confnav.topics.trends import comparison_notice


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


@cli.command()
@click.option("--level", type=click.IntRange(1, 2), default=1, show_default=True, help="1: themes, 2: sub-themes.")
@click.option(
    "--themes",
    type=click.IntRange(1, MAX_THEMES),
    help="Aim for this many top-level themes (default: 15-40 by size).",
)
@click.option("--rebuild", is_flag=True, help="Recompute the themes even if they are up to date.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@json_option
@with_store
@venue_option("The venue (default: the latest in the store, named on stderr when there are others).", latest=True)
def topics(store: Store, venue: str, level: int, themes: int | None, rebuild: bool, quiet: bool, as_json: bool) -> None:
    """Themes of a venue with labels, sizes and acceptance (built on first use, then kept)."""
    with RichProgress(quiet) as progress:
        builder = cli_navigator().topic_builder()
        ensure_topics(store, venue, builder, progress=progress, rebuild=rebuild, themes=themes)
    facts = theme_facts(store, venue, level)
    if as_json:
        print_json([f.to_dict() for f in facts])
        return
    if not facts:
        out.print(f"{venue} has no themes of level {level}: its themes are too small to split", markup=False)
    for f in facts:
        parent = f" (in {f.parent})" if f.parent else ""
        kinds = f"  [{f.accepted_as}]" if f.accepted_as else ""  # the venue's own kinds: oral, technical, findings
        out.print(
            f"{f.id:<7} {f.size:>4} papers {f.share:>5.1%}  accepted {_rate(f.acceptance_rate):>4}"
            f"  {f.label}{parent}{kinds}",
            markup=False,
        )


@cli.command()
@click.argument("theme_id")
@json_option
@with_store
@venue_option("The venue (default: the latest in the store, named on stderr when there are others).", latest=True)
def topic(store: Store, theme_id: str, venue: str, as_json: bool) -> None:
    """One theme: its facts, keywords, sub-themes and papers."""
    themes_with_progress(store, venue)
    facts = get_theme(store, venue, theme_id)
    if as_json:
        print_json(facts.to_dict())
        return
    out.print(f"{facts.label} ({facts.id}, {facts.venue})", style="bold", markup=False)
    rating = "-" if facts.mean_rating is None else f"{facts.mean_rating:.2f}"
    out.print(
        f"{facts.size} papers ({facts.share:.1%} of the venue); {facts.accepted} accepted"
        f"{f' ({facts.accepted_as})' if facts.accepted_as else ''}, acceptance"
        f" {_rate(facts.acceptance_rate)}, mean rating {rating}",
        markup=False,
    )
    out.print(f"Keywords: {', '.join(facts.keywords)}", markup=False)
    subs = [f for f in theme_facts(store, venue, 2) if f.parent == facts.id]
    for sub in subs:
        out.print(f"  {sub.id:<7} {sub.size:>4}  {sub.label}", markup=False)
    papers = {p.id: p for p in store.iter_papers(venue)}
    for heading, ids in (("Closest to the centre", facts.representative), ("Best rated", facts.best_rated)):
        out.print(f"{heading}:")
        for paper_id in ids:
            paper = papers[paper_id]
            out.print(f"  - {paper.title} ({paper.id}, {paper.decision.name})", markup=False)


@cli.command("trends")
@click.option("--from", "source", required=True, help="The earlier venue, e.g. iclr2020.")
@click.option("--to", "target", required=True, help="The later venue, e.g. iclr2021.")
@click.option(
    "--top",
    type=click.IntRange(1, 100),
    default=10,
    show_default=True,
    help="Rows per list (themes: gains and losses).",
)
@json_option
@with_store
def trends_cmd(store: Store, source: str, target: str, top: int, as_json: bool) -> None:
    """Which themes and keywords grew or shrank between two venues, and which keywords are new."""
    before, after = store.get_venue(source), store.get_venue(target)
    source, target = before.id, after.id
    comparison_notice(before, after)  # refused before themes are built
    themes_with_progress(store, target)
    result = trends(store, source, target, top=top)
    if result.notice:
        err.print(f"notice: {said(result.notice)}", markup=False)
    if as_json:
        print_json(result.to_dict())
        return
    out.print(f"Themes of {target}, share of papers in {source} → {target}:", style="bold")
    for t in result.themes:
        out.print(f"  {t.change:+6.1%}  {t.before:5.1%} → {t.after:5.1%}  {t.name} ({t.id})", markup=False)
    for title, rows in (
        ("Keywords that grew", result.keywords_grown),
        ("Keywords that shrank", result.keywords_shrunk),
    ):
        out.print(title + ":", style="bold")
        for k in rows:
            out.print(f"  {k.change:+6.2%}  {k.count_before:>4} → {k.count_after:<4} {k.name}", markup=False)
        if not rows:
            out.print("  none (keywords of both venues are needed)", markup=False)
    out.print(f"New keywords in {target}:", style="bold")
    for k in result.keywords_new:
        out.print(f"  {k.count_after:>4} papers  {k.name}", markup=False)
    if not result.keywords_new:
        out.print("  none", markup=False)


@cli.command("map")
@click.option(
    "--out",
    "out_path",
    type=OutputFile(),
    default=Path("map.png"),
    show_default=True,
    help="Image file (.png or .svg).",
)
@with_store
@venue_option("The venue (default: the latest in the store, named on stderr when there are others).", latest=True)
def map_cmd(store: Store, venue: str, out_path: Path) -> None:
    """Draw the 2D map of a venue, papers coloured by theme, labels at the theme centres."""
    if out_path.suffix.lower() not in (".png", ".svg"):
        raise ConfnavError(f"--out {out_path}: use a .png or .svg file name")
    themes_with_progress(store, venue)
    with writing(out_path, "map"):
        render_map(store, venue, out_path)
    out.print(f"map written to {out_path}", markup=False)
