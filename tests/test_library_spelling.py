"""Messages of the library name its arguments as a library caller spells them (`zone`, `mapping`, `strict=True`),
and the CLI prints the same messages with its flags (`--timezone`, `--map`, `--strict`): errors and the plain-string
warnings and notices alike. No library module writes a flag into a message itself."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.embed.base import PretrainedEmbedder, ProgressFn
from confnav.errors import InputError, Said
from confnav.index import build_index
from confnav.ingest import IngestError, ingest
from confnav.plan import import_schedule
from confnav.search.engine import Searcher
from confnav.store import SqlStore
from tests.conftest import MARKDOWN_PAGE, ROOT

HERE = __name__
ZONELESS = "paper_id,title,session,date,start,end,room\nx1,A paper,Orals 1,2020-04-27,09:00,10:30,Room 2\n"
EXTRA_COLUMN = "title,authors,decision,Writers\nA paper on graphs,Ada Lovelace,Accept (Poster),Ada\n"
UNTITLED = "title,authors,decision\n,Ada Lovelace,Accept (Poster)\nA paper on graphs,Ada Lovelace,Accept (Poster)\n"


def cli_err(*args: str) -> str:
    return CliRunner().invoke(cli, list(args)).stderr


class English(PretrainedEmbedder):
    """A plugged embedder that reads English only, so a query in Chinese is routed to keywords with a notice."""

    name = f"{HERE}:English"
    languages = frozenset({"en"})

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        return np.ones((len(texts), 8), dtype=np.float32)


def test_schedule_zone_messages_name_zone_in_the_library_and_timezone_on_the_cli(
    store: SqlStore, tmp_path: Path
) -> None:
    ingest(store, [MARKDOWN_PAGE])
    venue = store.pick_venue(None)
    table = tmp_path / "schedule.csv"
    table.write_text(ZONELESS, encoding="utf-8")
    with pytest.raises(InputError, match=r"no time zone; pass zone \(e\.g\. zone='Europe/Vienna'\) to place it$"):
        import_schedule(store, table, venue)
    with pytest.raises(InputError, match=r"schedule\.csv: zone='Mars/Base': unknown time zone \(use a name like"):
        import_schedule(store, table, venue, zone="Mars/Base")
    db = str(store.location)
    said = cli_err("schedule", "import", str(table), "--venue", venue, "--db", db)
    assert "pass --timezone (e.g. --timezone Europe/Vienna) to place it" in said and "zone=" not in said
    said = cli_err("schedule", "import", str(table), "--venue", venue, "--timezone", "Mars/Base", "--db", db)
    assert "schedule.csv: --timezone Mars/Base: unknown time zone" in said


def test_tabular_and_ingest_warnings_name_mapping_and_strict_in_the_library(store: SqlStore, tmp_path: Path) -> None:
    extra, untitled = tmp_path / "extra.csv", tmp_path / "untitled.csv"
    extra.write_text(EXTRA_COLUMN, encoding="utf-8")
    untitled.write_text(UNTITLED, encoding="utf-8")
    result = ingest(store, [extra, untitled], venue="conf2024")
    (unread,) = [w for w in result.warnings if "not read" in w]
    assert (
        unread == "extra.csv: column(s) not read: 'Writers'; mapping (a field to a column) reads one (docs/ingest.md)"
    )
    assert isinstance(unread, Said) and result.untitled[0].endswith("; strict=True refuses such a file")
    with pytest.raises(IngestError, match=r"extra\.csv, line 1: mapping names column\(s\) not in the header: Nope;"):
        ingest(store, [extra], venue="conf2024", mapping={"title": "Nope"})
    db = str(tmp_path / "cli.db")
    said = cli_err("ingest", str(extra), str(untitled), "--venue", "conf2024", "--db", db)
    assert "--map (a field to a column) reads one" in said and "; --strict refuses such a file" in said
    assert "mapping" not in said and "strict=True" not in said
    said = cli_err("ingest", str(extra), "--venue", "conf2024", "--map", "title=Nope", "--db", db)
    assert "--map names column(s) not in the header: Nope" in said


def test_a_routing_notice_names_model_and_add_in_the_library_and_flags_on_the_cli(store: SqlStore) -> None:
    ingest(store, [MARKDOWN_PAGE])
    build_index(store, English())
    (notice,) = Searcher(store).search("图神经网络", limit=5).notices
    assert "index with model='use-multilingual-v3' and add=True to search in Chinese" in notice
    said = cli_err("search", "图神经网络", "--db", str(store.location))
    assert "index with --model use-multilingual-v3 and --add to search in Chinese" in said


FLAG = re.compile(r"(?:^|[\s'\"`])(--[a-z][\w-]*)")
SHELL_COMMANDS = {("personal/cold.py", "--profile")}  # the `confnav profile like ID --profile NAME` lines it offers


def test_no_library_module_writes_a_cli_flag_into_a_message() -> None:
    """A flag in a library message reads wrong to a library caller: name the argument (`errors.argument`), which
    the CLI spells as its flag. A command for the shell to run (`'confnav topics --venue V'`) may name its flags."""
    found = []
    package = ROOT / "src" / "confnav"
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package).as_posix()
        if where.startswith(("cli/", "web/")):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                for match in FLAG.finditer(node.value):
                    if "confnav " not in node.value[: match.start()] and (where, match.group(1)) not in SHELL_COMMANDS:
                        found.append(f"{where}:{node.lineno}: {match.group(1)}")
    assert not found
