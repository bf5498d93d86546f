"""`ask` says what the store cannot know instead of stating a number or papers it does not hold: counts of
decisions a venue's data lacks (CoRL 2023 and ACL 2022 list accepted papers only), on the real data."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

import pytest

from confnav.answer import DOES_NOT_SAY, ask, compose
from confnav.answer.check import verify_answer
from confnav.answer.places import institutions, places_in
from confnav.ingest import ingest
from confnav.search.engine import Searcher
from confnav.search.query import QueryError
from confnav.store import open_store
from tests.backends import Location, clone
from tests.conftest import DATA, ICLR2020


@pytest.fixture(scope="module")
def searcher(light_topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    """ICLR 2021 and 2020 (themes, TF-IDF vectors) with CoRL 2023 and ACL 2022 (accepted papers only) added."""
    location = clone(light_topics_db, tmp_path_factory.mktemp("known"), "known")
    with open_store(location) as store:
        ingest(store, [DATA / "paperlists" / "corl2023.json", DATA / "paperlists" / "acl2022.json"])
        yield Searcher(store)


def texts(answer: object) -> str:
    return " ".join(s.text for s in answer.sentences)  # type: ignore[attr-defined]


def test_rejections_of_an_accepted_only_venue_are_not_counted_as_zero(searcher: Searcher) -> None:
    answer = ask(searcher, "How many papers were rejected at CoRL 2023?")
    said = texts(answer)
    assert "0 of them" not in said and [c.decision for c in answer.counts] == [None]
    assert "199 papers of CoRL 2023" in said and "lists accepted papers only" in said
    assert f"{DOES_NOT_SAY} how many of them were rejected" in said
    assert verify_answer(searcher, answer) == []


def test_a_decision_the_venue_never_gave_is_named_with_its_decisions(searcher: Searcher) -> None:
    answer = ask(searcher, "How many orals at ACL 2022?")
    said = texts(answer)
    assert "0 of them" not in said and "gave no decision named 'oral'" in said
    assert "long, short and findings" in said
    listed = ask(searcher, "Which oral papers at ACL 2022 study dialogue state tracking?")
    assert listed.unanswered and "gave no decision named 'oral'" in listed.unanswered and not listed.papers


def test_a_decision_the_venue_gave_is_still_counted(searcher: Searcher) -> None:
    answer = ask(searcher, "How many orals at CoRL 2023 and ICLR 2021?")
    assert {(c.venue, c.decision, c.value) for c in answer.counts if c.decision} == {
        ("corl2023", "oral", 33),
        ("iclr2021", "oral", 53),
    }
    assert verify_answer(searcher, answer) == []


def cited(answer: object) -> set[str]:
    return {c for s in answer.sentences for c in s.cites}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "venue", "papers", "accepted"),
    [
        ("How many papers did Sergey Levine have accepted at ICLR 2021?", "iclr2021", 30, 16),
        ("How many papers did Chelsea Finn publish at CoRL 2023?", "corl2023", 9, 9),
    ],
)
def test_an_authors_name_is_read_as_the_person(
    searcher: Searcher, question: str, venue: str, papers: int, accepted: int
) -> None:
    """A name the store holds is counted as that author's papers (not searched as words), the papers cited."""
    answer = ask(searcher, question)
    assert [(c.venue, c.phrase, c.decision, c.value) for c in answer.counts] == [
        (venue, None, None, papers),
        (venue, None, "accepted", accepted),
    ]
    name = answer.counts[0].author
    assert name and f"{name} is an author of {papers} papers" in texts(answer) and "contain" not in texts(answer)
    assert cited(answer) and all(any(a.name == name for a in r.paper.authors) for r in answer.papers)
    assert verify_answer(searcher, answer) == []


def test_namesakes_are_told_apart_by_profile_id(searcher: Searcher) -> None:
    answer = ask(searcher, "How many papers did Bo Li publish at ICLR 2021?")
    people = {c.person for c in answer.counts}
    assert len(people) == 5 and all(p and p.startswith("profile:~Bo_Li") for p in people)
    assert "Bo Li (~Bo_Li19) is an author of 6 papers of ICLR 2021" in texts(answer)
    assert verify_answer(searcher, answer) == []


def test_who_has_the_most_papers_is_answered_from_the_stats_counts(searcher: Searcher) -> None:
    from confnav.reports.stats import author_table, counted_papers

    rows = author_table(counted_papers(searcher.store, "corl2023")).rows
    top = [str(r[0]) for r in rows if str(r[1]) == str(rows[0][1])]
    answer = ask(searcher, "who has the most accepted papers at CoRL 2023?")
    assert {c.author for c in answer.counts} == set(top) and len(top) == 4
    assert {c.value for c in answer.counts} == {9} and "9 each" in texts(answer)
    assert len(answer.parts[0].sentences[0].cites) == 4 and verify_answer(searcher, answer) == []


@pytest.mark.parametrize(
    ("question", "what"),
    [
        ("Which paper won the best paper award at ICLR 2021?", "which papers of ICLR 2021 won awards: its data names"),
        ("When and where was ICLR 2021 held?", "not when or where a conference took place"),
    ],
)
def test_what_the_store_holds_no_record_of_gets_no_papers(searcher: Searcher, question: str, what: str) -> None:
    answer = ask(searcher, question)
    assert answer.unanswered and answer.unanswered.startswith(DOES_NOT_SAY) and what in answer.unanswered
    assert not answer.papers and not answer.parts


def test_the_acceptance_rate_is_the_stats_reports(searcher: Searcher) -> None:
    from confnav.reports.facts import venue_facts

    answer = ask(searcher, "what was the acceptance rate of ICLR 2020?")
    rate = next(f.value for f in venue_facts(searcher.store, "iclr2020") if f.key == "venue.acceptance_rate")
    said = texts(answer)
    assert f"is {rate}" in said and "687 papers accepted of the 2,582 decided submissions" in said
    assert not answer.papers and verify_answer(searcher, answer) == []
    none = ask(searcher, "What is the acceptance rate of CoRL 2023?")
    assert "lists accepted papers only" in texts(none) and "%" not in texts(none) and not none.papers


def test_a_false_premise_about_a_named_paper_is_corrected(searcher: Searcher) -> None:
    answer = ask(searcher, "Why was Rethinking Attention with Performers rejected?")
    first = answer.sentences[0]
    assert first.cites == ["Ua6zuk0WRH"] and [r.paper.id for r in answer.papers] == ["Ua6zuk0WRH"]
    assert "records no such decision" in first.text and "was accepted (oral)" in first.text
    assert verify_answer(searcher, answer) == []
    plain = ask(searcher, "Was Rethinking Attention with Performers accepted?")
    assert plain.sentences[0].text.startswith("“Rethinking Attention with Performers” (ICLR 2021) was accepted")


def test_a_paper_named_by_its_name_gets_its_decision_and_ratings_and_counts_cite_what_they_count(
    searcher: Searcher,
) -> None:
    named = ask(searcher, "What decision did RoboCook get?")
    said = texts(named)
    assert "was accepted (oral); its ratings: 6, 6, 10, 10 (mean 8.00)" in said, said
    assert not verify_answer(searcher, named)
    rejected = ask(searcher, "How many papers were rejected at ICLR 2020?")
    assert "of them were rejected" in texts(rejected) and [c.decision for c in rejected.counts][-1] == "reject"
    counted = ask(searcher, "How many papers of CoRL 2023 are about imitation learning?")
    cited = {c for s in counted.sentences if s.source == "count" for c in s.cites}
    by_id = {r.paper.id: r.paper for r in counted.papers}
    assert cited and all(
        "imitation learning" in " ".join([by_id[c].title, by_id[c].abstract or "", *by_id[c].keywords]).lower()
        for c in cited
    )


def test_which_institution_has_the_most_papers_is_answered_from_the_statistics_or_said_unknown(
    searcher: Searcher,
) -> None:
    found = ask(searcher, "Which institution has the most papers?", venue="acl2022")
    said = texts(found)
    assert "The institution with the most accepted papers of ACL 2022 in the store: Microsoft, with 87" in said, said
    assert not verify_answer(searcher, found)
    found.facts = {k: ("86" if k.endswith("papers") else v) for k, v in found.facts.items()}
    assert verify_answer(searcher, found)  # a changed figure is caught
    iclr = texts(ask(searcher, "Which university has the most accepted papers?", venue="iclr2020"))
    assert "does not say" in iclr or "in the store:" in iclr


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How many papers were desk rejected at ICLR 2020?", "12 of them were desk-rejected"),
        ("How many talks were there at ICLR 2020?", "48 of them have the decision oral"),
        ("How many submissions did ICLR 2020 receive?", "The store holds 2,594 papers of ICLR 2020."),
    ],
)
def test_decision_words_and_question_words_are_read_as_a_researcher_means_them(
    searcher: Searcher, question: str, said: str
) -> None:
    answer = ask(searcher, question)
    assert said in texts(answer) and not verify_answer(searcher, answer)


def _raw_institution(path: str, pattern: str, unless: str) -> tuple[int, int]:
    """Papers of a paperlists file with an affiliation matching `pattern` (and not `unless`, another institution's
    name holding it), and how many of them were accepted: the truth read from the raw file."""
    records = json.loads((DATA / path).read_text())
    mine = [
        r
        for r in records
        if any(re.search(pattern, a, re.I) and not re.search(unless, a, re.I) for a in r["aff"].split(";"))
    ]
    return len(mine), sum(r["status"] not in ("Reject", "Withdraw", "Desk Reject") for r in mine)


def test_papers_from_an_institution_are_counted_by_their_affiliations(searcher: Searcher) -> None:
    # "Google DeepMind" is DeepMind; "Google and DeepMind", "Google/DeepMind" name both, and count for each
    papers, accepted = _raw_institution("iclr2021/paperlists-iclr2021.json", r"\bgoogle\b", r"google deepmind")
    answer = ask(searcher, "How many papers from Google are at ICLR 2021?")
    assert {(c.venue, c.decision, c.value, c.institution) for c in answer.counts} == {
        ("iclr2021", None, papers, "google"),
        ("iclr2021", "accepted", accepted, "google"),
    }
    said = texts(answer)
    assert f"{papers} papers of ICLR 2021 in the store list affiliations with Google" in said
    assert "contain “Google”" not in said and not verify_answer(searcher, answer)
    answer.counts[0].value += 1
    assert verify_answer(searcher, answer)  # a changed count is caught


def test_an_institution_in_lower_case_or_by_its_acronym_is_counted(searcher: Searcher) -> None:
    cmu, _ = _raw_institution("iclr2021/paperlists-iclr2021.json", r"carnegie mellon|\bcmu\b", "^$")
    both = ask(searcher, "MIT and CMU papers at ICLR 2021")
    assert ("carnegie mellon university", cmu) in {(c.institution, c.value) for c in both.counts if c.decision is None}
    assert all(s.cites for s in both.sentences if s.source == "count")  # the second count cites too, past the most
    assert not verify_answer(searcher, both)
    small = ask(searcher, "papers from google at ICLR 2021")
    assert [c.institution for c in small.counts if c.decision is None] == ["google"]
    topic = ask(searcher, "papers learning from amazon reviews at ICLR 2021")  # a topic, not the company
    assert not any(c.institution for c in topic.counts)


def test_an_institution_beside_a_topic_and_two_institutions_are_each_counted(searcher: Searcher) -> None:
    both = ask(searcher, "Google and DeepMind papers at ICLR 2021")
    assert [c.institution for c in both.counts if c.decision is None] == ["google", "deepmind"]
    topic = ask(searcher, "Which papers from DeepMind on reinforcement learning were accepted at ICLR 2021?")
    assert {c.phrase for c in topic.counts} == {"reinforcement learning"} and not verify_answer(searcher, topic)
    cited_papers = {r.paper.id: r.paper for r in topic.papers}
    assert all(
        any("deepmind" in place.lower() for place in cited_papers[c].places)
        for s in topic.sentences[:1]
        for c in s.cites
    )


def test_a_question_past_the_query_limit_is_refused_before_it_is_read(
    searcher: Searcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unread(*args: object) -> None:
        raise AssertionError("the question was read before its length was checked")

    monkeypatch.setattr(compose, "places_in", unread)
    with pytest.raises(QueryError, match="query is 100,000 characters; the limit is 4,000"):
        ask(searcher, "w " * 50_000)


def test_institutions_are_found_in_one_pass_over_a_long_text(searcher: Searcher) -> None:
    known = institutions(searcher.store)  # type: ignore[arg-type]
    start = time.perf_counter()
    assert places_in("w " * 8_000, lambda: known) == []  # once 8 s: the text before each span searched again
    assert time.perf_counter() - start < 2
    found = places_in("papers from google and by the Stanford " * 100, lambda: known)
    assert [p.key for p in found[:2]] == ["google", "stanford university"] and len(found) == 200


def test_an_institution_is_read_only_where_the_data_names_one(searcher: Searcher) -> None:
    few = ask(searcher, "Which papers from Google are at ICLR 2020?")  # its data names one paper's institution
    held = sum(1 for _ in json.loads(ICLR2020.read_text()))
    assert f"only 1 of its {held:,} papers lists any affiliation" in texts(few) and not verify_answer(searcher, few)
    anywhere = ask(searcher, "Which papers from Google study attention?")  # no venue named: ICLR 2020 is said too
    assert (
        f"which papers of ICLR 2020 come from Google: its data gives affiliations for only 1 of its {held:,}"
        in texts(anywhere)
    )
    assert not verify_answer(searcher, anywhere)
    corl = ask(searcher, "What are the papers from OpenAI at CoRL 2023?")
    assert all(c.institution == "openai" for c in corl.counts) or "does not say" in texts(corl)
    for topic in ("Which papers use BERT at ICLR 2021?", "How many papers study Meta Learning at ICLR 2021?"):
        assert not any(c.institution for c in ask(searcher, topic).counts), topic  # "Meta" of "Meta Learning"


def test_awards_are_answered_from_the_venues_data_where_it_names_them(searcher: Searcher) -> None:
    records = json.loads((DATA / "paperlists" / "acl2022.json").read_text())
    awarded = {r["id"] for r in records if r.get("award") is True}
    answer = ask(searcher, "Which papers won awards at ACL 2022?")
    assert [(c.venue, c.value, c.award) for c in answer.counts] == [("acl2022", len(awarded), True)]
    assert {r.paper.id for r in answer.papers} <= awarded and len(answer.papers) == min(len(awarded), 12)
    assert not verify_answer(searcher, answer)
    answer.counts[0].value -= 1
    assert verify_answer(searcher, answer)  # a changed count is caught
    both = texts(ask(searcher, "Which papers won a prize at CoRL 2023 or ACL 2022?"))
    assert "does not say which papers of CoRL 2023 won awards: its data names none" in both
    for kind in ("outstanding paper awards at ACL 2022", "best paper at ACL 2022"):  # award words are no topic
        assert [c.value for c in ask(searcher, kind).counts] == [len(awarded)], kind
    named = texts(ask(searcher, f"What decision did “{next(r['title'] for r in records if r['id'] in awarded)}” get?"))
    assert "its data marks it with an award" in named
