"""Search on the real ICLR 2021 corpus: known items first, filters that never leak, similar, recommend."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.embed import choose_embedder
from confnav.errors import ConfnavError
from confnav.index import build_index
from confnav.search.engine import Searcher
from confnav.store import PaperFilter, open_store
from tests.backends import clone

PERFORMERS = "Ua6zuk0WRH"  # Rethinking Attention with Performers (oral)
RFA = "QtTKTdVrFBB"  # Random Feature Attention (spotlight)
SCORE_SDE = "PxTIG12RRHS"  # Score-Based Generative Modeling through SDEs (Yang Song)


@pytest.fixture(scope="module")
def searcher(indexed_db: Path) -> Searcher:
    return Searcher(open_store(indexed_db, create=True))


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
@pytest.mark.parametrize(
    ("query", "paper_id"),
    [
        ("Score-Based Generative Modeling through Stochastic Differential Equations", SCORE_SDE),
        ("What Matters for On-Policy Deep Actor-Critic Methods? A Large-Scale Study", "nIAxjsniDzg"),
    ],
)
def test_title_finds_its_paper_first(searcher: Searcher, mode: str, query: str, paper_id: str) -> None:
    hits = searcher.search(query, mode=mode).hits  # type: ignore[arg-type]
    assert hits[0].paper.id == paper_id


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_name_in_the_title_is_found_by_words(searcher: Searcher, mode: str) -> None:
    hits = searcher.search("Rethinking Attention with Performers", mode=mode).hits  # type: ignore[arg-type]
    assert hits[0].paper.id == PERFORMERS


def test_description_finds_both_random_feature_attention_papers(searcher: Searcher) -> None:
    top = [h.paper.id for h in searcher.search("linear attention with random features", limit=3).hits]
    assert {PERFORMERS, RFA} <= set(top)


def test_relevance_lifts_accepted_papers_a_little_and_match_does_not(searcher: Searcher) -> None:
    where = PaperFilter(venue="iclr2021")
    lifted = searcher.search("graph neural networks", where=where, sort="relevance").hits
    plain = searcher.search("graph neural networks", where=where, sort="match").hits
    assert sum(h.paper.decision.accepted for h in lifted) > sum(h.paper.decision.accepted for h in plain)
    assert [h.score for h in plain] == sorted((h.score for h in plain), reverse=True)
    rejected = searcher.search("Neural Pooling for Graph Neural Networks", where=where).hits[0]  # a clear match wins
    assert rejected.paper.id == "UEtNMTl6yN" and not rejected.paper.decision.accepted


@pytest.mark.parametrize("query", ['author:"Yang Song"', "author:Yang Song", 'author:"song, yang"', "author:Yáng SÓNG"])
def test_author_forms(searcher: Searcher, query: str) -> None:
    hits = searcher.search(query, limit=50).hits
    assert SCORE_SDE in [h.paper.id for h in hits]
    assert all(any(a.name == "Yang Song" for a in h.paper.authors) for h in hits)


def test_phrase_must_appear(searcher: Searcher) -> None:
    hits = searcher.search('"random features" attention', limit=20).hits
    assert hits and hits[0].paper.id in {PERFORMERS, RFA}
    for hit in hits:
        text = " ".join([hit.paper.title, hit.paper.abstract or "", *hit.paper.keywords]).lower()
        assert "random feature" in text


def test_title_and_keyword_fields(searcher: Searcher) -> None:
    hits = searcher.search("title:performers", limit=5).hits
    assert [h.paper.id for h in hits] == [PERFORMERS]
    hits = searcher.search("keyword:graph neural networks expressivity", limit=10).hits
    keywords = [" ".join(h.paper.keywords).lower() for h in hits]
    assert len(hits) == 10 and all("graph neural network" in k for k in keywords[:5]), keywords
    assert all(any(word in k for word in ("graph", "neural", "network", "expressiv")) for k in keywords), keywords


@pytest.mark.parametrize(
    "where",
    [
        PaperFilter(decision="oral"),
        PaperFilter(decision="accepted"),
        PaperFilter(min_rating=7.0),
        PaperFilter(venue="iclr2021", keyword="reinforcement"),
    ],
)
def test_filters_never_leak(searcher: Searcher, where: PaperFilter) -> None:
    hits = searcher.search("reinforcement learning exploration", where=where, limit=100).hits
    assert hits
    for hit in hits:
        paper = hit.paper
        if where.decision == "oral":
            assert paper.decision.name == "oral"
        if where.decision == "accepted":
            assert paper.decision.accepted
        if where.min_rating is not None:
            assert paper.rating_mean is not None and paper.rating_mean >= where.min_rating
        if where.keyword:
            assert any("reinforcement" in k.lower() for k in paper.keywords)


def test_snippet_marks_matched_terms(searcher: Searcher) -> None:
    (hit,) = searcher.search("orthogonal random features", limit=1).hits
    assert "**random**" in hit.snippet.lower() or "**random" in hit.snippet.lower()


def test_similar_never_returns_the_paper_itself(searcher: Searcher) -> None:
    for paper_id in (PERFORMERS, SCORE_SDE, "nIAxjsniDzg"):
        hits = searcher.similar(paper_id, limit=20).hits
        assert len(hits) == 20 and paper_id not in [h.paper.id for h in hits]
    assert RFA in [h.paper.id for h in searcher.similar(PERFORMERS, limit=10).hits]


def test_recommend_never_returns_liked_papers(searcher: Searcher) -> None:
    results = searcher.recommend([PERFORMERS, RFA], unlike=[SCORE_SDE], limit=30)
    ids = [h.paper.id for h in results.hits]
    assert len(ids) == 30 and not {PERFORMERS, RFA, SCORE_SDE} & set(ids)
    text_only = searcher.recommend(text="We learn to denoise images with score matching and diffusion.", limit=5)
    assert text_only.hits


def test_index_is_incremental(indexed_db: Path, tmp_path: Path) -> None:
    copy = clone(indexed_db, tmp_path, "copy")
    embedder, _ = choose_embedder()
    with open_store(copy, create=True) as store:
        again = build_index(store, embedder)
    assert again.embedded == 0 and again.unchanged == 3014


def test_cli_search_json(indexed_db: Path) -> None:
    result = CliRunner().invoke(
        cli, ["search", "--db", str(indexed_db), "Rethinking Attention with Performers", "--json", "--limit", "3"]
    )
    assert result.exit_code == 0, result.stderr
    hits = json.loads(result.stdout)["hits"]
    assert hits[0]["id"] == PERFORMERS
    assert {"id", "title", "venue", "decision", "score", "snippet"} <= set(hits[0])


def test_author_matching_in_memory_agrees_with_the_store(searcher: Searcher) -> None:
    """The in-memory author index admits exactly the rows of the store's SQL author filter."""
    import random

    from confnav.search.authors import AuthorIndex

    corpus = searcher.corpus
    index = AuthorIndex(corpus.papers)
    names = [a.name for p in corpus.papers for a in p.authors]
    rng = random.Random(1)
    asked = rng.sample(names, 150) + [n.split()[-1] for n in rng.sample(names, 50)]
    asked += ["Song, Yang", "yang song", "Yáng Sōng", "LEVINE", "O'Brien", "zzzz nobody"]
    with pytest.raises(ConfnavError, match="give a name with letters"):  # no letters: refused, not read as anyone
        PaperFilter(author="!!")
    for name in asked:
        expected = np.zeros(len(corpus), dtype=bool)
        expected[corpus.rows_of(searcher.store.filter_pks(PaperFilter(author=name)))[0]] = True
        assert (index.mask(name) == expected).all(), name


def test_lifting_accepted_papers_raises_positive_scores_only() -> None:
    """The acceptance lift raises each positive score by its paper's standing and leaves zero and negative ones
    (a negative lift lowers positive scores)."""
    from confnav.search.fusion import lift_accepted

    scores = np.array([0.8, 0.0, -0.2, 0.5, 0.3], dtype=np.float32)
    standing = np.array([1.0, 1.0, 1.0, 0.5, 0.0])
    expected = np.where(scores > 0, scores * (1.0 + 0.1 * standing), scores)
    assert np.array_equal(lift_accepted(scores, standing, 0.1), expected)
    lowered = np.where(scores > 0, scores * (1.0 - 0.1 * standing), scores)
    assert np.array_equal(lift_accepted(scores, standing, -0.1), lowered)
    assert lift_accepted(scores, standing, 0.0) is scores


@pytest.mark.parametrize("cut", [40, 400, 5000])
def test_a_first_cut_ranks_as_fusing_every_row(cut: int) -> None:
    """Where the database scores meaning exactly for a few rows and a neutral value for the rest, the first cut's
    candidates come in the order, with the scores, that aligning and fusing every admitted row gives; with few
    best keyword rows kept (`cut`), only rows no left-out row can pass. A neutral value above the mean declines."""
    from confnav.search.first_cut import Exact, best_first, best_keyword_rows, first_cut
    from confnav.search.fusion import ConvexFusion, align_groups, lift_accepted

    rng = np.random.default_rng(cut)
    size = 3000  # under the fusion's sample size: aligning every row is exact there too
    keyword = np.where(rng.random(size) < 0.4, rng.gamma(2.0, 2.0, size), 0.0).astype(np.float32)
    mask, short = rng.random(size) < 0.9, rng.random(size) < 0.2
    standing = rng.choice([0.0, 0.5, 1.0], size)
    scored = np.sort(rng.choice(size, 150, replace=False))
    matching, best = best_keyword_rows(keyword, mask, cut)
    exact = Exact(scored, rng.uniform(0.2, 0.7, scored.size).astype(np.float32), 0.1, matching, best)
    found = first_cut(keyword, mask, exact, short, standing, ConvexFusion(), 0.1)
    assert found is not None and found.matching == int(np.count_nonzero(mask & (keyword > 0)))
    semantic = align_groups(exact.dense(size), mask, short)
    fused = np.full(size, -np.inf)
    fused[mask] = ConvexFusion()(keyword[mask], semantic[mask])
    lifted = lift_accepted(fused, standing, 0.1)
    expected = list(best_first(np.flatnonzero(mask), lifted, size))[: len(found.rows)]
    assert found.rows == expected and len(found.rows) >= min(cut, 40)
    assert np.allclose([found.score[r] for r in expected], lifted[expected], rtol=1e-5)
    assert found.complete == (cut >= matching.size)
    high = Exact(scored, np.full(scored.size, 0.05, dtype=np.float32), 0.1, matching, best)
    assert first_cut(keyword, mask, high, short, standing, ConvexFusion(), 0.1) is None
