"""The conference overview: a facts block, then one section per major theme citing its must-read papers."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Collection
from pathlib import Path

import numpy as np

from confnav.errors import ConfnavError, InputError, read_utf8, whole_number
from confnav.model import Outcome, Paper, Venue, real_papers
from confnav.rank import Ranker, RankMode, make_ranker
from confnav.rank.ranker import RankedPaper, ranker_name
from confnav.rank.reasons import TLDR_PREFIX
from confnav.reports.facts import data_gaps, theme_facts_of, trend_facts, venue_facts
from confnav.reports.model import LLM_NOTES, Citation, Fact, Report, Section, decision_words
from confnav.reports.narrative import Lead, Vocabulary, handle, listing, theme_opening, theme_story
from confnav.reports.prose import method_name
from confnav.reports.written import Paragraph, Written, write_paragraph
from confnav.store.protocols import AnalysisStore
from confnav.summarize.base import Summarizer, labelled_tldr
from confnav.summarize.llm import ChatClient, LLMSummarizer, summarizer_for
from confnav.topics import ensure_topics, theme_facts
from confnav.topics.build import topic_vectors
from confnav.topics.facts import ThemeFacts

MAJOR_SHARE = 0.015  # themes holding at least this share of the venue get a section…
MAJOR_THEMES = 15  # …up to this many, the largest; the rest share one compact paragraph
POOL = 12  # a theme's first papers in the ranking, among which its paragraph relates papers
START_PAPERS = 3  # papers the closing names across the venue, and themes it gives a way into
BYLINE = 3  # authors named on a paper's card before "et al."
MOVED = 0.005  # a theme's change of share against the previous edition that the opening mentions
ACCEPTED_AS = "Accepted as "  # how facts.py labels the count of each accepted kind
CONFIG_KEYS = ("dates", "location", "website")
CONFIG_EXAMPLES = {"dates": "May 3-7, 2021", "location": "Vienna, Austria", "website": "https://iclr.cc"}


def load_venue_config(path: Path | None) -> list[Fact]:
    """Dates, location and website from a user's TOML `[venue]` table: the only facts not from the store."""
    if path is None:
        return []
    try:
        table = tomllib.loads(read_utf8(path)).get("venue", {})
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, f"cannot read the venue config: {exc}") from None
    if not isinstance(table, dict):
        raise InputError(path, "venue: expected a [venue] table")
    unknown = sorted(set(table) - set(CONFIG_KEYS))
    if unknown:
        raise InputError(path, f"unknown key(s) {', '.join(unknown)} in [venue] (allowed: {', '.join(CONFIG_KEYS)})")
    for key in CONFIG_KEYS:
        if key in table and not (isinstance(table[key], str) and table[key].strip()):
            raise InputError(path, f'[venue] {key}: expected text, e.g. {key} = "{CONFIG_EXAMPLES[key]}"')
    return [Fact(f"config.{key}", key.capitalize(), str(table[key])) for key in CONFIG_KEYS if key in table]


def citation(item: RankedPaper, summarizer: Summarizer) -> Citation:
    """A listed paper with its decision first in its note (every listed paper shows it), then two of the ranking's
    reasons (not its TL;DR, which is beside it, nor its decision again)."""
    tldr = labelled_tldr(summarizer, item.paper)
    reasons = [r for r in item.reasons if not r.startswith(TLDR_PREFIX) and r != item.paper.decision.name][:2]
    note = " · ".join(r for r in [decision_words(item.paper.decision), *reasons] if r)
    name = method_name(item.paper.abstract) if item.paper.abstract else None
    paper = item.paper
    authors = ", ".join(a.name for a in paper.authors[:BYLINE]) + (" et al." if len(paper.authors) > BYLINE else "")
    decision = paper.decision.name if paper.decision.name and paper.decision.outcome is not Outcome.UNKNOWN else ""
    return Citation(paper.id, paper.title, paper.url, tldr.tldr, tldr.source, note, name, authors, decision)


def _share(fact: Fact | None) -> float | None:
    value = getattr(fact.value, "value", None) if fact else None
    return float(value) if isinstance(value, int | float) else None


def venue_opening(
    info: Venue, facts: list[Fact], themes: list[ThemeFacts], previous: Venue | None, trend: dict[str, Fact]
) -> str:
    """What characterised the venue, from its facts only ({key} placeholders become verified facts): its acceptance
    figures, its largest themes, those that grew and shrank most against the previous edition of its series (when
    the store has it), and the themes that fared best and worst in review."""
    keys = {f.key for f in facts}
    if "venue.acceptance_rate" in keys:
        sentence = (
            f"{info.name} accepted {{venue.accepted}} of the {{venue.reviewed}} submissions that entered review "
            "({venue.acceptance_rate} of those decided)"
        )
        kinds = [f for f in facts if f.label.startswith(ACCEPTED_AS) and not f.key.endswith("_rate")]
        if len(kinds) > 1:  # all but the commonest, last tier: "53 as orals and 114 as spotlights"
            named = [(f, f.label.removeprefix(ACCEPTED_AS)) for f in kinds[:-1]]
            counts = [f"{{{f.key}}} as {n if n.endswith('s') else n + 's'}" for f, n in named]
            counts = [
                f"{said} ({{{f.key}_rate}})" if f"{f.key}_rate" in keys else said
                for (f, _), said in zip(named, counts, strict=True)
            ]
            sentence += ", " + listing(counts)
        sentences = [sentence + "."]
    elif "venue.accepted" in keys:
        sentences = [f"The data of {info.name} lists {{venue.accepted}} accepted papers."]
    else:
        sentences = [f"The data of {info.name} lists {{venue.records}} papers, without decisions."]
    largest = sorted(themes, key=lambda t: -t.size)
    if largest:
        sentences.append(f"The largest themes of {info.name} are {listing([t.label for t in largest[:3]])}.")
    if previous is not None and trend:
        sentences += _moves(themes, previous, trend)
    rated = [t for t in largest[:MAJOR_THEMES] if t.acceptance_rate is not None]
    if len(rated) >= 2:
        best = max(rated, key=lambda t: t.acceptance_rate or 0.0)
        worst = min(rated, key=lambda t: t.acceptance_rate or 0.0)
        sentences.append(
            f"In review, {best.label} fared best of the large themes ({{theme.{best.id}.acceptance_rate}} accepted) "
            f"and {worst.label} worst ({{theme.{worst.id}.acceptance_rate}})."
        )
    return " ".join(sentences)


def _moves(themes: list[ThemeFacts], previous: Venue, trend: dict[str, Fact]) -> list[str]:
    """The themes that grew most (two) and shrank most (one) against the previous edition, by share of papers."""
    change = {t.id: t.share - b for t in themes if (b := _share(trend.get(f"trend.{t.id}.before"))) is not None}
    grown = [t for t in sorted(themes, key=lambda t: -change.get(t.id, 0.0)) if change.get(t.id, 0.0) >= MOVED][:2]
    shrunk = [t for t in sorted(themes, key=lambda t: change.get(t.id, 0.0)) if change.get(t.id, 0.0) <= -MOVED][:1]

    def moved(theme: ThemeFacts) -> str:
        return f"from {{trend.{theme.id}.before}} to {{theme.{theme.id}.share}}"

    said = []
    if grown:
        sentence = f"Against {previous.name}, {grown[0].label} grew most, {moved(grown[0])} of the papers"
        said.append(sentence + (f", then {grown[1].label} ({moved(grown[1])})." if len(grown) > 1 else "."))
    if shrunk:
        said.append(f"Compared with {previous.name}, {shrunk[0].label} lost most ground ({moved(shrunk[0])}).")
    return said


def build_overview(
    store: AnalysisStore,
    venue: str,
    *,
    summarizer: Summarizer | None = None,
    ranker: Ranker | None = None,
    per_theme: int = 6,
    config: list[Fact] | None = None,
    mode: RankMode | str | None = None,
    client: ChatClient | None = None,
) -> Report:
    """The overview of a venue, its papers ranked in `mode` (None: the venue's default; said once, in the
    introduction): an opening on what characterised it, a paragraph and the first `per_theme` papers for each of
    its largest themes, the smaller ones in brief, and where to start. Needs its themes (built on demand from the
    semantic index). Without a `summarizer` or `ranker`, the ones the store's settings choose. With an LLM (`client`,
    else an LLM summarizer's), its paragraphs are the model's prose checked sentence by sentence (written.py)."""
    whole_number("per_theme", per_theme)
    info = store.get_venue(venue)
    venue = info.id
    summarizer = summarizer or summarizer_for(store, venue)
    try:
        ensure_topics(store, venue)
    except ConfnavError as exc:
        raise ConfnavError(f"the overview needs themes: {exc}") from None
    facts = venue_facts(store, venue)
    ranking = (ranker or make_ranker(store.settings, mode=mode)).rank(store, venue)
    themes = theme_facts(store, venue)
    top = [t for t in themes if t.level == 1]
    major = [t for t in top if t.share >= MAJOR_SHARE][:MAJOR_THEMES]
    previous, trend = trend_facts(store, venue, top)
    report = Report("overview", info, f"{info.name}: an overview", facts=[*(config or []), *facts])
    report.context = trend
    report.mode, report.ranker = ranking.mode.value, ranker_name(store.settings, ranker)
    opening = venue_opening(info, facts, top, previous, {f.key: f for f in trend})
    client = client or (summarizer.client if isinstance(summarizer, LLMSummarizer) else None)
    shown = {f.key: f.value for f in [*facts, *trend]} | {
        k: f.value for t in themes for k, f in theme_facts_of(t).items()
    }
    labels = [t.label for t in themes]
    written: list[Written] = []
    if client and (text := _rewrite(client, written, "Opening", opening, shown, [], labels, info.name, set())):
        opening = text
    report.intro = f"{opening} {_guide(len(major), len(top) > len(major))} {ranking.header()}"
    report.notes = data_gaps(real_papers(store.iter_papers(venue)))
    said = set(re.findall(r"\{([a-z]+\.[\w.\-]+)\}", report.intro))
    in_theme: dict[str, list[RankedPaper]] = {t.id: [] for t in top}
    theme_of = {paper_id: t.id for t in top for paper_id in t.paper_ids}
    for item in ranking.papers:
        if item.paper.id in theme_of:
            in_theme[theme_of[item.paper.id]].append(item)
    vocabulary = Vocabulary(item.paper for item in ranking.papers)
    venue_rate = _venue_rate(facts)
    for theme in major:
        subs = [t for t in themes if t.parent == theme.id]
        pool = [
            Lead(item, cite, handle(cite))
            for item in in_theme[theme.id][:POOL]
            for cite in [citation(item, summarizer)]
        ]
        summary = theme_story(theme, subs, pool, in_theme[theme.id], ranking.mode, vocabulary, said, venue_rate)
        told = set(re.findall(r"\[\[cite:([^\]]+)\]\]", summary))
        given = [lead.cite for rank, lead in enumerate(pool) if rank < per_theme or lead.cite.paper_id in told]
        section_facts = theme_facts_of(theme)
        for sub in subs:
            section_facts.update(theme_facts_of(sub))
        if client and (
            text := _rewrite(client, written, theme.heading, summary, shown, given, labels, info.name, said)
        ):
            opened = "{" in text  # the model's paragraph states a fact of the theme, else its opening says them
            summary = text if opened else f"{theme_opening(theme, said, venue_rate, subs)} {text}"
            told = set(re.findall(r"\[\[cite:([^\]]+)\]\]", summary))
        cites = [lead.cite for rank, lead in enumerate(pool) if rank < per_theme or lead.cite.paper_id in told]
        report.sections.append(Section(theme.heading, summary, section_facts, cites, theme.id))
    if smaller := [t for t in top if t not in major and in_theme[t.id]]:
        report.sections.append(smaller_themes(smaller, in_theme, summarizer))
    closing = where_to_start(
        ranking.papers, top, summarizer, ranking.mode, closest_papers(store, venue, top[:START_PAPERS])
    )
    if client and (
        text := _rewrite(
            client, written, closing.title, closing.summary, shown, closing.citations, labels, info.name, said
        )
    ):
        closing.summary = text
    report.sections.append(closing)
    if written:
        generated, dropped = sum(w.checked.generated for w in written), sum(w.checked.dropped for w in written)
        replaced, visible = sum(w.checked.replaced for w in written), sum(bool(w.text) for w in written)
        report.notes.append(LLM_NOTES[0].format(len(written), visible, generated, dropped, replaced))
    if client is not None and client.down:
        report.notes.append(LLM_NOTES[1])
    if isinstance(summarizer, LLMSummarizer) and summarizer.failures:
        report.notes.append(LLM_NOTES[2].format(len(summarizer.failures)))
    return report


def _rewrite(
    client: ChatClient,
    written: list[Written],
    title: str,
    text: str,
    facts: dict[str, str],
    cites: list[Citation],
    themes: list[str],
    venue: str,
    said: set[str],
) -> str | None:
    """A paragraph in the model's checked prose (kept in `written`), or None: the extractive one stands. The model
    may state the facts the extractive `text` states (`facts`: each fact's shown value)."""
    if not text:
        return None
    stated = {key: facts[key] for key in re.findall(r"\{([a-z]+\.[\w.\-]+)\}", text) if key in facts}
    found = write_paragraph(client, Paragraph(title, text, stated, cites, themes), venue, said)
    if found is not None:
        written.append(found)
    return found.text if found and found.text else None


def _venue_rate(facts: list[Fact]) -> float | None:
    rate = next((f.value for f in facts if f.key == "venue.acceptance_rate"), None)
    value = getattr(rate, "value", None)
    return float(value) if isinstance(value, int | float) else None


def _guide(major: int, smaller: bool) -> str:
    rest = ", then the smaller ones in brief" if smaller else ""
    return (
        f"Below, its {major} largest themes, each with the papers the must-read ranking puts first{rest}, and "
        "where to start; every paper is linked to its own page where the data gives one."
    )


def smaller_themes(themes: list[ThemeFacts], in_theme: dict[str, list[RankedPaper]], summarizer: Summarizer) -> Section:
    """The themes below the largest, in one compact paragraph: each with its size and its first paper."""
    facts: dict[str, Fact] = {}
    cites, parts = [], []
    for theme in themes:
        cite = citation(in_theme[theme.id][0], summarizer)
        cites.append(cite)
        facts.update(theme_facts_of(theme))
        shown = handle(cite) or f'"{cite.title}"'
        parts.append(f"{theme.label} ({{theme.{theme.id}.size}} papers; first: {shown} [[cite:{cite.paper_id}]])")
    summary = "The smaller themes, each with the paper the ranking puts first: " + "; ".join(parts) + "."
    return Section("Smaller themes", summary, facts, cites)


def where_to_start(
    ranked: list[RankedPaper],
    themes: list[ThemeFacts],
    summarizer: Summarizer,
    mode: RankMode,
    closest: dict[str, list[str]] | None = None,
) -> Section:
    """The closing: the venue's first papers in the ranking's mode, and a way into each of the three largest themes:
    its accepted paper closest to its centre (`closest`: each theme's papers by closeness, else its most central
    few), a paper of another decision only where the theme has no accepted one; every paper's decision is shown."""
    label = {paper_id: t.label for t in themes for paper_id in t.paper_ids}
    first = [item for item in ranked if item.paper.id in label][:START_PAPERS]
    by_id = {item.paper.id: item for item in ranked}
    central = [
        (theme, by_id[entry])
        for theme in themes[:START_PAPERS]
        if (entry := way_in(theme, closest, by_id, lambda i: by_id[i].paper.decision.accepted))
    ]
    cites = {item.paper.id: citation(item, summarizer) for item in [*first, *(item for _, item in central)]}

    def named(item: RankedPaper) -> str:
        cite = cites[item.paper.id]
        shown = handle(cite) or f'"{cite.title}"'
        return f"{shown} [[cite:{cite.paper_id}]]"

    sentences = []
    if first:
        listed = [f"{named(item)} ({theme_and_decision(item.paper, label)})" for item in first]
        sentences.append(f"Across the venue, the ranking {mode.label} puts first {listing(listed)}.")
    if central:
        listed = [
            f"{named(item)} for {theme.label}" + (f" ({said})" if (said := unaccepted(item.paper)) else "")
            for theme, item in central
        ]
        which = "accepted paper" if all(item.paper.decision.accepted for _, item in central) else "paper"
        sentences.append(
            f"For a way into the largest themes, the {which} closest to each theme's centre: {listing(listed)}."
        )
    return Section("Where to start", " ".join(sentences), {}, list(cites.values()))


def way_in(
    theme: ThemeFacts, closest: dict[str, list[str]] | None, held: Collection[str], accepted: Callable[[str], bool]
) -> str | None:
    """The paper a theme is entered by: of its papers `held`, the accepted one closest to its centre (`closest`,
    else its most central few), one of another decision only where it has no accepted one."""
    near = [i for i in (closest or {}).get(theme.id, theme.representative) if i in held]
    return next((i for i in near if accepted(i)), near[0] if near else None)


def theme_and_decision(paper: Paper, label: dict[str, str]) -> str:
    """What the closing says beside a paper the venue's ranking puts first: its theme, and its decision when the
    venue did not accept it ("graph neural networks; Reject")."""
    return "; ".join(filter(None, [label[paper.id], unaccepted(paper)]))


def unaccepted(paper: Paper) -> str:
    """The decision of a paper the venue did not accept, as the overview says it beside the paper ("" else)."""
    decision = paper.decision
    return decision.name if decision.outcome is not Outcome.UNKNOWN and not decision.accepted else ""


def closest_papers(store: AnalysisStore, venue: str, themes: list[ThemeFacts]) -> dict[str, list[str]] | None:
    """Each theme's papers, closest to its centre (the mean of its members' vectors) first; None without vectors."""
    try:
        vectors = topic_vectors(store, venue)
    except ConfnavError:
        return None
    row = {paper.id: i for i, paper in enumerate(vectors.papers)}
    found = {}
    for theme in themes:
        members = [p for p in theme.paper_ids if p in row]
        if members:
            block = vectors.vectors[[row[p] for p in members]]
            centre = block.mean(axis=0)
            closeness = block @ (centre / (np.linalg.norm(centre) or 1.0))
            found[theme.id] = [members[i] for i in np.argsort(-closeness, kind="stable")]
    return found
