"""Every record of every reader held to one set of bounds (confnav.limits) before it is merged or stored.

Text that is not text refuses the record: bytes that are not UTF-8, lone UTF-16
surrogates (a broken `\\ud800` escape), NUL characters. A title or id over its
limit refuses the record too (columns have slipped). Anything else over its
limit is cut, and a score or link out of range dropped, with a warning naming
file, line or record, and field; the record itself is kept.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from confnav import limits
from confnav.errors import InputError
from confnav.sources.base import RAW_BYTE, ReadItem, SourceRecord, bad_bytes
from confnav.sources.values import ENTITY, author_name

_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")
# A JSON escape of _NOT_TEXT (searched for by its literal start, fast even over megabytes).
_NOT_TEXT_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
# Control characters (other than tab and line breaks) and their JSON escapes: an escape sequence in a title would
# drive the terminal that prints it. They are taken out of every text, with a warning.
_CONTROL = re.compile("\x1b\\[[0-?]*[ -/]*[@-~]|[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # a whole CSI sequence
_CONTROL_ESCAPE = re.compile(r"\\u00(?:0[1-8bcefBCEF]|1[0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])")
_SHORTEST_AUTHOR_LIMIT = min(limit.chars for limit in limits.AUTHOR_LIMITS.values())
_TEXT_FIELDS = ("title", "abstract", "tldr", "decision", "track", "primary_area", "session", "award")
_LIST_FIELDS = ("keywords", "affiliations", "institutions", "countries")


class _Refused(Exception):
    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message


class RecordCheck:
    """Checks the records one file's reader yields; `text` is the file's text (bytes that were not UTF-8, if
    `has_raw_bytes`, decoded to U+DC80–U+DCFF), to locate such bytes."""

    def __init__(self, path: Path, text: str, has_raw_bytes: bool) -> None:
        self.path = path
        self.text = text
        self.has_raw_bytes = has_raw_bytes
        # Where a file holds none of these, no record of it can, and records are not looked through.
        self.may_hold_non_text = has_raw_bytes or "\x00" in text or _NOT_TEXT_ESCAPE.search(text) is not None
        self.may_hold_controls = _CONTROL.search(text) is not None or _CONTROL_ESCAPE.search(text) is not None
        self.may_hold_entities = ENTITY.search(text) is not None
        self._line_starts: list[int] | None = None

    def __call__(self, item: ReadItem) -> ReadItem:
        if isinstance(item, InputError):
            return item
        try:
            if self.may_hold_non_text:
                self._check_characters(item)
            if self.may_hold_controls:
                self._drop_controls(item)
            if self.may_hold_entities:
                _rewrite(item, ENTITY, lambda found: html.unescape(found.group()))  # `&amp;` as `&`
            self._check_id(item)
            self._check_texts(item)
            self._check_lists(item)
            self._check_authors(item)
            self._check_scores(item)
            self._check_links(item)
        except _Refused as refused:
            return item.error(self.path, refused.message, refused.field)
        except InputError as located:
            return located
        return item

    def _check_characters(self, record: SourceRecord) -> None:
        for field, text in _strings(record):
            if found := _NOT_TEXT.search(text):
                raise self._not_text(record, field, found.group())

    def _drop_controls(self, record: SourceRecord) -> None:
        """Take control characters out of the record's texts: silently the strays real lists hold (PDF extraction
        leaves `\x0f` before a formula), with one warning a field for a terminal escape (ESC)."""
        escaped = _rewrite(record, _CONTROL, "", lambda text: "\x1b" in text)
        for name in sorted(escaped):
            record.warn(self.path, "terminal escapes taken out", name)

    def _not_text(self, record: SourceRecord, field: str, char: str) -> _Refused | InputError:
        if char == "\x00":
            return _Refused(field, "contains a NUL character (0x00), which is not text; is this a binary file?")
        if self.has_raw_bytes and RAW_BYTE.match(char):
            if record.line is not None and (located := self._bad_byte_on_line(record.line)):
                return located  # line and column, as a file-level decoding error would give them
            return _Refused(field, f"not valid UTF-8 (byte 0x{ord(char) - 0xDC00:02x}); save the file as UTF-8")
        return _Refused(
            field, f"contains \\u{ord(char):04x}, half of a UTF-16 surrogate pair, which is not a character"
        )

    def _bad_byte_on_line(self, line: int) -> InputError | None:
        if self._line_starts is None:
            self._line_starts = [0, *(m.end() for m in re.finditer("\n", self.text))]
        if line > len(self._line_starts):
            return None
        end = self._line_starts[line] if line < len(self._line_starts) else len(self.text)
        return bad_bytes(self.path, self.text, self._line_starts[line - 1], end)

    def _check_id(self, record: SourceRecord) -> None:
        limit = limits.TEXT_LIMITS["id"].chars
        if record.id is not None and len(record.id) > limit:
            raise _Refused("id", f"id of {len(record.id):,} characters, over the {limit:,}-character limit")
        if record.derived_id is not None and len(record.derived_id) > limit:
            record.derived_id = None  # the paper gets a title-based id instead

    def _check_texts(self, record: SourceRecord) -> None:
        fields = record.fields
        for name in _TEXT_FIELDS:
            if isinstance(text := fields.get(name), str) and len(text) > (limit := limits.TEXT_LIMITS[name]).chars:
                size = f"{len(text):,} characters, over the {limit.chars:,}-character limit"
                if limit.refuse:
                    raise _Refused(name, f"{name} of {size}; is a column out of place?")
                record.warn(self.path, f"{name} of {size}, cut short", name)
                fields[name] = text[: limit.chars]

    def _check_lists(self, record: SourceRecord) -> None:
        for name in _LIST_FIELDS:
            if isinstance(items := record.fields.get(name), list):
                kept = self._counted(record, name, items)
                record.fields[name] = self._cut(record, name, kept, limits.TEXT_LIMITS[name].chars, name)

    def _check_authors(self, record: SourceRecord) -> None:
        """Authors within their limits, each name trimmed of spaces and footnote marks (of every format: a control
        character dropped before a name, `\x06 Daniel Crawford`, leaves a space the reader's trim came too early to
        see; an equal-contribution star, `Ryan Lowe*`, is no part of the name)."""
        if not isinstance(authors := record.fields.get("authors"), list):
            return
        authors = self._counted(record, "authors", authors)
        for author in authors:
            if isinstance(author, dict) and isinstance(name := author.get("name"), str):
                author["name"] = author_name(name)
        longest = max((len(v) for a in authors for v in a.values() if isinstance(v, str)), default=0)
        for key, limit in limits.AUTHOR_LIMITS.items() if longest > _SHORTEST_AUTHOR_LIMIT else ():
            if any(len(a.get(key) or "") > limit.chars for a in authors):
                values = self._cut(
                    record, "authors", [a.get(key) or "" for a in authors], limit.chars, f"author {key}s"
                )
                for author, value in zip(authors, values, strict=True):
                    if author.get(key):
                        author[key] = value
        record.fields["authors"] = authors

    def _check_scores(self, record: SourceRecord) -> None:
        """Ratings and confidences finite and within their ranges; a rating dropped takes its confidence along."""
        fields = record.fields
        ratings, confidences = fields.get("ratings"), fields.get("confidences")
        aligned = isinstance(ratings, list) and isinstance(confidences, list) and len(ratings) == len(confidences)
        for name in ("ratings", "confidences"):
            values = fields.get(name)
            if not isinstance(values, list):
                continue
            low, high = limits.SCORE_RANGES[name]
            bad = {i for i, v in enumerate(values) if not (math.isfinite(v) and low <= v <= high)}
            if bad:
                shown = ", ".join(f"{values[i]:g}" for i in sorted(bad)[:3]) + (", …" if len(bad) > 3 else "")
                record.warn(self.path, f"dropped {name} outside {low:g}–{high:g}: {shown}", name)
                fields[name] = [v for i, v in enumerate(values) if i not in bad]
                if name == "ratings" and aligned:
                    fields["confidences"] = [v for i, v in enumerate(fields["confidences"]) if i not in bad]
            fields[name] = self._counted(record, name, fields[name])

    def _check_links(self, record: SourceRecord) -> None:
        links = record.fields.get("links")
        if not isinstance(links, dict):
            return
        for name, url in list(links.items()):
            if len(url) > limits.MAX_URL_CHARS:
                record.warn(
                    self.path,
                    f"link of {len(url):,} characters, over the {limits.MAX_URL_CHARS:,}-character limit, dropped",
                    f"links.{name}",
                )
                del links[name]

    def _cut(self, record: SourceRecord, field: str, texts: list[str], limit: int, noun: str) -> list[str]:
        """Texts of a list each cut to `limit` characters, with one warning for all that were."""
        if not (long := sum(len(text) > limit for text in texts)):
            return texts
        record.warn(self.path, f"{long} {noun} over the {limit:,}-character limit cut short", field)
        return [text[:limit] for text in texts]

    def _counted(self, record: SourceRecord, name: str, items: list[Any]) -> list[Any]:
        """The first items of a list, up to its limit, with a warning when some are left out."""
        if len(items) <= (limit := limits.MAX_ITEMS[name]):
            return items
        record.warn(self.path, f"{len(items):,} {name}, over the limit of {limit:,}; the first {limit:,} kept", name)
        return items[:limit]


def _strings(record: SourceRecord) -> list[tuple[str, str]]:
    """Every text a record would store, with the field it is in."""
    found = [("id", record.id or ""), ("id", record.derived_id or "")]
    for name, value in record.fields.items():
        if isinstance(value, str):
            found.append((name, value))
        elif isinstance(value, list):
            for item in value:
                values = item.values() if isinstance(item, dict) else [item]
                found.extend((name, v) for v in values if isinstance(v, str))
        elif isinstance(value, dict):
            found.extend((name, v) for v in value.values() if isinstance(v, str))
    return found


def _rewrite(
    record: SourceRecord,
    pattern: re.Pattern[str],
    replacement: str | Callable[[re.Match[str]], str],
    noted: Callable[[str], bool] = lambda _: False,
) -> set[str]:
    """Replace `pattern` in every text of the record's fields (in lists and objects too); the fields where a
    rewritten text was `noted`."""
    fields: set[str] = set()

    def clean(name: str, value: Any) -> Any:
        if isinstance(value, str) and pattern.search(value):
            if noted(value):
                fields.add(name)
            return pattern.sub(replacement, value)
        if isinstance(value, list):
            return [clean(name, item) for item in value]
        if isinstance(value, dict):
            return {key: clean(name, item) for key, item in value.items()}
        return value

    record.fields = {name: clean(name, value) for name, value in record.fields.items()}
    return fields
