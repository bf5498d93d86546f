"""The demo: a store built from the bundled Markdown page, in the user's cache folder."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from confnav.embed import choose_embedder
from confnav.index import IndexResult, build_index
from confnav.ingest import IngestResult, ingest
from confnav.progress import Progress
from confnav.store import SqliteStore

DEMO_FILE = "iclr2021-paperlist-page1.md"
DEMO_VENUE = "iclr2021"


def cache_dir() -> Path:
    """`$CONFNAV_CACHE`, else `$XDG_CACHE_HOME/confnav`, else `~/.cache/confnav`."""
    if explicit := os.environ.get("CONFNAV_CACHE"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "confnav"


def demo_data_path() -> Path:
    """The Markdown page shipped inside the package."""
    return Path(str(resources.files("confnav") / "demo_data" / DEMO_FILE))


@dataclass
class Demo:
    """What the demo built: the store file, the ingest and index outcomes, and any notice."""

    db_path: Path
    ingest: IngestResult
    index: IndexResult
    notice: str | None = None


def build_demo(folder: Path | None = None, progress: Progress | None = None) -> Demo:
    """Build a fresh demo store from the bundled page (an earlier demo store is replaced)."""
    folder = folder or cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    db_path = folder / "demo.db"
    db_path.unlink(missing_ok=True)
    embedder, notice = choose_embedder()
    with SqliteStore(db_path) as store:
        result = ingest(store, [demo_data_path()], venue=DEMO_VENUE, progress=progress)
        indexed = build_index(store, embedder, progress=progress)
    return Demo(db_path=db_path, ingest=result, index=indexed, notice=notice)
