"""The CLI as scripts use it: every --json number is a JSON number, options before the verb, readable tables."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli

FORMATTED = re.compile(r"-?\d{1,3}(,\d{3})+(\.\d+)?|-?\d+(\.\d+)?%|-?\d+\.\d+|-?\d+")
VERBS = [
    ["venues"],
    ["decisions"],
    ["ls", "--limit", "5"],
    ["show", "Ua6zuk0WRH"],
    ["rank", "--top", "5"],
    ["tldr", "Ua6zuk0WRH"],
    ["stats"],
    ["search", "linear attention", "--limit", "3"],
    ["similar", "Ua6zuk0WRH", "--limit", "3"],
    ["recommend", "--like", "Ua6zuk0WRH", "--limit", "3"],
    ["topics"],
    ["topic", "t01"],
    ["trends", "--from", "iclr2020", "--to", "iclr2021"],
]


def strings_that_are_numbers(value: object, key: str = "") -> list[str]:
    """Every string value, outside ids, names and titles, that is really a formatted number."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings_that_are_numbers(v, str(k))]
    if isinstance(value, list):
        return [s for v in value for s in strings_that_are_numbers(v, key)]
    textual = key.endswith(("id", "ids", "title", "name", "label")) or key in ("keywords", "snippet", "tldr")
    return [f"{key}={value!r}"] if isinstance(value, str) and not textual and FORMATTED.fullmatch(value) else []


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: v[0])
def test_every_json_number_is_a_number(topics_db: Path, verb: list[str]) -> None:
    result = CliRunner().invoke(cli, [*verb, "--db", str(topics_db), "--json"])
    assert result.exit_code == 0, result.stderr
    assert strings_that_are_numbers(json.loads(result.stdout)) == []


def test_global_options_before_the_verb(topics_db: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(topics_db), "--json", "venues"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)[0]["papers"] > 0


def test_stats_text_has_plain_names_and_headers(topics_db: Path) -> None:
    result = CliRunner().invoke(cli, ["stats", "--db", str(topics_db), "--venue", "iclr2021"])
    assert result.exit_code == 0, result.stderr
    assert "venue.records" not in result.stdout and "Papers in the data: 3,014" in result.stdout
    assert re.search(r"Decision\s+Outcome\s+Papers\s+Share of decided", result.stdout)
