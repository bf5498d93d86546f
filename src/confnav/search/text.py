"""Text normalisation for keyword search: fold, split, drop stop words, stem (Snowball English)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import Stemmer

from confnav.model import fold

# Scripts written without spaces between words (kana, CJK ideographs, Thai, Lao, Khmer, Myanmar): a run
# of them is indexed as overlapping character pairs, so "生成模型" matches "生成" and "模型".
_UNSPACED = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
_TOKEN = re.compile(rf"[{_UNSPACED}]+|[^\W_{_UNSPACED}]+")
_UNSPACED_CHAR = re.compile(rf"[{_UNSPACED}]")
_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
# Function words plus the boilerplate of ML abstracts that carries no topic.
STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on
    once only or other our ours out over own same she should so some such than that the their theirs them
    then there these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours via using use used based propose proposed show shows
    paper approach method methods new novel results result
    """.split()  # noqa: SIM905
)
_stemmer = Stemmer.Stemmer("english")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    return _stemmer.stemWord(word)


def words(text: str) -> list[str]:
    """Folded words of a text, stop words kept (for phrases and snippets); unspaced scripts as character pairs."""
    if text.isascii():  # what fold() would leave of it, split, in one pass
        return _ASCII_TOKEN.findall(text.lower())
    folded = fold(text)
    if folded.isascii():
        return _ASCII_TOKEN.findall(folded)
    found: list[str] = []
    for token in _TOKEN.findall(folded):
        if len(token) > 1 and _UNSPACED_CHAR.match(token):
            found.extend(token[i : i + 2] for i in range(len(token) - 1))
        else:
            found.append(token)
    return found


@lru_cache(maxsize=4096)
def _in_a_row(wanted: tuple[str, ...]) -> re.Pattern[str] | None:
    """A pattern finding ASCII words one after another in lower-cased ASCII text exactly where `words` would
    (a word bounded by anything but a letter or digit); None when some word is not an ASCII word, or none is given."""
    if not wanted or not all(_ASCII_TOKEN.fullmatch(word) for word in wanted):
        return None
    first = wanted[0]  # the pattern starts with a word, which the search looks for quickly, then looks behind it
    return re.compile(f"{first}(?<![a-z0-9]{first})" + "".join(f"[^a-z0-9]+{w}" for w in wanted[1:]) + "(?![a-z0-9])")


def in_a_row(wanted: tuple[str, ...], text: str) -> bool:
    """Whether `wanted` (words of a phrase) occur one after another among the words of `text`: on ASCII text a
    search of its lower case, without splitting it into words (this runs for every paper a phrase could match)."""
    pattern = _in_a_row(wanted) if text.isascii() else None
    if pattern is not None:
        return pattern.search(text.lower()) is not None
    return follows(wanted, " ".join(words(text)))


def follows(wanted: tuple[str, ...] | list[str], split: str) -> bool:
    """Whether `wanted` occur one after another in `split`: the words of a text joined by spaces."""
    return f" {' '.join(wanted)} " in f" {split} "


TERM_WORDS = 200_000  # words whose term is remembered (as many as stems)
_terms: dict[str, str] = {}  # word → its index term ("" for a word left out)


def _term(word: str) -> str:
    kept = word not in STOPWORDS and (len(word) > 1 or word.isdigit() or not word.isascii())
    term = (stem(word) if word.isascii() else word) if kept else ""
    if len(_terms) < TERM_WORDS:
        _terms[word] = term
    return term


def terms(text: str) -> list[str]:
    """Index terms of a text: folded, stop words dropped, English words stemmed (other scripts kept as they are)."""
    found = words(text)
    known = list(map(_terms.get, found))
    if None in known:  # words met for the first time
        known = [_term(word) if term is None else term for word, term in zip(found, known, strict=True)]
    return [term for term in known if term]


@lru_cache(maxsize=100_000)
def token_terms(token: str) -> tuple[str, ...]:
    """The index terms inside one whitespace-separated token (cached: the same tokens recur across texts)."""
    return tuple(terms(token))


def _byte_table(kept: bytes = b"") -> bytes:
    """A byte translation leaving ASCII letters (lower-cased), digits, non-ASCII bytes and `kept` as they are and
    every other ASCII byte a space: split on spaces, an ASCII text's bytes give the words `words` finds."""
    table = bytearray(b" " * 128 + bytes(range(128, 256)))
    for byte in b"abcdefghijklmnopqrstuvwxyz0123456789" + kept:
        table[byte] = byte
    for byte in b"ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        table[byte] = byte + 32
    return bytes(table)


_WORD_BYTES = _byte_table()
_MARKED_BYTES = _byte_table(b"\x00")  # texts joined by NUL marks, each mark a word of its own
SEPARATOR = -2  # a text's end, among the columns of term_columns


def split_words(text: str) -> bytes:
    """The words of a text joined by spaces (`" ".join(words(text))`), as UTF-8: what phrases are checked on."""
    if text.isascii():
        return b" ".join(text.encode("ascii").translate(_WORD_BYTES).split())
    return _split_folded(text)


@lru_cache(maxsize=16_384)
def _split_folded(text: str) -> bytes:
    """`split_words` of a text that is not ASCII, kept for a while: an index build splits each text for its terms
    and for its phrase checks, and folding (Unicode normalisation) is the costly part of both."""
    return " ".join(words(text)).encode("utf-8", "surrogatepass")


class TermColumns(dict[bytes, int]):
    """A word's (UTF-8) column in a keyword vocabulary, its index term added on first sight (-1: not a term, as
    a stop word); a text's end is SEPARATOR."""

    def __init__(self, vocabulary: dict[str, int]) -> None:
        super().__init__({b"\x00": SEPARATOR})
        self.vocabulary = vocabulary

    def __missing__(self, word: bytes) -> int:
        text = word.decode("utf-8", "surrogatepass")
        term = _terms.get(text)
        term = _term(text) if term is None else term
        column = self.vocabulary.setdefault(term, len(self.vocabulary)) if term else -1
        self[word] = column
        return column


def term_columns(texts: Sequence[str], columns: TermColumns) -> tuple[np.ndarray, np.ndarray]:
    """The columns of each text's `terms`, all texts' one after another, and how many each text has: the texts
    are split at once (a byte translation and one split, no pattern per text), each distinct word looked up once."""
    parts = [t.encode("ascii") if t.isascii() else _split_folded(t) for t in texts]
    joined = b" \x00 ".join(parts)
    if joined.count(0) != max(len(parts) - 1, 0):  # a NUL in a text: a separator like any other there
        joined = b" \x00 ".join(part.replace(b"\x00", b" ") for part in parts)
    words_found = joined.translate(_MARKED_BYTES).split()
    found = np.fromiter(map(columns.__getitem__, words_found), dtype=np.int64, count=len(words_found))
    text_of = np.cumsum(found == SEPARATOR)
    kept = found >= 0
    return found[kept], np.bincount(text_of[kept], minlength=len(texts))
