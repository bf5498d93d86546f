"""The conference overview: a facts block, then one section per major theme citing its must-read papers."""

from __future__ import annotations

import tomllib
from pathlib import Path

from confnav.errors import ConfnavError, InputError
from confnav.model import real_papers
from confnav.rank import Ranker, RankMode, make_ranker
from confnav.rank.ranker import RankedPaper
from confnav.rank.reasons import TLDR_PREFIX
from confnav.reports.facts import data_gaps, theme_facts_of, venue_facts
from confnav.reports.model import Citation, Fact, Report, Section
from confnav.reports.prose import method_name, theme_paragraph
from confnav.store.protocols import AnalysisStore
from confnav.summarize.base import Summarizer
from confnav.summarize.llm import CITATION, LLMSummarizer, llm_theme_summary, summarizer_for
from confnav.topics import ensure_topics, theme_facts
from confnav.topics.facts import ThemeFacts

MAJOR_SHARE = 0.015  # themes holding at least this share of the venue get a section
CONFIG_KEYS = ("dates", "location", "website")


def load_venue_config(path: Path | None) -> list[Fact]:
    """Dates, location and website from a user's TOML `[venue]` table: the only facts not from the store."""
    if path is None:
        return []
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("venue", {})
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read the venue config: {exc}") from None
    unknown = sorted(set(table) - set(CONFIG_KEYS))
    if unknown:
        raise InputError(path, f"unknown key(s) {', '.join(unknown)} in [venue] (allowed: {', '.join(CONFIG_KEYS)})")
    return [Fact(f"config.{key}", key.capitalize(), str(table[key])) for key in CONFIG_KEYS if key in table]


def citation(item: RankedPaper, summarizer: Summarizer) -> Citation:
    tldr = summarizer.tldr(item.paper)
    note = " · ".join([r for r in item.reasons if not r.startswith(TLDR_PREFIX)][:2])  # the TL;DR is beside it
    name = method_name(item.paper.abstract) if item.paper.abstract else None
    return Citation(item.paper.id, item.paper.title, item.paper.url, tldr.tldr, tldr.source, note, name)


def overview_intro(name: str, facts: set[str], themes: int) -> str:
    """The opening sentence, saying only what the venue's facts hold ({key} placeholders become verified facts)."""
    if "venue.acceptance_rate" in facts:
        opening = (
            f"{name} has {{venue.reviewed}} submissions that entered review, of which {{venue.accepted}} "
            "were accepted ({venue.acceptance_rate})."
        )
    elif "venue.accepted" in facts:
        opening = f"The data of {name} lists {{venue.accepted}} accepted papers."
    else:
        opening = f"The data of {name} lists {{venue.records}} papers, without decisions."
    return (
        f"{opening} Below, its {themes} largest themes, each with the papers the must-read ranking puts first; "
        "every paper is linked to its own page where the data gives one."
    )


def theme_summary(theme: ThemeFacts) -> str:
    """Two sentences from the theme's own numbers; {key} placeholders become verifiable facts."""
    p = f"theme.{theme.id}"
    keywords = [k for k in theme.keywords if k.lower() != theme.label.lower()][:3]
    first = f"{{{p}.size}} papers ({{{p}.share}} of the venue) are about {theme.label}"
    first += f", with {', '.join(keywords)} among their most distinctive keywords." if keywords else "."
    if theme.acceptance_rate is None:
        return first
    second = f"{{{p}.accepted}} were accepted ({{{p}.acceptance_rate}}, "
    second += "against {venue.acceptance_rate} for the whole venue)"
    second += f", {{{p}.oral}} of them as orals." if theme.oral else "."
    return f"{first} {second}"


def build_overview(
    store: AnalysisStore,
    venue: str,
    *,
    summarizer: Summarizer | None = None,
    ranker: Ranker | None = None,
    per_theme: int = 10,
    config: list[Fact] | None = None,
    mode: RankMode | str | None = None,
) -> Report:
    """The overview of a venue, its papers ranked in `mode` (None: the venue's default; said once, in the
    introduction); needs its themes (built on demand from the semantic index). Without a `summarizer` or
    `ranker`, the ones the store's settings choose."""
    info = store.get_venue(venue)
    summarizer = summarizer or summarizer_for(store, venue)
    try:
        ensure_topics(store, venue)
    except ConfnavError as exc:
        raise ConfnavError(f"the overview needs themes: {exc}") from None
    facts = venue_facts(store, venue)
    ranking = (ranker or make_ranker(store.settings, mode=mode)).rank(store, venue)
    major = [t for t in theme_facts(store, venue, level=1) if t.share >= MAJOR_SHARE]
    report = Report("overview", info, f"{info.name}: an overview", facts=[*(config or []), *facts])
    report.mode = ranking.mode.value
    report.intro = overview_intro(info.name, {f.key for f in facts}, len(major)) + " " + ranking.header()
    report.notes = data_gaps(real_papers(store.iter_papers(venue)))
    for theme in major:
        members = set(theme.paper_ids)
        chosen = [item for item in ranking.papers if item.paper.id in members][:per_theme]
        title = theme.heading
        cites = [citation(item, summarizer) for item in chosen]
        summary = theme_summary(theme)
        if not isinstance(summarizer, LLMSummarizer):
            summary = theme_paragraph(summary, cites)
        else:
            listed = [(c.paper_id, c.title, c.tldr or "") for c in cites]
            if written := llm_theme_summary(summarizer, theme.label, theme.keywords, listed):
                summary += " " + CITATION.sub(r"[[cite:\1]]", written)
            else:
                summary = theme_paragraph(summary, cites)
        report.sections.append(Section(title, summary, theme_facts_of(theme), cites, theme.id))
    if isinstance(summarizer, LLMSummarizer) and summarizer.failures:
        report.notes.append(
            f"{len(summarizer.failures)} LLM TL;DRs failed a check and were replaced by extractive ones."
        )
    return report
