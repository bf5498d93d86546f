"""The must-read digest: the top papers of a venue, a theme or a reading profile, each with why it is there."""

from __future__ import annotations

from collections.abc import Sequence

from confnav.errors import whole_number
from confnav.rank import Ranker, RankMode, make_ranker
from confnav.rank.profile import blend_with_profile
from confnav.rank.ranker import ranker_name
from confnav.rank.reasons import TLDR_PREFIX
from confnav.reports.facts import venue_facts
from confnav.reports.model import Citation, Report, Section, decision_words
from confnav.store.protocols import AnalysisStore
from confnav.summarize.base import Summarizer, labelled_tldr
from confnav.summarize.llm import summarizer_for


def build_digest(
    store: AnalysisStore,
    venue: str,
    *,
    top: int = 20,
    theme: str | None = None,
    like: Sequence[str] = (),
    summarizer: Summarizer | None = None,
    mode: RankMode | str | None = None,
    ranker: Ranker | None = None,
) -> Report:
    """The top papers in a ranking mode (None: the venue's default); the mode and what it reads are said once,
    in the introduction, and each paper's note gives only its own reasons. Without a `summarizer` or `ranker`,
    the ones the store's settings choose. `top` below 1 is a ConfnavError, never a slice from the end."""
    whole_number("top", top)
    info = store.get_venue(venue)
    venue = info.id
    summarizer = summarizer or summarizer_for(store, venue)
    ranking = (ranker or make_ranker(store.settings, mode=mode)).rank(store, venue, theme=theme)
    ranked = ranking.papers
    if like:
        ranked = blend_with_profile(store, ranked, like)
    scope = f" in theme {theme}" if theme else (" for your reading profile" if like else "")
    shown = ("venue.reviewed", "venue.accepted", "venue.acceptance_rate")
    facts = [f for f in venue_facts(store, venue) if f.key in shown]
    title = f"{info.name}: must-read digest{scope}, {ranking.mode.label}"
    report = Report(
        "digest", info, title, facts=facts, mode=ranking.mode.value, ranker=ranker_name(store.settings, ranker)
    )
    report.intro = (
        f"The {min(top, len(ranked))} papers the must-read ranking puts first{scope}, with the reasons. "
        + ranking.header()
    )
    section = Section("Papers")
    for item in ranked[:top]:
        paper = item.paper
        tldr = labelled_tldr(summarizer, paper)
        authors = ", ".join(a.name for a in paper.authors[:6]) + (" et al." if len(paper.authors) > 6 else "")
        own = [r for r in item.reasons if not r.startswith(TLDR_PREFIX) and r != paper.decision.name]  # TL;DR beside
        note = f"{authors} — " + "; ".join(r for r in [decision_words(paper.decision), *own] if r)
        section.citations.append(Citation(paper.id, paper.title, paper.url, tldr.tldr, tldr.source, note))
    report.sections.append(section)
    return report
