"""Every setting confnav takes from outside the code — flags, the environment, a config file — read in one place.

The CLI and the web app each build one `Settings` and pass it on; no other module reads the environment.
Precedence: a flag, then an environment variable, then the config file's table, then the default.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confnav.errors import ConfnavError, read_utf8

DEFAULT_DB = "confnav.db"
WORKER_SETTINGS = "CONFNAV_WORKER_SETTINGS"
OPENREVIEW_API2_URL = "https://api2.openreview.net"
OPENREVIEW_API1_URL = "https://api.openreview.net"
PAPERLISTS_URL = "https://raw.githubusercontent.com/papercopilot/paperlists/main"
S2_URL = "https://api.semanticscholar.org/graph/v1"
OPENALEX_URL = "https://api.openalex.org"

# setting name → (environment variable, config-file table, key in that table)
_SOURCES: dict[str, tuple[str, str, str]] = {
    "db": ("CONFNAV_DB", "store", "db"),
    "llm_url": ("CONFNAV_LLM_URL", "llm", "url"),
    "llm_model": ("CONFNAV_LLM_MODEL", "llm", "model"),
    "llm_api_key": ("CONFNAV_LLM_API_KEY", "llm", "api_key"),
    "openreview_url": ("CONFNAV_OPENREVIEW_URL", "services", "openreview_url"),
    "openreview_v1_url": ("CONFNAV_OPENREVIEW_V1_URL", "services", "openreview_v1_url"),
    "openreview_token": ("OPENREVIEW_TOKEN", "", ""),
    "openreview_username": ("OPENREVIEW_USERNAME", "", ""),
    "openreview_password": ("OPENREVIEW_PASSWORD", "", ""),
    "paperlists_url": ("CONFNAV_PAPERLISTS_URL", "services", "paperlists_url"),
    "s2_url": ("CONFNAV_S2_URL", "services", "s2_url"),
    "s2_api_key": ("S2_API_KEY", "", ""),
    "openalex_url": ("CONFNAV_OPENALEX_URL", "services", "openalex_url"),
    "openalex_api_key": ("OPENALEX_API_KEY", "", ""),
}
STEP_KINDS = ("embedder", "index", "clusterer", "labeler", "layout", "ranker", "summarizer")
SECRETS = frozenset({"llm_api_key", "openreview_token", "openreview_password", "s2_api_key", "openalex_api_key"})


def default_cache_dir() -> Path:
    """The cache folder of settings given none: `~/.cache/confnav` (tests point it at a folder of their own)."""
    return Path.home() / ".cache" / "confnav"


@dataclass(frozen=True)
class Steps:
    """Which step of each kind to use: a registered name or `package.module:Class`; None keeps the default.

    Read from the config file's `[steps]` table and `CONFNAV_STEP_<KIND>` variables; the names are checked
    against the step registries when a `Navigator` is built (this module is below them)."""

    embedder: str | None = None
    index: str | None = None
    clusterer: str | None = None
    labeler: str | None = None
    layout: str | None = None
    ranker: str | None = None
    summarizer: str | None = None

    def chosen(self) -> dict[str, str]:
        """The kinds given a name, with that name."""
        return {kind: name for kind, name in dataclasses.asdict(self).items() if name is not None}


@dataclass(frozen=True)
class Settings:
    """Where the store and caches are, which outside services to reach and how, and how the app is served."""

    db: str = DEFAULT_DB
    cache_dir: Path = field(default_factory=lambda: default_cache_dir())  # looked up when made: tests replace it
    config_file: Path | None = None
    llm_url: str | None = None
    llm_model: str = "default"
    llm_api_key: str | None = None
    llm_timeout: float = 20.0
    openreview_url: str = OPENREVIEW_API2_URL
    openreview_v1_url: str = OPENREVIEW_API1_URL
    openreview_token: str | None = None
    openreview_username: str | None = None
    openreview_password: str | None = None
    paperlists_url: str = PAPERLISTS_URL
    s2_url: str = S2_URL
    s2_api_key: str | None = None
    openalex_url: str = OPENALEX_URL
    openalex_api_key: str | None = None
    serving: bool = False  # answering a server's requests: reads never write, long work runs as a job
    read_only: bool = False
    write_token: str | None = None
    allowed_hosts: tuple[str, ...] | None = None
    steps: Steps = Steps()

    @classmethod
    def load(
        cls, env: Mapping[str, str] | None = None, config_file: str | Path | None = None, **flags: Any
    ) -> Settings:
        """Settings from flags (None means not given), the environment and the config file
        (`config_file`, else `$CONFNAV_CONFIG`). A `steps` flag (a `Steps`) overrides the chosen steps kind by kind."""
        env = os.environ if env is None else env
        config_path = (
            Path(config_file) if config_file else Path(env["CONFNAV_CONFIG"]) if env.get("CONFNAV_CONFIG") else None
        )
        tables = _read_config(config_path)
        values: dict[str, Any] = {"config_file": config_path, "cache_dir": _cache_dir(env)}
        for name, (variable, table, key) in _SOURCES.items():
            value = env.get(variable) or (tables.get(table, {}).get(key) if table else None)
            if name == "llm_api_key" and not value and (named := tables.get("llm", {}).get("api_key_env")):
                value = env.get(str(named))
            if value:
                values[name] = str(value).rstrip("/") if name.endswith("_url") else str(value)
        given = flags.pop("steps", None)
        values["steps"] = _steps(env, tables.get("steps", {}), config_path, given)
        values.update({name: value for name, value in flags.items() if value is not None})
        return cls(**values)

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    def to_json(self) -> str:
        """The settings as one JSON text, secrets included: for a worker process, written to a private file."""
        return json.dumps({k: str(v) if isinstance(v, Path) else v for k, v in dataclasses.asdict(self).items()})

    @classmethod
    def from_json(cls, text: str) -> Settings:
        values = json.loads(text)
        values["cache_dir"] = Path(values["cache_dir"])
        values["config_file"] = Path(values["config_file"]) if values.get("config_file") else None
        if values.get("allowed_hosts") is not None:
            values["allowed_hosts"] = tuple(values["allowed_hosts"])
        values["steps"] = Steps(**values.get("steps", {}))
        return cls(**values)

    @contextmanager
    def handed_to_workers(self) -> Iterator[Path]:
        """Write the settings to a file only this user can read, named in `$CONFNAV_WORKER_SETTINGS` for the
        worker processes a server starts (secrets never go on a command line or into several variables);
        the file and its folder are removed when the server stops, so no secret outlives it on disk."""
        folder = Path(tempfile.mkdtemp(prefix="confnav-workers-"))
        path = folder / "settings.json"
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(self.to_json())
            os.environ[WORKER_SETTINGS] = str(path)
            yield path
        finally:
            os.environ.pop(WORKER_SETTINGS, None)
            shutil.rmtree(folder, ignore_errors=True)

    @classmethod
    def for_worker(cls) -> Settings:
        """The settings a server's parent process handed to its workers (see `hand_to_workers`)."""
        named = os.environ.get(WORKER_SETTINGS)
        if not named:
            raise ConfnavError(f"no settings handed to this worker (${WORKER_SETTINGS} is not set)")
        return cls.from_json(Path(named).read_text(encoding="utf-8"))

    def shown(self) -> dict[str, Any]:
        """The settings as they may be printed or logged: secrets replaced by '***'."""
        return {
            k: ("***" if k in SECRETS and v else str(v) if isinstance(v, Path) else v)
            for k, v in dataclasses.asdict(self).items()
        }


def _cache_dir(env: Mapping[str, str]) -> Path:
    """`$CONFNAV_CACHE`, else `$XDG_CACHE_HOME/confnav`, else `~/.cache/confnav`."""
    if explicit := env.get("CONFNAV_CACHE"):
        return Path(explicit)
    if xdg := env.get("XDG_CACHE_HOME"):
        return Path(xdg) / "confnav"
    return default_cache_dir()


def _steps(env: Mapping[str, str], table: dict[str, Any], path: Path | None, given: Steps | None) -> Steps:
    """The chosen steps: a flag's, then `$CONFNAV_STEP_<KIND>`, then the config file's `[steps]` table."""
    for kind, name in table.items():
        if kind not in STEP_KINDS:
            raise ConfnavError(f"{path}: [steps] {kind}: not a kind of step; known: {', '.join(STEP_KINDS)}")
        if not isinstance(name, str) or not name.strip():
            raise ConfnavError(f'{path}: [steps] {kind}: give a step name as text, e.g. "package.module:Class"')
    flagged = given.chosen() if given else {}
    names = {
        kind: flagged.get(kind) or env.get(f"CONFNAV_STEP_{kind.upper()}") or table.get(kind) for kind in STEP_KINDS
    }
    return Steps(**{kind: name.strip() if name else None for kind, name in names.items()})


def _read_config(path: Path | None) -> dict[str, dict[str, Any]]:
    if path is None:
        return {}
    try:
        document = tomllib.loads(read_utf8(path))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfnavError(f"{path}: cannot read the settings: {exc}") from None
    return {name: table for name, table in document.items() if isinstance(table, dict)}
