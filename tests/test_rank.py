"""Must-read ranking on the real corpus: reasons match the data, weights steer, bad input is explained."""

from __future__ import annotations

import itertools
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
    assert set(ranking.missing) <= {"code", "citations", "impact"}  # no venue of this store has citation counts
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
        assert f"decision: {paper.decision.name}" not in reasons  # only what raises a paper is a reason
        assert (paper.decision.name in reasons) == (
            "decision" in item.contributions and item.normalized["decision"] > ranking.typical["decision"]
        )
        rated = [r for r in reasons if r.startswith("ratings ")]
        if rated:
            match = re.match(r"ratings ([\d., ]+), mean ([\d.]+)", rated[0])
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


def test_reasons_only_for_what_raises_a_paper(ranking) -> None:  # type: ignore[no-untyped-def]
    unreviewed = [r for r in ranking.papers if not r.paper.ratings]
    assert unreviewed and not any(reason.startswith("ratings") for r in unreviewed for reason in r.reasons)
    assert not any("shrank" in reason or reason.startswith("decision:") for r in ranking.papers for reason in r.reasons)
    low = [r for r in ranking.papers if r.normalized.get("rating_mean", 1) < 0.3]
    assert low and not any(reason.startswith("ratings") for r in low for reason in r.reasons)


def test_scores_follow_the_order_shown(ranking) -> None:  # type: ignore[no-untyped-def]
    scores = [r.score for r in ranking.papers]
    assert all(a >= b for a, b in itertools.pairwise(scores))
    head = ranking.papers[:100]  # diversity never lifts a paper above a better-scored one of a higher tier
    for i, above in enumerate(head):
        for below in head[i + 1 :]:
            if (above.values["decision"] or 0) < (below.values["decision"] or 0):
                assert above.base_score > below.base_score


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
        ("[weights]\ninfluence = 2\n", "field 'influence': unknown signal 'influence'"),
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
    signals.write_text("id,citations\nUH-cmocLJC,120\nnot-a-paper,5\nlxHgXYN4bwl,40\n1Fqg133qRaI,-1\n")
    result = CliRunner().invoke(cli, ["signals", "--db", str(copy), "--venue", "iclr2021", str(signals)])
    assert result.exit_code == 0
    assert "id 'not-a-paper' is not a paper of iclr2021" in result.stderr and "2 values of citations" in result.stdout
    ranked = json.loads(CliRunner().invoke(cli, ["rank", "--db", str(copy), "--json", "--top", "3000"]).stdout)
    assert {r["id"]: r for r in ranked}["1Fqg133qRaI"]["signals"]["citations"] is None  # -1: unknown, not zero
    cited = {r["id"]: r for r in ranked}["UH-cmocLJC"]
    assert cited["signals"]["citations"] == 120 and any(
        r.startswith("120 citations, a citation service (top") for r in cited["reasons"]
    )


def test_rank_json_theme_and_profile(topics_db: Path) -> None:
    result = CliRunner().invoke(cli, ["rank", "--db", str(topics_db), "--json", "--theme", "t01", "--top", "5"])
    items = json.loads(result.stdout)
    assert len(items) == 5 and {"id", "title", "score", "reasons", "signals"} <= set(items[0])
    liked = "Ua6zuk0WRH"
    result = CliRunner().invoke(cli, ["rank", "--db", str(topics_db), "--json", "--like", liked, "--top", "10"])
    assert liked not in [i["id"] for i in json.loads(result.stdout)]


def test_at_conference_never_reads_the_venues_citations(topics_db: Path, tmp_path: Path) -> None:
    copy = clone(topics_db, tmp_path, "copy")
    with open_store(copy) as store:
        before = WeightedRanker(at_conference=True).rank(store, "iclr2021")
        ids = [r.paper.id for r in before.papers]
        with store.transaction():  # the least must-read papers become the most cited
            store.put_external_signals(
                "iclr2021", "test", [(pid, "citations", 10_000.0 + i) for i, pid in enumerate(ids)]
            )
        after = WeightedRanker(at_conference=True).rank(store, "iclr2021")
        looking_back = WeightedRanker().rank(store, "iclr2021")
    assert [(r.paper.id, r.score) for r in after.papers] == [(r.paper.id, r.score) for r in before.papers]
    assert "citations" not in after.weights and "citations" in looking_back.weights
    assert looking_back.papers[0].paper.id != before.papers[0].paper.id
