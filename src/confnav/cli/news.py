"""Verbs for news: watch a query, an author or a theme, and read what each ingest or fetch found for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from confnav.cli import cli
from confnav.cli.common import Given, OutputFile, json_option, out, print_json, venue_option, with_store, write_output
from confnav.cli.profile import PROFILE_OPTION
from confnav.errors import ConfnavError, cut
from confnav.personal.feed import FEED_ITEMS, atom_feed
from confnav.personal.news import THEME_LABEL, add_watch, describe, followed_theme, profile_news, since_time
from confnav.store.news import Watch
from confnav.store.protocols import Store


class Since(click.ParamType):
    """`--since`: a date or a time, checked when the command line is read (a bad one is a usage error, as
    `rebuttal --from` is)."""

    name = "date"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        wanted = "give a date (2024-05-01) or a time (2024-05-01T09:00)"
        if isinstance(value, str) and not value.strip():
            self.fail(f"{wanted} (an empty value says nothing)", param, ctx)
        try:
            since_time(value)
        except ConfnavError:
            self.fail(f"{cut(value)}: {wanted}", param, ctx)
        return value


SINCE = Since()


@cli.group()
def watch() -> None:
    """Follow a query, an author, a theme or a venue's decisions: each ingest or fetch then keeps what is new for
    it (`confnav news`)."""


@watch.command("add")
@click.argument("query", required=False)
@click.option("--author", type=Given("a name or ~First_Last1"), help="An author's name or profile id (~First_Last1).")
@click.option("--theme", help="A theme id of the venue (as `confnav topics` lists them).")
@click.option("--decisions", is_flag=True, help="The decisions the --venue's papers receive (pending papers decided).")
@PROFILE_OPTION
@json_option
@with_store
@venue_option("Only papers of this venue (a theme's venue: default the latest).")
def watch_add(
    store: Store,
    query: str | None,
    author: str | None,
    theme: str | None,
    decisions: bool,
    venue: str | None,
    name: str,
    as_json: bool,
) -> None:
    """Watch papers matching "QUERY" (the search query language), by --author, in --theme, or a venue's decisions."""
    made = add_watch(store, name, query=query, author=author, theme=theme, venue=venue, decisions=decisions)
    if as_json:
        print_json(vars(made))
        return
    out.print(f"{made.id}: watching {describe(made)} for {made.profile}", markup=False)


@watch.command("ls")
@click.option("--profile", "name", help="Only this profile's watches (default: every profile's).")
@json_option
@with_store
def watch_ls(store: Store, name: str | None, as_json: bool) -> None:
    """The watches, oldest first."""
    watches = store.watches(name)
    if as_json:
        print_json([vars(w) for w in watches])
        return
    for w in watches:
        out.print(f"  {w.id}  {describe(w)}{_theme_now(store, w)}  [{w.profile}, since {w.created[:10]}]", markup=False)
    out.print(f"({len(watches)} watches)", style="dim")


def _theme_now(store: Store, watch: Watch) -> str:
    """What became of a theme watch's theme since it was made: numbered anew, or no theme of its name any more."""
    if watch.kind != "theme":
        return ""
    now = followed_theme(store, watch)
    if now is None:
        return " — no theme of that name since the themes were built again: nothing to report"
    return f" — now {now}" if now != watch.value.partition(THEME_LABEL)[0] else ""


@watch.command("rm")
@click.argument("watch_id")
@with_store
def watch_rm(store: Store, watch_id: str) -> None:
    """Stop a watch; its news go with it."""
    gone = store.remove_watch(watch_id)
    out.print(f"{gone.id}: no longer watching {describe(gone)}", markup=False)


@cli.command()
@PROFILE_OPTION
@click.option("--since", type=SINCE, help="Only news from this date (2024-05-01) or time (2024-05-01T09:00, UTC) on.")
@click.option("--atom", "atom", type=OutputFile(), help="Write an Atom feed here.")
@json_option
@with_store
def news(store: Store, name: str, since: str | None, atom: Path | None, as_json: bool) -> None:
    """What each ingest or fetch found for the profile's watches, newest first."""
    items = profile_news(store, name, since)
    if atom is not None:
        write_output(atom, atom_feed(store, name, since=since), "feed")
        out.print(f"{atom}: Atom feed of {name}'s news (the newest {min(len(items), FEED_ITEMS)} items)", markup=False)
        return
    if as_json:
        print_json([vars(item) for item in items])
        return
    for item in items:
        out.print(f"  {item.created[:16].replace('T', ' ')}  [{item.kind}] {item.title}", markup=False)
        out.print(f"      {item.paper_id} · {item.venue} · {item.watch}: {item.summary}", markup=False)
    out.print(f"({len(items)} news items for {name})", style="dim")
