"""The words of a ranking: each paper's own reasons, and the mode's explanation said once per list.

A reason is given only for what raises the paper above the venue's average, with its figure and
source. What holds for every paper of the list (which venues the predicted impact is learned from,
what the mode reads) is the explanation, never repeated under each paper. At the conference no
reason mentions the venue's citation counts: they are not read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from confnav.model import AWARD_UNNAMED
from confnav.rank.mode import RankMode
from confnav.rank.signals import PaperSignals, VenueSignals
from confnav.summarize.base import Summarizer

if TYPE_CHECKING:
    from confnav.rank.ranker import RankedPaper

REVIEW_INPUTS = ("decision", "accepted", "rating", "confidence", "spread")  # said by their own reasons
DRIVERS_SHOWN = 2  # what predicts a paper's impact, beyond its reviews
TLDR_HEAD = 100  # papers whose reasons end with their TL;DR, at the conference
TLDR_PREFIX = "TL;DR: "


def reasons(
    item: PaperSignals, shares: dict[str, float], raised: set[str], signals: VenueSignals, mode: RankMode
) -> list[str]:
    """Plain-word reasons for what raises this paper above the venue's average; `shares` are its percentiles."""
    paper, values, said = item.paper, item.values, []
    venue = signals.venue.name
    if values.get("award") and "award" in raised and paper.award:
        said.append("marked with an award in its data" if paper.award == AWARD_UNNAMED else f"award: {paper.award}")
    if "citations" in raised and item.citations is not None and shares.get("citations", 0) >= 0.5:
        when = f", as of {item.citations.as_of}" if item.citations.as_of else ""
        said.append(
            f"{item.citations.count:,} citations, {item.citations.source}{when}{_top(shares['citations'], venue)}"
        )
    if "impact" in raised and signals.impact_source and (mode is RankMode.AT_CONFERENCE or item.citations is None):
        said.append(_impact(item, shares.get("impact"), venue))
    if "decision" in raised and paper.decision.accepted:
        said.append(paper.decision.name)
    if paper.ratings and "rating_mean" in raised:
        listed = ", ".join(f"{r:g}" for r in paper.ratings)
        said.append(f"ratings {listed}, mean {values['rating_mean']:.2f}{_top(shares.get('rating_mean'), venue)}")
    earlier = [a for a in item.authors if a.accepted]
    if earlier and "track_record" in raised:
        conference = signals.venue.series
        with_orals = sum(1 for a in earlier if a.orals)
        text = f"{len(earlier)} author{'s' * (len(earlier) > 1)} with earlier {conference} papers"
        said.append(text + (f" ({with_orals} with orals)" if with_orals else ""))
    if values.get("code") and "code" in raised:
        said.append("code released")
    if item.theme is not None and shares.get("centrality", 0) >= 0.75:
        said.append(f"central in '{item.theme.label}'")
    if item.theme is not None and (values.get("momentum") or 0) >= 0.005 and "momentum" in raised:
        before, after = item.theme_share_before or 0.0, item.theme.share
        said.append(f"theme '{item.theme.label}' grew from {before:.1%} to {after:.1%} of papers")
    if shares.get("novelty", 0) >= 0.9:
        said.append(f"far from earlier papers{_top(shares['novelty'], venue)}")
    for name in sorted(n for n in values if n.startswith("external:") and values[n] is not None and n in raised):
        said.append(_external(name, values[name] or 0.0, shares.get(name), signals))
    return said


def add_tldrs(ranked: list[RankedPaper], summarizer: Summarizer) -> None:
    """At the conference, what each paper does in one line (the authors' TL;DR, else the abstract's sentence)
    closes its reasons; only for the head of the list, the part anyone reads (1-3 ms a paper)."""
    for item in ranked[:TLDR_HEAD]:
        if line := summarizer.tldr(item.paper).tldr:
            item.reasons.append(f"{TLDR_PREFIX}{line}")


def _impact(item: PaperSignals, share: float | None, venue: str) -> str:
    """Predicted impact with what predicts it for this paper (its track record, its topic), not its reviews."""
    top = _top(share, venue) or " above the median"
    drivers = [c.words for c in item.impact if c.points > 0 and c.feature not in REVIEW_INPUTS][:DRIVERS_SHOWN]
    return f"predicted impact{top}" + (f": {'; '.join(drivers)}" if drivers else "")


def _external(name: str, value: float, share: float | None, signals: VenueSignals) -> str:
    """An imported signal with its standing: among the venue's papers when all have it, else among those that do
    ("top 1 of 2 papers with mentions"), never a share of the venue that the data does not give."""
    label = name.split(":", 1)[1]
    place, having = signals.place(name, value)
    if having == len(signals.papers):
        return f"{label} {value:g}{_top(share, signals.venue.name)}"
    return f"{label} {value:g} (top {place} of {having} paper{'s' * (having > 1)} with {label})"


def _top(percentile: float | None, venue: str) -> str:
    if percentile is None or percentile < 0.5:
        return ""
    return f" (top {max(1, round((1 - percentile) * 100))}% of {venue})"


def explanation(signals: VenueSignals, weights: dict[str, float], mode: RankMode) -> str:
    """What the mode reads and how, in one or two sentences for the head of a list."""
    venue, used = signals.venue, set(weights)
    if mode is RankMode.LOOKING_BACK:
        counted = [p.citations for p in signals.papers if p.citations is not None]
        if "citations" not in used or not counted:
            deciding = [
                words for name, words in (("decision", "decisions"), ("rating_mean", "reviews")) if name in used
            ]
            who = f"its {' and '.join(deciding)}" if deciding else "the other signals"
            return (
                f"{venue.name} has no citation counts in the store, so {who} decide "
                "(ingest counts or run 'confnav fetch citations')."
            )
        sources = sorted({c.source + (f", as of {c.as_of}" if c.as_of else "") for c in counted})
        return (
            f"Led by citation counts ({'; '.join(sources)}) on a log scale from the least to the most cited "
            f"paper ({max(c.count for c in counted):,}), so the most cited papers lead whatever their decision; "
            "decision and reviews refine."
            + (" An award its data names counts as half the citation range." if "award" in used else "")
        )
    known = [
        ("award", "awards its data names"),
        ("decision", "decisions"),
        ("rating_mean", "reviews"),
        ("track_record", f"authors' earlier {venue.series} papers"),
        ("centrality", "themes"),
    ]
    parts = [words for name, words in known if name in used]
    if "impact" in used and signals.impact_source:
        parts.append(f"predicted impact ({signals.impact_source}, from what was known at each)")
    listed = ", ".join(parts) or "the data it holds"
    return f"Only what was known when {venue.name} opened: {listed}; its own citation counts are never read."
