"""A PostgreSQL URL that cannot name a server is one line naming what is wrong, without its password."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from confnav.cli import cli

SECRET = "s3cret-pw"


@pytest.mark.parametrize(
    ("url", "said"),
    [
        (f"postgresql://me:{SECRET}@localhost:99999/papers", "the port '99999' is not a number from 1 to 65535"),
        (f"postgresql://me:{SECRET}@localhost:0/papers", "the port '0' is not a number from 1 to 65535"),
        (f"postgres://me:{SECRET}@localhost:-1/papers", "the port '-1' is not a number from 1 to 65535"),
        (f"postgresql://me:{SECRET}@db:5432,replica:70000/papers", "the port '70000' is not"),
        (f"postgresql://me:{SECRET}@[::1/papers", "an IPv6 address goes in brackets"),
        ("postgresql://me:s3cret/pw@localhost/papers", "must be percent-encoded"),
    ],
)
def test_a_postgres_url_that_names_no_server_is_one_line(url: str, said: str) -> None:
    for args in (["--db", url, "venues"], ["copy", url, "elsewhere.db"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1 and said in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output + result.stderr
        assert "s3cret" not in result.stderr and ":***@" in result.stderr
