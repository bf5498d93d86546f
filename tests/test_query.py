"""The query language on its own: fields, phrases, names, and the errors it gives."""

from __future__ import annotations

import csv
import random

import pytest

from confnav.search.query import QueryError, parse_query
from confnav.search.query import phrase as quoted_phrase
from confnav.search.snippet import make_snippet
from confnav.search.text import in_a_row, terms, words
from tests.conftest import ICLR2021


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


@pytest.mark.parametrize("raw", ["foo:bar", 'foo:"bar baz"', "graphs method:attention", "Year:2021"])
def test_any_name_written_as_a_field_is_a_field(raw: str) -> None:
    """Not only the names listed: any lowercase `name:word` is a field the language lacks, said so with the fields."""
    with pytest.raises(QueryError, match=r"unknown field '[A-Za-z]+:' \(fields: author:, title:, keyword:\)"):
        parse_query(raw)


@pytest.mark.parametrize(
    ("raw", "free"),
    [  # real titles' colons, a URL, a time, an arXiv id, a DOI, "TL;DR:", a phrase typed with a colon
        ("SiamCAN:Simple yet Effective", ["SiamCAN: Simple", "yet", "Effective"]),
        ("Learning N:M Sparse", ["Learning", "N: M", "Sparse"]),
        ("https://arxiv.org/abs/2101.00001", ["https: //arxiv.org/abs/2101.00001"]),
        ("oral at 10:30", ["oral", "at", "10:30"]),
        ("arXiv:2101.00001", ["arXiv: 2101.00001"]),
        ("doi:10.1145/3528223", ["doi: 10.1145/3528223"]),
        ("TL;DR: graphs", ["TL;DR:", "graphs"]),
        ("Performers: linear attention", ["Performers:", "linear", "attention"]),
    ],
)
def test_colons_of_text_stay_text(raw: str, free: list[str]) -> None:
    assert parse_query(raw).free == free
    assert parse_query('"foo:bar"').phrases == ["foo:bar"]  # what the error says to type


def test_a_kept_watch_query_reads_as_it_was_accepted() -> None:
    """A watch kept before any `name:word` was a field is still words, so an ingest never fails on it."""
    assert parse_query("method:attention", listed_fields_only=True).free == ["method: attention"]
    with pytest.raises(QueryError, match="unknown field 'venue:'"):
        parse_query("venue:iclr graphs", listed_fields_only=True)


def test_terms_fold_stem_and_drop_stop_words() -> None:
    assert terms("The Graph Neural Networks of Gödel") == ["graph", "neural", "network", "godel"]


def test_snippet_marks_matches() -> None:
    snippet = make_snippet("We study graph networks. Graphs are everywhere in science.", set(terms("graph")))
    assert snippet == "We study **graph** networks. **Graphs** are everywhere in science."


def test_snippet_marks_tokens_holding_a_query_term_and_nothing_else() -> None:
    """A token is marked when one of its index terms is the query's (a hyphenated pair, a stemmed form), never for
    a term merely written inside a longer word; the window is the one holding the most matches."""
    text = " ".join(["filler"] * 40 + ["Graph-based", "paragraphs", "of", "graphing", "(GRAPH)."] + ["tail"] * 40)
    snippet = make_snippet(text, set(terms("graph")))
    assert "**Graph-based**" in snippet and "**graphing**" in snippet and "**(GRAPH).**" in snippet
    assert "**paragraphs**" not in snippet and snippet.startswith("… ") and snippet.endswith(" …")
    assert make_snippet(text, set()) == " ".join(text.split()[:32]) + " …"


def test_phrases_match_exactly_where_the_words_follow_one_another() -> None:
    """The check of a phrase on a paper's text (a search of its lower case for ASCII text) finds exactly what
    comparing the text's words with the phrase's finds, on every ICLR 2021 abstract and on text that is not ASCII."""
    csv.field_size_limit(10**9)
    with ICLR2021[0].open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    texts = [" ".join([r["title"], r["abstract"], *r["keywords"].split(",")]) for r in rows]
    texts += ["Naïve Bayes for 生成模型 — state-of-the-art", "Über die naive bayes", "", "!!", "x2 3d-CNN_s"]
    rng = random.Random(3)
    phrases = ["meta-learning", "state-of-the-art", "naive bayes", "生成", "graph neural", "3d cnn", "s", "x2 3d"]
    phrases += ["", "?!", "learning. we", "Graph  Neural-Networks", "t"]
    for text in rng.sample(texts[:-5], 20):  # runs of words taken from the abstracts, with their punctuation
        found = words(text)
        start = rng.randrange(max(1, len(found) - 3))
        phrases.append(" ".join(found[start : start + rng.randint(1, 3)]))
    bodies = [f" {' '.join(words(text))} " for text in texts]
    for phrase in phrases:
        wanted = tuple(words(phrase))
        for text, body in zip(texts, bodies, strict=True):
            assert in_a_row(wanted, text) == (f" {' '.join(wanted)} " in body), (phrase, text)


@pytest.mark.parametrize("text", ['5" floppy', 'a "quoted" word', "back\\slash", "ends in \\", 'odd \\" mix', "plain"])
def test_a_phrase_of_any_text_reads_back_whole(text: str) -> None:
    """Inside a phrase `\\"` is a quote and `\\\\` a backslash: what a link built from data escapes."""
    assert parse_query(f"keyword:{quoted_phrase(text)} more").keywords == [text]
    assert parse_query(quoted_phrase(text)).phrases == [text]


def test_other_backslashes_stay_and_an_unclosed_phrase_is_named() -> None:
    assert parse_query(r'"C:\temp files" x').phrases == [r"C:\temp files"]
    with pytest.raises(QueryError, match="unbalanced quote at column 1"):
        parse_query('"x\\"')
