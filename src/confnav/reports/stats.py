"""Statistics of a venue: decisions and rates, ratings and agreement, authors, institutions, keywords, years.

Tables are computed here and nowhere else, so the verifier recomputes exactly what
a report shows.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from confnav.institutions import institution_names, normalize_institution
from confnav.model import Outcome, Paper, RatingScale, fold, name_key, real_papers
from confnav.people import PeopleIndex
from confnav.reports.charts import bar_chart, paired_bars, rating_histogram
from confnav.reports.facts import (
    data_gaps,
    lists_rejections,
    namesake_note,
    placeholder_note,
    rate_basis,
    venue_facts,
)
from confnav.reports.institutions import paper_affiliations
from confnav.reports.model import Chart, Report, Table, count, decimal, percent, plain
from confnav.reports.rebuttal import rating_order
from confnav.reports.rebuttal_stats import RebuttalStatsStore, rebuttal_section, rebuttal_tables, venue_rebuttal
from confnav.store.protocols import PaperReader
from confnav.topics.spellings import Spellings

TOP = 15


@dataclass(frozen=True)
class Holds:
    """What a venue's data holds, so that a table or column is shown only when the data can fill it."""

    decisions: bool  # some paper has a known decision
    rejections: bool  # the data lists submissions that were not accepted, not only accepted papers
    ratings: bool
    orals: bool  # some accepted paper is an oral
    keywords: bool

    @classmethod
    def of(cls, papers: list[Paper]) -> Holds:
        decisions = [p.decision for p in papers]
        return cls(
            decisions=any(d.outcome is not Outcome.UNKNOWN for d in decisions),
            rejections=lists_rejections(decisions),
            ratings=any(p.ratings for p in papers),
            orals=any(d.accepted and d.kind == "oral" for d in decisions),
            keywords=any(p.keywords for p in papers),
        )


def _columns(table: Table, shown: list[bool]) -> Table:
    """The table with only the columns marked shown (those the data can fill)."""
    keep = [i for i, flag in enumerate(shown) if flag]
    rows = [[row[i] for i in keep] for row in table.rows]
    return Table(table.id, table.caption, [table.header[i] for i in keep], rows, table.names)


def counted_papers(store: PaperReader, venue: str) -> list[Paper]:
    """The papers every statistic counts: a venue's papers without its placeholders (see venue_notes)."""
    return real_papers(store.iter_papers(venue))


def venue_notes(store: PaperReader, venue: str) -> list[str]:
    """What a venue's statistics cannot show: the data it lacks, and the placeholder records left out (one read)."""
    papers = list(store.iter_papers(venue))
    counted = real_papers(papers)
    notes = (namesake_note(counted), placeholder_note(papers))
    return [*data_gaps(counted), *(note for note in notes if note)]


def _mean(values: list[float]) -> str:
    return decimal(statistics.fmean(values) if values else None)


def reviewed_means(papers: list[Paper]) -> list[float]:
    """The papers' mean ratings that statistics count (Paper.reviewed_rating_mean: desk rejects left out)."""
    return [m for p in papers if (m := p.reviewed_rating_mean) is not None]


def _by_decision(papers: list[Paper]) -> dict[str, list[Paper]]:
    """Papers grouped by decision name, most prominent decision first."""
    groups: dict[str, list[Paper]] = defaultdict(list)
    for paper in sorted(papers, key=lambda p: (p.decision.tier, p.decision.name)):
        groups[paper.decision.name].append(paper)
    return groups


def decision_table(papers: list[Paper]) -> Table:
    """Papers by decision with their share of the decided submissions (of the listed papers when the data lists
    accepted papers only, so that no share reads as an acceptance rate); no rows when the data holds no decisions."""
    if not Holds.of(papers).decisions:
        return Table("decisions", "Decisions", [], [])
    decided = sum(p.decision.decided for p in papers)
    share = "Share of decided" if lists_rejections([p.decision for p in papers]) else "Share of listed papers"
    rows = [
        [
            name,
            group[0].decision.outcome.label,
            count(len(group)),
            percent(len(group), decided) if group[0].decision.decided else percent(0, 0),
        ]
        for name, group in _by_decision(papers).items()
    ]
    return Table("decisions", "Decisions", ["Decision", "Outcome", "Papers", share], rows)


def rating_table(papers: list[Paper]) -> Table:
    rows = []
    for name, group in _by_decision(papers).items():
        means = reviewed_means(group)
        if means:
            rows.append(
                [
                    name,
                    count(len(means)),
                    _mean(means),
                    decimal(statistics.median(means)),
                    decimal(min(means)),
                    decimal(max(means)),
                ]
            )
    scale = RatingScale.of([r for p in papers for r in p.ratings])
    return Table(
        "ratings",
        f"Mean reviewer rating by decision (scale {scale.describe()})",
        ["Decision", "Papers", "Mean", "Median", "Min", "Max"],
        rows,
    )


def agreement_table(papers: list[Paper]) -> Table:
    rows = []
    for name, group in _by_decision(papers).items():
        rated = [p.reviewed_ratings for p in group if len(p.reviewed_ratings) > 1]
        if rated:
            spreads = [max(r) - min(r) for r in rated]
            deviations = [statistics.pstdev(r) for r in rated]
            unanimous = sum(1 for s in spreads if s == 0)
            rows.append([name, count(len(rated)), _mean(spreads), _mean(deviations), percent(unanimous, len(rated))])
    header = ["Decision", "Papers", "Mean spread (max − min)", "Mean std", "All reviewers agree"]
    return Table("agreement", "Reviewer agreement", header, rows)


@dataclass(frozen=True)
class AuthorRow:
    """One person's papers at a venue: their key (as the author pages tell people apart), the name they are
    listed under, the name shown (with their institution when the venue has namesakes) and the counts."""

    key: str
    name: str
    shown: str
    accepted: int
    orals: int
    submitted: int


def author_rows(papers: list[Paper], people: PeopleIndex | None = None) -> list[AuthorRow]:
    """Every person with an accepted paper, most accepted first (then orals), one row per person by profile id,
    never people sharing a name summed; `people` tells them apart (default: by the profile ids of these papers)."""
    people = people or PeopleIndex(papers)
    accepted: Counter[str] = Counter()
    orals: Counter[str] = Counter()
    submitted: Counter[str] = Counter()
    names: dict[str, Counter[str]] = defaultdict(Counter)
    places: dict[str, Counter[str]] = defaultdict(Counter)
    for paper in papers:
        for key, author in {people.key(a): a for a in reversed(paper.authors)}.items():  # a person once a paper
            names[key][author.name] += 1
            if place := normalize_institution(author.place or ""):
                places[key][place] += 1
            submitted[key] += 1
            accepted[key] += paper.decision.accepted
            orals[key] += paper.decision.accepted and paper.decision.kind == "oral"
    named = {key: counted.most_common(1)[0][0] for key, counted in names.items()}
    shared = Counter(name_key(name) for name in named.values())

    def shown(key: str) -> str:  # the name, and whom it means when the venue has several people of that name
        if shared[name_key(named[key])] < 2:
            return named[key]
        if places[key]:
            return f"{named[key]} ({places[key].most_common(1)[0][0]})"
        return f"{named[key]} ({key.split(':', 1)[1] if key.startswith('profile:') else 'no profile'})"

    ranked = sorted((k for k in accepted if accepted[k]), key=lambda k: (-accepted[k], -orals[k], k))
    return [AuthorRow(k, named[k], shown(k), accepted[k], orals[k], submitted[k]) for k in ranked]


def author_table(papers: list[Paper]) -> Table:
    """Authors by accepted papers (`author_rows`, the first TOP); orals only when the venue has orals, submissions
    only when it lists them."""
    top = author_rows(papers)[:TOP]
    rows = [[r.shown, count(r.accepted), count(r.orals), count(r.submitted)] for r in top]
    header = ["Author", "Accepted", "Orals", "Submitted"]
    table = Table("authors", "Authors with the most accepted papers", header, rows)
    table.names = [r.name for r in top]  # the author page of the name (it tells namesakes apart)
    holds = Holds.of(papers)
    return _columns(table, [True, True, holds.orals, holds.rejections])


def accepted_by_institution(papers: list[Paper]) -> Counter[str]:
    """Each institution's accepted papers among `papers` (names normalised, each paper once per institution)."""
    tally: Counter[str] = Counter()
    for paper in papers:
        if paper.decision.accepted:
            tally.update({name for a in paper_affiliations(paper) for name in institution_names(a)})
    return tally


def institution_table(papers: list[Paper]) -> Table:
    accepted_papers = [p for p in papers if p.decision.accepted]
    tally = accepted_by_institution(accepted_papers)
    top = sorted(tally, key=lambda k: (-tally[k], k))[:TOP]
    rows = [[name, count(tally[name]), percent(tally[name], len(accepted_papers))] for name in top]
    header = ["Institution", "Accepted papers", "Share of accepted"]
    return Table("institutions", "Institutions with the most accepted papers (names normalised)", header, rows)


KeywordGroups = tuple[dict[str, list[Paper]], dict[str, Counter[str]]]


def keyword_groups(papers: list[Paper]) -> KeywordGroups:
    """The papers of each keyword, its spellings merged, and how often each spelling was written: what both
    keyword tables count (merging the spellings is most of their work, so it is done once for both)."""
    spellings = Spellings(papers)
    groups: dict[str, list[Paper]] = defaultdict(list)
    shown: dict[str, Counter[str]] = defaultdict(Counter)
    for paper in papers:
        for group, spelling in {spellings.group(k): k.strip().lower() for k in paper.keywords if fold(k)}.items():
            groups[group].append(paper)
            shown[group][spelling] += 1
    return groups, shown


def keyword_table(
    papers: list[Paper],
    top: int = 25,
    by_rating: bool = False,
    min_papers: int = 15,
    grouped: KeywordGroups | None = None,
) -> Table:
    """Keywords by papers (or by mean rating), spellings of one keyword counted as one as `trends` counts them
    (plurals, hyphens, an acronym the papers pair with its expansion); accepted counts only when the data lists
    more than accepted papers, ratings only when it holds them; no rows by rating without ratings. `grouped`:
    `keyword_groups(papers)`, when the caller has it."""
    holds = Holds.of(papers)
    groups, shown = grouped or keyword_groups(papers)

    def mean_rating(key: str) -> float:
        values = reviewed_means(groups[key])
        return statistics.fmean(values) if values else 0.0

    if by_rating:
        groups = groups if holds.ratings else {}
        keys = sorted((k for k in groups if len(groups[k]) >= min_papers), key=lambda k: (-mean_rating(k), k))[:10]
        table_id, caption = "keyword_rating", f"Highest-rated keywords (at least {min_papers} papers)"
    else:
        keys = sorted(groups, key=lambda k: (-len(groups[k]), k))[:top]
        table_id, caption = "keywords", "Most frequent keywords"
    rows = [
        [
            shown[k].most_common(1)[0][0],
            count(len(groups[k])),
            count(sum(p.decision.accepted for p in groups[k])),
            _mean(reviewed_means(groups[k])),
        ]
        for k in keys
    ]
    table = Table(table_id, caption, ["Keyword", "Papers", "Accepted", "Mean rating"], rows)
    return _columns(table, [True, True, holds.rejections, holds.ratings])


def year_table(store: PaperReader, venue: str) -> Table | None:
    """The same measures for the previous venue of the same conference, when loaded; ratings on differing
    scales are shown on each venue's own scale and rescaled to 0–1, never compared raw."""
    this = store.get_venue(venue)
    venue = this.id
    earlier = [v for v in store.venue_list() if v.conference == this.conference and v.year < this.year]
    if not earlier:
        return None
    previous = earlier[-1]
    columns = [(previous, counted_papers(store, previous.id)), (this, counted_papers(store, venue))]
    scales = [RatingScale.of([r for p in ps for r in p.ratings]) for _, ps in columns]

    def rate(ps: list[Paper]) -> str:
        decisions = [p.decision for p in ps]
        if not lists_rejections(decisions):
            return percent(0, 0)
        return percent(sum(d.accepted for d in decisions), sum(d.decided for d in decisions))

    def kind(name: str) -> Callable[[list[Paper]], str]:
        return lambda ps: count(sum(p.decision.accepted and p.decision.kind == name for p in ps))

    measures: list[tuple[str, Callable[[list[Paper]], str]]] = [
        ("Decided submissions that entered review", lambda ps: count(sum(p.decision.decided for p in ps))),
        ("Accepted", lambda ps: count(sum(p.decision.accepted for p in ps))),
        ("Acceptance rate (accepted of decided)", rate),
        ("Orals", kind("oral")),
        ("Spotlights", kind("spotlight")),
    ]
    holds = [Holds.of(ps) for _, ps in columns]
    rejections = any(h.rejections for h in holds)
    measures = [(label, m) for label, m in measures if rejections or not label.startswith(("Decided", "Acceptance"))]
    rows = [[label, *(measure(ps) for _, ps in columns)] for label, measure in measures]
    rows = [row for row in rows if row[0] not in ("Orals", "Spotlights") or any(c != "0" for c in row[1:])]
    means = [reviewed_means(ps) for _, ps in columns]
    if all(means):
        rows.append(["Rating scale", *(scale.describe() for scale in scales)])
        rows.append(["Mean rating (on the venue's own scale)", *(_mean(m) for m in means)])
        if not scales[0].same_as(scales[1]):
            rescaled = [[scale.rescale(v) for v in m] for scale, m in zip(scales, means, strict=True)]
            rows.append(["Mean rating rescaled to 0–1 (scales differ)", *(_mean(m) for m in rescaled)])
    return Table("years", "Year over year", ["Measure", previous.name, this.name], rows)


def stats_tables(store: RebuttalStatsStore, venue: str) -> list[Table]:
    """The tables the venue's data can fill, in report order (the rebuttal's when the venue has review
    histories): a table without rows is left out."""
    papers = counted_papers(store, venue)
    grouped = keyword_groups(papers)  # once for both keyword tables
    tables = [
        decision_table(papers),
        rating_table(papers),
        agreement_table(papers),
        author_table(papers),
        institution_table(papers),
        keyword_table(papers, grouped=grouped),
        keyword_table(papers, by_rating=True, grouped=grouped),
    ]
    if (years := year_table(store, venue)) is not None:
        tables.append(years)
    if (rebuttal := venue_rebuttal(store, venue)) is not None:
        tables += rebuttal_tables(rebuttal)
    return [t for t in tables if t.rows]


def build_stats_report(store: RebuttalStatsStore, venue: str, charts: bool = True) -> Report:
    info = store.get_venue(venue)
    venue = info.id
    report = Report("stats", info, f"{info.name}: statistics", facts=venue_facts(store, venue))
    papers = counted_papers(store, venue)
    decisions = [p.decision for p in papers]
    basis = f"Rates count accepted papers {rate_basis(decisions)}. " if lists_rejections(decisions) else ""
    report.intro = (
        f"{basis}Institutions are counted once per accepted paper after normalising their names "
        "(Google Research and Google Brain count as Google, for example)."
    )
    report.notes = venue_notes(store, venue)
    if report.notes:
        report.intro += " Tables the data cannot fill are left out; the notes at the end say what it lacks."
    report.tables = stats_tables(store, venue)
    rebuttal = venue_rebuttal(store, venue)
    if rebuttal is not None:
        report.sections.append(rebuttal_section(rebuttal))
    if charts:
        top = next((t.rows[:15] for t in report.tables if t.id == "keywords"), [])
        counts = [float(plain(row[1])) for row in top]  # type: ignore[arg-type]
        if any(p.ratings for p in papers):
            report.charts.append(
                Chart("ratings", "Mean reviewer rating of each paper, by decision", rating_histogram(papers))
            )
        if top:
            chart = bar_chart([row[0] for row in top], counts, "papers")
            report.charts.append(Chart("keywords", "Most frequent keywords (papers)", chart))
        if rebuttal is not None:
            before, after = rebuttal.before_after()
            ratings = rating_order(before, after)
            pairs = [float(before.get(r, 0)) for r in ratings], [float(after.get(r, 0)) for r in ratings]
            chart = paired_bars(ratings, *pairs, ("before", "after"), "rating")
            report.charts.append(Chart("rebuttal", "Reviews by rating before and after the rebuttal", chart))
    return report


def stats_json(store: RebuttalStatsStore, venue: str) -> dict[str, object]:
    """The statistics as JSON: facts by key and each table as a list of row objects."""
    shown = venue_facts(store, venue)
    tables = {
        t.id: [{h: plain(c) for h, c in zip(t.header, row, strict=True)} for row in t.rows]
        for t in stats_tables(store, venue)
    }
    return {
        "venue": venue,
        "facts": {f.key: plain(f.value) for f in shown},
        "labels": {f.key: f.label for f in shown},
        "tables": tables,
        "notes": venue_notes(store, venue),
    }
