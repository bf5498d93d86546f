"""Every conference: open decisions, venues and tracks, derived ids, links, rating scales (real paperlists files)."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.decisions import DecisionTable, load_decision_table
from confnav.ingest import ingest
from confnav.model import Outcome, Venue, real_papers, split_venue
from confnav.store import PaperFilter, open_store
from tests.backends import clone
from tests.conftest import DATA, ICLR2020, snapshot

Write = Callable[[str, str], Path]
PAPERLISTS = sorted((DATA / "paperlists").glob("*.json"))
# The README's counts, labels exactly as the files give them.
LABELS = {
    "iclr2018": {"Poster": 314, "Oral": 23, "Workshop": 90, "Reject": 496, "Withdraw": 69, "Active": 3},
    "neurips2018": {"Poster": 812, "Spotlight": 167, "Oral": 30},
    "cvpr2019": {"Poster": 1006, "Oral": 288},
    "acl2022": {"Long": 603, "Findings": 331, "Short": 97},
    "siggraph2022": {"Technical Paper": 194, "TOG Paper": 53, "Poster": 66},
    "corl2023": {"Poster": 166, "Oral": 33},
}


@pytest.fixture(scope="session")
def venues_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The six real paperlists files of other conferences in one store, built once; copy before writing."""
    path = tmp_path_factory.mktemp("venues") / "venues.db"
    with open_store(path, create=True) as store:
        ingest(store, PAPERLISTS)
    return path


def test_each_venue_keeps_its_labels_and_counts(venues_db: Path) -> None:
    with open_store(venues_db, create=True) as store:
        assert {s.venue.id for s in store.venues()} == set(LABELS)
        for venue, labels in LABELS.items():
            assert Counter(p.decision.label for p in store.iter_papers(venue)) == labels, venue
        names = {s.venue.id: s.venue.name for s in store.venues()}
    assert names["neurips2018"] == "NeurIPS 2018" and names["corl2023"] == "CoRL 2023"
    assert names["siggraph2022"] == "SIGGRAPH 2022"


def test_iclr2018_workshop_invitations_are_not_acceptances(venues_db: Path) -> None:
    from confnav.reports.facts import venue_facts

    with open_store(venues_db, create=True) as store:
        papers = list(store.iter_papers("iclr2018"))
        facts = {f.key: f for f in venue_facts(store, "iclr2018")}
    assert sum(p.decision.accepted for p in papers) == 337
    assert sum(p.decision.kind == "oral" for p in papers) == 23
    assert sum(p.decision.outcome is Outcome.WORKSHOP for p in papers) == 90
    assert sum(p.decision.outcome is Outcome.PENDING for p in papers) == 3  # "Active": still under review
    assert facts["venue.accepted"].value == "337" and facts["venue.workshop"].value == "90"
    rate = facts["venue.acceptance_rate"]
    assert "90 workshop invitations counted as not accepted" in rate.label and "3 pending" in rate.label
    assert rate.value == f"{100 * 337 / (995 - 3 - 7):.1f}%"  # 7 withdrawn placeholders ("title") not counted


def test_venue_facts_counted_by_the_database_equal_those_of_the_papers(venues_db: Path) -> None:
    from confnav.reports.facts import decision_facts, venue_facts

    with open_store(venues_db, create=True) as store:
        for summary in store.venues():
            papers = real_papers(store.iter_papers(summary.venue.id))  # placeholders are counted by neither
            assert venue_facts(store, summary.venue.id) == decision_facts([p.decision for p in papers])


def test_accepted_kinds_of_other_venues(venues_db: Path) -> None:
    with open_store(venues_db, create=True) as store:
        acl = Counter(p.decision.kind for p in store.iter_papers("acl2022") if p.decision.accepted)
        siggraph = Counter(p.decision.kind for p in store.iter_papers("siggraph2022") if p.decision.accepted)
        assert len(store.papers(PaperFilter(venue="acl2022", decision="findings"))) == 331
        assert len(store.papers(PaperFilter(venue="acl2022", decision="accepted"))) == 1031
        with pytest.raises(Exception, match="no paper has the decision 'maybe'"):
            store.papers(PaperFilter(decision="maybe"))
    assert acl == {"long": 603, "findings": 331, "short": 97}
    assert siggraph == {"technical": 194, "journal": 53, "poster": 66}


def test_a_second_ingest_changes_nothing(venues_db: Path, tmp_path: Path) -> None:
    copy = clone(venues_db, tmp_path, "again")
    before = snapshot(copy)
    with open_store(copy, create=True) as store:
        result = ingest(store, PAPERLISTS)
    assert (result.added, result.updated, result.unchanged) == (0, 0, 4841)
    assert snapshot(copy) == before


def test_unknown_label_is_kept_counted_and_named_in_one_warning(write: Write, tmp_path: Path) -> None:
    records = [
        {"id": "a1", "title": "First", "status": "Maybe Later", "author": "Ann Lee"},
        {"id": "a2", "title": "Second", "status": "Maybe Later", "author": "Bo Chen"},
        {"id": "a3", "title": "Third", "status": "Poster", "author": "Cy Dee"},
    ]
    path = write("conf2024.json", json.dumps(records))
    result = CliRunner().invoke(cli, ["ingest", "--db", str(tmp_path / "s.db"), str(path)])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if "Maybe Later" in line]
    assert len(warnings) == 1 and "'Maybe Later' (2 papers)" in warnings[0] and "[decisions.conf2024]" in warnings[0]
    with open_store(tmp_path / "s.db", create=True) as store:
        paper = store.get_paper("a1")
        summary = store.venues()[0]
    assert paper.decision.label == "Maybe Later" and paper.decision.outcome is Outcome.OTHER
    assert summary.by_outcome == {"accepted": 1, "other": 2}


def test_the_decision_table_can_be_overridden_per_venue_in_a_config(write: Write, tmp_path: Path) -> None:
    records = [{"id": "a1", "title": "First", "status": "Maybe Later"}, {"id": "a2", "title": "Two", "status": "Long"}]
    path = write("conf2024.json", json.dumps(records))
    rules = '[decisions.conf2024]\n"Maybe Later" = "accepted:journal"\n[decisions.conf]\nLong = "reject"\n'
    config = write("confnav.toml", rules)
    db = tmp_path / "s.db"
    result = CliRunner().invoke(cli, ["ingest", "--db", str(db), "--config", str(config), str(path)])
    assert result.exit_code == 0, result.output
    with open_store(db, create=True) as store:
        assert store.get_paper("a1").decision.kind == "journal" and store.get_paper("a1").decision.accepted
        assert store.get_paper("a2").decision.outcome is Outcome.NOT_ACCEPTED  # the series-wide rule
        ingest(store, [path])  # the override stays with the store
        assert store.get_paper("a1").decision.accepted
    shown = CliRunner().invoke(cli, ["decisions", "--db", str(db), "--json"])
    rows = {row["label"]: row for row in json.loads(shown.stdout)}
    assert rows["Maybe Later"]["source"] == "override" and rows["Maybe Later"]["decision"] == "journal"
    bad = write("bad.toml", '[decisions.conf2024]\n"Maybe" = "perhaps"\n')
    with pytest.raises(Exception, match=r"bad.toml, field 'decisions.conf2024.Maybe': 'perhaps' is not an outcome"):
        load_decision_table(bad)
    misspelt = write("typo.toml", '[decision.conf2024]\n"Maybe" = "accepted"\n')
    with pytest.raises(Exception, match=r"\[decision\] is not read: did you mean \[decisions.VENUE\]"):
        load_decision_table(misspelt)


def test_the_decisions_table_counts_as_every_count_does(venues_db: Path) -> None:
    """ICLR 2018's 69 "Withdraw" records hold 7 placeholders: the decisions table counts 62 and says so, as
    `venues` does."""
    shown = CliRunner().invoke(cli, ["decisions", "--db", str(venues_db), "--venue", "iclr2018"])
    assert shown.exit_code == 0, shown.stderr
    withdrawn = next(line for line in shown.stdout.splitlines() if " Withdraw " in line)
    assert withdrawn.split()[4] == "62" and "iclr2018: 7 placeholder records not counted" in shown.stdout


def test_default_decision_table() -> None:
    table = DecisionTable()
    meanings = {
        label: table.meaning(label)
        for label in (
            "Accept (Oral)",
            "Talk",
            "Highlight",
            "Main",
            "Technical",
            "Poster Workshop",
            "Invite to Workshop",
            "Desk Reject",
            "Withdrawn Submission",
            "Active",
            "Accept (Findings)",
            "Something Else",
        )
    }
    assert meanings["Accept (Oral)"] == (Outcome.ACCEPTED, "oral") and meanings["Talk"] == (Outcome.ACCEPTED, "oral")
    assert meanings["Highlight"] == (Outcome.ACCEPTED, "spotlight") and meanings["Main"][0] is Outcome.ACCEPTED
    assert meanings["Poster Workshop"][0] is meanings["Invite to Workshop"][0] is Outcome.WORKSHOP
    assert meanings["Desk Reject"] == (Outcome.NOT_ACCEPTED, "desk-reject")
    assert meanings["Withdrawn Submission"] == (Outcome.NOT_ACCEPTED, "withdrawn")
    assert meanings["Active"][0] is Outcome.PENDING and meanings["Accept (Findings)"] == (Outcome.ACCEPTED, "findings")
    assert meanings["Something Else"][0] is Outcome.OTHER
    spelled = {
        label: table.meaning(label)
        for label in ("accept poster", "Accept-Oral", "accept_spotlight", "Accepted as Poster", "Accept for oral talk")
    }
    assert spelled == {
        "accept poster": (Outcome.ACCEPTED, "poster"),
        "Accept-Oral": (Outcome.ACCEPTED, "oral"),
        "accept_spotlight": (Outcome.ACCEPTED, "spotlight"),
        "Accepted as Poster": (Outcome.ACCEPTED, "poster"),
        "Accept for oral talk": (Outcome.ACCEPTED, "oral"),
    }
    assert table.meaning("Acceptance")[0] is Outcome.OTHER


def test_venue_names_and_tracks() -> None:
    assert Venue.parse("nips2018").id == "neurips2018" and Venue.parse("nips2018").name == "NeurIPS 2018"
    assert Venue.parse("SIGGRAPH Asia 2022").id == "siggraphasia2022"
    assert Venue.parse("siggraphasia2022").name == "SIGGRAPH Asia 2022"
    assert Venue.parse("automl-2024").name == "AutoML 2024" and Venue.parse("3DV 2024").id == "3dv2024"
    track = "Datasets and Benchmarks"
    assert split_venue(f"NeurIPS 2023 {track}") == (Venue.parse("neurips2023"), track)
    assert split_venue("ICLR 2021 Conference")[1] is None


def test_records_without_ids_get_stable_ids(venues_db: Path, write: Write, tmp_path: Path) -> None:
    with open_store(venues_db, create=True) as store:
        cvpr = store.get_paper("2154", "cvpr2019")  # its `pid`
        siggraph = store.get_paper("papers_544", "siggraph2022")  # its `ssid`
    assert cvpr.title.startswith('"Double-DIP"') and siggraph.title.startswith("A Clebsch Method")
    plain = [{"title": "No Id At All", "status": "Poster", "author": "Ann Lee"}]
    path = write("conf2023.json", json.dumps(plain))
    ids = []
    for name in ("one.db", "two.db"):
        with open_store(tmp_path / name, create=True) as store:
            ingest(store, [path])
            ingest(store, [path])
            ids.append([p.id for p in store.iter_papers()])
    assert ids[0] == ids[1] and len(ids[0]) == 1 and ids[0][0].startswith("t-")
    # a list without ids joins the papers already known by title, in either order
    csv = write(
        "cvpr2019.csv",
        'title,keywords\n"""Double-DIP"": Unsupervised Image Decomposition via Coupled '
        'Deep-Image-Priors",image priors\n',
    )
    copy = clone(venues_db, tmp_path, "copy")
    with open_store(copy, create=True) as store:
        assert ingest(store, [csv]).updated == 1
        assert store.count_papers("cvpr2019") == 1294 and store.get_paper("2154").keywords == ["image priors"]


def test_a_paper_twice_in_a_file_is_merged_and_papers_sharing_an_id_kept_apart(write: Write, tmp_path: Path) -> None:
    records = [
        {"id": "p1", "title": "Same Paper", "status": "Poster", "author": "Ann Lee"},
        {"id": "p1", "title": "Same  paper", "status": "Poster", "abstract": "Given the second time."},
        {"id": "p2", "title": "One Paper", "status": "Oral"},
        {"id": "p2", "title": "Another Paper Entirely", "status": "Poster"},
    ]
    path = write("conf2022.json", json.dumps(records))
    with open_store(tmp_path / "s.db", create=True) as store:
        result = ingest(store, [path])
        papers = {p.title: p for p in store.iter_papers()}
        again = ingest(store, [path])
    assert len(papers) == 3 and papers["Same Paper"].abstract == "Given the second time."
    assert papers["One Paper"].id == "p2" and papers["Another Paper Entirely"].id.startswith("p2~")
    assert any("id 'p2' is another paper's too" in w and "record 4" in w for w in result.warnings)
    assert any("listed more than once" in w for w in result.warnings)
    assert again.added == 0 and again.unchanged == 3


def test_links_come_from_the_source_never_a_made_up_openreview_url(
    venues_db: Path, write: Write, tmp_path: Path
) -> None:
    with open_store(venues_db, create=True) as store:
        nips = store.get_paper("11127", "neurips2018")
        acl = store.get_paper("2022.acl-short.96")
        cvpr = store.get_paper("2154", "cvpr2019")
        iclr = store.get_paper("B11bwYgfM")
        siggraph = store.get_paper("papers_544")
    assert "forum" not in nips.links and nips.url == "https://nips.cc/virtual/2018/poster/11127"
    assert acl.url == "https://aclanthology.org/2022.acl-short.96/" and "openreview" not in str(acl.links)
    assert cvpr.url and cvpr.url.startswith("https://openaccess.thecvf.com/") and cvpr.url.endswith(".html")
    assert iclr.url == "https://openreview.net/forum?id=B11bwYgfM"
    assert siggraph.url == "https://doi.org/10.1145/3528223.3530150"
    csv = write("conf2024.csv", "id,title\nx1,A Paper From A Spreadsheet\n")
    with open_store(tmp_path / "s.db", create=True) as store:
        ingest(store, [csv])
        assert store.get_paper("x1").links == {} and store.get_paper("x1").url is None


def test_what_the_sources_carry_is_kept(venues_db: Path) -> None:
    with open_store(venues_db, create=True) as store:
        nips = store.get_paper("11127", "neurips2018")
        acl = store.get_paper("2022.acl-short.96")
        corl = store.get_paper("-3G6_D66Aua")
        cvpr = store.get_paper("2154", "cvpr2019")
        iclr = store.get_paper("B11bwYgfM")
    assert nips.citations and (nips.citations.count, nips.citations.source, nips.citations.as_of) == (
        36,
        "Google Scholar",
        None,
    )
    assert nips.institutions == ["Nanjing University"] and nips.countries == ["China"]
    assert nips.authors[0].institution == "Nanjing University" and nips.authors[0].country == "China"
    assert acl.authors[0].profile == "/o/omer-goldman/" and acl.decision.label == "Short"
    assert corl.authors[0].profile == "~Bibit_Bianchini1"
    assert corl.tldr and corl.provenance["tldr"].startswith("paperlists")
    assert cvpr.session == "Low-Level & Optimization"
    assert iclr.tldr and iclr.keywords == [
        "task clustering",
        "matrix completion",
        "multi-task learning",
        "few-shot learning",
    ]


def test_a_record_without_a_title_is_bad_input_under_strict(write: Write, tmp_path: Path) -> None:
    path = write("conf2024.json", json.dumps([{"id": "a1", "title": "Fine", "status": "Poster"}, {"id": "a2"}]))
    result = CliRunner().invoke(cli, ["ingest", "--db", str(tmp_path / "s.db"), "--strict", str(path)])
    assert result.exit_code == 1
    assert "conf2024.json, record 2, field 'title': missing title; nothing was written" in result.stderr
    with open_store(tmp_path / "s.db", create=True) as store:
        assert store.count_papers() == 0


def test_rating_scales_are_never_compared_silently(tmp_path: Path) -> None:
    from confnav.reports.stats import year_table

    with open_store(tmp_path / "s.db", create=True) as store:
        ingest(store, [ICLR2020, DATA / "iclr2021" / "paperlists-iclr2021.json"])
        table = year_table(store, "iclr2021")
        assert table is not None
        rows = {row[0]: row[1:] for row in table.rows}
        assert rows["Rating scale"] == ["1, 3, 6, 8", "1–10"]
        assert "Mean rating rescaled to 0–1 (scales differ)" in rows
        with pytest.raises(Exception, match=r"different scales \(iclr2020: 1, 3, 6, 8; iclr2021: 1–10\)"):
            store.papers(PaperFilter(min_rating=6))
        assert store.papers(PaperFilter(venue="iclr2021", min_rating=8))


@pytest.fixture(scope="session")
def themed_venues_db(venues_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The six venues with the TF-IDF index and themes for three without reviews (one without abstracts)."""
    from confnav.embed import SparseEmbedder
    from confnav.index import build_index
    from confnav.topics import ensure_topics

    path = tmp_path_factory.mktemp("themed") / "themed.db"
    shutil.copy(venues_db, path)
    with open_store(path, create=True) as store:
        build_index(store, SparseEmbedder())
        for venue in ("neurips2018", "cvpr2019", "siggraph2022"):
            ensure_topics(store, venue)
    return path


@pytest.mark.parametrize("venue", ["neurips2018", "cvpr2019"])
def test_reports_of_venues_without_reviews_are_generated_and_verified(themed_venues_db: Path, venue: str) -> None:
    from confnav.reports.digest import build_digest
    from confnav.reports.overview import build_overview
    from confnav.reports.render import to_html, to_markdown
    from confnav.reports.stats import build_stats_report
    from confnav.reports.verify import verify_text

    with open_store(themed_venues_db, create=True) as store:
        reports = [build_overview(store, venue), build_digest(store, venue), build_stats_report(store, venue, False)]
        for report in reports:
            for text in (to_markdown(report), to_html(report)):
                result = verify_text(store, text)
                assert result.ok, result.failures
                assert "openreview.net" not in text
        overview, _, stats = reports
        keys = {f.key for f in overview.facts}
    assert "venue.acceptance_rate" not in keys and "venue.accepted" in keys  # only accepted papers are listed
    assert "lists" in overview.intro and overview.sections and all(s.citations for s in overview.sections)
    assert "The data holds no reviewer ratings or keywords." in stats.notes  # one line for all that is missing
    assert any("accepted papers only" in note for note in stats.notes)


def test_themes_and_map_from_titles_alone(themed_venues_db: Path) -> None:
    from confnav.topics import theme_facts

    with open_store(themed_venues_db, create=True) as store:
        themes = theme_facts(store, "siggraph2022", level=1)
        placed = store.assignments("siggraph2022")
    assert len(themes) >= 3 and sum(t.size for t in themes) == 313 and len(placed) == 313
    kinds = {kind: sum(t.accepted_kinds.get(kind, 0) for t in themes) for kind in ("technical", "journal", "poster")}
    assert kinds == {"technical": 194, "journal": 53, "poster": 66}  # its own kinds, not "0 oral, 0 spotlight"
    assert "oral" not in themes[0].accepted_as and "technical" in themes[0].accepted_as
    listed = CliRunner().invoke(cli, ["topics", "--db", str(themed_venues_db), "--venue", "siggraph2022", "-q"])
    assert listed.exit_code == 0 and "technical" in listed.output and "oral" not in listed.output, listed.output


@pytest.mark.parametrize("venue", ["neurips2018", "cvpr2019", "siggraph2022"])
def test_labels_from_titles_alone_are_whole_phrases(themed_venues_db: Path, venue: str) -> None:
    """No label of a venue without keywords is cut from a longer phrase: judged on its members' titles and on
    how the whole venue writes the phrase in its prose ("distributed stochastic" gradient); one from a single
    title mostly ends where that title's words do ("wave function" collapse)."""
    from confnav.topics import theme_facts
    from confnav.topics.fidelity import Prose, label_faults

    with open_store(themed_venues_db, create=True) as store:
        themes = [t for level in (1, 2) for t in theme_facts(store, venue, level=level)]
        papers = {p.id: p for p in store.iter_papers(venue)}
    prose = Prose(list(papers.values()))
    faults = {t.label: label_faults(t.label, [papers[i] for i in t.paper_ids], prose) for t in themes}
    cut = [label for label, f in faults.items() if f.cut]
    single, running = sum(f.one_title for f in faults.values()), [label for label, f in faults.items() if f.runs_on]
    assert not cut and len(running) <= max(1, single // 10), (cut, running)


@pytest.mark.parametrize("venue", ["neurips2018", "cvpr2019", "siggraph2022"])
def test_every_label_is_used_by_two_of_its_papers_and_no_sub_theme_is_a_few_papers(
    themed_venues_db: Path, venue: str
) -> None:
    """QA 36: a 26-paper CVPR 2019 theme of person re-identification was "multi-person articulated" (cut from one
    title), SIGGRAPH 2022's themes were named by one paper's title each, and sub-themes of one paper were made."""
    from confnav.topics import theme_facts
    from confnav.topics.build import MIN_SUBTHEME
    from confnav.topics.fidelity import PhraseUse, parts

    with open_store(themed_venues_db, create=True) as store:
        themes = [t for level in (1, 2) for t in theme_facts(store, venue, level=level)]
        papers = {p.id: p for p in store.iter_papers(venue)}
    unsupported = []
    for theme in themes:
        uses = PhraseUse([papers[i] for i in theme.paper_ids])
        if not theme.label.startswith("theme ") and any(uses.of(part).sum() < 2 for part in parts(theme.label)):
            unsupported.append(theme.label)
    assert not unsupported, unsupported
    assert min(t.size for t in themes if t.level == 2) >= MIN_SUBTHEME
    assert not [t.id for t in themes if t.level == 2 and t.label.startswith("theme ")]  # unnamed parts: kept whole
    if venue == "cvpr2019":
        title = "Joint Discriminative and Generative Learning for Person Re-Identification"
        (reid,) = [t for t in themes if t.level == 1 and any(papers[i].title == title for i in t.paper_ids)]
        assert "person re-identification" in parts(reid.label), reid.label


def test_all_venue_search_puts_full_records_first(topics_db: Path) -> None:
    """ICLR 2020 records have titles only; for topic queries over both venues, most hits carry an abstract."""
    from confnav.search.engine import Searcher

    queries = [
        "graph neural networks",
        "adversarial robustness",
        "meta-learning few-shot",
        "neural architecture search",
        "generative adversarial networks",
    ]
    with open_store(topics_db, create=True) as store:
        searcher = Searcher(store)
        hits = [h for q in queries for h in searcher.search(q, limit=10).hits]
    full = sum(bool(h.paper.abstract) for h in hits) / len(hits)
    assert {h.paper.venue for h in hits} == {"iclr2020", "iclr2021"}
    assert full >= 0.6, full
    assert all(("abstract" in h.to_dict()["fields"]) == bool(h.paper.abstract) for h in hits)


def test_profile_ids_tell_apart_authors_who_share_a_name(write: Write, tmp_path: Path) -> None:
    from confnav.people import PeopleIndex
    from confnav.rank.signals import compute_signals

    def paper(pid: str, title: str, profile: str) -> dict[str, str]:
        return {
            "id": pid,
            "title": title,
            "status": "Poster",
            "author": "Yang Song;Ann Lee",
            "authorids": f"{profile};~Ann_Lee1",
        }

    two = [paper("a", "Scores", "~Yang_Song1"), paper("b", "Hearts", "~Yang_Song2")]
    earlier = write("conf2023.json", json.dumps(two))
    later = write("conf2024.json", json.dumps([paper("c", "Diffusion", "~Yang_Song1")]))
    with open_store(tmp_path / "s.db", create=True) as store:
        ingest(store, [earlier, later])
        people = PeopleIndex(store.iter_papers()).people_named("yang song", store.iter_papers())
        by_name = PeopleIndex(profiles=store.author_profiles(["yang song"]))
        asked = by_name.people_named("yang song", store.iter_papers())
        signals = compute_signals(store, "conf2024")
    assert sorted((p.profile, [x.id for x in p.papers]) for p in people) == [
        ("~Yang_Song1", ["c", "a"]),
        ("~Yang_Song2", ["b"]),
    ]
    assert [(p.key, [x.id for x in p.papers]) for p in asked] == [(p.key, [x.id for x in p.papers]) for p in people]
    record = {a.name: a.accepted for a in signals.papers[0].authors}
    assert record == {"Yang Song": 1, "Ann Lee": 2}  # not the other Yang Song's paper


@pytest.mark.parametrize("venue", ["neurips2018", "cvpr2019", "siggraph2022"])
def test_every_command_works_for_venues_without_reviews_abstracts_or_keywords(
    themed_venues_db: Path, venue: str, tmp_path: Path
) -> None:
    db = ["--db", str(themed_venues_db)]
    with open_store(themed_venues_db, create=True) as store:
        first = next(store.iter_papers(venue)).id
    report = tmp_path / "overview.md"
    commands = [
        ["venues"],
        ["ls", "--venue", venue, "--decision", "accepted"],
        ["show", first, "--venue", venue],
        ["search", "learning", "--venue", venue],
        ["search", "learning", "--mode", "keyword", "--venue", venue],
        ["similar", first, "--venue", venue],
        ["recommend", "--like", first, "--venue", venue],
        ["topics", "--venue", venue],
        ["topic", "t01", "--venue", venue],
        ["map", "--venue", venue, "--out", str(tmp_path / "map.png")],
        ["rank", "--venue", venue, "--explain", "--top", "5"],
        ["tldr", first],
        ["stats", "--venue", venue],
        ["report", "overview", "--venue", venue, "-o", str(report)],
        ["report", "digest", "--venue", venue, "-o", str(tmp_path / "digest.html")],
        ["report", "stats", "--venue", venue, "-o", str(tmp_path / "stats.md")],
        ["verify", str(report)],
    ]
    for command in commands:
        verb = 2 if command[0] == "report" else 1
        result = CliRunner().invoke(cli, [*command[:verb], *db, *command[verb:]])
        assert result.exit_code == 0, (command, result.output, result.exception)
        assert "Traceback" not in result.output


def test_every_page_works_for_venues_without_reviews(themed_venues_db: Path) -> None:
    from fastapi.testclient import TestClient

    from confnav.web.app import create_app

    client = TestClient(create_app(themed_venues_db), base_url="http://127.0.0.1")
    home = client.get("/")
    assert home.status_code == 200 and "NeurIPS 2018" in home.text and "100.0%" not in home.text  # no rate
    for venue in ("neurips2018", "siggraph2022"):
        with open_store(themed_venues_db, create=True) as store:
            paper = next(store.iter_papers(venue))
        for path in (
            f"/search?q=learning&venue={venue}",
            f"/paper/{paper.id}?venue={venue}",
            f"/themes/{venue}",
            f"/map?venue={venue}",
            f"/reports/{venue}/overview",
            f"/reports/{venue}/stats",
            f"/reports/{venue}/digest",
            f"/api/stats?venue={venue}",
            f"/api/rank?venue={venue}",
        ):
            response = client.get(path)
            assert response.status_code == 200, (path, response.text[:300])


def test_an_answer_over_two_venues_groups_papers_under_each_venues_own_themes(themed_venues_db: Path) -> None:
    """Two venues' themes share ids (t01, t02, …): an answer citing papers of both heads each group with its
    venue's name and one of that paper's own themes, never another venue's theme of the same id."""
    from confnav.answer import ask
    from confnav.search.engine import Searcher

    with open_store(themed_venues_db, create=True) as store:
        answer = ask(Searcher(store), "Which NeurIPS 2018 and CVPR 2019 papers study generative adversarial networks?")
        allowed: dict[tuple[str, str], set[str]] = {}
        for venue in ("neurips2018", "cvpr2019"):
            label = {t.id: t.label for t in store.themes(venue)}
            name = store.get_venue(venue).name
            ids = [item.paper.id for item in answer.papers if item.paper.venue == venue]
            for paper_id, themes in store.themes_of(venue, ids).items():
                allowed[(venue, paper_id)] = {f"{name}: {label[t][:1].upper()}{label[t][1:]}" for t in themes}
    assert {item.paper.venue for item in answer.papers} == {"neurips2018", "cvpr2019"}
    heads = {part.heading for part in answer.parts if part.heading}
    assert any(h.startswith("NeurIPS 2018: ") for h in heads) and any(h.startswith("CVPR 2019: ") for h in heads)
    for item in answer.papers:
        assert item.group in allowed[(item.paper.venue, item.paper.id)] | {"Other papers"}, (item.paper.id, item.group)


def test_counting_questions_read_as_researchers_ask_them(venues_db: Path) -> None:
    """Words of the question itself ("presented", "given", "compared to") are no topic, the narrower of two
    decisions is asked, and a series named without its year is all of its venues: counts as the raw files give."""
    from confnav.answer import ask
    from confnav.search.engine import Searcher

    def raw(name: str) -> list[dict[str, str]]:
        return json.loads((DATA / "paperlists" / name).read_text(encoding="utf-8"))

    spotlights = sum(p["status"] == "Spotlight" for p in raw("nips2018.json"))
    orals = sum(p["status"] == "Oral" for p in raw("cvpr2019.json"))
    with open_store(venues_db, create=True) as store:
        searcher = Searcher(store)
        asked = {
            "How many spotlights were presented at NeurIPS 2018?": spotlights,
            "How many orals were given at CVPR 2019?": orals,
        }
        for question, truth in asked.items():
            answer = ask(searcher, question)
            assert [c.value for c in answer.counts if c.decision] == [truth], question
        gans = ask(searcher, "How many papers on GANs were accepted as orals at CVPR 2019?")
        assert {c.decision for c in gans.counts} == {None, "oral"}
        corl = ask(searcher, "How many papers on robot learning at CoRL?")
        assert corl.venues == ["corl2023"] and corl.counts[0].phrase == "robot learning"
        from confnav.answer.question import read_question

        read = read_question(
            "How many papers on X nets were accepted at ICLR 2018 compared to CoRL 2023?", store.venue_list()
        )
        assert (read.venues, read.decision, read.topic) == (["iclr2018", "corl2023"], "accepted", "X nets")


def test_a_paper_of_a_two_word_title_is_found_by_it(venues_db: Path) -> None:
    from confnav.answer import ask
    from confnav.search.engine import Searcher

    with open_store(venues_db, create=True) as store:
        answer = ask(Searcher(store), "Was Spherical CNNs rejected at ICLR 2018?")
    said = " ".join(s.text for s in answer.sentences)
    assert "Hkbd5xZRb" in {c for s in answer.sentences for c in s.cites} and "was accepted (oral)" in said, said


def test_the_main_themes_of_a_venue_are_its_largest_themes(themed_venues_db: Path) -> None:
    from confnav.answer import ask
    from confnav.answer.check import verify_answer
    from confnav.search.engine import Searcher
    from confnav.topics import theme_facts

    with open_store(themed_venues_db, create=True) as store:
        searcher = Searcher(store)
        answer = ask(searcher, "What are the main themes of CVPR 2019 and ICLR 2018?")
        largest = sorted(theme_facts(store, "cvpr2019", level=1), key=lambda t: -t.size)[0]
        assert not verify_answer(searcher, answer)
    cvpr, iclr = (s.text for s in answer.sentences)
    assert cvpr.startswith(f"The largest themes of CVPR 2019 in the store are {largest.label} ({largest.size} papers)")
    assert "themes of ICLR 2018 are: they are not built yet (confnav topics --venue iclr2018)" in iclr


def test_the_best_rated_papers_come_in_their_reviewers_order_with_their_decisions(venues_db: Path) -> None:
    from confnav.answer import ask
    from confnav.answer.check import verify_answer
    from confnav.search.engine import Searcher

    with open_store(venues_db, create=True) as store:
        searcher = Searcher(store)
        answer = ask(searcher, "What are the best-rated papers on reinforcement learning at ICLR 2018?")
        assert not verify_answer(searcher, answer)
    means = [r.paper.rating_mean or 0.0 for r in answer.papers]
    assert answer.papers and means == sorted(means, reverse=True)
    shown = [s.text for s in answer.sentences if s.source == "paper"]
    assert shown and all(re.search(r"; (?:mean rating \d+\.\d\d|no ratings)\): ", t) for t in shown), shown
