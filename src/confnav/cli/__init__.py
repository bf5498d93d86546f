"""The `confnav` command: thin verbs that parse options, call the library and print."""

from __future__ import annotations

import click

from confnav import __version__
from confnav.cli.common import ConfnavGroup, cli_navigator


@click.group(cls=ConfnavGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="confnav")
@click.option("--db", default=None, help="Store for every verb (as each verb's own --db).")
@click.option("--json", "as_json", is_flag=True, help="JSON output for every verb that has it.")
def cli(db: str | None, as_json: bool) -> None:
    """confnav: a trustworthy navigator for a conference's papers. Global options may come before the verb."""
    cli_navigator()  # settings read and chosen steps checked once, before the verb runs


from confnav.cli import (  # noqa: E402, F401 - registers the verbs
    ask,
    export,
    fetch,
    news,
    papers,
    plan,
    profile,
    rank,
    rebuttal,
    reports,
    search,
    stores,
    topics,
    web,
)


def main() -> None:
    cli(prog_name="confnav")
