"""What every CLI verb shares: error handling, the progress bar, --db and --json options, output."""

from __future__ import annotations

import functools
import json
import sqlite3
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from confnav.errors import ConfnavError
from confnav.ingest import IngestError
from confnav.navigator import Navigator
from confnav.rank.mode import MODE_NAMES, parse_mode
from confnav.settings import Settings
from confnav.store import DEFAULT_DB, PaperFilter

F = TypeVar("F", bound=Callable[..., Any])
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)
DECISION_HELP = "Only this decision: an outcome (accepted, not-accepted, workshop, pending) or a kind (oral, long, …)."


class RichProgress:
    """The library's Progress drawn as a rich bar on stderr; silent with --quiet."""

    def __init__(self, quiet: bool) -> None:
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            transient=True,
            disable=quiet or not err.is_terminal,
        )
        self.task: Any = None

    def __enter__(self) -> RichProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def start(self, description: str, total: int | None) -> None:
        if self.task is not None:
            self.bar.remove_task(self.task)
        self.task = self.bar.add_task(description, total=total)

    def advance(self, amount: int = 1) -> None:
        self.bar.advance(self.task, amount)


def themes_with_progress(store: Any, venue: str, required: bool = True) -> None:
    """Build a venue's themes when they are missing, showing a progress bar (ranking and reports need them);
    with `required=False` a venue that cannot have themes (no index) is left for the caller to explain."""
    from confnav.topics import ensure_topics

    with RichProgress(quiet=False) as progress:
        try:
            ensure_topics(store, venue, progress=progress)
        except ConfnavError:
            if required:
                raise


class ConfnavGroup(click.Group):
    """Turns every error a user can cause into one line on stderr and exit status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except IngestError as exc:
            shown = exc.errors[:20]
            for problem in shown[:-1]:
                click.echo(f"error: {problem}", err=True)
            more = f" (and {len(exc.errors) - 20} more problems)" if len(exc.errors) > 20 else ""
            click.echo(f"error: {shown[-1]}{more}; nothing was written", err=True)
            sys.exit(1)
        except ConfnavError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)
        except sqlite3.OperationalError as exc:
            click.echo(f"error: the store could not be used: {exc}", err=True)
            sys.exit(1)
        except Exception as exc:
            if type(exc).__module__.startswith("psycopg"):  # the database went away or refused a statement
                click.echo(f"error: the PostgreSQL store could not be used: {str(exc).strip()}", err=True)
                sys.exit(1)
            raise


def store_options(func: F) -> F:
    """`--db` on every command that reads or writes the store."""
    return click.option(
        "--db",
        default=None,
        help=f"Store: a file, or a postgresql:// URL (default: $CONFNAV_DB or ./{DEFAULT_DB}).",
    )(func)


def json_option(func: F) -> F:
    """`--json`: print machine-readable JSON on stdout instead of text (also accepted before the verb)."""

    @functools.wraps(func)
    def wrapper(*args: Any, as_json: bool, **kwargs: Any) -> Any:
        return func(*args, as_json=as_json or bool(root_option("as_json")), **kwargs)

    return click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")(wrapper)  # type: ignore[return-value]


def root_option(name: str) -> Any:
    """An option given before the verb (`confnav --db X venues`), or None."""
    context = click.get_current_context(silent=True)
    return context.find_root().params.get(name) if context else None


def print_json(value: Any) -> None:
    click.echo(json.dumps(value, ensure_ascii=False, indent=2))


def cli_navigator() -> Navigator:
    """This run's navigator: the settings read once from the environment and config file, the chosen steps
    checked, and the store a verb opens (the root command keeps it; a verb's own flags apply where read)."""
    context = click.get_current_context(silent=True)
    root = context.find_root() if context else None
    if root is not None and isinstance(root.obj, Navigator):
        return root.obj
    navigator = Navigator(Settings.load())
    if root is not None:
        root.obj = navigator
    return navigator


def cli_settings() -> Settings:
    """The settings of this run (the navigator's)."""
    return cli_navigator().settings


def with_store(func: F, create: bool = False) -> F:
    """Open the store named by --db (it must exist unless `create`) through the run's navigator, pass it as
    `store`, close it afterwards."""

    @functools.wraps(func)
    def wrapper(*args: Any, db: str | None, **kwargs: Any) -> Any:
        with cli_navigator().opened(db or root_option("db"), create) as store:
            return func(*args, store=store, **kwargs)

    return store_options(wrapper)  # type: ignore[return-value]


def with_new_or_existing_store(func: F) -> F:
    """`with_store` for commands that may create the store (ingest)."""
    return with_store(func, create=True)


def filter_options(func: F) -> F:
    """The paper filters shared by search, similar and recommend; passed on as `where`."""

    @functools.wraps(func)
    def wrapper(
        *args: Any,
        venue: str | None,
        decision: str | None,
        author: str | None,
        keyword: str | None,
        year: int | None,
        min_rating: float | None,
        has_code: bool,
        **kwargs: Any,
    ) -> Any:
        where = PaperFilter(venue, decision, author, keyword, year, min_rating, has_code)
        return func(*args, where=where, **kwargs)

    options = [
        click.option("--venue", help="Only this venue (e.g. iclr2021)."),
        click.option("--decision", help=DECISION_HELP),
        click.option("--author", help="Only papers with an author of this name."),
        click.option("--keyword", help="Only papers with a keyword containing this text."),
        click.option("--year", type=int, help="Only venues of this year."),
        click.option("--min-rating", type=float, help="Only papers whose mean rating is at least this."),
        click.option("--has-code", is_flag=True, help="Only papers whose source links their code."),
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper  # type: ignore[return-value]


def mode_option(func: F) -> F:
    """`--mode at-conference|looking-back` (and `--at-conference`, its older spelling): the ranking's question,
    passed on as `mode` (None: the venue's default)."""

    @functools.wraps(func)
    def wrapper(*args: Any, mode: str | None, at_conference: bool, **kwargs: Any) -> Any:
        return func(*args, mode=parse_mode(mode, at_conference), **kwargs)

    wrapper = click.option(
        "--at-conference", is_flag=True, help="Same as --mode at-conference (only what was known when it opened)."
    )(wrapper)
    return click.option(  # type: ignore[return-value]
        "--mode",
        type=click.Choice(MODE_NAMES),
        help="at-conference: only what was known when the venue opened; looking-back: led by citations "
        "(default: looking-back when the venue has citation counts, else at-conference).",
    )(wrapper)
