"""Steps of a user's own passed to the library as objects: themes record them, reports built with them verify,
and a plugged step that breaks its protocol's contract is one clear error naming it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.embed import DEFAULT_MODEL, check_name, choose_embedder, make_embedder
from confnav.embed.base import Embedder, PretrainedEmbedder, ProgressFn
from confnav.embed.onnx import ONNX_SUFFIX
from confnav.embed.sparse import SPARSE_MODEL, SparseEmbedder
from confnav.embed.views import KEYWORD_VIEW
from confnav.errors import ConfnavError
from confnav.index import build_index, semantic_model
from confnav.ingest import ingest
from confnav.model import Paper
from confnav.rank import WeightedRanker
from confnav.rank.ranker import Ranking
from confnav.reports.digest import build_digest
from confnav.reports.overview import build_overview
from confnav.reports.render import to_html, to_markdown
from confnav.reports.verify import verify_text
from confnav.search.engine import Searcher
from confnav.settings import Settings, Steps
from confnav.store import SqlStore, open_store
from confnav.store.protocols import AnalysisStore
from confnav.summarize.tldr import Tldr
from confnav.topics import TopicBuilder, ensure_topics, theme_facts
from confnav.topics.label import ThemeLabel
from tests.backends import Location, clone
from tests.conftest import MARKDOWN_PAGE

HERE = __name__


class Halves:
    """A clusterer putting every other paper in the same theme."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit_predict(self, vectors: np.ndarray, low: int, high: int) -> np.ndarray:
        return np.arange(len(vectors)) % 2


class Numbered:
    """A labeler naming each theme by its number."""

    def label(self, papers: object, labels: np.ndarray, taken: object = None, prose: object = None) -> list[ThemeLabel]:
        return [ThemeLabel(f"plugged {c}", [f"word{c}"]) for c in range(int(labels.max()) + 1)]


class Flagged(WeightedRanker):
    """The weighted ranking read from the bottom, each paper with a reason of its own first."""

    def rank(self, store: AnalysisStore, venue: str, *, theme: str | None = None) -> Ranking:
        ranking = super().rank(store, venue, theme=theme)
        ranking.papers = ranking.papers[::-1]
        for item in ranking.papers:
            item.reasons = ["flagged by the plugged ranker", *item.reasons]
        return ranking


class Lead:
    """An extractive summarizer of its own: the abstract's first sentence, word for word, labelled as what it is
    (a label is a claim the verifier checks; its own name it can check only for TL;DRs the store keeps)."""

    def tldr(self, paper: Paper) -> Tldr:
        first = re.split(r"(?<=[.!?])\s+", " ".join((paper.abstract or "").split()))[0]
        return Tldr(paper.id, first or None, "extractive")


class Retold:
    """A summarizer writing words of its own, not declared as an LLM's."""

    def tldr(self, paper: Paper) -> Tldr:
        return Tldr(paper.id, f"This paper is about {paper.title}.", "extractive")


class Stateless:
    """An embedder's members for a state it does not have (nothing to fit, save or load)."""

    def fit(self, texts: object) -> None:
        return None

    def dumps(self) -> bytes | None:
        return None

    def loads(self, state: bytes) -> None:
        return None


class Unsaid(Stateless):
    """An embedder with every member docs/architecture.md listed before `languages` joined them."""

    name = f"{HERE}:Unsaid"
    fitted_on_corpus = False

    def embed(self, texts: object, progress: ProgressFn | None = None) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32) / 2  # type: ignore[arg-type]


class Nameless(PretrainedEmbedder):
    """An embedder whose vectors' name leads nowhere."""

    name = "my-custom-thing"

    def embed(self, texts: object, progress: ProgressFn | None = None) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32) / 2  # type: ignore[arg-type]


class Bare:
    """A ranker and a clusterer whose constructors take none of the documented keywords."""

    def rank(self, store: AnalysisStore, venue: str, *, theme: str | None = None) -> Ranking:
        return WeightedRanker().rank(store, venue, theme=theme)

    def fit_predict(self, vectors: np.ndarray, low: int, high: int) -> np.ndarray:
        return np.arange(len(vectors)) % low


class Gapped:
    """A clusterer numbering its groups 0 and 2, leaving 1 out; with `noise`, marking every third paper -1."""

    def __init__(self, seed: int = 0, noise: bool = False) -> None:
        self.noise = noise

    def fit_predict(self, vectors: np.ndarray, low: int, high: int) -> np.ndarray:
        labels = np.where(np.arange(len(vectors)) % 2 == 0, 0, 2)
        return np.where(np.arange(len(vectors)) % 3 == 0, -1, labels) if self.noise else labels


@pytest.fixture
def indexed(store: SqlStore) -> SqlStore:
    ingest(store, [MARKDOWN_PAGE])
    build_index(store, SparseEmbedder())
    return store


def labels(store: SqlStore, venue: str) -> list[str]:
    return [t.label for t in theme_facts(store, venue, level=1)]


def test_themes_built_by_steps_passed_as_objects_are_theirs_not_the_defaults(indexed: SqlStore) -> None:
    venue = indexed.pick_venue(None)
    assert ensure_topics(indexed, venue)
    default = labels(indexed, venue)
    plugged = TopicBuilder(clusterer=Halves(), labeler=Numbered())
    assert ensure_topics(indexed, venue, builder=plugged)  # not the default themes: built by the steps given
    assert labels(indexed, venue) == ["plugged 0", "plugged 1"]
    steps = indexed.topic_run(venue)[2]["steps"]  # type: ignore[index]
    assert steps == {"clusterer": f"{HERE}:Halves", "labeler": f"{HERE}:Numbered", "layout": "tsne"}
    assert not ensure_topics(indexed, venue, builder=TopicBuilder(clusterer=Halves(), labeler=Numbered()))
    assert ensure_topics(indexed, venue)  # the default steps asked again: the plugged ones' themes are stale
    assert labels(indexed, venue) == default
    chosen = Settings(steps=Steps(clusterer=f"{HERE}:Halves", labeler=f"{HERE}:Numbered"))
    with open_store(indexed.location, settings=chosen) as same:  # chosen by name: a name of the same form
        assert ensure_topics(same, venue) and labels(same, venue) == ["plugged 0", "plugged 1"]
        assert not ensure_topics(same, venue, builder=TopicBuilder(clusterer=Halves(), labeler=Numbered()))


def test_reports_ranked_and_summarized_by_steps_passed_as_objects_verify(
    light_topics_db: Location, tmp_path: Path
) -> None:
    with open_store(clone(light_topics_db, tmp_path)) as store:
        for render in (to_markdown, to_html):
            text = render(build_digest(store, "iclr2021", top=8, ranker=Flagged(), summarizer=Lead()))
            assert "flagged by the plugged ranker" in text and f"ranker={HERE}:Flagged" in text
            check = verify_text(store, text)
            assert check.ok, check.failures
        overview = to_markdown(build_overview(store, "iclr2021", ranker=Flagged(), summarizer=Lead()))
        assert verify_text(store, overview).ok
        plain = to_markdown(build_digest(store, "iclr2021", top=3))
        assert "ranker=weighted -->" in plain and verify_text(store, plain).ok
        written = verify_text(store, to_markdown(build_digest(store, "iclr2021", top=3, summarizer=Retold())))
        assert len(written.failures) == 3
        assert all("nor sentences of its abstract" in f for f in written.failures)
        text = to_markdown(build_digest(store, "iclr2021", top=3, ranker=Flagged()))
        named = verify_text(store, text.replace(f"ranker={HERE}:Flagged", "ranker=not_imported.anywhere:Ranker"))
        assert named.failures == [
            "the report was ranked by 'not_imported.anywhere:Ranker', which cannot be made here: ranker"
            " 'not_imported.anywhere:Ranker' is not imported here, and a name read from a file does not import"
            " code; choose it in the settings ([steps] ranker) to use it"
        ]


def test_a_plugged_embedder_lacking_a_member_of_the_protocol_is_refused_naming_it(indexed: SqlStore) -> None:
    with pytest.raises(ConfnavError, match=rf"^'{HERE}:Unsaid' is not an embedder: it has no 'languages'$"):
        choose_embedder(f"{HERE}:Unsaid")
    assert Searcher(indexed).search("graph neural networks", mode="semantic").hits


def test_build_index_refuses_an_embedder_whose_name_leads_elsewhere_before_dropping_the_index(
    indexed: SqlStore,
) -> None:
    with pytest.raises(ConfnavError, match=rf"names its vectors 'my-custom-thing'.*set its name to '{HERE}:Nameless'"):
        build_index(indexed, Nameless())
    assert semantic_model(indexed) == SPARSE_MODEL and sorted(indexed.embedding_models()) == [
        SPARSE_MODEL,
        SPARSE_MODEL + KEYWORD_VIEW,
    ]
    assert Searcher(indexed).search("graph neural networks", mode="semantic").hits


class Wrapping(Stateless):
    """An embedder that hands its texts to another and names its vectors as that one does (a cache, say)."""

    def __init__(self, inner: Embedder, reverse: bool = False) -> None:
        self.inner, self.reverse = inner, reverse
        self.name, self.fitted_on_corpus, self.languages = inner.name, inner.fitted_on_corpus, inner.languages

    def embed(self, texts: object, progress: ProgressFn | None = None) -> np.ndarray:
        vectors = self.inner.embed(texts)  # type: ignore[arg-type]
        return vectors[:, ::-1] if self.reverse else vectors


@pytest.mark.semantic
def test_an_embedder_named_as_the_one_giving_its_vectors_passes_and_one_giving_others_does_not(
    tmp_path: Path,
) -> None:
    """A wrapper that gives the default model's vectors under its name leads back to it; the same name on other
    vectors (the model's, in reverse order; halved ones are the same once normalised) would be searched with the
    wrong model, and is refused."""
    model = make_embedder(DEFAULT_MODEL + ONNX_SUFFIX, 1, tmp_path)
    check_name(Wrapping(model), tmp_path)
    with pytest.raises(ConfnavError, match=rf"names its vectors '{re.escape(model.name)}'"):
        check_name(Wrapping(model, reverse=True), tmp_path)


@pytest.mark.parametrize(
    ("kind", "verb", "keywords", "error"),
    [
        ("ranker", ["rank"], "weights, mode", "got an unexpected keyword argument 'weights'"),
        ("clusterer", ["topics", "--rebuild"], "seed", "got an unexpected keyword argument 'seed'"),
    ],
)
def test_a_plugged_step_not_taking_the_documented_keywords_is_one_line_naming_it(
    indexed: SqlStore, monkeypatch: pytest.MonkeyPatch, kind: str, verb: list[str], keywords: str, error: str
) -> None:
    monkeypatch.setenv(f"CONFNAV_STEP_{kind.upper()}", f"{HERE}:Bare")
    result = CliRunner().invoke(cli, [*verb, "--db", str(indexed.location)])
    assert result.exit_code == 1 and result.stderr == (
        f"error: setting steps.{kind} ([steps] {kind} or $CONFNAV_STEP_{kind.upper()}): {kind} '{HERE}:Bare' cannot"
        f" be made with {keywords}, as every {kind} is: {error}\n"
    )
    chosen = Settings(steps=Steps(ranker=f"{HERE}:Bare"))
    with open_store(indexed.location, settings=chosen) as same, pytest.raises(ConfnavError, match=r"^ranker '"):
        build_digest(same, same.pick_venue(None))


def test_a_clusterer_s_gaps_are_closed_and_its_noise_refused_naming_it(indexed: SqlStore) -> None:
    venue = indexed.pick_venue(None)
    assert ensure_topics(indexed, venue, builder=TopicBuilder(clusterer=Gapped(), labeler=Numbered()))
    assert labels(indexed, venue) == ["plugged 0", "plugged 1"]
    sizes = [t.size for t in theme_facts(indexed, venue, level=1)]
    assert sizes == [100, 100]
    with pytest.raises(ConfnavError, match=rf"^clusterer '{HERE}:Gapped' left 67 papers out \(label -1\)"):
        ensure_topics(indexed, venue, builder=TopicBuilder(clusterer=Gapped(noise=True)), rebuild=True)
    assert labels(indexed, venue) == ["plugged 0", "plugged 1"]  # the themes as they were
