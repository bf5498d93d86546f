"""Text normalisation for keyword search: fold, split, drop stop words, stem (Snowball English)."""

from __future__ import annotations

import re
from functools import lru_cache

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
