"""What every CLI verb shares: error handling, the progress bar, --db and --json options, output."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from confnav.errors import ConfnavError, cut, excerpt, spell
from confnav.ingest import IngestError
from confnav.limits import FIRST_YEAR, last_year
from confnav.navigator import Navigator
from confnav.rank.mode import MODE_NAMES, parse_mode
from confnav.settings import Settings
from confnav.store import DEFAULT_DB, PaperFilter

F = TypeVar("F", bound=Callable[..., Any])
GIVEN = "confnav.given"  # the context's record of the command line as given
FLAGS = {
    "fmt": "--format",
    "mapping": "--map",
    "source": "--from",
    "target": "--to",
    "query": "QUERY",
    "zone": "--timezone",
    "db": "--db",
}  # a library argument whose flag is not its name with dashes


def flag_of(name: str) -> str:
    """The flag a library argument named in an error message is given by (errors.argument)."""
    return FLAGS.get(name, "--" + name.replace("_", "-"))


def said(text: str) -> str:
    """A library warning or notice as the CLI prints it: the arguments it names (`errors.Said`) as their flags."""
    return spell(text, flag_of)


out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)
YEAR = click.IntRange(FIRST_YEAR, last_year())  # a venue's year, as ingest admits it
DECISION_HELP = "Only this decision: an outcome (accepted, not-accepted, workshop, pending) or a kind (oral, long, …)."


QUOTED_WIDTH = 255  # a value given longer than a file name can be is shown cut short (`errors.cut`)


def shortened(message: str, given: list[str]) -> str:
    """A message with each long value of the command line in it cut short as `errors.excerpt` quotes it: a net
    under every message (click's own, a library's) so that no value, of any length, is echoed whole."""
    values = {part for arg in given for part in (arg, arg.partition("=")[2]) if len(part) > QUOTED_WIDTH}
    for value in sorted(values, key=len, reverse=True):
        message = message.replace(repr(value), excerpt(value)).replace(value, cut(value))
    return message


def shorten(exc: click.UsageError, given: list[str]) -> None:
    """A usage error's message with the long values in it cut short (`shortened`)."""
    exc.message = shortened(exc.message, given)  # type: ignore[misc]  # click's own attribute, declared final


class ConfnavCommand(click.Command):
    """A verb whose complaint about extra arguments says how a repeatable option takes several values, and
    whose complaints quote long values cut short."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            if exc.message.startswith("Got unexpected extra argument") and (hint := repeat_hint(self, ctx, given)):
                raise click.UsageError(shortened(f"{exc.message}: {hint}", given), exc.ctx) from None
            shorten(exc, given)
            raise


def repeat_hint(command: click.Command, ctx: click.Context, args: list[str]) -> str | None:
    """How to give a repeatable option (`--ids`, `--like`) several values, when one is followed by two of them
    (`--ids A B`), as the other verbs' notation `ID...` might suggest; None otherwise."""
    repeatable = {
        name for p in command.get_params(ctx) if isinstance(p, click.Option) and p.multiple for name in p.opts
    }
    for position, token in enumerate(args):
        flag, equals, value = token.partition("=")
        if flag not in repeatable:
            continue
        if not equals:
            value = args[position + 1] if position + 1 < len(args) else ""
        following = args[position + (1 if equals else 2) :]
        if value and following and not following[0].startswith("-"):
            return f"{flag} takes one value each time; repeat it for each: {flag} {value} {flag} {following[0]}"
    return None


class ConfnavGroup(click.Group):
    """Turns every error a user can cause into one line on stderr and exit status 1 (a command line click cannot
    read keeps click's usage message and status 2, as the README says)."""

    command_class = ConfnavCommand
    group_class = type  # its groups (`confnav profile …`) are ConfnavGroups too, their verbs ConfnavCommands

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        given = list(args) if parent is None else parent.meta.get(GIVEN, [])
        try:
            ctx = super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            shorten(exc, given)
            raise
        ctx.meta.setdefault(GIVEN, given)  # the whole command line, for `shortened`
        return ctx

    def invoke(self, ctx: click.Context) -> Any:
        given = ctx.meta.get(GIVEN, [])
        try:
            return super().invoke(ctx)
        except IngestError as exc:
            shown = exc.errors[:20]
            for problem in shown[:-1]:
                click.echo(f"error: {shortened(problem.spelled(flag_of), given)}", err=True)
            more = f" (and {len(exc.errors) - 20} more problems)" if len(exc.errors) > 20 else ""
            click.echo(f"error: {shortened(shown[-1].spelled(flag_of), given)}{more}; nothing was written", err=True)
            sys.exit(1)
        except ConfnavError as exc:
            click.echo(f"error: {shortened(exc.spelled(flag_of), given)}", err=True)
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


# Commands taking paper ids read a word like `-2FCwDKRREu` (45 ICLR 2021 ids start with `-`) as an id, not an option.
PAPER_IDS = {"ignore_unknown_options": True}


class OutputFile(click.Path):
    """A file a command writes (`-o`, `--out`, `--ics`, …): a file name (not empty, not a folder) in a folder that
    exists, checked when the command line is read, before any work (a command never makes folders, as `ingest` and
    `verify` never guess a path)."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():  # "" would be read as ".", the current folder
            self.fail("give a file name, e.g. -o out.md", param, ctx)
        path = Path(os.fsdecode(super().convert(value, param, ctx)))
        folder = path.parent
        if not folder.is_dir():
            raise ConfnavError(
                f"{path}: {folder} is a file, not a folder" if folder.exists() else f"{path}: no folder {folder}"
            )
        return path


@contextlib.contextmanager
def writing(path: Path, what: str) -> Iterator[None]:
    """Around the writing of a command's output file and what goes beside it (a report's charts): a file that
    cannot be written is one line naming it and why."""
    try:
        yield
    except OSError as exc:
        raise ConfnavError(
            f"{cut(str(exc.filename or path))}: cannot write the {what} ({exc.strerror or exc})"
        ) from None


def write_output(path: Path, text: str, what: str) -> None:
    """Write a command's output file, text as given (RIS and ICS keep CR LF)."""
    with writing(path, what), path.open("w", encoding="utf-8", newline="") as file:
        file.write(text)


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
        navigator = cli_navigator()
        location = db or root_option("db") or navigator.settings.db
        made = Path(location) if create and "://" not in location and not Path(location).exists() else None
        try:
            with navigator.opened(location, create) as store:
                return func(*args, store=store, **kwargs)
        except BaseException:
            if made is not None:  # a store this command made and then wrote nothing to: not left behind, empty
                _remove_store_files(made)
            raise

    return store_options(wrapper)  # type: ignore[return-value]


def _remove_store_files(path: Path) -> None:
    """A SQLite store's file, its journal files and its search folder."""
    for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        part.unlink(missing_ok=True)
    shutil.rmtree(path.with_name(path.name + ".search"), ignore_errors=True)


def with_new_or_existing_store(func: F) -> F:
    """`with_store` for commands that may create the store (ingest)."""
    return with_store(func, create=True)


class Given(click.ParamType):
    """Text a user gives (a venue, a name, a file, an id): an empty or blank value says nothing and is refused as a
    usage error, never read as the option left out (`--author ""` is no filter) or as a path (`""` is ".")."""

    name = "text"

    def __init__(self, example: str) -> None:
        self.example = example

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail(f"give {self.example} (an empty value says nothing)", param, ctx)
        return value


class InputFile(click.Path):
    """A file a command reads: an empty name is refused as a usage error (it would be read as ".", a folder the
    user never named)."""

    def __init__(self, dir_okay: bool = True) -> None:
        super().__init__(dir_okay=dir_okay, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("give a file name (an empty one says nothing)", param, ctx)
        return super().convert(value, param, ctx)


VENUE = Given("a venue, e.g. iclr2021 or 'ICLR 2021'")


def chosen_venue(store: Any, venue: str | None, latest: bool) -> str | None:
    """The store's id of the venue a user named, however spelt (`store.get_venue`); none named, every venue
    (None), or with `latest` the store's latest venue, named on stderr when the store holds others."""
    if venue is not None:
        return str(store.get_venue(venue).id)
    if not latest:
        return None
    chosen = str(store.pick_venue(None))
    others = [v.id for v in store.venue_list() if v.id != chosen]
    if others:
        click.echo(
            f"note: venue {chosen}, the latest in the store; --venue for another ({', '.join(others)})", err=True
        )
    return chosen


def venue_option(help: str, latest: bool = False) -> Callable[[F], F]:
    """`--venue`, spelt as the user likes (`iclr2021`, `ICLR 2021`, `iclr-2021`) and passed on as the store's id;
    when not given, None (every venue) or with `latest` the latest venue, said on stderr (`chosen_venue`). Goes
    under `with_store`, which gives it the store."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, store: Any, venue: str | None, **kwargs: Any) -> Any:
            return func(*args, store=store, venue=chosen_venue(store, venue, latest), **kwargs)

        return click.option("--venue", type=VENUE, help=help)(wrapper)  # type: ignore[return-value]

    return decorate


def filter_options(func: F) -> F:
    """The paper filters shared by search, similar, recommend and export, passed on as `where` (its venue the
    store's id, however spelt); goes under `with_store`, which gives it the store."""

    @functools.wraps(func)
    def wrapper(
        *args: Any,
        store: Any,
        venue: str | None,
        decision: str | None,
        author: str | None,
        keyword: str | None,
        year: int | None,
        min_rating: float | None,
        has_code: bool,
        **kwargs: Any,
    ) -> Any:
        venue = chosen_venue(store, venue, latest=False)
        where = PaperFilter(venue, decision, author, keyword, year, min_rating, has_code)
        return func(*args, store=store, where=where, **kwargs)

    options = [
        click.option("--venue", type=VENUE, help="Only this venue (e.g. iclr2021 or 'ICLR 2021')."),
        click.option("--decision", help=DECISION_HELP),
        click.option("--author", type=Given("a name"), help="Only papers with an author of this name."),
        click.option("--keyword", help="Only papers with a keyword containing this text."),
        click.option("--year", type=YEAR, help="Only venues of this year."),
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
