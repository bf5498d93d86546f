"""The `serve` verb: the local web app."""

from __future__ import annotations

from pathlib import Path

import click

from confnav.cli import cli
from confnav.cli.common import store_options
from confnav.errors import MissingExtraError
from confnav.store import open_store


@cli.command()
@store_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
def serve(db: Path | None, host: str, port: int) -> None:
    """Serve the navigator in the browser: search, papers, map, themes, reports, reading lists."""
    with open_store(db) as store:  # a missing or unreadable store is one clear line, before anything starts
        path = store.path
    run_server(path, host, port)


def run_server(db: Path, host: str, port: int) -> None:
    try:
        from confnav.web.app import serve as serve_app
    except ImportError:
        raise MissingExtraError("the web app", "web") from None
    serve_app(db, host, port)
