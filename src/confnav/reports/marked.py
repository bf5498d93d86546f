"""A report's text read back into the form its templates wrote: each marked fact as {key}, each citation as
[[cite:ID]], tags, comments and Markdown escapes dropped, entities decoded. Claims about themes and the ranking
are read from this one view, the same for Markdown and HTML; each character keeps its place in the page, so a
failure still names its line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape

from confnav.reports.shown import ID

# A fact as a report marks it, with its key: how verify finds what to check.
MD_FACT = re.compile(r"\*\*([^*]*)\*\*<!-- fact:([\w.\-]+) -->")
HTML_FACT = re.compile(r'<strong data-fact="([\w.\-]+)">([^<]*)</strong>')
# A `;` that ends a clause, not the end of an HTML character reference ("&quot; proposes", "&amp; more").
CLAUSE_SEMICOLON = r"(?<!&quot)(?<!&amp)(?<!&#x27)(?<!&#39)(?<!&lt)(?<!&gt);"
_BLOCK = re.compile(
    r"</?(?:p|section|h[1-6]|li|ul|ol|div|br|table|tr|td|th|header|footer|main|nav|details|summary)\b", re.I
)

_CITATION = (
    rf"(?:\[\[[^\]\s]+\]\](?:\([^)\s]*\))?|\[[^\]\s]+\])\[\^(?P<md_cite>{ID})\]"
    rf'|<span class="cite[^"]*" data-paper="(?P<html_cite>{ID})".*?</span></span>'
)
_PIECE = re.compile(
    rf"(?P<md_fact>{MD_FACT.pattern})|(?P<html_fact>{HTML_FACT.pattern})|{_CITATION}"
    r"|(?P<drop><!--.*?-->|<[^>]*>)|\\(?P<escaped>[!-/:-@\[-`{-~])|(?P<entity>&#?\w+;)",
    re.S,
)


@dataclass
class Marked:
    """The template view of a page (`text`), and for each of its characters the position in the page it came
    from (`where`)."""

    text: str
    where: list[int] = field(default_factory=list)

    def at(self, index: int) -> int:
        """The page position of a character of the view (the page's end past the view's)."""
        return self.where[index] if index < len(self.where) else (self.where[-1] if self.where else 0)


def marked(page_text: str, html: bool) -> Marked:
    """The template view of a report page (Markdown or HTML)."""
    parts: list[str] = []
    where: list[int] = []
    done = 0

    def put(text: str, at: int) -> None:
        parts.append(text)
        where.extend([at] * len(text))

    for match in _PIECE.finditer(page_text):
        for i in range(done, match.start()):
            put(page_text[i], i)
        done = match.end()
        groups = match.groupdict()
        if groups["md_fact"] and not html:
            put("{" + match.group(match.re.groupindex["md_fact"] + 2) + "}", match.start())
        elif groups["html_fact"] and html:
            put("{" + match.group(match.re.groupindex["html_fact"] + 1) + "}", match.start())
        elif cited := groups["md_cite"] or groups["html_cite"]:
            put(f"[[cite:{cited}]]", match.start())
        elif groups["escaped"] and not html:
            put(groups["escaped"], match.start())
        elif groups["entity"] and html:
            put(unescape(groups["entity"]), match.start())
        elif groups["drop"] is not None:
            put("\n" if _BLOCK.match(groups["drop"]) else "", match.start())
        else:
            put(match.group(0), match.start())
    for i in range(done, len(page_text)):
        put(page_text[i], i)
    return Marked("".join(parts), where)
