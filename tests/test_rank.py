"""Must-read ranking on the real corpus: reasons match the data, weights steer, bad input is explained."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.people import PeopleIndex
from confnav.rank import WeightedRanker, load_weights
from confnav.store import open_store
from tests.backends import clone


@pytest.fixture(scope="module")
def ranking(topics_db: Path):  # type: ignore[no-untyped-def]
    with open_store(topics_db, create=True) as store:
        return WeightedRanker().rank(store, "iclr2021")


def test_every_signal_is_used_on_the_full_store(ranking) -> None:  # type: ignore[no-untyped-def]
    assert ranking.missing == {} or set(ranking.missing) == {"code"}
    assert {"decision", "rating_mean", "track_record", "centrality", "momentum", "novelty"} <= set(ranking.weights)


def test_reasons_match_the_stored_values(ranking, topics_db: Path) -> None:  # type: ignore[no-untyped-def]
    with open_store(topics_db, create=True) as store:
        people = PeopleIndex(store.iter_papers())  # namesakes with different profile ids are different people
        earlier: dict[str, int] = {}
        for paper in store.iter_papers("iclr2020"):
            if paper.decision.accepted:
                for author in paper.authors:
                    earlier[people.key(author)] = earlier.get(people.key(author), 0) + 1
    for item in ranking.papers[:200]:
        paper, reasons = item.paper, item.reasons
        assert reasons[0] in (paper.decision.name, f"decision: {paper.decision.name}")
        if paper.ratings:
            match = re.match(r"ratings ([\d., ]+) \(mean ([\d.]+)", reasons[1])
            assert match, reasons
            assert [float(x) for x in match.group(1).split(", ")] == paper.ratings
            assert float(match.group(2)) == pytest.approx(sum(paper.ratings) / len(paper.ratings), abs=0.005)
        authored = [r for r in reasons if "with earlier ICLR papers" in r]
        expected = sum(1 for a in paper.authors if earlier.get(people.key(a)))
        if expected:
            assert authored and authored[0].startswith(f"{expected} author")
        else:
            assert not authored
        central = [r for r in reasons if r.startswith("central in")]
        if central:
            assert central[0] == f"central in '{item.theme}'"


def test_ranking_puts_orals_first_and_is_diverse(ranking) -> None:  # type: ignore[no-untyped-def]
    top = ranking.papers[:50]
    assert all(r.paper.decision.name == "oral" for r in top[:20])
    assert len({r.theme for r in top}) >= 10


def test_paper_without_reviews_has_a_stated_reason(ranking) -> None:  # type: ignore[no-untyped-def]
    unreviewed = [r for r in ranking.papers if not r.paper.ratings]
    assert unreviewed
    assert all("no reviewer ratings in the data" in r.reasons for r in unreviewed)


def test_weights_from_a_file_change_the_order(topics_db: Path, tmp_path: Path) -> None:
    config = tmp_path / "weights.toml"
    config.write_text("[weights]\ndecision = 0\nrating_mean = 0\nconfidence_weighted = 0\nrating_min = 5\n")
    with open_store(topics_db, create=True) as store:
        ranked = WeightedRanker(load_weights(config), diversify=False).rank(store, "iclr2021").papers
    best_min = max(min(p.ratings) for p in (r.paper for r in ranked) if p.ratings)
    assert min(ranked[0].paper.ratings) == best_min


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[weights]\nimpact = 2\n", "field 'impact': unknown signal 'impact'"),
        ('[weights]\ndecision = "high"\n', "field 'decision': weight 'high' is not a non-negative number"),
        ("[weights\n", "cannot read the weights"),
    ],
)
def test_bad_weights_files(topics_db: Path, tmp_path: Path, content: str, message: str) -> None:
    config = tmp_path / "weights.toml"
    config.write_text(content)
    result = CliRunner().invoke(cli, ["rank", "--db", str(topics_db), "--weights", str(config)])
    assert result.exit_code == 1 and message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--venue", "nope2020"], "unknown venue 'nope2020'"), (["--theme", "t99"], "no theme 't99'")],
)
def test_unknown_venue_or_theme(topics_db: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["rank", "--db", str(topics_db), *args])
    assert result.exit_code == 1 and message in result.stderr


def test_external_signals_with_unknown_ids(topics_db: Path, tmp_path: Path) -> None:
    copy = clone(topics_db, tmp_path, "copy")
    signals = tmp_path / "citations.csv"
    signals.write_text("id,citations\nUH-cmocLJC,120\nnot-a-paper,5\nlxHgXYN4bwl,40\n")
    result = CliRunner().invoke(cli, ["signals", "--db", str(copy), "--venue", "iclr2021", str(signals)])
    assert result.exit_code == 0
    assert "id 'not-a-paper' is not a paper of iclr2021" in result.stderr and "2 values of citations" in result.stdout
    ranked = json.loads(CliRunner().invoke(cli, ["rank", "--db", str(copy), "--json", "--top", "3000"]).stdout)
    cited = {r["id"]: r for r in ranked}["UH-cmocLJC"]
    assert cited["signals"]["external:citations"] == 120 and any(
        r.startswith("citations 120") for r in cited["reasons"]
    )


def test_rank_json_theme_and_profile(topics_db: Path) -> None:
    result = CliRunner().invoke(cli, ["rank", "--db", str(topics_db), "--json", "--theme", "t01", "--top", "5"])
    items = json.loads(result.stdout)
    assert len(items) == 5 and {"id", "title", "score", "reasons", "signals"} <= set(items[0])
    liked = "Ua6zuk0WRH"
    result = CliRunner().invoke(cli, ["rank", "--db", str(topics_db), "--json", "--like", liked, "--top", "10"])
    assert liked not in [i["id"] for i in json.loads(result.stdout)]
