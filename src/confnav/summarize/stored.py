"""Extractive TL;DRs made once per venue and kept in the store, so that pages and reports read them instead of
scoring every abstract's sentences again (1–3 ms a paper, the largest part of a first paper view).

They are tied to the venue's change counter and to a fingerprint of the rules that made them: a changed paper
or a new version of the rules makes the venue's stored TL;DRs stale, and they are then made again on demand.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from confnav.progress import Progress
from confnav.search import text as search_text
from confnav.store.protocols import CacheStore, SearchStore
from confnav.summarize import cut_words, cuts, scoring, shorten, text, tldr
from confnav.summarize.tldr import ExtractiveSummarizer, extractive_tldr


@cache
def rules_fingerprint() -> str:
    """A hash of the code that makes extractive TL;DRs (cleaning, shortening, sentence rules, weights, stemming)."""
    digest = hashlib.sha1()
    for module in (text, shorten, cuts, cut_words, tldr, scoring, search_text):
        digest.update(Path(module.__file__ or "").read_bytes())
    return digest.hexdigest()[:12]


def tldr_cache(venue: str) -> str:
    return f"tldrs:{venue}:{rules_fingerprint()}"


def _kept(store: CacheStore, venue: str, generation: int) -> dict[str, str | None] | None:
    """The TL;DRs kept for the venue at this generation; None when missing, stale or unreadable."""
    cached = store.get_cache(tldr_cache(venue))
    if cached is None or cached[0] != generation:
        return None
    try:
        found = json.loads(cached[1])
    except ValueError:  # a damaged entry is made again, not shown
        return None
    if not isinstance(found, dict):
        return None
    return {k: v for k, v in found.items() if isinstance(k, str) and (v is None or isinstance(v, str))}


def stored_tldrs(store: CacheStore, venue: str) -> dict[str, str | None]:
    """The venue's kept extractive TL;DRs by paper id (None: no sentence qualifies); empty when stale or missing."""
    return _kept(store, venue, store.venue_generation(venue)) or {}


def store_tldrs(store: SearchStore, venue: str, progress: Progress | None = None) -> int:
    """Make and keep the extractive TL;DR of every paper of the venue with an abstract and no author's TL;DR,
    unless the kept ones are up to date; returns how many were made."""
    generation = store.venue_generation(venue)  # read first: a change made meanwhile leaves them stale
    if _kept(store, venue, generation) is not None:
        return 0
    papers = [p for p in store.iter_papers(venue) if p.abstract and not p.tldr]
    if progress:
        progress.start(f"TL;DRs of {venue}", len(papers))
    made: dict[str, str | None] = {}
    for paper in papers:
        made[paper.id] = extractive_tldr(paper.abstract or "", paper.title, paper.keywords)  # each has one
        if progress:
            progress.advance()
    with store.transaction():
        store.put_cache(tldr_cache(venue), generation, json.dumps(made, ensure_ascii=False).encode())
    return len(made)


def keep_tldrs(store: SearchStore, venue: str | None = None, progress: Progress | None = None) -> int:
    """The TL;DR step after indexing: keep the TL;DRs of `venue` (None: every venue) that are not up to date, so
    that a server's requests only read them; returns how many were made."""
    venues = [venue] if venue else [v.id for v in store.venue_list()]
    return sum(store_tldrs(store, v, progress) for v in venues)


def venue_summarizer(store: CacheStore, venue: str) -> ExtractiveSummarizer:
    """The extractive summarizer that answers from the venue's kept TL;DRs and makes the others."""
    return ExtractiveSummarizer(venue, stored_tldrs(store, venue))
