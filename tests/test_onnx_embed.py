"""The default model's vectors: a text's vector is the same whatever else is embedded with it (alone, as its query
is, or among papers of other lengths), and the vectors come back in the order of the texts."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from confnav.embed import choose_embedder
from tests.conftest import DATA

pytestmark = pytest.mark.semantic


def real_texts() -> list[str]:
    """Titles, keyword lists and whole abstracts of ICLR 2021, so that the texts' lengths differ a lot."""
    csv.field_size_limit(10**9)
    with (DATA / "iclr2021" / "paperlist.tsv").open(encoding="utf-8") as file:
        rows = list(csv.DictReader(file, delimiter="\t", quoting=csv.QUOTE_NONE))[:12]
    return [text for row in rows for text in (row["title"], row["keywords"], row["abstract"]) if text]


def test_a_text_gets_the_same_vector_alone_or_among_others_in_the_order_given() -> None:
    embedder, notice = choose_embedder()  # the session's model export, shared with the other semantic tests
    assert notice is None, notice
    texts = real_texts()
    together = embedder.embed(texts)
    assert together.shape == (len(texts), 384) and together.dtype == np.float32
    alone = np.stack([embedder.embed([text])[0] for text in texts])
    assert np.abs(together - alone).max() <= 1e-6
    reversed_order = embedder.embed(texts[::-1])
    assert np.abs(reversed_order[::-1] - together).max() <= 1e-6
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape[0] == 0
