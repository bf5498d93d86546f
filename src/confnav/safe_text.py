"""The rules that keep text from the data inert in what confnav writes: CSV cells, links, Markdown text, and the
markup check the verifier runs on a report. One place, so every writer and the verifier apply the same rules."""

from __future__ import annotations

import csv
import io
import re
from bisect import bisect_left
from collections.abc import Iterable
from html import unescape
from urllib.parse import quote, urlsplit

# --- Links -----------------------------------------------------------------------------------------------------

LINK_SCHEMES = ("http", "https")
# RFC 3986 reserved and unreserved characters that cannot end a Markdown link, an HTML attribute or a BibTeX
# field; everything else (quotes, parentheses, braces, <, >, backslash, ^, `, |, non-ASCII) is percent-encoded.
_LINK_KEEP = "/:?#[]@!$&*+,;=%-._~"
_SPACE_OR_CONTROL = re.compile(r"[\x00-\x20\x7f]")


def safe_link(url: str | None) -> str | None:
    """`url` when it is an absolute http(s) address with a host, percent-encoded where it could break out of the
    text around it; None for anything else (`javascript:`, `data:`, relative paths, blanks, spaces inside)."""
    text = (url or "").strip()
    if not text or _SPACE_OR_CONTROL.search(text):
        return None
    try:
        parts = urlsplit(text)
        host = parts.hostname
    except ValueError:  # e.g. a malformed IPv6 host
        return None
    if parts.scheme.lower() not in LINK_SCHEMES or not host:
        return None
    return quote(text, safe=_LINK_KEEP)


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def site_name(url: str) -> str:
    """The site a link leads to, as a link's text ("https://www.openreview.net/forum?id=x" → "openreview.net")."""
    return (urlsplit(url).hostname or "its own page").removeprefix("www.")


def _foreign_scheme(target: str, allow_png_data: bool = False) -> str | None:
    """The scheme of a link target as a browser would read it, when it is not http(s); None if it is fine."""
    decoded = _SPACE_OR_CONTROL.sub("", _MD_ESCAPE.sub(r"\1", unescape(target)))
    match = _SCHEME.match(decoded)
    if match is None or match.group(1).lower() in LINK_SCHEMES:
        return None
    if allow_png_data and decoded.lower().startswith("data:image/png;base64,"):
        return None
    return match.group(1).lower()


# --- CSV -------------------------------------------------------------------------------------------------------

# A spreadsheet runs a cell starting with one of these as a formula (OWASP "CSV Injection"); full-width forms too.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(value: object) -> str:
    """A cell a spreadsheet shows as text: one starting (after spaces) with =, +, -, @, tab or CR gets a leading
    `'`; a plain number such as -1.5 stays a number."""
    text = "" if value is None else str(value)
    if text.lstrip(" ").startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_text(header: list[str], rows: Iterable[Iterable[object]]) -> str:
    """A whole CSV file, every cell through csv_cell; every CSV confnav writes goes through here."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([csv_cell(h) for h in header])
    writer.writerows([csv_cell(cell) for cell in row] for row in rows)
    return buffer.getvalue()


# --- Markdown --------------------------------------------------------------------------------------------------

# A backslash before punctuation (or at the end, before confnav's own markup); brackets (links, images, footnote
# marks); backticks (code spans); `*` (emphasis running into confnav's **facts**); `|` (table cells); and `<`
# where it could open a tag, a comment or an autolink.
_MD_SPECIAL = re.compile(r"\\(?=[!-/:-@\[-`{-~]|\Z)|[\[\]`*|]|<(?=[A-Za-z/!?])")
# What turns the start of a line into a heading, quote, list, rule or fence.
_MD_BLOCK_START = re.compile(r"^(?:(\d{1,9})([.)])|([#>+_~-]))")
_NEWLINES = re.compile(r"[\r\n]+")


def md_text(text: str, *, line_start: bool = True) -> str:
    """Text from the data as literal Markdown on one line: no HTML, links, images or code from it, and (when
    it starts a line) no heading, quote or list. Plain words, `3 < 4` and `$x^2$` are left as they are."""
    flat = _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), _NEWLINES.sub(" ", text))
    if not line_start:
        return flat
    return _MD_BLOCK_START.sub(
        lambda m: f"{m.group(1)}\\{m.group(2)}" if m.group(1) else "\\" + m.group(3), flat.lstrip()
    )


# --- Checking a report's markup (the verifier) -----------------------------------------------------------------

_OUR_COMMENT = re.compile(
    r"<!-- (?:confnav:report kind=\w+ venue=\w+(?: ranker=[\w.:\-]+)?|fact:[\w.\-]+|theme:[\w.\-]+|table:[\w\-]+) -->"
)
_MD_TAG = re.compile(r"<[A-Za-z/!?][^\s<>]{0,30}>?")
_MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]*)")
_MD_DEFINITION = re.compile(r"^ {0,3}\[(?!\^)[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
# The HTML confnav's reports are made of; anything else (script, iframe, svg, event handlers …) was put there.
HTML_TAGS = frozenset(
    (
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "header",
        "nav",
        "main",
        "section",
        "h1",
        "h2",
        "h3",
        "p",
        "ul",
        "ol",
        "li",
        "strong",
        "span",
        "a",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "div",
        "figure",
        "img",
        "figcaption",
        "br",
        "code",
    )
)
HTML_ATTRIBUTES = frozenset(
    (
        "class",
        "id",
        "href",
        "src",
        "alt",
        "lang",
        "charset",
        "name",
        "content",
        "role",
        "tabindex",
        "aria-label",
    )
)
_HTML_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9\-]*)")
_HTML_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9\-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
_HTML_ATTRIBUTE = re.compile(r"([^\s\"'>/=]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'=<>`]+)))?")


def _escaped(line: str, index: int) -> bool:
    """Whether the character at `index` follows an odd number of backslashes (a Markdown escape)."""
    run = len(line[:index]) - len(line[:index].rstrip("\\"))
    return run % 2 == 1


def unsafe_markup(text: str, html: bool) -> list[str]:
    """What in a report's text is not confnav's own safe markup: raw HTML tags and links to other schemes than
    http(s), each named with its line."""
    return list(dict.fromkeys(_unsafe_html(text) if html else _unsafe_markdown(text)))  # each finding once


def _unsafe_markdown(text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        bare = _OUR_COMMENT.sub(lambda m: " " * len(m.group(0)), line)
        for match in _MD_TAG.finditer(bare):
            if not _escaped(bare, match.start()):
                found.append(f"line {number}: raw HTML or autolink {match.group(0)!r}")
        for match in _MD_LINK.finditer(bare):
            scheme = _foreign_scheme(match.group(1))
            if scheme and not _escaped(bare, match.start()):
                found.append(f"line {number}: a link to a {scheme}: address (only http and https are allowed)")
        if (definition := _MD_DEFINITION.match(bare)) and (scheme := _foreign_scheme(definition.group(1))):
            found.append(f"line {number}: a link to a {scheme}: address (only http and https are allowed)")
    return found


def _unsafe_html(text: str) -> list[str]:
    found = []
    ends = [m.start() for m in re.finditer("\n", text)]
    for match in _HTML_NAME.finditer(text):  # every tag name, even of a tag left unclosed
        if (tag := match.group(1).lower()) not in HTML_TAGS:
            number = bisect_left(ends, match.start()) + 1
            found.append(f"line {number}: HTML tag <{tag}> that confnav does not write")
    for match in _HTML_TAG.finditer(text):
        number = bisect_left(ends, match.start()) + 1
        tag = match.group(1).lower()
        for attribute in _HTML_ATTRIBUTE.finditer(match.group(2)):
            name = attribute.group(1).lower()
            value = next((v for v in attribute.groups()[1:] if v is not None), "")
            if name not in HTML_ATTRIBUTES and not name.startswith("data-"):
                found.append(f"line {number}: attribute {name} on <{tag}> that confnav does not write")
            elif name in ("href", "src") and (scheme := _foreign_scheme(value, allow_png_data=tag == "img")):
                found.append(f"line {number}: a link to a {scheme}: address (only http and https are allowed)")
    return found
