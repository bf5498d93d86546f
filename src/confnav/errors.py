"""Errors a user can cause, each carrying the place (file, line, record, field) to fix."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


_ARGUMENT = re.compile("\ue000(\\w+)\ue002([^\ue001]*)\ue001")  # an argument named in a message, see `argument`
_SET = "\ue003"  # a flag's value: the argument given as True


def argument(name: str, value: str | bool | None = None) -> str:
    """An argument of a library call, named in an error's message by the caller's spelling: `venue`,
    `venue='iclr2021'`, `skip_bad=True` for the library, the flag (`--venue`, `--venue iclr2021`, `--skip-bad`)
    where the CLI prints the message."""
    shown = _SET if value is True else ("" if value is None or value is False else cut(value))
    return f"\ue000{name}\ue002{shown}\ue001"


def cut(text: str, width: int = 255) -> str:
    """Text as a message shows it unquoted (a path, a flag's value): whole up to `width` characters (a file name's
    longest), else its start and its length, as `excerpt` quotes a value (a user's argument can be megabytes)."""
    return text if len(text) <= width else f"{text[:40]}… ({len(text):,} characters)"


def spelled(text: str, flag: Callable[[str], str] | None = None) -> str:
    """A message with its arguments spelled as the library takes them, or, given `flag` (an argument's name to
    its option), as the CLI does."""

    def one(match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2)
        if flag is not None:
            return flag(name) if value in ("", _SET) else f"{flag(name)} {value}"
        return name if not value else f"{name}=True" if value == _SET else f"{name}={value!r}"

    return _ARGUMENT.sub(one, text)


class Said(str):
    """A warning or notice for the user whose arguments (see `argument`) read as the library spells them, as any
    string; `spelled(flag)` gives the CLI's spelling. Joined into other text it keeps the library's spelling."""

    marked: str

    def __new__(cls, marked: str) -> Said:
        made = super().__new__(cls, spelled(marked))
        made.marked = marked
        return made

    def spelled(self, flag: Callable[[str], str] | None = None) -> str:
        return spelled(self.marked, flag)


def spell(text: str, flag: Callable[[str], str]) -> str:
    """A message with its arguments spelled by `flag` (the CLI's flags) when it is a `Said`; other text as it is."""
    return text.spelled(flag) if isinstance(text, Said) else text


class ConfnavError(Exception):
    """Base of every error the CLI prints as one line instead of a traceback; arguments its message names (see
    `argument`) read as the library spells them, or as the CLI's flags (`spelled(flag)`)."""

    def marked(self) -> str:
        """The message with its arguments marked, as raised."""
        return super().__str__()

    def spelled(self, flag: Callable[[str], str] | None = None) -> str:
        return spelled(self.marked(), flag)

    def __str__(self) -> str:
        return self.spelled()


class InputError(ConfnavError):
    """A problem in an input file, located as precisely as the format allows."""

    def __init__(
        self,
        path: str | Path,
        message: str,
        *,
        line: int | None = None,
        record: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = str(path)
        self.message = message
        self.line = line
        self.record = record
        self.field = field
        super().__init__(self.marked())

    def marked(self) -> str:
        where = [self.path]
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.record is not None:
            where.append(f"record {self.record}")
        if self.field is not None:
            where.append(f"field '{self.field}'")
        return f"{', '.join(where)}: {self.message}"


def excerpt(value: object, width: int = 80) -> str:
    """A value as a message quotes it: text as a repr cut to `width` characters (a bad cell can be megabytes long),
    anything else by its JSON kind."""
    if isinstance(value, str):
        return repr(value) if len(value) <= width else f"{value[:width]!r}… ({len(value):,} characters)"
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int) and value.bit_length() > 64:  # str() of a huge int is slow, or refused
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "a list"
    return "an object" if isinstance(value, dict) else type(value).__name__


def whole_number(name: str, value: object, least: int = 1) -> int:
    """`value` when it is a whole number of at least `least`; else a ConfnavError naming the argument `name`
    (a library call's bad count is one line, never a silent slice such as `ranked[:-3]`)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ConfnavError(f"{name} {excerpt(value)}: give a whole number of at least {least}")
    return value


def one_of(name: str, value: object, known: Sequence[T]) -> T:
    """`value` when it is one of `known`; else a ConfnavError naming the argument `name` and the known values."""
    for choice in known:
        if isinstance(value, type(choice)) and not isinstance(value, bool) and value == choice:  # True is no 1
            return choice
    raise ConfnavError(f"{name} {excerpt(value)}: not one of {', '.join(str(choice) for choice in known)}")


def not_utf8(byte: int, column: int) -> str:
    """What a reader of a user's file says of a byte that is not UTF-8 (the line is the error's place)."""
    return f"not valid UTF-8 (byte 0x{byte:02x} at column {column}); save the file as UTF-8"


def utf8_text(path: str | Path, data: bytes) -> str:
    """A file's bytes as text (a leading byte-order mark dropped); bytes that are not UTF-8 are an InputError
    naming the line and column of the first, never the codec's own words."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        column = len(data[start : exc.start].decode("utf-8", errors="replace")) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(path, not_utf8(data[exc.start], column), line=line) from None


def read_utf8(path: Path) -> str:
    """The text of a user's UTF-8 file (a settings, weights or venue config file); see `utf8_text`."""
    return utf8_text(path, path.read_bytes())


class NotFoundError(ConfnavError):
    """An id, venue or other name the store does not hold."""


class VenueNameError(ConfnavError):
    """A venue name that cannot name one venue: a series the store holds more than once (`ICLR`), or a name with
    words left over or too long to be one; the name is at fault, not the store (a web request's 400, not a 404)."""


class ReadOnlyStoreError(ConfnavError):
    """A write to a store opened read-only (a shared server's `--read-only` mode)."""


class StoreBusyError(ConfnavError):
    """Another writer (an ingest, an index run) held the store longer than this one would wait."""

    def __init__(self, location: str, seconds: float) -> None:
        super().__init__(
            f"{location}: another write (an ingest, index or theme build) held the store for over {seconds:g} s;"
            " try again when it has finished"
        )


class StoreFullError(ConfnavError):
    """The disk holding the store filled up during a write, which was rolled back whole."""

    def __init__(self, location: str) -> None:
        super().__init__(
            f"{location}: the disk holding the store is full; nothing of this write was kept and the store is as it"
            " was: free some space and run it again"
        )


class MissingExtraError(ConfnavError):
    """An optional dependency is needed; the message says which extra to install."""

    def __init__(self, feature: str, extra: str) -> None:
        super().__init__(f"{feature} needs the '{extra}' extra: pip install 'confnav[{extra}]'")
