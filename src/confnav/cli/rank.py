"""Verbs of the must-read ranking: rank, signals."""

from __future__ import annotations

from pathlib import Path

import click

from confnav.cli import cli
from confnav.cli.common import (
    cli_navigator,
    json_option,
    mode_option,
    out,
    print_json,
    venue_option,
    with_store,
)
from confnav.cli.progress import themes_with_progress
from confnav.personal import PERSONAL_WEIGHT, personal_rank
from confnav.rank import RankMode, load_weights
from confnav.rank.external import import_external
from confnav.rank.profile import blend_with_profile
from confnav.store.protocols import Store


@cli.command()
@click.option("--theme", help="Only papers of this theme or sub-theme (see 'confnav topics').")
@click.option("--like", multiple=True, metavar="ID", help="Blend with relevance to these papers (repeatable).")
@click.option(
    "--for",
    "for_profile",
    metavar="NAME",
    help="Your personal must-read: blended with closeness to a profile (`confnav profile`).",
)
@click.option(
    "--profile-weight",
    type=click.FloatRange(0.0, 1.0),
    default=PERSONAL_WEIGHT,
    show_default=True,
    help="With --for: the share of closeness to the profile in the score.",
)
@click.option("--top", type=click.IntRange(1, 100_000), default=20, show_default=True, help="How many papers.")
@click.option("--weights", type=click.Path(dir_okay=False, path_type=Path), help="TOML/JSON file with [weights].")
@click.option("--explain", is_flag=True, help="Show every signal's value and contribution.")
@mode_option
@json_option
@with_store
@venue_option("The venue (default: the latest in the store, named on stderr when there are others).", latest=True)
def rank(
    store: Store,
    venue: str,
    theme: str | None,
    like: tuple[str, ...],
    for_profile: str | None,
    profile_weight: float,
    top: int,
    weights: Path | None,
    explain: bool,
    mode: RankMode | None,
    as_json: bool,
) -> None:
    """Must-read papers of a venue, each with the reasons it is there: at the conference (what was known when
    it opened) or looking back (led by citations; the default when the venue has citation counts)."""
    themes_with_progress(store, venue, required=False)  # without an index the ranking says what is missing
    ranker = cli_navigator().ranker(load_weights(weights), mode=mode)
    if for_profile:
        ranking = personal_rank(store, venue, for_profile, mode, weight=profile_weight, theme=theme, ranker=ranker)
    else:
        ranking = ranker.rank(store, venue, theme=theme)
    papers = blend_with_profile(store, ranking.papers, like) if like else ranking.papers
    papers = papers[:top]
    if as_json:
        print_json([p.to_dict() for p in papers])
        return
    for name, why in ranking.missing.items():
        click.echo(f"note: signal '{name}' not used: {why}", err=True)
    out.print(ranking.header(), markup=False)
    for position, item in enumerate(papers, start=1):
        out.print(f"{position:>3}. {item.score:.3f}  ", end="")
        out.print(item.paper.title, style="bold", markup=False, end="")
        out.print(f"  ({item.paper.id})", style="dim", markup=False)
        out.print("       " + "; ".join(item.reasons), markup=False)
        if explain:
            for name, value in item.values.items():
                if name in item.contributions:
                    shown = "-" if value is None else f"{value:.3g}"
                    out.print(
                        f"         {name:<20} value {shown:>7}  percentile {item.normalized[name]:.2f}"
                        f"  weight {ranking.weights[name]:g}  adds {item.contributions[name]:.3f}",
                        markup=False,
                    )
            if item.explained:
                out.print("         predicted impact, largest parts: " + "; ".join(item.explained), markup=False)


@cli.command()
@click.argument("file", type=click.Path(path_type=Path))
@json_option
@with_store
@venue_option(
    "The venue the ids belong to (default: the latest, named on stderr when there are others).",
    latest=True,
)
def signals(store: Store, file: Path, venue: str, as_json: bool) -> None:
    """Import external signals (e.g. citations, mentions) from CSV/JSON with an 'id' column."""
    result = import_external(store, venue, file)
    if as_json:
        print_json(
            {
                "stored": result.stored,
                "signals": result.signals,
                "unknown_ids": result.unknown_ids,
                "citations_used": result.citations_used,
                "citations_not_used": result.citations_not_used,
                "warnings": result.warnings,
            }
        )
        return
    for warning in result.warnings:
        click.echo(f"warning: {file}: {warning}", err=True)
    for paper_id in result.unknown_ids:
        click.echo(f"skipped: {file}: id {paper_id!r} is not a paper of {venue}", err=True)
    for line in result.summary(str(file), venue):
        out.print(line, markup=False)
