"""Institution names on every real affiliation string: no string is named for an institution it does not name."""

from __future__ import annotations

import json
import re

import pytest

from confnav.institutions import INSTITUTIONS, institution_names
from tests.conftest import DATA

# The distinctive words a part of a string must hold to be counted for an institution whose name shares a word
# with another's (a city, a state, "Chinese Academy"); a part holding the other's name does not count.
EVIDENCE: dict[str, tuple[str, str]] = {
    "UC Berkeley": (r"university of california,? (at )?berkeley|uc berkeley|berkeley ai|^berkeley$", "^lawrence[^,]*$"),
    "UCLA": (r"university of california[\s,\-–]*los angeles|uc los angeles|ucla", "southern california"),
    "UIUC": (r"university of illinois|uiuc|urbana", r"illinois,? (at )?chicago"),
    "University of Oxford": (r"university of oxford|oxford university|^oxford$", "brookes"),
    "Princeton University": (r"princeton university|^princeton$", "advanced study"),
    "Zhejiang University": (r"zhejiang university", "zhejiang university of"),
    "Columbia University": (r"(?<!british )columbia university", "british columbia"),
    "Chinese Academy of Sciences": (r"chinese academy of sciences", "university of (the )?chinese academy"),
}


def _affiliations() -> set[str]:
    """Every distinct affiliation string of the real data: each author's `aff` and each normalised name."""
    found: set[str] = set()
    for path in sorted(DATA.rglob("*.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            for field in ("aff", "aff_unique_norm"):
                found.update(part.strip() for part in str(record.get(field) or "").split(";") if part.strip())
    return found


@pytest.fixture(scope="module")
def affiliations() -> set[str]:
    return _affiliations()


def test_no_string_is_named_for_an_institution_it_does_not_name(affiliations: set[str]) -> None:
    assert len(affiliations) > 5000
    table = dict((name, pattern) for pattern, name in INSTITUTIONS)
    wrong = []
    for text in affiliations:
        for name in institution_names(text):
            if name in EVIDENCE:
                evidence, other = EVIDENCE[name]
                parts = re.split(r"\s*[+;|/†‡]\s*", text)
                if not any(re.search(evidence, p, re.I) and not re.search(other, p, re.I) for p in parts):
                    wrong.append((text, name))
            elif name in table and not re.search(table[name], text, re.I):
                wrong.append((text, name))
    assert not wrong


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("University of Illinois at Chicago", ("University of Illinois at Chicago",)),
        ("Computer Science, University of Illinois Chicago", ("University of Illinois Chicago",)),
        ("University of Illinois at Urbana-Champaign", ("UIUC",)),
        (
            "University of Southern California, Los Angeles, USA + Amazon, Seattle, USA",
            ("University of Southern California, Los Angeles, USA", "Amazon"),
        ),
        ("Lawrence Berkeley National Laboratory", ("Lawrence Berkeley National Laboratory",)),
        (
            "Argo AI+Carnegie Mellon University+Georgia Institute of Technology",
            ("Argo AI", "Carnegie Mellon University", "Georgia Tech"),
        ),
        ("DeepMind‡University of Oxford", ("DeepMind", "University of Oxford")),
        ("Peking University, Tsinghua University", ("Peking University", "Tsinghua University")),
        ("Institue for Advanced Study, Princeton", ("Institue for Advanced Study, Princeton",)),
        ("Dept. of Computer Science", ()),
        ("School of Data and Computer Science, Sun Yat-sen University, China", ("Sun Yat-sen University, China",)),
    ],
)
def test_real_strings(text: str, names: tuple[str, ...], affiliations: set[str]) -> None:
    assert text in affiliations  # each is a real string of the data
    assert institution_names(text) == names


def test_departments_are_no_institution(affiliations: set[str]) -> None:
    named = {name for text in affiliations for name in institution_names(text)}
    assert not [n for n in named if re.match(r"(the )?(department|dept\b)", n, re.I)]
