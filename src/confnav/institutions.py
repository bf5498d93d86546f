"""Institution names as every statistic counts them: one documented table of spellings → one name.

An affiliation string is first split into the institutions it lists ("A+B", "A; B", "A / B", "A†B"); a part
names every table institution whose whole distinctive name it holds (never a city that shares a word: "Lawrence
Berkeley National Laboratory" is not UC Berkeley), else keeps its own text from its first organisation on, the
departments before it dropped ("Computer Science, University of Illinois Chicago" → "University of Illinois
Chicago"); a part naming only a department names no institution. Statistics, institution pages, `ask` and
`experts` all name institutions through it, so one institution has one name wherever it is shown. Each counted
name also has a kind (academic, industry, unknown), read from its words (`institution_kind`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from confnav.model import fold

_UC = r"(?:university of california|\buc)[\s,\-–]*(?:at\s+)?"  # "University of California, Berkeley", "UC Berkeley"
INSTITUTIONS: list[tuple[str, str]] = [
    (r"deepmind", "DeepMind"),
    (r"\bgoogle\b(?!\s+deepmind)", "Google"),
    (r"facebook|\bmeta\b(?!-)|\bfair\b", "Meta"),
    (r"microsoft", "Microsoft"),
    (r"massachusetts?s? institute of technology|\bmit\b", "MIT"),
    (r"carnegie mellon|\bcmu\b", "Carnegie Mellon University"),
    (r"stanford(?! law school\b)", "Stanford University"),
    (rf"{_UC}berkeley|berkeley ai research|\bbair\b|^\s*berkeley\s*$", "UC Berkeley"),
    (rf"{_UC}los angeles|\bucla\b", "UCLA"),
    (rf"{_UC}san diego|\bucsd\b", "UC San Diego"),
    (r"(?<!national )\btsinghua\b", "Tsinghua University"),
    (r"peking university", "Peking University"),
    (
        r"\bmila\b|montreal institute for learning algorithms|universit[ée] de montr[ée]al|university of montreal",
        "Mila / Université de Montréal",
    ),
    (r"university of toronto|toronto university|vector institute", "University of Toronto / Vector Institute"),
    (r"university of oxford|oxford university|^\s*oxford\s*$", "University of Oxford"),
    (r"university of cambridge|cambridge university", "University of Cambridge"),
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
    (r"princeton university|^\s*princeton\s*$", "Princeton University"),
    (r"\bkaist\b|korea advanced institute of science", "KAIST"),
    (r"national university of singapore", "National University of Singapore"),
    (r"new york university|\bnyu\b", "New York University"),
    (r"university of washington", "University of Washington"),
    (r"harvard", "Harvard University"),
    (r"cornell", "Cornell University"),
    (
        r"university of illinois(?![\s,\-–]*(?:at\s+)?(?:chicago|springfield))|\buiuc\b|illinois urbana",
        "UIUC",
    ),
    (r"georgia institute of technology|georgia tech\b(?! research)", "Georgia Tech"),
    (r"university of michigan", "University of Michigan"),
    (r"university of texas at austin|\but austin\b", "UT Austin"),
    (r"shanghai jiao ?tong", "Shanghai Jiao Tong University"),
    (r"zhejiang university(?! of)", "Zhejiang University"),
    (r"max planck|max-planck", "Max Planck Institutes"),
    (r"university college london|\bucl\b", "University College London"),
    (r"(?<!british )columbia university", "Columbia University"),
    (r"university of tokyo", "University of Tokyo"),
    (r"seoul national university", "Seoul National University"),
    (r"technion", "Technion"),
    (r"(?<!university of )(?<!university of the )chinese academy of sciences", "Chinese Academy of Sciences"),
]
_COMPILED = [(re.compile(pattern, re.I), name) for pattern, name in INSTITUTIONS]

# What separates the institutions one string lists: "+", ";", "|", " / ", and the footnote marks sources put
# between names ("DeepMind‡University of Oxford"). "&" and "and" are not: they join a department's subjects.
_LISTED = re.compile(r"\s*(?:[+;|†‡♦♠♭⇤∗*]|\s/\s|(?<=[a-z])/(?=[A-Z]))\s*")
# A part that is a unit of an institution rather than one ("Department of ...", "Dept. ...", "School of ...").
_UNIT = re.compile(
    r"^\s*(?:the\s+)?(?:\d\s*)?(?:departments?|dept\b|faculty|division|school of|college of|graduate school|"
    r"program|programme|group|lab\b|laboratory of|computer science|electrical|engineering|mathematics|statistics|"
    r"physics|linguistics|psychology|eecs|cs\b)|\b(?:department|dept\b|departmen\b)",
    re.I,
)
# A word that names an organisation ("University of Bristol", "Adobe Research", "FiveAI Ltd.").
_ORGANISATION = re.compile(
    r"univ|institut|college|[ée]cole|polytechn|academy|hospital|\binc\b|corp|\bltd\b|gmbh|company|\bai\b|"
    r"research|labs?\b|laborator|cent(?:er|re)",
    re.I,
)


@lru_cache(maxsize=1 << 16)  # affiliations repeat: each distinct text is read once
def institution_names(text: str) -> tuple[str, ...]:
    """The counted names of the institutions an affiliation string lists, in order, each once (none for a
    department alone: "Dept. of Computer Science" names no institution)."""
    names: dict[str, None] = {}
    for part in _LISTED.split(text):
        found = sorted((m.start(), name) for pattern, name in _COMPILED if (m := pattern.search(part)))
        if found:
            names.update(dict.fromkeys(name for _, name in found))
        elif own := _own_name(part):
            names[own] = None
    return tuple(names)


def _own_name(part: str) -> str:
    """A part the table does not name: its text from its first organisation on (the units before dropped),
    duplicated pieces once ("X, X" → "X"); nothing when every piece is a unit of an institution."""
    pieces = list(dict.fromkeys(piece.strip() for piece in part.split(",") if piece.strip()))
    if not pieces or all(_UNIT.search(piece) for piece in pieces):
        return ""
    start = next((i for i, piece in enumerate(pieces) if not _UNIT.search(piece) and _ORGANISATION.search(piece)), 0)
    while start < len(pieces) and _UNIT.search(pieces[start]):
        start += 1
    return ", ".join(pieces[start:])


def normalize_institution(text: str) -> str:
    """The counted name of an affiliation string's first institution ("" when it names none)."""
    return next(iter(institution_names(text)), "")


def listed_institution(text: str) -> bool:
    """Whether the table above names this text's institution by whole words ("Google Research", not
    "Meta-learning"), rather than the text being kept as its own name."""
    return _table_match(text) is not None


def whole_institution(text: str) -> bool:
    """Whether the table above names this text's institution by the whole text ("Stanford", "DeepMind")."""
    return (found := _table_match(text)) is not None and found.group().strip() == text.strip()


def _table_match(text: str) -> re.Match[str] | None:
    """The table's first match in the text, if it stands as whole words."""
    for pattern, _ in _COMPILED:
        if found := pattern.search(text):
            before, after = text[found.start() - 1 : found.start()], text[found.end() : found.end() + 1]
            return None if before.strip() or after.strip() else found
    return None


@lru_cache(maxsize=1 << 16)
def institution_keys(text: str) -> tuple[str, ...]:
    """The keys pages and links match on, one per institution the text lists: counted names, folded."""
    return tuple(key for name in institution_names(text) if (key := fold(name)))


def institution_key(text: str) -> str:
    """The key of the text's first institution ("" when it names none)."""
    return next(iter(institution_keys(text)), "")


# The kind of an institution, read from its counted name as any venue's data spells it: academic when the name
# holds a word of a university in any language or a well-known university's acronym, industry when it names a
# company (a legal form, or a well-known research company of the list below); unknown when it holds neither, or
# both ("Samsung Advanced Institute of Technology"): a kind is never guessed. Research institutes that are neither
# a university nor a company (Max Planck, INRIA, RIKEN, Allen Institute) are of unknown kind.
ACADEMIC, INDUSTRY, UNKNOWN = "academic", "industry", "unknown"
KINDS = (ACADEMIC, INDUSTRY, UNKNOWN)
_ACADEMIC = re.compile(
    r"\buniv(?!ersal)|\bhochschule|\bcollege\b|\bschool\b|[ée]cole\b|polytechn|politecnico|\btechnion\b|\btechnische\b"
    r"|institute of (?:(?:science|physics|engineering) and )?(?:technology|science)\b|technological institute"
    r"|instituto tecnol|institut (?:national )?polytechnique"
    # well-known universities by acronym, as the table above and the data spell them
    r"|\b(?:mit|eth|epfl|kaist|kaust|cmu|ucla|ucsd|uiuc|ucl|nyu|caltech|iisc|rwth|lmu|hkust|cuhk|ustc|nus)\b"
    r"|\b(?:uc|ut|tu|ku|iit)\s+[a-z]|\b(?:georgia|virginia|texas) tech\b|\ba&m\b",
    re.I,
)
# Well-known research companies, as their names are spelt in affiliations (a listed name must stand as whole
# words); a company not listed is industry only by a legal form in its name (Inc., Ltd., GmbH, ...).
RESEARCH_COMPANIES = (
    "Google", "DeepMind", "Deep Mind", "Meta", "Facebook", "Microsoft", "IBM", "International Business Machines",
    "NVIDIA", "Amazon", "OpenAI", "Apple", "Adobe", "Intel", "Qualcomm", "Salesforce", "Uber", "Twitter", "Netflix",
    "Spotify", "LinkedIn", "Yahoo", "Pinterest", "Waymo", "Tesla", "Alibaba", "Ant Group", "Ant Financial", "Baidu",
    "Tencent", "Huawei", "ByteDance", "SenseTime", "Megvii", "Kuaishou", "Kwai", "JD.com", "Didi", "Meituan",
    "iFlytek", "Xiaomi", "Horizon Robotics", "Samsung", "LG", "Naver", "Kakao", "Sony", "NEC", "Fujitsu", "Hitachi",
    "Toshiba", "Panasonic", "NTT", "Preferred Networks", "Yandex", "Bosch", "Siemens", "Volkswagen", "Criteo",
    "Ubisoft", "Element AI", "Borealis AI", "Petuum", "PROWLER.io", "Covariant", "Scale AI", "Hugging Face",
    "Cohere", "Anthropic", "Walmart", "Instacart", "Babylon Health", "VinAI", "Bell Labs", "Nokia", "Disney Research",
    "Mitsubishi Electric", "Toyota Research Institute", "Honda Research Institute", "X Development", "Two Sigma",
    "Citadel", "J.P. Morgan", "JPMorgan", "Morgan Stanley", "Bloomberg",
)  # fmt: skip
_INDUSTRY = re.compile(
    r"(?<![\w\-])(?:" + "|".join(re.escape(name) for name in RESEARCH_COMPANIES) + r")(?![\w\-])"
    r"|\b(?:inc|corp|corporation|corporate|ltd|limited|llc|gmbh|plc)\b",
    re.I,
)


@lru_cache(maxsize=1 << 16)
def institution_kind(name: str) -> str:
    """ACADEMIC, INDUSTRY or UNKNOWN for a counted institution name (see above): by its words, never a guess."""
    academic, industry = bool(_ACADEMIC.search(name)), bool(_INDUSTRY.search(name))
    return ACADEMIC if academic and not industry else INDUSTRY if industry and not academic else UNKNOWN
