"""The demo: a store built from the bundled Markdown page, in the user's cache folder."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from confnav.index import IndexResult
from confnav.ingest import IngestResult, ingest
from confnav.navigator import Navigator
from confnav.progress import Progress
from confnav.reports.overview import build_overview
from confnav.reports.render import to_html, to_markdown
from confnav.reports.verify import verified
from confnav.settings import Settings
from confnav.store import SqlStore, open_store
from confnav.topics import ensure_topics

DEMO_FILE = "iclr2021-paperlist-page1.md"
DEMO_VENUE = "iclr2021"


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
    reports: list[Path] = field(default_factory=list)


def build_demo(folder: Path | None = None, progress: Progress | None = None, settings: Settings | None = None) -> Demo:
    """Build a fresh demo store from the bundled page (an earlier demo store is replaced) in `folder`, else the
    settings' cache folder, with the steps the settings choose (None: the defaults, not the environment's)."""
    settings = settings or Settings()
    folder = folder or settings.cache_dir
    folder.mkdir(parents=True, exist_ok=True)
    db_path = folder / "demo.db"
    db_path.unlink(missing_ok=True)
    navigator = Navigator(settings)
    embedder, notice = navigator.embedder()
    with open_store(db_path, create=True, settings=settings) as store:
        result = ingest(store, [demo_data_path()], venue=DEMO_VENUE, progress=progress)
        indexed = navigator.index(store, embedder, progress=progress)
        ensure_topics(store, DEMO_VENUE, progress=progress)
        reports = write_overview(store, DEMO_VENUE, folder / "overview")
    return Demo(db_path=db_path, ingest=result, index=indexed, notice=notice, reports=reports)


def write_overview(store: SqlStore, venue: str, stem: Path) -> list[Path]:
    """Write the verified overview of a venue as `stem.md` and `stem.html`."""
    report = build_overview(store, venue)
    written = []
    for suffix, text in ((".md", to_markdown(report)), (".html", to_html(report))):
        verified(store, text, str(stem) + suffix)
        path = stem.with_suffix(suffix)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
