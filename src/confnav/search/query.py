"""The search query language: free words, "quoted phrases", and `author:`, `title:`, `keyword:` fields."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from confnav.errors import ConfnavError, argument
from confnav.model import fold, name_key
from confnav.search.text import follows, in_a_row, words

MAX_QUERY_CHARS = 4000
FIELDS = ("author", "title", "keyword")
_FIELD_ALIASES = {
    "author": "author",
    "authors": "author",
    "title": "title",
    "keyword": "keyword",
    "keywords": "keyword",
}
# Words a user would take for a field in any case (`Venue:`): an error saying which fields exist. Beyond them a
# `name:value` is read as a field when it is written as fields are (`_written_as_field`), else as text.
_FIELD_LIKE = {"venue", "conference", "year", "decision", "abstract", "rating", "track", "id", "tldr"}
# Inside a "phrase", \" stands for a quote and \\ for a backslash (any other backslash is itself).
_QUOTED = r'"(?P<quoted>(?:\\["\\]|[^"\\]|\\(?!["\\]))*)"'
_PART = re.compile(rf'(?:(?P<field>[A-Za-z]+):)?(?:{_QUOTED}|(?P<word>[^\s"]+))')
_PHRASE = re.compile(_QUOTED)
_ESCAPED = re.compile(r'\\(["\\])')


class QueryError(ConfnavError):
    """A query that cannot be understood; the message says how to write it."""


@dataclass
class Query:
    """A parsed query: text to score, and conditions every hit must meet."""

    raw: str
    free: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """What is scored by keyword and meaning: everything but author names."""
        return " ".join([*self.free, *self.phrases, *self.titles, *self.keywords])

    @property
    def narrows(self) -> bool:
        """True when hits must meet conditions beyond the scored text (so many best-scored rows may fail)."""
        return bool(self.phrases or self.titles or self.keywords or self.authors)

    def matches(self, title: str, abstract: str, keywords: list[str], authors: list[str]) -> bool:
        """True when a paper meets every phrase and field condition."""
        if self.phrases:  # each part is folded only when a condition needs it (this runs per hit)
            text = " ".join([title, abstract, *keywords])
            if not all(in_a_row(tuple(words(p)), text) for p in self.phrases):
                return False
        if self.titles and not all(in_a_row(tuple(words(t)), title) for t in self.titles):
            return False
        return self._fields_match(keywords, authors)

    def meets(self, text_words: str, title_words: str, keywords: list[str], authors: list[str]) -> bool:
        """`matches` for a paper whose text is split already: the `words` of its title, abstract and keywords
        (joined as `matches` joins them), and of its title, each joined by spaces."""
        if not all(follows(words(p), text_words) for p in self.phrases):
            return False
        if not all(follows(words(t), title_words) for t in self.titles):
            return False
        return self._fields_match(keywords, authors)

    def _fields_match(self, keywords: list[str], authors: list[str]) -> bool:
        """True when the paper's keywords and authors meet the `keyword:` and `author:` conditions."""
        if self.keywords:
            folded_keywords = [fold(k) for k in keywords]
            if any(not any(fold(k) in fk for fk in folded_keywords) for k in self.keywords):
                return False
        author_keys = [f" {name_key(a)} " for a in authors] if self.authors else []
        return all(any(_has_tokens(key, name_key(a)) for key in author_keys) for a in self.authors)


def phrase(text: str) -> str:
    """`text` as a quoted phrase the parser reads back whole (quotes and backslashes escaped): what a link
    built from data (a keyword, a name) puts after its `field:`."""
    return '"' + re.sub(r'(["\\])', r"\\\1", text) + '"'


def _written_as_field(name: str, value: str, quoted: bool, listed_only: bool = False) -> bool:
    """Whether `name:value` is written as a field is (`foo:bar`, `foo:"a b"`: a lowercase name of two letters or
    more, a word or phrase right after the colon), so an unknown one is an error, not words. Colons of text stay
    text: a capital in the name (titles' "SiamCAN:Simple", "N:M", ids such as arXiv:2101.00001), a value not
    starting with a letter (URLs' `https://`, `doi:10.1145/…`), a space after it ("Title: Subtitle"), `10:30`."""
    if name.lower() in _FIELD_LIKE:
        return True
    return not listed_only and len(name) > 1 and name.islower() and (quoted or value[:1].isalpha())


def _name_part(match: re.Match[str]) -> bool:
    word = match.group("word")
    return match.group("field") is None and bool(word) and word[0].isupper()


def _has_tokens(author_key: str, wanted: str) -> bool:
    return all(f" {token} " in author_key for token in wanted.split())


def check_length(raw: str) -> None:
    """QueryError for a query (or a question) past MAX_QUERY_CHARS, checked before any work on its words."""
    if len(raw) > MAX_QUERY_CHARS:
        raise QueryError(
            f"query is {len(raw):,} characters; the limit is {MAX_QUERY_CHARS:,}"
            f" (for a whole abstract, recommend by its {argument('text')})"
        )


def parse_query(raw: str, listed_fields_only: bool = False) -> Query:
    """Parse a query string; QueryError for empty, too long, unbalanced or unknown-field queries. With
    `listed_fields_only`, only the names in _FIELD_LIKE are unknown fields (as before any `name:word` was): a
    query kept from then (a watch) is read as it was accepted."""
    if not raw or not raw.strip():
        raise QueryError('empty query: type some words, a "phrase", or author:NAME, title:WORDS, keyword:WORDS')
    check_length(raw)
    if (stray := _PHRASE.sub(lambda m: " " * len(m.group()), raw).find('"')) >= 0:
        raise QueryError(f'unbalanced quote at column {stray + 1}: close the "phrase" (a quote inside one: \\")')
    query = Query(raw=raw)
    parts = list(_PART.finditer(raw))
    index = 0
    while index < len(parts):
        match = parts[index]
        index += 1
        name, value = match.group("field"), match.group("quoted")
        quoted = value is not None
        value = _ESCAPED.sub(r"\1", value) if quoted else match.group("word")
        if name is None:
            if not quoted and value.endswith(":") and value[:-1].lower() in _FIELD_ALIASES:
                wanted = "NAME" if _FIELD_ALIASES[value[:-1].lower()] == "author" else "WORDS"
                raise QueryError(
                    f"'{value}' has nothing after it: write {value[:-1].lower()}:{wanted}, no space after ':'"
                )
            (query.phrases if quoted else query.free).append(value)
            continue
        target = _FIELD_ALIASES.get(name.lower())
        if target is None and not _written_as_field(name, value, quoted, listed_fields_only):
            (query.phrases if quoted else query.free).append(f"{name}: {value}" if not quoted else value)
            if quoted:
                query.free.append(name)
            continue
        if target is None:
            words_of = phrase(f"{name}:{value}") if not quoted else f"{name} {phrase(value)}"
            raise QueryError(
                f"unknown field '{name}:' (fields: {', '.join(f + ':' for f in FIELDS)});"
                f" to search the words, quote them: {words_of}"
            )
        if target == "author" and not quoted:
            # author:Yang Song — a name runs on over the following capitalised words.
            while index < len(parts) and _name_part(parts[index]):
                value += " " + parts[index].group("word")
                index += 1
        if value.strip():
            getattr(query, target + "s").append(value.strip())
    if not words(query.text) and not query.authors:  # common words alone are searched by meaning
        raise QueryError("the query has no words to search for, only punctuation or symbols")
    return query
