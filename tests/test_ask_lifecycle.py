"""`ask` reads the verbs of a venue's life cycle (submit, review, accept, reject, withdraw, present) in any form,
and their negations, as the papers asked about, never as the topic; a count of 0 cites no papers; the mean rating
is the stats report's. Checked against the truth read from the raw ICLR 2021 files (CVPR 2019: accepted only)."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Iterator

import pytest

from confnav.answer import DOES_NOT_SAY, Answer, ask
from confnav.answer.check import verify_answer
from confnav.answer.model import Count, Part, Retrieved, Sentence
from confnav.answer.question import read_question
from confnav.ingest import ingest
from confnav.model import Venue
from confnav.search.engine import Searcher
from confnav.store import open_store
from tests.backends import Location, clone
from tests.conftest import DATA

RAW = json.loads((DATA / "iclr2021" / "paperlists-iclr2021.json").read_text())
STATUS = Counter(r["status"] for r in RAW)  # Oral, Spotlight, Poster, Reject, Withdraw, Desk Reject
ACCEPTED = [r for r in RAW if r["status"] in ("Oral", "Spotlight", "Poster")]
TRUTH = {
    None: len(RAW),  # 3,014 submissions
    "accepted": len(ACCEPTED),  # 860
    "not-accepted": len(RAW) - len(ACCEPTED),  # 2,154
    "reviewed": len(RAW) - STATUS["Desk Reject"],  # 2,997 entered review
    "withdrawn": STATUS["Withdraw"],  # 381
}


@pytest.fixture(scope="module")
def searcher(light_topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    """ICLR 2021 and 2020 (themes, TF-IDF vectors) with CVPR 2019 (accepted papers only) added."""
    location = clone(light_topics_db, tmp_path_factory.mktemp("lifecycle"), "lifecycle")
    with open_store(location) as store:
        ingest(store, [DATA / "paperlists" / "cvpr2019.json"])
        yield Searcher(store)


def texts(answer: Answer) -> str:
    return " ".join(s.text for s in answer.sentences)


@pytest.mark.parametrize(
    ("question", "decision"),
    [
        ("How many papers were submitted to ICLR 2021?", None),
        ("How many submissions did ICLR 2021 receive?", None),
        ("How many papers did ICLR 2021 accept?", "accepted"),
        ("How many papers does ICLR 2021 accept?", "accepted"),
        ("How many papers were presented at ICLR 2021?", "accepted"),
        ("How many papers were not accepted at ICLR 2021?", "not-accepted"),
        ("How many papers weren't accepted at ICLR 2021?", "not-accepted"),
        ("How many papers didn't get in at ICLR 2021?", "not-accepted"),
        ("How many ICLR 2021 submissions were never accepted?", "not-accepted"),
        ("How many papers were reviewed at ICLR 2021?", "reviewed"),
        ("How many submissions did ICLR 2021 review?", "reviewed"),
        ("How many papers were withdrawn from ICLR 2021?", "withdrawn"),
    ],
)
def test_a_life_cycle_verb_is_the_papers_asked_about(searcher: Searcher, question: str, decision: str | None) -> None:
    answer = ask(searcher, question)
    assert all(c.phrase is None for c in answer.counts), answer.counts  # no verb read as the topic
    shown = {c.decision: c.value for c in answer.counts}
    assert shown[None] == len(RAW) and shown[decision] == TRUTH[decision], (question, shown)
    assert f"{TRUTH[decision]:,}" in texts(answer)
    assert not answer.papers and not any(s.cites for s in answer.sentences)  # all papers: none cited as examples
    assert verify_answer(searcher, answer) == []


@pytest.mark.parametrize(
    "question",
    [
        "How many papers did Yoshua Bengio submit to ICLR 2021?",
        "How many papers has Yoshua Bengio submitted to ICLR 2021?",
        "How many submissions did Yoshua Bengio make to ICLR 2021?",
    ],
)
def test_a_persons_submissions_are_their_papers(searcher: Searcher, question: str) -> None:
    mine = [r for r in RAW if "Yoshua Bengio" in [a.strip() for a in r["author"].split(";")]]
    answer = ask(searcher, question)
    shown = {c.decision: c.value for c in answer.counts}
    assert shown == {None: len(mine), "accepted": len([r for r in mine if r in ACCEPTED])} == {None: 15, "accepted": 10}
    assert all(c.phrase is None for c in answer.counts)
    assert verify_answer(searcher, answer) == []


def test_submissions_of_an_accepted_only_venue_are_not_its_papers(searcher: Searcher) -> None:
    submitted = ask(searcher, "How many papers were submitted to CVPR 2019?")
    assert f"{DOES_NOT_SAY} how many papers were submitted to CVPR 2019" in texts(submitted)
    reviewed = ask(searcher, "How many papers were reviewed at CVPR 2019?")
    assert [c.decision for c in reviewed.counts] == [None]  # no count of reviewed papers: rejections are not listed
    assert f"{DOES_NOT_SAY} how many of them entered review" in texts(reviewed)


def test_a_negation_the_store_cannot_count_is_refused(searcher: Searcher) -> None:
    answer = ask(searcher, "How many papers were not rejected at ICLR 2021?")
    assert answer.unanswered and answer.unanswered.startswith(DOES_NOT_SAY) and not answer.counts


def test_a_count_of_zero_cites_no_papers(searcher: Searcher) -> None:
    """Papers relevant to the topic that do not hold its phrase are not shown beside a count of 0."""
    answer = ask(searcher, "How many papers on peer review were accepted at ICLR 2021?")
    assert answer.counts[0].phrase == "peer review" and answer.counts[0].value == 0
    assert not answer.papers and not any(s.cites for s in answer.sentences)
    assert not any("These papers" in s.text for s in answer.sentences)
    assert verify_answer(searcher, answer) == []
    paper = searcher.store.get_paper("Cn706AbJaKW")  # An Open Review of OpenReview
    sentence = Sentence("These papers fall mostly under “Bias”.", [paper.id], "paper")
    forged = Answer("q", ["iclr2021"], [Part(None, [sentence])], [Retrieved(paper, 1.0, 1.0, None, "", "")])
    forged.counts = [Count("iclr2021", "peer review", None, 0)]
    assert any("a count of 0" in f for f in verify_answer(searcher, forged))


def test_the_mean_rating_is_the_stats_reports(searcher: Searcher) -> None:
    means = [statistics.fmean(float(v) for v in r["rating"].split(";") if v.strip()) for r in ACCEPTED]
    answer = ask(searcher, "What is the mean rating of accepted papers at ICLR 2021?")
    said = texts(answer)
    assert f"{statistics.fmean(means):.2f}" in said and f"median {statistics.median(means):.2f}" in said, said
    assert "oral 7.56, spotlight 7.05, poster 6.36" in said and not answer.papers  # no paper on "mean field"
    assert verify_answer(searcher, answer) == []
    answer.facts = {k: ("6.40" if k.endswith(".mean") else v) for k, v in answer.facts.items()}
    assert verify_answer(searcher, answer)  # a changed figure is caught
    average = texts(ask(searcher, "What was the average reviewer score of ICLR 2021 orals?"))
    assert "7.56" in average and "that have the decision oral" in average
    assert DOES_NOT_SAY in texts(ask(searcher, "What is the mean rating at CVPR 2019?"))  # no ratings in its data


@pytest.mark.parametrize(
    "question",
    [
        "What is the average number of authors per paper at ICLR 2021?",
        "What is the mean rating of papers on graph neural networks at ICLR 2021?",
    ],
)
def test_a_statistic_ask_does_not_compute_points_to_stats(searcher: Searcher, question: str) -> None:
    answer = ask(searcher, question)
    assert answer.unanswered and "confnav stats --venue iclr2021" in answer.unanswered and not answer.papers


def test_mean_field_is_still_a_topic(searcher: Searcher) -> None:
    answer = ask(searcher, "Which papers study the mean field regime at ICLR 2021?")
    assert answer.unanswered is None and "KvyxFqZS_D" in {r.paper.id for r in answer.papers}


@pytest.mark.parametrize(
    ("question", "decision", "topic"),
    [
        ("How many papers on peer review were accepted at ICLR 2021?", "accepted", "peer review"),
        ("How many papers on reject option classification were submitted?", None, "reject option classification"),
        ("Which papers present a new method for graph matching?", None, "new method for graph matching"),
        ("How many papers on presentation attack detection?", None, "presentation attack detection"),
        ("How many papers on reviewer assignment were withdrawn?", "withdrawn", "reviewer assignment"),
        ("How many unaccepted papers on GANs at ICLR 2021?", "not-accepted", "GANs"),
        ("How many submitted papers were accepted as orals at ICLR 2021?", "oral", ""),
        ("How many papers did not make the cut at ICLR 2021?", "not-accepted", ""),
        ("learning to reject at ICLR 2021", None, "learning to reject"),
        ("papers on learning to defer and reject", None, "learning to defer and reject"),
        ("papers on withdrawal of consent in data", None, "withdrawal of consent in data"),
        ("papers that presented new benchmarks at ICLR 2021", None, "new benchmarks"),
        ("How many papers on new benchmarks were presented at ICLR 2021?", "accepted", "new benchmarks"),
        ("How many papers presented at ICLR 2021 study new benchmarks?", "accepted", "new benchmarks"),
        ("How many papers did ICLR 2021 accept?", "accepted", ""),
        ("papers about a survey of reviews", None, "survey of reviews"),
        ("is there a survey of peer reviews", None, "survey of peer reviews"),
        ("papers on an analysis of the reviews at ICLR 2021", None, "analysis of the reviews"),
        ("What share of submissions were accepted at ICLR 2021?", "accepted", ""),
        ("What fraction of the submissions were withdrawn?", "withdrawn", ""),
        ("How many papers out of the submissions were rejected?", "reject", ""),
        ("What is the number of reviewed papers at ICLR 2021?", "reviewed", ""),
        ("How many of the accepted papers study GANs?", "accepted", "GANs"),
        ("papers on the rate of convergence that were accepted", "accepted", "rate of convergence"),
    ],
)
def test_a_stage_word_inside_a_topic_stays_in_it(question: str, decision: str | None, topic: str) -> None:
    read = read_question(question, [Venue("iclr2021", "ICLR 2021", "iclr", 2021)], ["oral", "reject", "withdrawn"])
    assert (read.decision, read.topic) == (decision, topic)


def test_desk_rejects_mean_rating_gives_the_true_reason(searcher: Searcher) -> None:
    rated = [r["id"] for r in RAW if r["status"] == "Desk Reject" and str(r.get("rating") or "").strip(" ;")]
    assert rated == ["NHysmWivrHP"]  # ratings 3;4;4 in the raw file
    said = texts(ask(searcher, "mean rating of desk rejected papers at ICLR 2021"))
    assert "no ratings" not in said and "desk rejects) are counted in no mean rating" in said, said
    assert "ratings for 1 of them" in said


def test_a_stage_noun_after_of_in_a_topic_filters_no_papers(searcher: Searcher) -> None:
    # "the randomness of acceptance" is the topic: the paper that studies it was rejected, so an "accepted" filter
    # would hide it, and no sentence may say a filter was applied
    studied = next(r for r in RAW if r["id"] == "Cn706AbJaKW")  # "An Open Review of OpenReview: ..."
    assert studied["status"] == "Reject"
    answer = ask(searcher, "Is there a study of the randomness of acceptance at ICLR 2021?")
    assert "Cn706AbJaKW" in [c for s in answer.sentences for c in s.cites]
    assert "Only the papers that" not in texts(answer) and not verify_answer(searcher, answer)
    survey = ask(searcher, "papers about an analysis of reviews at ICLR 2021")
    assert "Cn706AbJaKW" in [c for s in survey.sentences for c in s.cites] and not verify_answer(searcher, survey)


CVPR2019 = len(json.loads((DATA / "paperlists" / "cvpr2019.json").read_text()))  # accepted papers only


@pytest.mark.parametrize(
    ("question", "decision", "said"),
    [
        ("Which accepted papers at ICLR 2021 study graph neural networks?", "accepted", "were accepted"),
        ("Which papers on reinforcement learning were withdrawn at ICLR 2021?", "withdrawn", "were withdrawn"),
        ("Which reviewed papers at ICLR 2021 study GANs?", "reviewed", "entered review"),
        ("Which papers on transformers at ICLR 2021 weren't accepted?", "not-accepted", "were not accepted"),
        ("How many accepted papers at ICLR 2021 study graph neural networks?", "accepted", "were accepted"),
    ],
)
def test_an_answer_that_applied_a_filter_says_so_in_a_sentence(
    searcher: Searcher, question: str, decision: str, said: str
) -> None:
    answer = ask(searcher, question)
    sentence = (
        f"Only the papers that {said} are counted and cited: {TRUTH[decision]:,} of the 3,014 papers of ICLR 2021"
    )
    assert answer.sentences[0].text == f"{sentence} in the store.", answer.sentences[0].text
    assert all(r.paper.venue == "iclr2021" for r in answer.papers) and not verify_answer(searcher, answer)
    scope = [c for c in answer.counts if c.scope]
    assert [(c.decision, c.value) for c in scope] == [(None, TRUTH[None]), (decision, TRUTH[decision])]
    scope[1].value += 1
    assert verify_answer(searcher, answer)  # the filter's numbers are checked like every other


def test_a_filter_is_said_once_and_only_when_applied(searcher: Searcher) -> None:
    assert "Only the papers" not in texts(ask(searcher, "Which papers at ICLR 2021 study GANs?"))
    counted = texts(ask(searcher, "How many papers were accepted at ICLR 2021?"))  # its count says it already
    assert "Only the papers" not in counted and f"{TRUTH['accepted']:,} of them were accepted" in counted
    listed = ask(searcher, "Which accepted papers at CVPR 2019 study pose estimation?")
    expected = (
        f"{CVPR2019:,} of the {CVPR2019:,} papers of CVPR 2019 in the store (its data lists accepted papers only)."
    )
    assert listed.sentences[0].text.endswith(expected) and not verify_answer(searcher, listed)
