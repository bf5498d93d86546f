"""Filters mean what a reader means: `rejected` is the reject kind, and a filter of no letters is refused rather
than read as no filter at all."""

from __future__ import annotations

import pytest

from confnav.errors import ConfnavError
from confnav.store import PaperFilter


def test_rejected_means_the_reject_kind_and_not_accepted_the_outcome() -> None:
    assert PaperFilter(decision="rejected").decision_key() == "reject"
    assert PaperFilter(decision="Not accepted").decision_key() == "not-accepted"


@pytest.mark.parametrize(("field", "value"), [("author", "%"), ("author", "_"), ("keyword", "%"), ("keyword", "--")])
def test_a_filter_of_no_letters_is_refused(field: str, value: str) -> None:
    with pytest.raises(ConfnavError, match=f"--{field}"):
        PaperFilter(**{field: value})
