"""Keys that match text across sources and the model's name for it: folded titles and author names, conference
series ids and their display names, synthetic ids, and the titles that only hold a paper's place."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

# Display names of conference series whose form is not plain upper case, and ids that
# name the same series (the paperlists project still files NeurIPS under `nips`).
SERIES_NAMES = {
    "neurips": "NeurIPS",
    "corl": "CoRL",
    "automl": "AutoML",
    "siggraphasia": "SIGGRAPH Asia",
    "colm": "COLM",
    "tmlr": "TMLR",
    "mlsys": "MLSys",
    "recsys": "RecSys",
    "interspeech": "Interspeech",
    "humanoids": "Humanoids",
    "www": "The Web Conference",
    "3dv": "3DV",
    "l4dc": "L4DC",
    "acmmm": "ACM MM",
}
SERIES_ALIASES = {"nips": "neurips", "thewebconf": "www", "webconf": "www", "thewebconference": "www"}


def series_key(text: str) -> str:
    """The canonical id of a conference series: lower-case letters and digits, aliases resolved."""
    key = re.sub(r"[^a-z0-9]", "", text.lower())
    return SERIES_ALIASES.get(key, key)


def display_series(key: str) -> str:
    return SERIES_NAMES.get(key, key.upper())


_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_NON_WORD = re.compile(r"[\W_]+")  # punctuation and spaces of any script
# Accents on Latin letters only: й, ё and the kana voicing marks are letters of their own.
_LATIN_ACCENT = re.compile(r"([\u0000-\u024f\u1e00-\u1eff])[\u0300-\u036f]+")


def fold(text: str) -> str:
    """Lower-case, strip accents and punctuation, collapse spaces: a key for matching.
    Letters of every script stay ("生成模型", "модель", "デル"); full-width forms become ASCII."""
    if text.isascii():
        return " ".join(_NON_ALNUM.sub(" ", text.lower()).split())
    bare = _LATIN_ACCENT.sub(r"\1", unicodedata.normalize("NFKD", text))
    return " ".join(_NON_WORD.sub(" ", unicodedata.normalize("NFC", bare).lower()).split())


def title_key(title: str) -> str:
    """Normalized title: records of one venue with the same key are the same paper."""
    return fold(title)


# Titles that stand in for a paper rather than name one (a withdrawn submission's "withdraw", a template's "title"),
# compared case- and punctuation-blind; docs/ingest.md lists them. Such papers are stored (`show ID` finds them) but
# kept out of search, themes, rankings and reports, and counted apart in statistics.
PLACEHOLDER_TITLES = (
    "withdraw",
    "withdrawn",
    "withdrawn paper",
    "paper withdrawn",
    "withdrawn submission",
    "submission withdrawn",
    "title",
    "untitled",
    "untitled paper",
    "untitled submission",
    "no title",
    "blank",  # ICLR 2021's paperlists file: "Blank", "BLANK" where OpenReview has the submission's title
    "blank title",
    "placeholder",
    "n/a",
    "na",
    "none",
    "null",
    "tbd",
    "tba",
    "to be announced",
    "to be determined",
    "deleted",
    "deleted submission",
    "removed",
    "removed submission",
)
_PLACEHOLDER_KEYS = frozenset(fold(title) for title in PLACEHOLDER_TITLES)


# Affiliations that only hold an institution's place (CoRL 2023's "Unknown Institution"), compared as titles are.
PLACEHOLDER_PLACES = (
    "unknown",
    "unknown institution",
    "unknown university",  # NeurIPS 2018's
    "unknown affiliation",
    "no affiliation",
    "not available",
)
_PLACE_KEYS = frozenset(fold(place) for place in (*PLACEHOLDER_TITLES, *PLACEHOLDER_PLACES))


def is_placeholder_place(place: str) -> bool:
    """Whether an affiliation names no institution: a placeholder, or no letter or digit at all."""
    key = fold(place)
    return not key or key in _PLACE_KEYS


def named_places(places: Iterable[str | None]) -> list[str]:
    """The places that name an institution, stripped, placeholders and blanks left out, in their order."""
    return [place.strip() for place in places if place and not is_placeholder_place(place)]


@lru_cache(maxsize=1 << 16)
def is_placeholder_title(title: str) -> bool:
    """Whether a title only holds a paper's place: one of PLACEHOLDER_TITLES, or no letter or digit at all
    (remembered: every listing of papers asks it of each)."""
    key = title_key(title)
    return not key or key in _PLACEHOLDER_KEYS


# Latin letters Unicode does not decompose, as people type them without the stroke ("Søgaard", "Chrupała").
UNDECOMPOSED = {"ø": "o", "ł": "l", "đ": "d", "ð": "d", "æ": "ae", "œ": "oe", "ß": "ss", "þ": "th", "ı": "i"}
_UNDECOMPOSED = str.maketrans(UNDECOMPOSED)


@lru_cache(maxsize=1 << 16)
def name_key(name: str) -> str:
    """Normalized author name, so "Song, Yang", "yang song", "Yáng Sōng" agree, and "Søgaard" "Sogaard"
    (remembered: names recur)."""
    if "," in name:
        last, _, first = name.partition(",")
        name = f"{first} {last}"
    return fold(name).translate(_UNDECOMPOSED)


def synthetic_id(venue: str, title: str) -> str:
    """A stable id for a record whose source gives none, derived from venue and title."""
    digest = hashlib.sha1(f"{venue}\n{title_key(title)}".encode()).hexdigest()
    return f"t-{digest[:12]}"
