"""Institution kinds (academic, industry, unknown) read from names as the real data spells them, checked against the
web domains the same data gives for them (NeurIPS 2018's `aff_unique_url`, ICLR 2021's authors' `aff_domain`), and
`ask`'s "which university / company has the most accepted papers" answered by kind on ICLR 2021 and NeurIPS 2018."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator

import pytest

from confnav.answer import ask
from confnav.answer.check import verify_answer
from confnav.ingest import ingest
from confnav.institutions import ACADEMIC, INDUSTRY, UNKNOWN, institution_kind, institution_names
from confnav.reports.stats import accepted_by_institution, counted_papers
from confnav.search.engine import Searcher
from confnav.store import SqlStore, open_store
from tests.backends import Location, clone
from tests.conftest import DATA
from tests.test_institution_names import _affiliations

# (file, name field, domain field): each name of a record aligned with its web address or e-mail domain
SOURCES = [
    ("paperlists/nips2018.json", "aff_unique_norm", "aff_unique_url"),
    ("iclr2021/paperlists-iclr2021.json", "aff", "aff_domain"),
]


def domain_kind(address: str) -> str | None:
    """The kind a web domain says: academic for .edu and .ac (any country), industry for .com; else None."""
    host = re.sub(r"^https?://(?:www\.)?", "", address.strip().lower()).split("/")[0]
    if re.search(r"(?:^|\.)(?:edu|ac)(?:\.[a-z]{2})?$|\.(?:edu|ac)\.", host):
        return ACADEMIC
    return INDUSTRY if re.search(r"\.com(?:\.[a-z]{2})?$", host) else None


def domain_truth(path: str, names: str, domains: str) -> dict[str, str]:
    """Each counted institution name of a file → the kind most of its domains say."""
    said: dict[str, Counter[str]] = defaultdict(Counter)
    for record in json.loads((DATA / path).read_text(encoding="utf-8")):
        listed = [n.strip() for n in str(record.get(names) or "").split(";")]
        addresses = [d.strip() for d in str(record.get(domains) or "").split(";")]
        if len(listed) != len(addresses):
            continue
        for text, address in zip(listed, addresses, strict=True):
            if kind := domain_kind(address):
                for name in institution_names(text):
                    said[name][kind] += 1
    return {name: kinds.most_common(1)[0][0] for name, kinds in said.items()}


@pytest.mark.parametrize(("path", "names", "domains"), SOURCES)
def test_kinds_never_contradict_the_domains_the_data_gives(path: str, names: str, domains: str) -> None:
    truth = domain_truth(path, names, domains)
    assert len(truth) > 300
    wrong = {n: (k, institution_kind(n)) for n, k in truth.items() if institution_kind(n) not in (k, UNKNOWN)}
    assert wrong == {}
    for kind, least in ((ACADEMIC, 0.85), (INDUSTRY, 0.55)):  # the rest stays unknown, never guessed
        of_kind = [n for n, k in truth.items() if k == kind]
        assert sum(institution_kind(n) == kind for n in of_kind) / len(of_kind) >= least, kind


@pytest.fixture(scope="module")
def spelt() -> set[str]:
    """Every counted institution name of every real affiliation string."""
    return {name for text in _affiliations() for name in institution_names(text)}


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Universität Freiburg", ACADEMIC),
        ("Sorbonne Université", ACADEMIC),
        ("Universitat Pompeu Fabra", ACADEMIC),
        ("Politecnico di Milano", ACADEMIC),
        ("École Normale Supérieure", ACADEMIC),
        ("ETH Zurich", ACADEMIC),
        ("KU Leuven", ACADEMIC),
        ("Toyota Technological Institute at Chicago", ACADEMIC),
        ("Google", INDUSTRY),
        ("International Business Machines", INDUSTRY),
        ("Kwai Inc.", INDUSTRY),
        ("Robert Bosch GmbH, Bosch", INDUSTRY),
        ("Toyota Research Institute (TRI)", INDUSTRY),
        ("Max Planck Institutes", UNKNOWN),
        ("INRIA", UNKNOWN),
        ("Allen Institute for AI", UNKNOWN),
        ("CUHK - SenseTime Joint Lab, The Chinese University of Hong Kong", UNKNOWN),  # both kinds: neither said
        ("Visionﬁnity Inc., ObjectEye Inc., Universal AI Inc.", INDUSTRY),  # "Universal" is no university
        ("142nd Military Police Company", UNKNOWN),
    ],
)
def test_real_names(name: str, kind: str, spelt: set[str]) -> None:
    assert name in spelt  # a counted name as the data spells it
    assert institution_kind(name) == kind


def top_of(store: SqlStore, venue: str, kind: str) -> tuple[list[str], int, int, int]:
    """The truth by hand: the institutions of `kind` with the most accepted papers, their count, and how many
    institutions with accepted papers there are and are of unknown kind."""
    tally = accepted_by_institution(counted_papers(store, venue))
    mine = {n: c for n, c in tally.items() if institution_kind(n) == kind}
    most = max(mine.values())
    unknown = sum(institution_kind(n) == UNKNOWN for n in tally)
    return sorted(n for n, c in mine.items() if c == most), most, len(tally), unknown


@pytest.fixture(scope="module")
def searcher(iclr2021_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    """ICLR 2021 and NeurIPS 2018, as ingested from the real files."""
    location = clone(iclr2021_db, tmp_path_factory.mktemp("kinds"), "kinds")
    with open_store(location) as store:
        ingest(store, [DATA / "paperlists" / "nips2018.json"])
        yield Searcher(store)


@pytest.mark.parametrize(
    ("question", "venue", "kind", "noun", "expected"),
    [
        ("Which university has the most accepted papers?", "iclr2021", ACADEMIC, "academic institution", "Stanford"),
        ("Which company has the most accepted papers?", "iclr2021", INDUSTRY, "company", "Google"),
        ("Which lab from industry has the most papers?", "iclr2021", INDUSTRY, "company", "Google"),
        ("Which universities have the most accepted papers?", "neurips2018", ACADEMIC, "academic institution", "MIT"),
        ("Which companies have the most papers?", "neurips2018", INDUSTRY, "company", "Google"),
    ],
)
def test_which_university_or_company_has_the_most_papers_is_answered_by_kind(
    searcher: Searcher, question: str, venue: str, kind: str, noun: str, expected: str
) -> None:
    answer = ask(searcher, question, venue=venue)
    said = answer.sentences[0].text
    top, most, counted, unknown = top_of(searcher.store, venue, kind)  # type: ignore[arg-type]
    assert top == [next(n for n in top if n.startswith(expected))]
    name = searcher.store.get_venue(venue).name
    assert said.startswith(f"The {noun} with the most accepted papers of {name} in the store: {top[0]}, with {most}")
    assert f"{unknown} of the {counted} institutions with accepted papers are of unknown kind" in said, said
    assert not verify_answer(searcher, answer)
    answer.facts = {k: ("1" if k.endswith("unknown") else v) for k, v in answer.facts.items()}
    assert verify_answer(searcher, answer)  # the unknown count is checked like the rest


def test_google_is_no_university(searcher: Searcher) -> None:
    anyone = ask(searcher, "Which institution has the most accepted papers?", venue="iclr2021").sentences[0].text
    assert "Google, with 125" in anyone  # among all institutions, a company has the most
    university = ask(searcher, "Which university has the most accepted papers?", venue="iclr2021")
    assert "Google" not in university.sentences[0].text
