"""The query language on its own: fields, phrases, names, and the errors it gives."""

from __future__ import annotations

import pytest

from confnav.search.query import QueryError, parse_query
from confnav.search.snippet import make_snippet
from confnav.search.text import terms


def test_fields_phrases_and_words() -> None:
    query = parse_query('author:Yang Song "score matching" title:diffusion keyword:"generative models" sde')
    assert query.authors == ["Yang Song"]
    assert query.phrases == ["score matching"]
    assert query.titles == ["diffusion"] and query.keywords == ["generative models"]
    assert query.free == ["sde"]
    assert "Yang" not in query.text


def test_author_name_stops_at_lower_case_words() -> None:
    query = parse_query("author:Yang Song diffusion models")
    assert query.authors == ["Yang Song"] and query.free == ["diffusion", "models"]


def test_conditions_match_across_name_forms_and_accents() -> None:
    query = parse_query('author:"Song, Yáng" "neural tangent"')
    assert query.matches("T", "the Neural Tangent kernel", [], ["Yang Song", "A B"])
    assert not query.matches("T", "the neural kernel tangent", [], ["Yang Song"])
    assert not query.matches("T", "the neural tangent kernel", [], ["Song Han"])


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "empty query"),
        ("   \t", "empty query"),
        ("x" * 10_000, "10,000 characters"),
        ('"open phrase', "unbalanced quote"),
        ("venue:iclr graphs", "unknown field 'venue:'"),
        ("!!! ???", "no words to search for"),
    ],
)
def test_bad_queries(raw: str, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        parse_query(raw)


def test_terms_fold_stem_and_drop_stop_words() -> None:
    assert terms("The Graph Neural Networks of Gödel") == ["graph", "neural", "network", "godel"]


def test_snippet_marks_matches() -> None:
    snippet = make_snippet("We study graph networks. Graphs are everywhere in science.", set(terms("graph")))
    assert snippet == "We study **graph** networks. **Graphs** are everywhere in science."
