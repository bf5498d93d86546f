"""The two ranking modes on real venues with citation counts (ICLR 2018, NeurIPS 2018, CoRL 2023) and one
without (SIGGRAPH 2022): looking back puts the most cited papers first, at the conference each paper gets
its own reasons and never the venue's counts, and every surface says which mode it used."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.errors import ConfnavError
from confnav.ingest import ingest
from confnav.rank import RankMode, WeightedRanker, default_mode, parse_mode
from confnav.store import open_store

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "paperlists"
VENUES = ["iclr2018", "nips2018", "corl2023", "siggraph2022"]
COUNT = re.compile(r"\d[\d,]* citations")


@pytest.fixture(scope="module")
def cited_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("modes") / "modes.db"
    with open_store(path, create=True) as store:
        for name in VENUES:
            ingest(store, [DATA / f"{name}.json"])
    return path


@pytest.mark.parametrize("venue", ["iclr2018", "neurips2018"])
def test_looking_back_puts_the_most_cited_papers_first(cited_db: Path, venue: str) -> None:
    with open_store(cited_db) as store:
        assert default_mode(store, venue) is RankMode.LOOKING_BACK
        ranking = WeightedRanker().rank(store, venue)
    assert ranking.mode is RankMode.LOOKING_BACK and "log scale" in ranking.explanation
    place = {r.paper.id: i for i, r in enumerate(ranking.papers)}
    counted = [r.paper for r in ranking.papers if r.paper.citations is not None]
    most = sorted(counted, key=lambda p: -p.citations.count)[:10]  # type: ignore[union-attr]
    assert sum(place[p.id] < 20 for p in most) >= 8, [place[p.id] for p in most]
    first = ranking.papers[0]
    assert first.reasons[0].startswith(f"{first.paper.citations.count:,} citations")  # type: ignore[union-attr]


@pytest.mark.parametrize("venue", ["iclr2018", "neurips2018"])
def test_at_conference_reasons_are_each_papers_own(cited_db: Path, venue: str) -> None:
    with open_store(cited_db) as store:
        ranking = WeightedRanker(mode="at-conference").rank(store, venue)
    assert ranking.mode is RankMode.AT_CONFERENCE and "citations" not in ranking.weights
    assert "learned from the citations of" in ranking.explanation and "never read" in ranking.explanation
    top = ranking.papers[:30]
    said = ["; ".join(r.reasons) for r in top]
    assert all(said) and all(a != b for a, b in itertools.combinations(said, 2)), said
    everything = [reason for r in ranking.papers for reason in r.reasons]
    assert not any(COUNT.search(reason) or "learned from the citations" in reason for reason in everything)
    assert all(r.values.get("citations") is None for r in ranking.papers)
    if venue == "iclr2018":  # reviews against the venue's, and the authors' own TL;DR
        rated = [r for r in top if any(x.startswith("ratings ") and "of ICLR 2018)" in x for x in r.reasons)]
        assert len(rated) >= 20
        assert any(x.startswith("TL;DR: ") for r in top for x in r.reasons)


def test_default_mode_without_counts_and_bad_names(cited_db: Path) -> None:
    with open_store(cited_db) as store:
        venue = next(s.venue.id for s in store.venues() if s.venue.id.startswith("siggraph"))
        assert default_mode(store, venue) is RankMode.AT_CONFERENCE
        assert WeightedRanker().rank(store, venue).mode is RankMode.AT_CONFERENCE
        back = WeightedRanker(mode="looking-back").rank(store, venue)
    assert back.mode is RankMode.LOOKING_BACK and "no citation counts" in back.explanation
    assert parse_mode("Looking_Back") is RankMode.LOOKING_BACK and parse_mode(None, True) is RankMode.AT_CONFERENCE
    with pytest.raises(ConfnavError, match="unknown ranking mode 'sideways'"):
        parse_mode("sideways")


def test_cli_mode_and_its_alias(cited_db: Path) -> None:
    run = CliRunner()
    base = ["--db", str(cited_db), "--venue", "iclr2018", "--top", "5"]
    moded = run.invoke(cli, ["rank", *base, "--mode", "at-conference"])
    alias = run.invoke(cli, ["rank", *base, "--at-conference"])
    assert moded.exit_code == 0 and moded.stdout == alias.stdout
    assert moded.stdout.startswith("Mode: at the conference.")
    assert moded.stdout.count("learned from the citations") == 1  # once per list, not per paper
    back = run.invoke(cli, ["rank", *base, "--json"])
    assert {item["mode"] for item in json.loads(back.stdout)} == {"looking-back"}
    bad = run.invoke(cli, ["rank", *base, "--mode", "sideways"])
    assert bad.exit_code == 2 and "sideways" in bad.stderr


def test_report_digest_says_its_mode_once(cited_db: Path) -> None:
    base = ["report", "digest", "--db", str(cited_db), "--venue", "iclr2018", "--top", "10"]
    conference = CliRunner().invoke(cli, [*base, "--mode", "at-conference"])
    assert conference.exit_code == 0, conference.stderr
    assert "must-read digest, at the conference" in conference.stdout
    assert conference.stdout.count("learned from the citations") == 1 and not COUNT.search(conference.stdout)
    back = CliRunner().invoke(cli, base)
    assert "must-read digest, looking back" in back.stdout and COUNT.search(back.stdout)


def test_web_digest_and_api_follow_the_mode(cited_db: Path) -> None:
    from fastapi.testclient import TestClient

    from confnav.web.app import create_app

    client = TestClient(create_app(cited_db), base_url="http://127.0.0.1")
    default = client.get("/reports/iclr2018/digest").text
    conference = client.get("/reports/iclr2018/digest", params={"mode": "at-conference"}).text
    alias = client.get("/reports/iclr2018/digest", params={"at_conference": "true"}).text
    assert "must-read digest, looking back" in default and 'data-mode="looking-back"' in default
    assert "must-read digest, at the conference" in conference and conference == alias
    assert 'href="/reports/iclr2018/digest?mode=at-conference"' in default  # the switch
    assert 'href="/reports/iclr2018/digest?mode=looking-back"' in conference
    assert COUNT.search(default) and not COUNT.search(conference)
    ranked = client.get("/api/rank", params={"venue": "iclr2018", "mode": "at-conference", "top": 5}).json()
    assert {r["mode"] for r in ranked} == {"at-conference"}
    old = client.get("/api/rank", params={"venue": "iclr2018", "at_conference": True, "top": 5}).json()
    assert [r["id"] for r in old] == [r["id"] for r in ranked]
    back = client.get("/api/rank", params={"venue": "iclr2018", "top": 5}).json()
    assert {r["mode"] for r in back} == {"looking-back"} and [r["id"] for r in back] != [r["id"] for r in ranked]
    bad = client.get("/api/rank", params={"venue": "iclr2018", "mode": "sideways"})
    assert bad.status_code == 400 and "unknown ranking mode" in bad.json()["error"]
    paper = client.get(f"/paper/{back[0]['id']}", params={"venue": "iclr2018"}).text
    assert "Must-read, looking back</strong>: #1 of" in paper and "mode=at-conference" in paper


def test_decision_follows_the_venues_tiers(cited_db: Path) -> None:
    """SIGGRAPH 2022's posters (1-page abstracts) are a side track beside its Technical and TOG papers, ranked
    below them; at CoRL 2023, whose papers are orals and posters, a poster is one of its papers."""
    with open_store(cited_db) as store:
        siggraph = WeightedRanker(mode="at-conference").rank(store, "siggraph2022")
        back = WeightedRanker(mode="looking-back").rank(store, "siggraph2022")
        corl = WeightedRanker(mode="at-conference").rank(store, "corl2023")
    values = {(r.paper.decision.kind, r.values["decision"]) for r in siggraph.papers}
    assert values == {("technical", 1 / 3), ("journal", 1 / 3), ("poster", 1 / 6)}
    place = [i for i, r in enumerate(siggraph.papers) if r.paper.decision.kind == "poster"]
    assert len(place) == 66 and min(place) > 40 and place[33] > 270, place  # was 2nd, and a median of 256
    assert {(r.paper.decision.kind, r.values["decision"]) for r in corl.papers} == {("oral", 1.0), ("poster", 1 / 3)}
    assert "so its decisions decide" in back.explanation  # SIGGRAPH 2022 has no reviews


def test_papers_without_themes_lose_no_score_to_diversity(cited_db: Path) -> None:
    """Without an index no paper has a theme: the diversity step leaves the scores as they are (it took 0.03 per
    paper picked before, as if they all shared one theme, down to -2.4)."""
    with open_store(cited_db) as store:
        ranking = WeightedRanker(mode="at-conference").rank(store, "siggraph2022")
    assert all(r.theme is None and r.score == r.base_score >= 0 for r in ranking.papers)


@pytest.fixture(scope="module")
def acl_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ACL 2022, whose data flags 12 papers with an award, and CoRL 2023 to learn predicted impact from."""
    path = tmp_path_factory.mktemp("awards") / "awards.db"
    with open_store(path, create=True) as store:
        ingest(store, [DATA / "acl2022.json", DATA / "corl2023.json"])
    return path


def test_awards_lead_in_both_modes_with_their_reason(acl_db: Path) -> None:
    """ACL 2022's best paper ranked 576th looking back, its award ignored; an award is read in both modes."""
    with open_store(acl_db) as store:
        conference = WeightedRanker(mode="at-conference").rank(store, "acl2022")
        back = WeightedRanker(mode="looking-back").rank(store, "acl2022")
    awarded = {r.paper.id for r in back.papers if r.paper.award}
    assert len(awarded) == 12 and {r.paper.id for r in conference.papers[:12]} == awarded
    assert max(i for i, r in enumerate(back.papers) if r.paper.award) < 40
    assert "awards its data names" in conference.explanation and "An award" in back.explanation
    for ranking in (conference, back):
        for r in ranking.papers:
            assert ("marked with an award in its data" in r.reasons) == (r.paper.id in awarded), r.reasons
    cited = sorted((r for r in back.papers if r.paper.citations), key=lambda r: -r.paper.citations.count)  # type: ignore[union-attr]
    assert sum(r in back.papers[:20] for r in cited[:10]) >= 8  # citations still lead looking back


def test_a_forged_award_reason_fails_verify(acl_db: Path, tmp_path: Path) -> None:
    digest = tmp_path / "digest.md"
    made = CliRunner().invoke(
        cli, ["report", "digest", "--db", str(acl_db), "--venue", "acl2022", "--top", "15", "-o", str(digest)]
    )
    assert made.exit_code == 0, made.stderr
    text = digest.read_text()
    items = re.findall(r"^\d+\. .*$", text, re.M)
    shown = [line for line in items if "; marked with an award in its data" in line]
    plain = next(line for line in items if "award" not in line)
    assert len(shown) >= 8
    for old, new in (
        (plain, plain.replace(" — accepted (long)", " — accepted (long); marked with an award in its data")),
        (shown[0], shown[0].replace("marked with an award in its data", "award: Best Paper")),
    ):
        assert new != old
        forged = tmp_path / "forged.md"
        forged.write_text(text.replace(old, new))
        result = CliRunner().invoke(cli, ["verify", "--db", str(acl_db), str(forged)])
        assert result.exit_code == 1 and "are not the ranking's reasons" in result.stderr, (new, result.stderr)
    assert CliRunner().invoke(cli, ["verify", "--db", str(acl_db), str(digest)]).exit_code == 0


def test_signals_say_which_citations_the_ranking_uses(cited_db: Path, tmp_path: Path) -> None:
    """A file's citations are used only for papers without a count of their own, and the import says so; a word
    where a count should be is an error naming the file, line and field, the store untouched."""
    copy = tmp_path / "copy.db"
    copy.write_bytes(cited_db.read_bytes())
    given = tmp_path / "citations.csv"
    given.write_text("id,citations,mentions\nhRZ1YjDZmTo,120,5\ndk-2R1f_LR,80,3\nnosuch,5,1\n")
    run = CliRunner().invoke(cli, ["signals", "--db", str(copy), "--venue", "corl2023", str(given)])
    assert run.exit_code == 0, run.stderr
    assert "4 values of citations, mentions stored for corl2023" in run.stdout
    assert "citations used for 0 papers without a count of their own; not for 2 that keep their own" in run.stdout
    bad = tmp_path / "bad.csv"
    bad.write_text("id,citations\nhRZ1YjDZmTo,n/a\ndk-2R1f_LR,abc\n")
    before = copy.read_bytes()
    refused = CliRunner().invoke(cli, ["signals", "--db", str(copy), "--venue", "corl2023", str(bad)])
    assert refused.exit_code == 1 and "bad.csv, line 3, field 'citations'" in refused.stderr, refused.stderr
    assert "'abc' is not a number" in refused.stderr and copy.read_bytes() == before


def test_signals_listing_a_paper_twice_keep_its_first_values_and_say_so(cited_db: Path, tmp_path: Path) -> None:
    """A paper listed twice kept its last value without a word, and the count said 2 values stored of 1; a signal
    given by two columns took one of them silently."""
    copy = tmp_path / "copy.db"
    copy.write_bytes(cited_db.read_bytes())
    twice = tmp_path / "twice.csv"
    twice.write_text("id,mentions\nhRZ1YjDZmTo,3\ndk-2R1f_LR,2\nhRZ1YjDZmTo,4\n")
    run = CliRunner().invoke(cli, ["signals", "--db", str(copy), "--venue", "corl2023", str(twice)])
    assert run.exit_code == 0 and "2 values of mentions stored for corl2023" in run.stdout, run.output
    assert "id 'hRZ1YjDZmTo' is listed on lines 2, 4: each signal keeps its first value" in run.stderr
    assert "(mentions 4 of line 4 not stored)" in run.stderr
    with open_store(copy) as store:
        assert store.external_signals("corl2023")["hRZ1YjDZmTo"]["mentions"] == 3
    before = copy.read_bytes()
    for header in ("id,citations,citations", "id,Citations,citations"):
        columns = tmp_path / "columns.csv"
        columns.write_text(f"{header}\nhRZ1YjDZmTo,1,2\n")
        refused = CliRunner().invoke(cli, ["signals", "--db", str(copy), "--venue", "corl2023", str(columns)])
        assert refused.exit_code == 1 and "columns.csv, line 1, field '" in refused.stderr, refused.output
        assert "columns 2 and 3 both give 'citations': keep one" in refused.stderr and copy.read_bytes() == before


def test_explain_gives_percentiles_and_places_among_papers_with_a_signal(cited_db: Path, tmp_path: Path) -> None:
    """CoRL 2023's predicted impact ran from -0.01 to 1.15 though it is a percentile, and mentions given for 2 of
    its 199 papers were called "top 1% of CoRL 2023"."""
    copy = tmp_path / "copy.db"
    copy.write_bytes(cited_db.read_bytes())
    given = tmp_path / "mentions.csv"
    given.write_text("id,mentions\nhRZ1YjDZmTo,5\ndk-2R1f_LR,3\n")
    assert CliRunner().invoke(cli, ["signals", "--db", str(copy), "--venue", "corl2023", str(given)]).exit_code == 0
    ranked = json.loads(
        CliRunner().invoke(cli, ["rank", "--db", str(copy), "--venue", "corl2023", "--json", "--top", "300"]).stdout
    )
    impact = [r["signals"]["impact"] for r in ranked if r["signals"].get("impact") is not None]
    assert len(impact) == 199 and min(impact) >= 0.0 and max(impact) <= 1.0
    reasons = {r["id"]: r["reasons"] for r in ranked}
    assert "mentions 5 (top 1 of 2 papers with mentions)" in reasons["hRZ1YjDZmTo"]
    assert not any("mentions" in x and "% of" in x for said in reasons.values() for x in said)
