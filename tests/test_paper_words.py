"""Each paper's text analysed once per theme build: the same labels as analysed anew, keyed by the text it reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from confnav.model import Paper
from confnav.store import open_store
from confnav.topics.candidates import AuthorsCasing
from confnav.topics.fidelity import PhraseUse, Prose, label_faults
from confnav.topics.label import CTfidfLabeler
from confnav.topics.paper_words import _MEMO, one_reading, paper_words


@pytest.fixture(scope="module")
def papers(iclr2021_db: Path) -> list[Paper]:
    """600 ICLR 2021 papers: enough shared phrases, acronyms and prose to label."""
    with open_store(iclr2021_db, create=True) as store:
        return [p for p in store.iter_papers("iclr2021") if not p.placeholder][:600]


def test_labels_read_once_are_those_read_anew(papers: list[Paper]) -> None:
    groups = np.array([sum(map(ord, p.id)) % 6 for p in papers])  # six arbitrary, mixed groups
    labeler, prose = CTfidfLabeler(), Prose(papers)
    assert _MEMO.get() is None
    fresh = labeler.label(papers, groups, prose=Prose(papers))
    with one_reading():
        first = labeler.label(papers, groups, prose=prose)
        again = labeler.label(papers, groups, prose=prose)  # every analysis remembered: nothing changed by a reader
        with one_reading():  # nested: the outer reading's memory
            inner = labeler.label(papers, groups, prose=prose)
        assert _MEMO.get()
    assert _MEMO.get() is None  # forgotten with the build
    assert fresh == first == again == inner
    members = [[p for p, g in zip(papers, groups, strict=True) if g == i] for i in range(6)]
    faults = [label_faults(t.label, m, prose, t.keywords) for t, m in zip(fresh, members, strict=True)]
    with one_reading():
        assert [label_faults(t.label, m, prose, t.keywords) for t, m in zip(fresh, members, strict=True)] == faults


def test_phrase_use_reads_the_text_a_paper_has_now() -> None:
    paper = Paper("p1", "venue", "Message Passing on Graphs", keywords=["graph learning"])
    with one_reading():
        assert not PhraseUse([paper]).of("graph neural networks").any()
        paper.keywords.append("Graph Neural Networks (GNNs)")
        uses = PhraseUse([paper])
        assert uses.of("graph neural networks").all() and uses.of("GNN").all()
        assert paper_words(paper).acronyms == ("gnn",)


def test_authors_casing_counts_the_forms_of_the_word_asked(papers: list[Paper]) -> None:
    casing = AuthorsCasing(papers)
    written = casing.written
    for word in ("bayesian", "transformer", "q-learning", "gan", "learning", "wasserstein", "imagenet"):
        forms = {form: n for form, n in written.items() if form.lower() == word}
        top = max(forms.items(), key=lambda item: item[1], default=(word, 0))
        expected = top[0] if not top[0].islower() and top[1] >= 2 and top[1] > sum(forms.values()) / 2 else word
        assert casing.word(word) == expected
