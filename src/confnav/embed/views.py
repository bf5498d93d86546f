"""How stored vectors are named: the text and keyword views of a paper, their content hashes, and which
model is the store's main one (indexing writes these names; search, topics and ranking read them)."""

from __future__ import annotations

import hashlib

from confnav.model import Paper
from confnav.store.protocols import SearchStore


def paper_text(paper: Paper) -> str:
    """The text a paper is embedded from: its title, then its abstract when there is one."""
    return f"{paper.title}. {paper.abstract}" if paper.abstract else paper.title


def keyword_text(paper: Paper) -> str:
    """The second view topics use: the author keywords (the title when there are none)."""
    return ", ".join(paper.keywords) if paper.keywords else paper.title


# Each view is stored as its own "model" name: the text view under the model's name,
# the keyword view with this suffix.
KEYWORD_VIEW = "|keywords"
VIEWS = {"": paper_text, KEYWORD_VIEW: keyword_text}


def text_hash(text: str, stamp: str = "") -> str:
    """What a stored vector was made from: the text, and for a corpus-fitted model the state it was fitted to."""
    return hashlib.sha1((stamp + text).encode()).hexdigest()[:16]


PRIMARY_CACHE = "semantic-model"  # the model the last replacing `confnav index` ran with


def text_models(store: SearchStore) -> list[str]:
    """The text-view models of the store's semantic index, the main one first: the one the last `confnav index`
    without `--add` made (or, for a store without that note, the one with the most vectors); then the others."""
    counts = {m: n for m, n in store.embedding_models().items() if KEYWORD_VIEW not in m}
    noted = store.get_cache(PRIMARY_CACHE)
    main = noted[1].decode() if noted else None
    return sorted(counts, key=lambda m: (m != main, -counts[m], m))


def semantic_model(store: SearchStore) -> str | None:
    """The main text-view model of the store's semantic index (topics, ranking and similar papers use it),
    or None."""
    models = text_models(store)
    return models[0] if models else None


def embedder_state_cache(model: str) -> str:
    """The cache entry holding a corpus-fitted embedder's state."""
    return f"embedder:{model}"
