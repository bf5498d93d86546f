"""Path parameters that hold any text, `/` included: names, ids and venues come from data, and a link encodes
each (`/author/AC%2FDC`). Servers decode the path before routing, so an encoded `/` would end the segment.

`routed_path` decodes the raw path but keeps `%2F` and `%25` (and a stray `%`) encoded, so that routes match on
the segments the link meant; a route declares a parameter from data as `{name:text}` (one segment) or
`{paper_id:textpath}` (the rest of the path), whose value is the decoded text:

    @router.get("/author/{name:text}")  # /author/AC%2FDC → name "AC/DC"
"""

from __future__ import annotations

import re
from urllib.parse import unquote_to_bytes

from starlette.convertors import Convertor, register_url_convertor
from starlette.types import Scope

KEPT = re.compile(rb"(%2[Ff]|%25|%(?![0-9A-Fa-f]{2}))")  # encoded `/` and `%`, and a `%` that escapes nothing
KEPT_FORM = {b"%2F": "%2F", b"%2f": "%2F", b"%25": "%25", b"%": "%25"}
ENCODED = re.compile(r"%2F|%25")


def routed_path(scope: Scope) -> str:
    """The request's path decoded, but for `/` and `%` kept encoded as `%2F` and `%25` (the path unchanged when
    its raw form holds no escape)."""
    raw: bytes | None = scope.get("raw_path")
    if not raw or b"%" not in raw:
        return str(scope["path"])
    pieces = KEPT.split(raw)
    return "".join(
        KEPT_FORM[p] if i % 2 else unquote_to_bytes(p).decode("utf-8", "replace") for i, p in enumerate(pieces)
    )


def _decoded(value: str) -> str:
    """A parameter's text: the two escapes `routed_path` keeps, decoded."""
    return ENCODED.sub(lambda m: "/" if m.group() == "%2F" else "%", value)


class TextConvertor(Convertor[str]):
    """One path segment of any text (an encoded `/` included)."""

    regex = "[^/]+"

    def convert(self, value: str) -> str:
        return _decoded(value)

    def to_string(self, value: str) -> str:
        return value.replace("%", "%25").replace("/", "%2F")


class TextPathConvertor(TextConvertor):
    """The rest of the path, `/` and encoded `/` alike (ids such as DOIs hold slashes)."""

    regex = ".*"

    def to_string(self, value: str) -> str:
        return value.replace("%", "%25")


register_url_convertor("text", TextConvertor())
register_url_convertor("textpath", TextPathConvertor())
