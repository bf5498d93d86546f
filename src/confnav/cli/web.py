"""The `serve` verb: the local web app."""

from __future__ import annotations

from pathlib import Path

import click

from confnav.cli import cli
from confnav.cli.common import cli_navigator, root_option, store_options
from confnav.errors import MissingExtraError
from confnav.store import open_store


@cli.command()
@store_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Worker processes (for a shared PostgreSQL store; see docs/deploy.md).",
)
@click.option("--read-only", is_flag=True, help="Refuse every write (reading lists, theme builds).")
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="Another Host name to answer for, e.g. the name a reverse proxy forwards (repeatable).",
)
def serve(db: str | None, host: str, port: int, workers: int, read_only: bool, allow_hosts: tuple[str, ...]) -> None:
    """Serve the navigator in the browser: search, papers, map, themes, reports, reading lists."""
    settings = cli_navigator().settings
    location = db or root_option("db") or settings.db
    with open_store(location, read_only=read_only, settings=settings):  # a missing or unreadable store: one line, first
        pass
    run_server(location, host, port, workers, read_only, allow_hosts)


def run_server(
    db: Path | str, host: str, port: int, workers: int = 1, read_only: bool = False, allow_hosts: tuple[str, ...] = ()
) -> None:
    """Serve the store at `db` with this run's settings (the app builds its own navigator from them)."""
    try:
        from confnav.web.app import serve as serve_app
    except ImportError:
        raise MissingExtraError("the web app", "web") from None
    serve_app(db, host, port, workers, read_only, allow_hosts, settings=cli_navigator().settings)
