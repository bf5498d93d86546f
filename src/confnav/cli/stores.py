"""The `copy` verb: move a whole store between SQLite and PostgreSQL."""

from __future__ import annotations

import click

from confnav.cli import cli
from confnav.cli.common import cli_settings, json_option, out, print_json
from confnav.store import describe, is_postgres, open_store
from confnav.store.copy import copy_store


@cli.command("copy")
@click.argument("source")
@click.argument("target")
@json_option
def copy_cmd(source: str, target: str, as_json: bool) -> None:
    """Copy every paper, record, vector, theme, signal and reading list from SOURCE to the empty store TARGET.

    Each is a store file or a postgresql:// URL; the row counts are compared before anything is committed.
    """
    settings = cli_settings()
    with (
        open_store(source, settings=settings) as src,
        open_store(target, create=not is_postgres(target), settings=settings) as dst,
    ):
        result = copy_store(src, dst)
    if as_json:
        print_json(result.to_dict())
        return
    copied = ", ".join(f"{n} {table}" for table, n in result.tables.items() if n)
    out.print(f"copied {describe(source)} to {describe(target)}: {copied}; counts checked", markup=False)
    for model in result.vector_indexes:
        out.print(f"built the nearest-neighbour index of {model}", markup=False)
