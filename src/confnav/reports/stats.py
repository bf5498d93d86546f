"""Statistics of a venue: decisions and rates, ratings and agreement, authors, institutions, keywords, years.

Tables are computed here and nowhere else, so the verifier recomputes exactly what
a report shows.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict

from confnav.model import Decision, Paper, fold, name_key
from confnav.reports.charts import bar_chart, rating_histogram
from confnav.reports.facts import venue_facts
from confnav.reports.institutions import normalize_institution
from confnav.reports.model import Chart, Report, Table, count, percent
from confnav.store import SqliteStore

TOP = 15
REVIEWED_DECISIONS = (Decision.ORAL, Decision.SPOTLIGHT, Decision.POSTER, Decision.REJECT, Decision.WITHDRAWN)


def _mean(values: list[float]) -> str:
    return f"{statistics.fmean(values):.2f}" if values else "-"


def decision_table(papers: list[Paper]) -> Table:
    reviewed = sum(p.decision.reviewed for p in papers)
    tally = Counter(p.decision for p in papers)
    rows = [[d.value, count(tally[d]), percent(tally[d], reviewed)] for d in Decision if tally[d]]
    return Table("decisions", "Decisions", ["Decision", "Papers", "Share of reviewed"], rows)


def rating_table(papers: list[Paper]) -> Table:
    rows = []
    for decision in REVIEWED_DECISIONS:
        means = [p.rating_mean for p in papers if p.decision is decision and p.rating_mean is not None]
        if means:
            rows.append([decision.value, count(len(means)), _mean(means), f"{statistics.median(means):.2f}",
                         f"{min(means):.2f}", f"{max(means):.2f}"])  # fmt: skip
    return Table(
        "ratings", "Mean reviewer rating by decision", ["Decision", "Papers", "Mean", "Median", "Min", "Max"], rows
    )


def agreement_table(papers: list[Paper]) -> Table:
    rows = []
    for decision in REVIEWED_DECISIONS:
        rated = [p.ratings for p in papers if p.decision is decision and len(p.ratings) > 1]
        if rated:
            spreads = [max(r) - min(r) for r in rated]
            deviations = [statistics.pstdev(r) for r in rated]
            unanimous = sum(1 for s in spreads if s == 0)
            rows.append(
                [decision.value, count(len(rated)), _mean(spreads), _mean(deviations), percent(unanimous, len(rated))]
            )
    header = ["Decision", "Papers", "Mean spread (max − min)", "Mean std", "All reviewers agree"]
    return Table("agreement", "Reviewer agreement", header, rows)


def author_table(papers: list[Paper]) -> Table:
    accepted: Counter[str] = Counter()
    orals: Counter[str] = Counter()
    submitted: Counter[str] = Counter()
    names: dict[str, Counter[str]] = defaultdict(Counter)
    for paper in papers:
        for author in paper.authors:
            key = name_key(author.name)
            names[key][author.name] += 1
            submitted[key] += 1
            accepted[key] += paper.decision.accepted
            orals[key] += paper.decision is Decision.ORAL
    top = sorted(accepted, key=lambda k: (-accepted[k], -orals[k], k))[:TOP]
    rows = [[names[k].most_common(1)[0][0], count(accepted[k]), count(orals[k]), count(submitted[k])] for k in top]
    return Table("authors", "Authors with the most accepted papers", ["Author", "Accepted", "Orals", "Submitted"], rows)


def institution_table(papers: list[Paper]) -> Table:
    accepted_papers = [p for p in papers if p.decision.accepted]
    tally: Counter[str] = Counter()
    for paper in accepted_papers:
        affiliations = paper.affiliations or [a.affiliation for a in paper.authors if a.affiliation]
        tally.update({normalize_institution(a) for a in affiliations if a})
    top = sorted(tally, key=lambda k: (-tally[k], k))[:TOP]
    rows = [[name, count(tally[name]), percent(tally[name], len(accepted_papers))] for name in top]
    header = ["Institution", "Accepted papers", "Share of accepted"]
    return Table("institutions", "Institutions with the most accepted papers (names normalised)", header, rows)


def keyword_table(papers: list[Paper], top: int = 25, by_rating: bool = False, min_papers: int = 15) -> Table:
    groups: dict[str, list[Paper]] = defaultdict(list)
    shown: dict[str, Counter[str]] = defaultdict(Counter)
    for paper in papers:
        for keyword in {fold(k): k.strip().lower() for k in paper.keywords if fold(k)}.items():
            groups[keyword[0]].append(paper)
            shown[keyword[0]][keyword[1]] += 1

    def mean_rating(key: str) -> float:
        values = [p.rating_mean for p in groups[key] if p.rating_mean is not None]
        return statistics.fmean(values) if values else 0.0

    if by_rating:
        keys = sorted((k for k in groups if len(groups[k]) >= min_papers), key=lambda k: (-mean_rating(k), k))[:10]
        table_id, caption = "keyword_rating", f"Highest-rated keywords (at least {min_papers} papers)"
    else:
        keys = sorted(groups, key=lambda k: (-len(groups[k]), k))[:top]
        table_id, caption = "keywords", "Most frequent keywords"
    rows = [
        [shown[k].most_common(1)[0][0], count(len(groups[k])), count(sum(p.decision.accepted for p in groups[k])),
         _mean([p.rating_mean for p in groups[k] if p.rating_mean is not None])]
        for k in keys
    ]  # fmt: skip
    return Table(table_id, caption, ["Keyword", "Papers", "Accepted", "Mean rating"], rows)


def year_table(store: SqliteStore, venue: str) -> Table | None:
    """The same measures for the previous venue of the same conference, when loaded."""
    this = store.get_venue(venue)
    earlier = [s.venue for s in store.venues() if s.venue.conference == this.conference and s.venue.year < this.year]
    if not earlier:
        return None
    previous = earlier[-1]
    columns = [(previous, list(store.iter_papers(previous.id))), (this, list(store.iter_papers(venue)))]
    measures = [
        ("Submissions reviewed", lambda ps: count(sum(p.decision.reviewed for p in ps))),
        ("Accepted", lambda ps: count(sum(p.decision.accepted for p in ps))),
        (
            "Acceptance rate",
            lambda ps: percent(sum(p.decision.accepted for p in ps), sum(p.decision.reviewed for p in ps)),
        ),
        ("Orals", lambda ps: count(sum(p.decision is Decision.ORAL for p in ps))),
        ("Spotlights", lambda ps: count(sum(p.decision is Decision.SPOTLIGHT for p in ps))),
        ("Mean rating", lambda ps: _mean([p.rating_mean for p in ps if p.rating_mean is not None])),
    ]
    rows = [[label, *(measure(ps) for _, ps in columns)] for label, measure in measures]
    return Table("years", "Year over year", ["Measure", previous.name, this.name], rows)


def stats_tables(store: SqliteStore, venue: str) -> list[Table]:
    papers = list(store.iter_papers(venue))
    tables = [
        decision_table(papers), rating_table(papers), agreement_table(papers), author_table(papers),
        institution_table(papers), keyword_table(papers), keyword_table(papers, by_rating=True),
    ]  # fmt: skip
    if (years := year_table(store, venue)) is not None:
        tables.append(years)
    return tables


def build_stats_report(store: SqliteStore, venue: str, charts: bool = True) -> Report:
    info = store.get_venue(venue)
    report = Report("stats", info, f"{info.name}: statistics", facts=venue_facts(store, venue))
    report.intro = (
        "Rates are shares of the submissions that entered review (desk rejects excluded). Institutions are "
        "counted once per accepted paper after normalising their names (docs/reports.md)."
    )
    report.tables = stats_tables(store, venue)
    if charts:
        papers = list(store.iter_papers(venue))
        top = next(t for t in report.tables if t.id == "keywords").rows[:15]
        counts = [float(row[1].replace(",", "")) for row in top]
        report.charts = [
            Chart("ratings", "Mean reviewer rating of each paper, by decision", rating_histogram(papers)),
            Chart("keywords", "Most frequent keywords (papers)", bar_chart([row[0] for row in top], counts, "papers")),
        ]
    return report


def stats_json(store: SqliteStore, venue: str) -> dict[str, object]:
    """The statistics as JSON: facts by key and each table as a list of row objects."""
    facts = {f.key: f.value for f in venue_facts(store, venue)}
    tables = {t.id: [dict(zip(t.header, row, strict=True)) for row in t.rows] for t in stats_tables(store, venue)}
    return {"venue": venue, "facts": facts, "tables": tables}
