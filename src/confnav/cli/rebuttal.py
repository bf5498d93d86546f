"""The rebuttal verb: ratings before and after the rebuttal, movers, converged and diverged papers."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from confnav.cli import cli
from confnav.cli.common import json_option, out, print_json, venue_option, with_store
from confnav.reports.rebuttal import MOVERS, PaperChange, build_rebuttal, when
from confnav.store.protocols import Store


def _ms(value: datetime | None) -> int | None:
    return int(value.replace(tzinfo=value.tzinfo or UTC).timestamp() * 1000) if value else None


@cli.command()
@click.option(
    "--from", "start", type=click.DateTime(), help="Start of the review period (UTC; default: the first version)."
)
@click.option("--to", "end", type=click.DateTime(), help="End of the review period (UTC; default: the last version).")
@click.option("--limit", type=click.IntRange(1), default=MOVERS, show_default=True, help="Papers per list.")
@json_option
@with_store
@venue_option("The venue (default: the latest in the store, named on stderr when there are others).", latest=True)
def rebuttal(store: Store, venue: str, start: datetime | None, end: datetime | None, limit: int, as_json: bool) -> None:
    """Ratings before and after the rebuttal (first and last version of each review) from the fetched histories."""
    result = build_rebuttal(store, venue, _ms(start), _ms(end), limit)
    if as_json:
        print_json(result.to_dict())
        return
    data = result.to_dict()
    period = f"first version {data['first_version']}, last {data['last_version']}"
    out.print(
        f"{result.venue}: {data['reviews']} reviews of {data['papers']} papers ({period});"
        f" {data['reviews_changed']} changed ({data['share_changed'] or 0:.0%})",
        markup=False,
    )
    for decision, figures in data["by_decision"].items():
        out.print(f"  {decision}: {figures['papers']} papers, mean change {figures['mean_change']:+.2f}", markup=False)
    for name, papers in (
        ("Largest rises", result.rises()),
        ("Largest falls", result.falls()),
        ("Converged", result.converged()),
        ("Diverged", result.diverged()),
    ):
        if papers:
            out.print(f"{name}:", markup=False)
            for paper in papers:
                out.print("  " + _line(paper), markup=False)


def _line(paper: PaperChange) -> str:
    first = min(r.pre_at for r in paper.reviews)
    last = max(r.post_at for r in paper.reviews)
    return (
        f"{paper.paper_id} {paper.title[:60]}: {paper.pre_mean:.2f} → {paper.post_mean:.2f} ({paper.change:+.2f}),"
        f" spread {paper.pre_spread:g} → {paper.post_spread:g} [{when(first)} … {when(last)}]"
    )
