"""Topics on the real ICLR corpus: deterministic themes, labels, sub-themes, map, trends, errors."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.model import Paper
from confnav.store import open_store
from confnav.topics import LABELERS, TopicBuilder, theme_facts, trends
from confnav.topics.build import DEFAULT_TOPIC_STEPS
from confnav.topics.candidates import candidates
from confnav.topics.centroid import CentroidLabeler
from confnav.topics.fidelity import Prose, coverage, is_cut, parts
from confnav.topics.label import AuthorsCasing, CTfidfLabeler
from confnav.topics.phrases import nested
from tests.backends import Location, clone

GRAPH_PAPERS = ("UH-cmocLJC", "lxHgXYN4bwl")  # GNN extrapolation (oral); expressive power of GNNs
VISION_PAPERS = ("YicbFdNTTy", "gZ9hCDWe6ke")  # ViT ("An Image is Worth 16x16 Words"); Deformable DETR


def assignment(location: Location) -> dict[int, str]:
    with open_store(location, create=True) as store:
        return {pk: a.theme for pk, a in store.assignments("iclr2021").items()}


class PcaLayout:
    """The map's two principal components: a layout places papers and never moves one between themes, so the
    rebuild below needs no t-SNE (a quarter of a build's time)."""

    def fit_transform(self, vectors: np.ndarray) -> np.ndarray:
        from sklearn.decomposition import PCA

        return PCA(2, random_state=0).fit_transform(vectors)


@pytest.fixture(scope="module")
def rebuilt(light_topics_db: Location, tmp_path_factory: pytest.TempPathFactory) -> Location:
    """A copy of the session's TF-IDF store whose ICLR 2021 themes are built again, labelled by the centroid
    labeler: one build for the labeler's test and for determinism, since a labeler names themes and a layout
    places them, and neither moves a paper; copy before writing."""
    copy = clone(light_topics_db, tmp_path_factory.mktemp("rebuilt"), "rebuilt")
    with open_store(copy) as store:
        TopicBuilder(labeler=LABELERS.create("centroid"), layout=PcaLayout()).build(store, "iclr2021")
    return copy


def test_themes_are_deterministic_and_cover_every_paper(light_topics_db: Location, rebuilt: Location) -> None:
    """Built again from the same vectors, every paper lands in the same theme (the build's vectors are the TF-IDF
    embedder's: whether they are the semantic model's does not change what the build does with them)."""
    first, second = assignment(light_topics_db), assignment(rebuilt)
    assert first == second
    assert len(first) == 3014


def test_theme_shape_and_labels(topics_db: Path) -> None:
    with open_store(topics_db, create=True) as store:
        top = theme_facts(store, "iclr2021", level=1)
        subs = theme_facts(store, "iclr2021", level=2)
        low = sum(a.low_confidence for a in store.assignments("iclr2021").values())
    assert 15 <= len(top) <= 40
    assert sum(t.size for t in top) == 3014
    labels = [t.label for t in top + subs]
    assert all(label.strip() for label in labels) and len(set(labels)) == len(labels)
    assert subs and all(s.parent in {t.id for t in top} for s in subs)
    assert low <= 0.05 * 3014
    assert max(t.size for t in top) <= 0.2 * 3014  # no catch-all bucket


def test_labels_are_whole_phrases_their_members_use(topics_db: Path) -> None:
    with open_store(topics_db, create=True) as store:
        themes = theme_facts(store, "iclr2021")
        papers = {p.id: p for p in store.iter_papers("iclr2021")}
    for theme in themes:
        members = [papers[i] for i in theme.paper_ids]
        assert not is_cut(theme.label, members), theme.label  # no "shot learning", no "graph neural"
        assert not [k for k in theme.keywords if is_cut(k, members)], theme.keywords  # nor beside the label
        if theme.level == 1:
            assert coverage(theme.label, members) >= 0.1, theme.label  # checked against members' own words


def test_graph_papers_sit_in_a_graph_theme(topics_db: Path) -> None:
    with open_store(topics_db, create=True) as store:
        top = theme_facts(store, "iclr2021", level=1)
    (theme,) = [t for t in top if GRAPH_PAPERS[0] in t.paper_ids]
    assert GRAPH_PAPERS[1] in theme.paper_ids
    assert "graph" in theme.label.lower()


def test_vision_papers_sit_under_a_vision_label(topics_db: Path) -> None:
    """ViT and Deformable DETR share a theme, mixed with saliency papers; ViT's theme or sub-theme names vision.
    (Which papers join them varies with the CPU's int8 arithmetic, so the top label may name the other half.)"""
    with open_store(topics_db, create=True) as store:
        top, subs = theme_facts(store, "iclr2021", level=1), theme_facts(store, "iclr2021", level=2)
    (theme,) = [t for t in top if VISION_PAPERS[0] in t.paper_ids]
    (sub,) = [t for t in subs if VISION_PAPERS[0] in t.paper_ids]
    assert VISION_PAPERS[1] in theme.paper_ids and theme.label != "data augmentation"
    vision = ("vision", "image", "object detection", "visual", "convolutional")
    assert any(word in label for label in (theme.label, sub.label) for word in vision), (theme.label, sub.label)


def test_no_label_repeats_itself(topics_db: Path) -> None:
    """The two parts of a label name two things: no shared head noun, no variant spelling, neither inside the
    other ("self-attention and attention mechanisms", "explainability and explanability")."""
    with open_store(topics_db, create=True) as store:
        labels = [t.label for level in (1, 2) for t in theme_facts(store, "iclr2021", level=level)]
    assert not [label for label in labels if len(parts(label)) == 2 and nested(*parts(label))]


def paper(number: int, title: str, *keywords: str) -> Paper:
    return Paper(f"p{number}", "test", title, keywords=list(keywords))


def labels_of(groups: list[list[Paper]]) -> list[str]:
    papers = [p for group in groups for p in group]
    themes = np.array([g for g, group in enumerate(groups) for _ in group])
    return [t.label for t in CTfidfLabeler().label(papers, themes)]


RL = [paper(100 + i, f"Agents that act {i}", "reinforcement learning") for i in range(12)]


def test_a_modifier_is_no_label_but_the_phrase_it_starts_is() -> None:
    kinds = ["adversarial robustness", "adversarial examples", "adversarial attacks", "adversarial training"]
    adversarial = [paper(i, f"Defending models {i}", kinds[i % 4]) for i in range(12)]
    adversarial += [paper(20 + i, f"Attacking models {i}", "adversarial") for i in range(2)]
    label = labels_of([adversarial, RL])[0]
    assert all(part.startswith("adversarial ") for part in parts(label)) and not is_cut(label, adversarial), label


@pytest.mark.parametrize(
    ("titles", "cut"),
    [  # venues whose papers give no keywords (NeurIPS, CVPR, ACL lists): labels come from title words alone
        (
            [
                "Few-Shot Learning with Graphs",
                "Zero-Shot Learning via Attributes",
                "One-Shot Learning of Scenes",
                "Low-Shot Learning Made Easy",
                "Meta Few-Shot Learning Revisited",
            ],
            "shot learning",
        ),
        (
            [
                "Low Rank Tensor Completion",
                "Low Rank Approximation in Streams",
                "Generalized Low Rank Tensor Models",
                "Fast Low Rank Matrix Sensing",
                "Low Rank Bandits",
            ],
            "low rank",
        ),
        (
            [
                "Multi-Armed Bandits with Delays",
                "Combinatorial Multi-Armed Bandits with Costs",
                "Contextual Multi-Armed Bandit Algorithms",
                "Regret of Multi-Armed Bandits with Graphs",
            ],
            "multi armed",
        ),
    ],
)
def test_a_label_from_titles_alone_is_no_cut_phrase(titles: list[str], cut: str) -> None:
    group = [paper(i, title) for i, title in enumerate(titles * 2)]
    others = [paper(50 + i, f"Policy iteration for agents number {i}") for i in range(10)]
    label = labels_of([group, others])[0]
    assert cut not in parts(label) and not is_cut(label, group), label


def test_a_title_phrase_the_papers_write_as_a_modifier_is_no_label() -> None:
    """Authors write "distributed stochastic" before "gradient" or "optimization" in their abstracts: no label."""
    rest = ["gradient descent", "optimization", "gradient methods", "optimization algorithms"]
    group = [
        Paper(
            f"d{i}",
            "test",
            f"Distributed Stochastic {rest[i % 4].title()} for Clusters {i}",
            abstract=f"We study distributed stochastic {rest[(i + 1) % 4]}.",
        )
        for i in range(8)
    ]
    others = [paper(50 + i, f"Policy iteration for agents number {i}") for i in range(10)]
    label = labels_of([group, others])[0]
    assert "distributed stochastic" not in parts(label) and not is_cut(label, group), label
    prose = Prose(group + [Paper("e", "test", "Point clouds", abstract="Point clouds. We segment point clouds.")] * 3)
    assert prose.runs_on(["distributed", "stochastic"]) and not prose.runs_on(["point", "clouds"])
    assert prose.runs_on(["efficient", "distributed", "stochastic"])  # too rare itself: its last word runs on
    rare = Prose([Paper(f"t{i}", "test", f"Text-Driven {w}") for i, w in enumerate(["Avatars", "Garments", "Art"])])
    assert rare.runs_on(["text", "driven"]) and not rare.runs_on(["driven", "avatars"])  # each of three uses runs on


def test_a_keyword_the_prose_grades_like_an_adjective_is_no_label() -> None:
    """ICLR 2021 labelled a sub-theme "efficient": authors write it as a keyword, and "more efficient" in prose."""
    prose = "Our sampler is more efficient than MCMC and highly efficient on GPUs; memory stays low."
    group = [
        Paper(f"e{i}", "test", f"Fast samplers number {i}", keywords=["efficient", "memory"], abstract=prose)
        for i in range(6)
    ]
    assert is_cut("efficient", group) and not is_cut("memory", group)
    assert labels_of([group, RL])[0] == "memory"


def test_a_phrase_tied_by_a_hyphen_to_a_word_outside_it_is_cut() -> None:
    sight = [paper(i, title) for i, title in enumerate(["Non-Line-of-Sight Imaging", "Seeing Non-Line-of-Sight"])]
    assert is_cut("non-line", sight) and is_cut("sight imaging", sight) and not is_cut("non-line-of-sight", sight)
    translation = [paper(i, f"Image-to-Image Translation {w}") for i, w in enumerate(["for Faces", "with Pairs"])]
    assert not is_cut("image-to-image translation", translation) and is_cut("image translation", translation)


def test_a_title_phrase_both_of_whose_two_uses_run_on_is_a_modifier() -> None:
    driven = [paper(1, "Text-Driven Avatars"), paper(2, "Fast Text-Driven Garment Design")]
    assert is_cut("text-driven", driven) and not is_cut("text-driven avatars", driven)
    assert not is_cut("view synthesis", [paper(3, "Novel View Synthesis"), paper(4, "View Synthesis for Scenes")])


def test_no_phrase_runs_across_a_title_s_punctuation() -> None:
    phrases = {display for _, display, _ in candidates(paper(1, "VRSTC: Occlusion-Free Video Person Search"))}
    assert "occlusion-free video" in phrases and not [p for p in phrases if "vrstc" in p], phrases


def test_a_paper_s_own_name_is_no_candidate_phrase() -> None:
    phrases = {display for _, display, _ in candidates(paper(1, "DuLa-Net: A Dual-Projection Network for Layouts"))}
    assert "dual-projection network" in phrases and not [p for p in phrases if "dula" in p], phrases
    assert [p for _, p, _ in candidates(paper(2, "Scaling laws", "deep-learning"))] == ["scaling laws"]  # generic


def test_a_name_and_a_3d_phrase_a_title_writes_are_candidates() -> None:
    """SIGGRAPH 2022 titles name StyleGAN in half a theme, CVPR 2019's say "3D Reconstruction": both can be labels."""
    phrases = {display for _, display, _ in candidates(paper(1, "Scaling StyleGAN to Diverse CNNs With 3D Scenes"))}
    assert {"StyleGAN", "3d scenes"} <= phrases and "CNNs" not in phrases, phrases  # an acronym alone is no name
    styled = [paper(i, f"{w} With StyleGAN") for i, w in enumerate(["Editing Faces", "Patterns", "Domain Shift"])]
    assert labels_of([styled, RL])[0] == "StyleGAN"
    rebuilt = [paper(i, f"{w} 3D Reconstruction of Rooms") for i, w in enumerate(["Neural", "Fast", "Robust"])]
    assert labels_of([rebuilt, RL])[0] == "3D reconstruction"


def test_a_theme_whose_phrases_are_each_in_one_title_is_named_by_a_word_two_titles_share() -> None:
    """A phrase one title writes names that paper, not its theme (SIGGRAPH 2022's 18-paper "hierarchical
    cross-parameterization"): the label is a word two titles or more share; the phrases beside it rank by the
    theme's words, not the alphabet."""
    titles = [
        "Whitewater simulation at scale",
        "Cloth simulation made fast",
        "Yarn-level simulation revisited",
        "Vortical flow simulation on grids",
        "Wet foam rendering",
        "Zebra stripes painting",
    ]
    group = [paper(i, title) for i, title in enumerate(titles)]
    named = CTfidfLabeler().label(group + RL, np.array([0] * 6 + [1] * 12))[0]
    label, keywords = named.label, named.keywords
    assert label == "simulation" and all("simulation" in k for k in keywords[:4]), (label, keywords)


def test_a_theme_whose_papers_share_no_word_gets_no_made_up_name() -> None:
    titles = ["Zone-aware multiple importance sampling", "Adaptive kinematic rigs", "Bending beams"]
    group = [paper(i, title) for i, title in enumerate(titles)]
    named = CTfidfLabeler().label(group + RL, np.array([0] * 3 + [1] * 12))[0]
    assert named.label == "theme 1" and not named.named, named.label  # not "adaptive kinematic rigs", one paper's
    assert "zone-aware multiple" not in named.keywords, named.keywords  # it runs on into "importance sampling"


def test_a_hyphenated_word_is_one_word_of_a_title_phrase() -> None:
    """CVPR 2019's person re-identification papers write "Person Re-Identification": a phrase of two words, never
    "person re"; "Multi-Person Articulated Tracking" gives the whole phrase, and "few-shot" no "shot learning"."""
    phrases = {display for _, display, _ in candidates(paper(1, "Distilled Person Re-Identification: A Survey"))}
    assert {"person re-identification", "distilled person re-identification"} <= phrases, phrases
    phrases = {display for _, display, _ in candidates(paper(2, "Multi-Person Articulated Tracking With Embeddings"))}
    assert "multi-person articulated tracking" in phrases, phrases
    phrases = {display for _, display, _ in candidates(paper(3, "Meta Few-Shot Learning Revisited"))}
    assert "few-shot learning" in phrases and not [p for p in phrases if p.startswith("shot")], phrases


def test_a_mixed_theme_is_named_by_both_halves() -> None:
    mixed = [paper(i, f"Saliency maps explained {i}", "interpretability") for i in range(6)]
    mixed += [paper(20 + i, f"Detecting boxes fast {i}", "object detection") for i in range(6)]
    mixed.append(paper(30, "Something else entirely", "benchmarks"))
    label = labels_of([mixed, RL])[0]
    assert set(parts(label)) == {"interpretability", "object detection"} and coverage(label, mixed) == 12 / 13


def test_an_acronym_counts_for_the_phrase_the_venue_spells_it_out_as() -> None:
    graphs = [paper(1, "Graph Neural Networks (GNNs) extrapolate"), paper(2, "How expressive are GNNs?")]
    assert coverage("graph neural networks", graphs) == 1.0 and coverage("GNN", graphs) == 1.0
    rl = [paper(3, "Reinforcement learning (RL) with options"), paper(4, "Offline RL at scale")]
    assert coverage("reinforcement learning", rl) == 1.0 and coverage("representation learning", rl) == 0.0


def test_labels_are_shown_in_the_casing_authors_write_mid_sentence() -> None:
    abstracts = [
        "We study Q-learning with Gaussian noise.",
        "Tabular Q-learning meets Gaussian processes.",
        "Q-learning is studied. Our q-learning variant uses Gaussian priors.",
    ]
    q = [
        Paper(f"q{i}", "test", f"Value updates {i}", abstract=a, keywords=["q-learning"])
        for i, a in enumerate(abstracts * 2)
    ]
    label = labels_of([q, RL])[0]
    assert label == "Q-learning", label
    casing = AuthorsCasing(q)
    assert casing.apply("gaussian processes and q-learning") == "Gaussian processes and Q-learning"
    assert casing.apply("tabular methods") == "tabular methods"  # "Tabular" opens its sentence only
    titles = ["Fast NAS for Phones", "NAS Without Training", "Few-Shot Learning of BRDFs", "Layered BRDFs"]
    titled = AuthorsCasing([Paper(f"t{i}", "test", title) for i, title in enumerate(titles)])  # no abstracts
    assert titled.apply("nas and few-shot learning of brdfs") == "NAS and few-shot learning of BRDFs"


def test_keywords_beside_a_label_spell_each_phrase_once() -> None:
    spellings = ["multi-task learning", "multitask learning"]
    shared = [paper(i, f"Sharing layers {i}", spellings[i % 2]) for i in range(12)]
    keywords = CTfidfLabeler().label(shared + RL, np.array([0] * 12 + [1] * 12))[0].keywords
    assert sum(k in spellings for k in keywords) == 1, keywords


def test_keywords_beside_a_label_show_one_phrase_of_the_same_papers_words() -> None:
    titles = ["Adjoint nonlinear ray tracing", "Neural fields for clouds", "Quad meshes via flips"]
    group = [paper(i, title) for i, title in enumerate(titles)]
    keywords = CTfidfLabeler().label(group + RL, np.array([0] * 3 + [1] * 12))[0].keywords
    assert "nonlinear ray tracing" in keywords and not {"adjoint nonlinear", "ray tracing"} & set(keywords), keywords


def test_a_field_is_used_by_the_narrower_phrases_that_imply_it() -> None:
    vision = [paper(1, "Deformable transformers", "object detection"), paper(2, "An image is worth 16x16 words")]
    assert coverage("computer vision", vision) == 1.0 and coverage("natural language processing", vision) == 0.0


def test_theme_facts_match_the_papers(topics_db: Path) -> None:
    with open_store(topics_db, create=True) as store:
        top = theme_facts(store, "iclr2021", level=1)
        papers = {p.id: p for p in store.iter_papers("iclr2021")}
    assert sum(t.oral for t in top) == 53 and sum(t.accepted for t in top) == 860
    theme = top[0]
    members = [papers[i] for i in theme.paper_ids]
    assert theme.accepted == sum(p.decision.accepted for p in members)
    assert theme.decided == sum(p.decision.decided for p in members)


def test_trends_between_the_two_iclr_venues(topics_db: Path) -> None:
    with open_store(topics_db, create=True) as store:
        result = trends(store, "iclr2020", "iclr2021")
    assert abs(sum(t.before for t in result.themes) - 1) < 1e-9
    assert abs(sum(t.after for t in result.themes) - 1) < 1e-9
    assert result.keywords_grown and result.keywords_shrunk and result.keywords_new
    assert all(k.count_before == 0 for k in result.keywords_new)


def test_cli_topics_json_and_map(topics_db: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["topics", "--db", str(topics_db), "--venue", "iclr2021", "--json"])
    assert result.exit_code == 0, result.stderr
    themes = json.loads(result.stdout)
    assert {"id", "label", "keywords", "size", "paper_ids", "acceptance_rate", "parent"} <= set(themes[0])
    out = tmp_path / "map.png"
    result = CliRunner().invoke(cli, ["map", "--db", str(topics_db), "--venue", "iclr2021", "--out", str(out)])
    assert result.exit_code == 0 and out.read_bytes()[:4] == b"\x89PNG"
    result = CliRunner().invoke(cli, ["trends", "--db", str(topics_db), "--from", "iclr2020", "--to", "iclr2021"])
    assert result.exit_code == 0 and "New keywords in iclr2021" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["topic", "t99", "--venue", "iclr2021"], "no theme 't99'"),
        (["topics", "--venue", "neurips2020"], "unknown venue 'neurips2020'"),
    ],
)
def test_topic_errors(topics_db: Path, tmp_path: Path, args: list[str], message: str) -> None:
    copy = clone(topics_db, tmp_path, "copy")
    result = CliRunner().invoke(cli, [args[0], "--db", str(copy), *args[1:]])
    assert result.exit_code == 1 and message in result.stderr


def test_more_themes_than_papers_or_the_most_asked_for_are_refused(topics_db: Path, tmp_path: Path) -> None:
    """The library refuses more themes than papers; the CLI's option stops at MAX_THEMES as a usage error."""
    from confnav.errors import ConfnavError
    from confnav.topics.build import theme_range

    with pytest.raises(ConfnavError, match="cannot make 500 themes from 300 papers"):
        theme_range(300, 500)
    copy = clone(topics_db, tmp_path, "copy")
    result = CliRunner().invoke(cli, ["topics", "--db", str(copy), "--venue", "iclr2021", "--themes", "5000"])
    assert result.exit_code == 2 and "5000 is not in the range 1<=x<=1000" in result.stderr


def test_venue_without_index_says_what_to_run(iclr2021_copy: Path) -> None:
    result = CliRunner().invoke(cli, ["topics", "--db", str(iclr2021_copy)])
    assert result.exit_code == 1 and "run 'confnav index'" in result.stderr


def test_map_labels_at_one_spot_do_not_cover_each_other() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from confnav.topics.map_image import place_labels

    figure, axes = plt.subplots(figsize=(6, 4))
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    crowded = [(0.5, 0.5, "graph neural networks"), (0.5, 0.5, "reinforcement learning"), (0.51, 0.5, "GAN")]
    boxes = place_labels(axes, crowded, {"ha": "center", "va": "center", "fontsize": 9})
    plt.close(figure)
    assert len(boxes) == 3
    assert not any(boxes[i].overlaps(boxes[j]) for i in range(3) for j in range(i))


def test_new_themes_or_signals_change_the_store_state(topics_db: Path, tmp_path: Path) -> None:
    """Caches keyed on the store state (the web app's answers) see rebuilt themes and imported signals."""
    copy = clone(topics_db, tmp_path, "state")
    with open_store(copy, create=True) as store:
        before = store.state()
        run = store.topic_run("iclr2021")
        assert run is not None
        themes, assignments = store.themes("iclr2021"), list(store.assignments("iclr2021").values())
        with store.transaction():
            store.put_topics("iclr2021", run[0], run[1], run[2], themes, assignments)
        after_themes = store.state()
        with store.transaction():
            store.put_external_signals("iclr2021", "test", [("Ua6zuk0WRH", "citations", 5.0)])
        assert len({before, after_themes, store.state()}) == 3


def low_rank_theme() -> tuple[list[Paper], np.ndarray]:
    """A theme most of whose papers factor matrices in their own words, five of them on blind deconvolution (a
    phrase no other paper uses: the one c-TF-IDF prefers), beside a recommender theme and an RL one."""

    def made(number: int, title: str, abstract: str, keyword: str) -> Paper:
        return Paper(f"p{number}", "test", title, abstract=abstract, keywords=[keyword])

    theme = [
        made(
            i, f"Recovering blurred signals {i}", "Blind deconvolution recovers a sharp signal.", "blind deconvolution"
        )
        for i in range(5)
    ]
    theme += [
        made(
            10 + i,
            f"Low-rank models {i}",
            "Low-rank matrix factorization and matrix completion.",
            "matrix factorization",
        )
        for i in range(6)
    ]
    theme += [
        made(
            20 + i, f"Completing tables {i}", "We complete a low-rank matrix by factorization into factors.", "low-rank"
        )
        for i in range(9)
    ]
    recommending = "Collaborative filtering for recommendation with matrix factorization of ratings."
    others = [made(40 + i, f"Recommending items {i}", recommending, "matrix factorization") for i in range(10)]
    others += [
        made(60 + i, f"Agents that act {i}", "An agent learns a policy.", "reinforcement learning") for i in range(12)
    ]
    return [*theme, *others], np.array([0] * len(theme) + [1] * 10 + [2] * 12)


@pytest.mark.semantic
def test_the_centroid_labeler_names_what_the_theme_as_a_whole_is_about() -> None:
    """Issue 39: candidate phrases scored against the theme's centre in the embedding space (KeyBERT-inspired),
    verified against the members' own words: the theme is named by matrix factorization first, not by the five
    papers' blind deconvolution; without vectors it labels as c-TF-IDF does."""
    from confnav.embed import choose_embedder

    papers, groups = low_rank_theme()
    embedder = choose_embedder()[0]
    vectors = embedder.embed([f"{p.title}. {p.abstract}" for p in papers])
    by_ctfidf = [t.label for t in CTfidfLabeler().label(papers, groups)]
    by_centre = [t.label for t in CentroidLabeler().label(papers, groups, vectors=vectors, embed=embedder.embed)]
    assert parts(by_ctfidf[0])[0] == "blind deconvolution"
    assert parts(by_centre[0])[0] == "matrix factorization", by_centre
    members = papers[:20]
    assert all(coverage(part, members) >= 0.05 for part in parts(by_centre[0]))  # each part verified by members
    assert [t.label for t in CentroidLabeler().label(papers, groups)] == by_ctfidf


def titles_only(papers: list[Paper]) -> list[Paper]:
    """The papers as a venue without author keywords lists them: their keyword phrase in their titles instead."""
    return [
        replace(p, title=p.title if p.keywords == ["low-rank"] else f"Notes {p.id[1:]} on {p.keywords[0]}", keywords=[])
        for p in papers
    ]


@pytest.mark.semantic
def test_the_default_labeler_reads_the_centre_only_where_titles_are_the_evidence() -> None:
    """Issue 39 (NeurIPS 2018's "blind deconvolution" theme, whose papers mostly factor matrices): where authors'
    keywords name a theme, c-TF-IDF's choice stands, as their counts are evidence enough; where only a few titles
    name it, the theme's centre decides."""
    from confnav.embed import choose_embedder

    embedder = choose_embedder()[0]
    default = LABELERS.create(DEFAULT_TOPIC_STEPS["labeler"])
    for papers, first in ((low_rank_theme()[0], "blind deconvolution"), (titles_only(low_rank_theme()[0]), None)):
        groups = low_rank_theme()[1]
        vectors = embedder.embed([f"{p.title}. {p.abstract}" for p in papers])
        by_ctfidf = parts(CTfidfLabeler().label(papers, groups)[0].label)[0]
        chosen = parts(default.label(papers, groups, vectors=vectors, embed=embedder.embed)[0].label)[0]
        assert by_ctfidf == "blind deconvolution"
        assert chosen == (first or "matrix factorization"), chosen


def test_the_labeler_is_a_step_chosen_by_name(rebuilt: Location) -> None:
    """The centroid labeler is registered beside c-TF-IDF and builds themes from the store's own vectors (here the
    TF-IDF embedder's, with its fitted state): every label is used by members of its theme."""
    assert {"ctfidf", "centroid"} <= set(LABELERS.names())
    with open_store(rebuilt) as store:
        papers = {p.id: p for p in store.iter_papers("iclr2021")}
        themes = theme_facts(store, "iclr2021", level=1)
    assert len({t.label for t in themes}) == len(themes)
    assert all(coverage(t.label, [papers[i] for i in t.paper_ids]) > 0 for t in themes)


def test_a_label_is_spelled_as_most_of_the_papers_spell_it() -> None:
    """A rare misspelling counts as a use of the phrase it misspells, and looks the more distinctive of the two
    (ICLR 2021's explainability papers were labelled "explanability", a spelling two of them use): the label takes
    the spelling most papers write, unless another label has it; a different word a letter or two away stays what
    it is ("clarification" is no "classification")."""
    from collections import Counter

    from confnav.topics.label_words import CommonSpelling, label_names

    counts = [Counter({"explan": 2.0, "explain": 10.0, "clarif": 3.0}), Counter({"explain": 4.0, "classif": 12.0})]
    shown = {
        "explan": "explanability",
        "explain": "explainability",
        "clarif": "clarification",
        "classif": "classification",
    }
    spelling = CommonSpelling(counts, shown)
    assert spelling.of("explanability", set()) == "explainability"
    assert spelling.of("explanability and clarification", set()) == "explainability and clarification"
    assert spelling.of("explanability", label_names("explainability")) == "explanability"  # taken: left as it was
    assert spelling.of("multitask learning", set()) == "multitask learning"  # no other spelling known
    clear = [paper(i, f"Asking for detail {i}", "clarification") for i in range(6)]
    classified = [paper(10 + i, f"Labelling images {i}", "classification") for i in range(12)]
    assert labels_of([clear, classified, RL])[0] == "clarification"


def test_theme_facts_leave_out_members_not_among_the_papers_given(light_topics_db: Location) -> None:
    """A member missing from the papers a caller gives (one that reads as a placeholder since the themes were
    built, as after a code upgrade) is left out of the facts, not a KeyError that stops the ranking."""
    with open_store(light_topics_db) as store:
        papers = dict(store.paper_rows("iclr2021"))
        whole = theme_facts(store, "iclr2021", level=1, papers=papers)
        gone = next(iter(store.assignments("iclr2021")))
        del papers[gone]
        fewer = theme_facts(store, "iclr2021", level=1, papers=papers)
    assert sum(t.size for t in fewer) == sum(t.size for t in whole) - 1


def test_a_theme_s_mean_rating_leaves_out_desk_rejects_as_stats_does(light_topics_db: Location) -> None:
    """ICLR 2021's desk reject NHysmWivrHP was rated 3, 4, 4: `stats` leaves it out of every mean rating, and its
    theme's mean counted it (5.155 for 5.184 in the QA store); one rule, Paper.reviewed_rating_mean, for both."""
    from confnav.reports.stats import rating_table, year_table

    with open_store(light_topics_db, read_only=True) as store:
        papers = {p.id: p for p in store.iter_papers("iclr2021")}
        facts = theme_facts(store, "iclr2021", level=1)
        desk = papers["NHysmWivrHP"]
        assert desk.decision.desk_rejected and desk.ratings == [3, 4, 4]
        home = next(f for f in facts if desk.id in f.paper_ids)
        others = [papers[i].rating_mean for i in home.paper_ids if i != desk.id and papers[i].rating_mean is not None]
        assert home.mean_rating == pytest.approx(sum(others) / len(others))
        for theme in facts:
            counted = [m for i in theme.paper_ids if (m := papers[i].reviewed_rating_mean) is not None]
            assert theme.mean_rating == pytest.approx(sum(counted) / len(counted)), theme.id
        table = rating_table(list(papers.values()))
        assert "desk-reject" not in {row[0] for row in table.rows}
        reviewed = [m for p in papers.values() if not p.placeholder and (m := p.reviewed_rating_mean) is not None]
        years = year_table(store, "iclr2021")
        assert years is not None
        shown = next(row for row in years.rows if row[0].startswith("Mean rating"))
        assert shown[2] == f"{sum(reviewed) / len(reviewed):.2f}"
