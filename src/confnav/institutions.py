"""Institution names as every statistic counts them: one documented table of spellings → one name.

The first pattern that matches (case-insensitive) names the institution; anything
else keeps its own text with duplicated parts removed ("X, X" → "X"). Statistics,
institution pages, `ask` and `experts` all name institutions through it, so one
institution has one name wherever it is shown.
"""

from __future__ import annotations

import re
from functools import lru_cache

from confnav.model import fold

INSTITUTIONS: list[tuple[str, str]] = [
    (r"deepmind", "DeepMind"),
    (r"\bgoogle\b", "Google"),
    (r"facebook|\bmeta\b|\bfair\b", "Meta"),
    (r"microsoft", "Microsoft"),
    (r"massachusetts institute of technology|\bmit\b", "MIT"),
    (r"carnegie mellon|\bcmu\b", "Carnegie Mellon University"),
    (r"stanford", "Stanford University"),
    (r"berkeley", "UC Berkeley"),
    (r"los angeles|\bucla\b", "UCLA"),
    (r"san diego|\bucsd\b", "UC San Diego"),
    (r"tsinghua", "Tsinghua University"),
    (r"peking university", "Peking University"),
    (
        r"\bmila\b|montreal institute for learning algorithms|universit[ée] de montr[ée]al|university of montreal",
        "Mila / Université de Montréal",
    ),
    (r"university of toronto|vector institute", "University of Toronto / Vector Institute"),
    (r"university of oxford|\boxford\b", "University of Oxford"),
    (r"university of cambridge", "University of Cambridge"),
    (r"eth z[uü]rich|swiss federal institute of technology z", "ETH Zurich"),
    (r"\bepfl\b|polytechnique f[ée]d[ée]rale de lausanne|swiss federal institute of technology lausanne", "EPFL"),
    (r"\bibm\b", "IBM"),
    (r"nvidia", "NVIDIA"),
    (r"amazon", "Amazon"),
    (r"openai", "OpenAI"),
    (r"alibaba", "Alibaba"),
    (r"baidu", "Baidu"),
    (r"tencent", "Tencent"),
    (r"huawei", "Huawei"),
    (r"samsung", "Samsung"),
    (r"princeton", "Princeton University"),
    (r"\bkaist\b|korea advanced institute of science", "KAIST"),
    (r"national university of singapore", "National University of Singapore"),
    (r"new york university|\bnyu\b", "New York University"),
    (r"university of washington", "University of Washington"),
    (r"harvard", "Harvard University"),
    (r"cornell", "Cornell University"),
    (r"university of illinois|\buiuc\b", "UIUC"),
    (r"georgia institute of technology|georgia tech", "Georgia Tech"),
    (r"university of michigan", "University of Michigan"),
    (r"university of texas at austin|\but austin\b", "UT Austin"),
    (r"shanghai jiao ?tong", "Shanghai Jiao Tong University"),
    (r"zhejiang university", "Zhejiang University"),
    (r"max planck|max-planck", "Max Planck Institutes"),
    (r"university college london|\bucl\b", "University College London"),
    (r"columbia university", "Columbia University"),
    (r"university of tokyo", "University of Tokyo"),
    (r"seoul national university", "Seoul National University"),
    (r"technion", "Technion"),
    (r"chinese academy of sciences", "Chinese Academy of Sciences"),
]
_COMPILED = [(re.compile(pattern, re.I), name) for pattern, name in INSTITUTIONS]


@lru_cache(maxsize=1 << 16)  # affiliations repeat: each distinct text is matched once
def normalize_institution(text: str) -> str:
    """The counted name of an affiliation string."""
    for pattern, name in _COMPILED:
        if pattern.search(text):
            return name
    parts = list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    return ", ".join(parts)


def listed_institution(text: str) -> bool:
    """Whether the table above names this text's institution by whole words ("Google Research", not
    "Meta-learning"), rather than the text being kept as its own name."""
    return _table_match(text) is not None


def whole_institution(text: str) -> bool:
    """Whether the table above names this text's institution by the whole text ("Stanford", "DeepMind")."""
    return (found := _table_match(text)) is not None and found.group() == text.strip()


def _table_match(text: str) -> re.Match[str] | None:
    """The table's first match in the text, if it stands as whole words."""
    for pattern, _ in _COMPILED:
        if found := pattern.search(text):
            before, after = text[found.start() - 1 : found.start()], text[found.end() : found.end() + 1]
            return None if before.strip() or after.strip() else found
    return None


@lru_cache(maxsize=1 << 16)
def institution_key(text: str) -> str:
    """The key pages and links match on: the counted name, folded (case, accents and punctuation aside)."""
    return fold(normalize_institution(text))
