"""Recommendations that learn, on the real ICLR 2021 store with the TF-IDF index (no semantic model): a cold
start asks for marks on diverse papers, marks refit the model, and the personal must-read blends the profile
with the venue's ranking (the session's TF-IDF store whose themes are built: ranking needs them)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.model import name_key
from confnav.personal import COLD, is_cold, papers_to_mark, personal_rank, recommend_for
from confnav.personal.recommend import load_profile, model_of, venue_vectors
from confnav.personal.taste import FEATURES, WEIGHTS_FILE, TasteParams, farthest_first, taste_scores, unit
from confnav.personal.words import WordSpace
from confnav.rank import WeightedRanker
from confnav.store import open_store
from confnav.store.profiles import ProfileItem
from tests.backends import Location, clone
from tests.test_profiles import _graph_papers

VENUE = "iclr2021"


@pytest.fixture(scope="module")
def sparse_iclr(light_topics_db: Location) -> Location:
    """ICLR 2021 with the TF-IDF index and its themes (the session's, beside ICLR 2020): the venue's ranking
    reads the themes, which a store without them builds first (half a minute); copy before writing."""
    return light_topics_db


def _cli(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def _mark(db: str, how: str, ids: list[str], *options: str) -> None:
    """Mark papers from the command line (ids after `--`: an OpenReview id may start with '-')."""
    result = _cli("profile", how, "--db", db, *options, "--", *ids)
    assert result.exit_code == 0, result.output


def _graph_profile(db: str, count: int = 6) -> list[str]:
    """A profile `me` of accepted graph papers, liked; their ids."""
    ids = [p["id"] for p in _graph_papers()[:count]]
    _mark(db, "like", ids)
    return ids


def test_a_cold_profile_is_offered_diverse_papers_to_mark(sparse_iclr: Location, tmp_path: Any) -> None:
    db = str(clone(sparse_iclr, tmp_path))
    first = _graph_papers()[0]["id"]
    _mark(db, "like", [first], "--profile", "new")

    shown = _cli("recommend", "--for", "new", "--venue", VENUE, "--db", db)
    assert shown.exit_code == 0, shown.output
    assert "too few to learn your taste" in shown.output and "Traceback" not in shown.output
    assert shown.output.count("confnav profile like ") == 5 and "--profile new" in shown.output
    assert "close to your '" in shown.output  # the one like still gives recommendations below

    asked = _cli("recommend", "--for", "nobody", "--venue", VENUE, "--ask", "6", "--json", "--db", db)
    assert asked.exit_code == 0, asked.output
    data = json.loads(asked.output)
    assert data["cold"] is True and data["size"] == 0 and data["recommendations"] == []
    ids = [a["id"] for a in data["ask"]]
    assert len(set(ids)) == 6 and all(a["commands"][0].startswith("confnav profile like ") for a in data["ask"])
    with open_store(db) as store:
        papers = [store.get_paper(i, VENUE) for i in ids]
        assert all(p.decision.accepted for p in papers)
        # spread out: no two picks are as close as a typical paper of the venue is to its nearest neighbour
        stored = venue_vectors(store, model_of(store), VENUE)
        accepted = stored.matrix[stored.accepted]
        nearest = np.median(np.sort(accepted @ accepted.T, axis=1)[:, -2])
        row = {p.id: i for i, p in enumerate(stored.papers)}
        picks = stored.matrix[[row[p.id] for p in papers]]
        assert float((picks @ picks.T - 2 * np.eye(6)).max()) < nearest
        assert is_cold(store, "new") and is_cold(store, "nobody")

    plain = _cli("recommend", "--for", "nobody", "--venue", VENUE, "--json", "--db", db)
    assert plain.exit_code == 0 and json.loads(plain.stdout) == [] and "--ask" in plain.stderr
    unasked = _cli("recommend", "--for", "nobody", "--ask", "3", "--db", db)
    assert unasked.exit_code != 0 and "--ask needs --for NAME and --venue V" in unasked.output


def test_with_a_model_the_papers_to_mark_are_the_uncertain_ones(sparse_iclr: Location, tmp_path: Any) -> None:
    db = str(clone(sparse_iclr, tmp_path))
    liked = _graph_profile(db, COLD + 1)
    with open_store(db) as store:
        assert not is_cold(store, "me")
        top = {r.paper.id for r in recommend_for(store, "me", VENUE, limit=20)}
        asked = papers_to_mark(store, VENUE, "me", 4)
    assert not asked.cold and len(asked.papers) == 4 and "least sure" in asked.why
    assert not {p.id for p in asked.papers} & (top | set(liked))
    result = _cli("recommend", "--for", "me", "--venue", VENUE, "--ask", "4", "--json", "--db", db)
    data = json.loads(result.output)
    assert [a["id"] for a in data["ask"]] == [p.id for p in asked.papers] and len(data["recommendations"]) == 10


def test_marks_refit_the_model(sparse_iclr: Location, tmp_path: Any) -> None:
    db = str(clone(sparse_iclr, tmp_path))
    _graph_profile(db)
    with open_store(db) as store:
        before = recommend_for(store, "me", VENUE, limit=20)
        assert sum("graph" in r.paper.title.lower() for r in before) >= 10
        reinforcement = [
            p for p in store.iter_papers(VENUE) if p.decision.accepted and "reinforcement" in p.title.lower()
        ][:8]
    ids = [p.id for p in reinforcement]
    _mark(db, "like", ids)
    _mark(db, "dislike", [before[0].paper.id])
    with open_store(db) as store:
        after = recommend_for(store, "me", VENUE, limit=20)
    titles = [r.paper.title.lower() for r in after]
    assert sum("reinforcement" in t for t in titles) > sum("reinforcement" in r.paper.title.lower() for r in before)
    assert before[0].paper.id not in {r.paper.id for r in after} and not set(ids) & {r.paper.id for r in after}
    assert any("(2021)" in r.reason and any(p.title in r.reason for p in reinforcement) for r in after)


def test_the_personal_must_read_blends_the_profile_with_the_venue(sparse_iclr: Location, tmp_path: Any) -> None:
    db = str(clone(sparse_iclr, tmp_path))
    liked = _graph_profile(db)
    result = _cli("rank", "--venue", VENUE, "--for", "me", "--top", "30", "--json", "--db", db)
    assert result.exit_code == 0, result.output
    ranked = json.loads(result.output)
    assert len(ranked) == 30 and not {r["id"] for r in ranked} & set(liked)
    assert all(r["reasons"][0].startswith("close to your '") for r in ranked)
    assert sum(len(r["reasons"]) > 1 for r in ranked) >= 20  # and the venue's own reasons after it
    assert sum("graph" in r["title"].lower() for r in ranked) >= 10
    assert all(0.0 <= r["normalized"]["profile"] <= 1.0 for r in ranked)
    plain = json.loads(_cli("rank", "--venue", VENUE, "--top", "30", "--json", "--db", db).output)
    assert sum("graph" in r["title"].lower() for r in plain) < 10

    text = _cli("rank", "--venue", VENUE, "--for", "me", "--mode", "at-conference", "--top", "5", "--db", db)
    assert text.exit_code == 0 and "Blended with closeness to profile 'me'" in text.output
    assert "close to your '" in text.output and "at the conference" in text.output
    missing = _cli("rank", "--venue", VENUE, "--for", "ghost", "--db", db)
    assert missing.exit_code != 0 and "no profile named 'ghost'" in missing.output

    with open_store(db) as store:  # weight 0: the venue's own order, the profile's papers left out
        venue_order = [r.paper.id for r in WeightedRanker().rank(store, VENUE).papers if r.paper.id not in liked]
        alone = personal_rank(store, VENUE, "me", weight=0.0)
        assert [r.paper.id for r in alone.papers] == venue_order


def test_taste_views_and_spread() -> None:
    """Nearest items find a second topic the centroid misses; farthest-first covers distinct directions."""
    axes = np.eye(4, dtype=np.float32)
    positives = np.vstack([axes[0], axes[0], axes[0], axes[1]])
    candidates = unit(np.vstack([axes[0] + 0.1 * axes[2], axes[1] + 0.1 * axes[2], axes[2] + axes[0]]))
    mean = np.zeros(4, dtype=np.float32)
    empty = np.zeros((0, 4), dtype=np.float32)
    weights = np.ones(4)
    centroid = taste_scores(
        positives, weights, empty, candidates, mean, TasteParams(method="blend", centroid=1.0, center=False)
    )
    nearest = taste_scores(
        positives, weights, empty, candidates, mean, TasteParams(method="blend", centroid=0.0, neighbours=1)
    )
    assert centroid[2] > centroid[1] and nearest[1] > nearest[2]
    assert sorted(farthest_first(axes, 4, 0)) == [0, 1, 2, 3]


def test_the_words_view_weighs_rare_terms_and_word_pairs() -> None:
    """A text sharing a venue's rare word pair is closer than one sharing only its common words; terms of one
    paper only or of most papers weigh nothing; no texts give no rows."""
    venue = [f"learning models for task {i} with data" for i in range(30)]
    venue += ["optimal transport barycenters for domain adaptation", "optimal transport barycenters in graphs"]
    space = WordSpace.of(venue)
    profile = space.vectors(["Wasserstein optimal transport barycenters", "learning models with data"])
    closeness = (space.matrix @ profile.T).toarray()
    assert closeness[30:, 0].min() > closeness[:30, 0].max() and closeness[:, 1].max() == 0
    assert space.vectors([]).shape == (0, space.matrix.shape[1])


def test_the_fitted_model_reads_the_profiles_words_and_collaborators(sparse_iclr: Location, tmp_path: Any) -> None:
    """A profile of one ICLR 2020 paper: its collaborators are the other papers by its authors; the fitted
    weights cover every feature; the fitted model's list differs from the meaning-only blend's."""
    db = clone(sparse_iclr, tmp_path)
    with open_store(db) as store:
        papers = [p for _, p in store.paper_rows("iclr2020")]
        names = {name_key(a.name) for p in papers for a in p.authors}
        mine = max(papers, key=lambda p: sum(name_key(a.name) in names for a in p.authors if a.name))
        store.create_profile("me")
        store.mark_paper("me", mine.id, "like", "iclr2020")
        keys = {name_key(a.name) for a in mine.authors}
        theirs = [p for p in papers if p.id != mine.id and keys & {name_key(a.name) for a in p.authors}]
        store.add_profile_items("me", [ProfileItem(mine.title, None, 2020, "iclr2020", mine.id)])
        person = load_profile(store, "me", model_of(store))
        assert theirs and len(person.collaborators) >= len(theirs) and len(person.texts) == len(person.positives)
        assert set(json.loads(WEIGHTS_FILE.read_text())["weights"]) == set(FEATURES)
        fitted = [r.paper.id for r in recommend_for(store, "me", VENUE, 20)]
        blend = [r.paper.id for r in recommend_for(store, "me", VENUE, 20, params=TasteParams(method="blend"))]
        assert fitted != blend and len(fitted) == 20


def test_a_venues_vectors_are_read_again_only_when_its_papers_or_the_vectors_change(
    sparse_iclr: Location, tmp_path: Any
) -> None:
    """Marks, and another venue's papers arriving or being indexed, leave the venue's vectors as read (a busy server
    refits a profile after every mark); a paper of the venue added, changed or embedded again reads them again."""
    from confnav.ingest import ingest
    from tests.conftest import DATA

    db = clone(sparse_iclr, tmp_path)
    with open_store(db) as store:
        model = model_of(store)
        first = venue_vectors(store, model, VENUE)
        store.create_profile("me")
        store.mark_paper("me", first.papers[0].id, "like", VENUE)
        ingest(store, [DATA / "paperlists" / "corl2023.json"])
        assert venue_vectors(store, model, VENUE) is first
        vector = first.matrix[0].astype(np.float32).tobytes()
        with store.transaction():  # another venue indexed
            store.put_embeddings(model, [(pk, "h", vector) for pk, _ in store.paper_rows("corl2023")])
        assert venue_vectors(store, model, VENUE) is first
        with store.transaction():  # one of the venue's papers embedded again: its vectors are read, not its papers
            store.put_embeddings(model, [(first.pks[1], "h", vector)])
        again = venue_vectors(store, model, VENUE)
        assert again is not first and again.papers is first.papers and np.allclose(again.matrix[1], again.matrix[0])
        first = again
        header = (DATA / "iclr2021" / "paperlist.tsv").read_text(encoding="utf-8").splitlines()[0]
        added = tmp_path / "iclr2021" / "paperlist.tsv"
        added.parent.mkdir()
        added.write_text(f"{header}\nNewPaper01\tA paper added since\t\t\tIts abstract.\n", encoding="utf-8")
        assert ingest(store, [added]).added == 1
        after = venue_vectors(store, model, VENUE)
        assert after is not first and after.papers is not first.papers
