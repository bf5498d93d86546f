"""Reports on the real corpus: grounded overview, verifier catching forgeries, exact statistics, TL;DRs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from confnav.cli import cli
from confnav.reports.faults import dangles, dangling_sentences, hover_repeats, repeated_facts, word_count
from confnav.reports.model import Citation
from confnav.reports.overview import build_overview
from confnav.reports.prose import method_name, paper_name, paper_sentence, paper_sentences, paper_subject
from confnav.reports.render import to_html, to_markdown
from confnav.reports.verify import verify_text
from confnav.sources import SourceRecord, read_file
from confnav.store import open_store
from confnav.summarize import ExtractiveSummarizer, extractive_tldr, is_self_contained
from tests.backends import clone
from tests.conftest import ICLR2021


@pytest.fixture(scope="module")
def reports(topics_db: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("reports")
    made = {}
    for name, args in {
        "overview.md": ["report", "overview", "--venue", "iclr2021"],
        "overview.html": ["report", "overview", "--venue", "iclr2021", "--format", "html"],
        "stats.md": ["report", "stats", "--venue", "iclr2021"],
        "stats.html": ["report", "stats", "--venue", "iclr2021", "--format", "html"],
        "digest.md": ["report", "digest", "--venue", "iclr2021", "--top", "15"],
        "digest.html": ["report", "digest", "--venue", "iclr2021", "--top", "15", "--format", "html"],
    }.items():
        result = CliRunner().invoke(cli, [*args[:2], "--db", str(topics_db), *args[2:], "-o", str(folder / name)])
        assert result.exit_code == 0, result.stderr
        made[name] = folder / name
    return made


def verify(db: Path, path: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["verify", "--db", str(db), str(path)])
    return result.exit_code, result.stdout, result.stderr


def test_overview_cites_only_iclr2021_papers_and_verifies(reports: dict[str, Path], topics_db: Path) -> None:
    with open_store(topics_db, create=True) as store:
        iclr2021 = {p.id for p in store.iter_papers("iclr2021")}
    for name in ("overview.md", "overview.html"):
        text = reports[name].read_text()
        cited = set(re.findall(r"openreview\.net/forum\?id=([\w\-]+)", text))
        assert len(cited) >= 100 and cited <= iclr2021
        code, stdout, _ = verify(topics_db, reports[name])
        assert code == 0 and stdout.startswith("OK")
    markdown = reports["overview.md"].read_text()
    assert "**2,997**<!-- fact:venue.reviewed --> submissions that entered review" in markdown  # said once, in prose
    assert "**28.7%**<!-- fact:venue.acceptance_rate --> of those decided" in markdown
    assert "Accepted as poster: **693**<!-- fact:venue.poster --> (**23.1%**<!-- fact:venue.poster_rate -->" in markdown
    assert len(re.findall(r"^\[\^[\w\-]+\]: ", markdown, re.M)) == len(set(re.findall(r"\[\^([\w\-]+)\]", markdown)))


def test_overview_reads_as_an_opening_a_paragraph_per_theme_and_where_to_start(topics_db: Path) -> None:
    """Issue 39: an opening on what characterised the venue (against ICLR 2020), 150-250 words for each of the
    largest themes, the rest in brief, a closing; no fact said twice, no dangling opener, no card repeating its
    sentence."""
    with open_store(topics_db) as store:
        report = build_overview(store, "iclr2021")
        markdown, html = to_markdown(report), to_html(report)
        assert verify_text(store, markdown).ok and verify_text(store, html).ok
    assert "Against ICLR 2020, " in report.intro and "{trend." in report.intro  # the fastest-growing themes
    assert "The largest themes of ICLR 2021 are " in report.intro
    themes = [s for s in report.sections if s.anchor]
    assert 12 <= len(themes) <= 15
    assert all(150 <= word_count(s.summary) <= 250 for s in themes), [word_count(s.summary) for s in themes]
    assert [s.title for s in report.sections if not s.anchor] == ["Smaller themes", "Where to start"]
    assert sum("sub-themes such as" in s.summary for s in themes) >= 10
    assert sum(" both " in s.summary or " all " in s.summary for s in themes) >= 5  # papers related to each other
    assert all("comes first in the theme" in s.summary for s in themes[:5])  # why the leading papers lead
    assert repeated_facts(markdown) == []
    assert dangling_sentences([report.intro, *(s.summary for s in report.sections)]) == []
    assert hover_repeats(html) == []


@pytest.mark.parametrize(
    ("sentence", "dangling"),
    [
        ("However, the model fails.", True),
        ("This shows that X holds.", True),
        ("To implement the idea, X uses Y.", True),
        ("Based on this observation, X uses Y.", True),
        ("Inspired by smoothing, X uses Y.", False),
        ('"This Looks Like That" explains images.', False),  # a quoted title
        ("ICLR 2021 accepted N of the N submissions (N of those decided), N as orals.", False),
    ],
)
def test_dangling_openers_are_told_apart(sentence: str, dangling: bool) -> None:
    assert dangles(sentence) is dangling


def test_a_dangling_opening_clause_is_left_out_of_a_paper_sentence() -> None:
    made = paper_sentence(cite("To implement the idea, we weight the points by difficulty."), "GAIRAT")
    assert made == "GAIRAT weights the points by difficulty [[cite:p1]]."


def test_facts_said_twice_and_cards_repeating_their_sentence_are_counted() -> None:
    block = "# T\n\n## Facts\n\n- Accepted as oral: **53**<!-- fact:venue.oral -->\n"
    block += "- Accepted as oral: share of decided submissions: **1.8%**<!-- fact:venue.oral_rate -->\n\n## 1. A\n"
    assert len(repeated_facts(block)) == 1
    assert len(repeated_facts(block + "**53**<!-- fact:venue.oral --> orals.")) == 2
    card = '<span class="cite mark" data-paper="p1"><a href="x">[1]</a><span class="card" role="tooltip">'
    told = f"<p>X proposes a sparse attention for long inputs {card}<strong>TL;DR</strong> (author): We propose a "
    told += "sparse attention for long inputs.</span></span>. Y does something else.</p>"
    assert len(hover_repeats(told)) == 1
    assert hover_repeats(told.replace("X proposes a sparse attention for long inputs", "X is fast")) == []


def test_html_is_self_contained(reports: dict[str, Path]) -> None:
    for name in ("overview.html", "stats.html"):
        text = reports[name].read_text()
        assert "<script" not in text and "<link" not in text
        assert not re.search(r"""(src|href)=["']?(https?:)?//(?!openreview\.net)""", text)
        assert 'name="viewport"' in text
    assert "data:image/png;base64," in reports["stats.html"].read_text()


@pytest.mark.sqlite_only  # the verifier's logic on an edited report; the tests above verify on PostgreSQL
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda t: t.replace("**860**<!-- fact:venue.accepted -->", "**861**<!-- fact:venue.accepted -->", 1),
            "fact venue.accepted: the report says 861, the store says 860",
        ),
        (lambda t: t.replace("forum?id=-2FCwDKRREu", "forum?id=FAKEpaper01", 1), "citation FAKEpaper01: no such paper"),
        (lambda t: t.replace("forum?id=-2FCwDKRREu", "forum?id=B1e-kxSKDH", 1), "a paper of iclr2020, not iclr2021"),
    ],
)
def test_verifier_catches_forgeries(reports: dict[str, Path], topics_db: Path, tmp_path: Path, edit, message) -> None:  # type: ignore[no-untyped-def]
    forged = tmp_path / "forged.md"
    forged.write_text(edit(reports["overview.md"].read_text()))
    code, stdout, stderr = verify(topics_db, forged)
    assert code == 1 and stdout.startswith("FAILED") and message in stderr


def test_verifier_catches_a_changed_table_cell(reports: dict[str, Path], topics_db: Path, tmp_path: Path) -> None:
    text = reports["stats.md"].read_text()
    assert verify(topics_db, reports["stats.md"])[0] == 0
    forged = tmp_path / "stats.md"
    forged.write_text(text.replace("| oral | accepted | 53 | 1.8% |", "| oral | accepted | 54 | 1.8% |"))
    code, _, stderr = verify(topics_db, forged)
    assert code == 1 and "table decisions: row 1 differs" in stderr


def _first(pattern: str, text: str) -> re.Match[str]:
    found = re.search(pattern, text, re.M)
    assert found is not None, pattern
    return found


def _retitle(text: str) -> str:  # the first listed paper's title, one word changed
    item = _first(r"^1\. \[([^\]]+)\]", text)
    return text.replace(item.group(0), item.group(0).replace(item.group(1), item.group(1) + " Revisited"), 1)


def _reason(text: str) -> str:  # a number in the first listed paper's reasons, changed
    item = _first(r"^1\. \[.*? — .*?(\d+)", text)
    return text[: item.start(1)] + "1" + text[item.start(1) :]


def _other_theme_fact(text: str) -> str:  # the first theme's size shown with the second theme's size fact
    second = _first(r"\*\*[\d,]+\*\*<!-- fact:theme\.t02\.size -->", text).group(0)
    return re.sub(r"\*\*[\d,]+\*\*<!-- fact:theme\.t01\.size -->", second, text, count=1)


UNSUPPORTED = "ICLR 2021 was held in Kawai from May 11th to May 17th and received 4,500 submissions."


@pytest.mark.sqlite_only  # the verifier's logic on an edited report; the tests above verify on PostgreSQL
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_retitle, "Revisited'; its title is"),
        (
            lambda t: t.replace("\n## 1. ", f"\n{UNSUPPORTED}\n\n## 1. ", 1),
            "11, 17, 4,500: a number that is no checked",
        ),
        (lambda t: t.replace("# ICLR 2021: an overview", "# ICLR 2022 (Vienna, May 2022): an overview"), "ICLR 2022"),
        (lambda t: t.replace("**860**<!-- fact:venue.accepted -->", "**860**", 1), "line 12: 860: a number that"),
        (_reason, "are not the ranking's reasons for it"),
        (
            lambda t: re.sub(r"(?m)^(\d+\. \[.*? — accepted \()oral\b", r"\1best paper award", t, count=1),
            "best paper award",  # the decision a listed paper shows is the store's
        ),
        (lambda t: re.sub(r"(?m)^(\[\^[\w\-~.]+\]: )", r"\1We prove that ", t, count=1), "TL;DR shown for"),
        (
            lambda t: t.replace("**53**<!-- fact:venue.oral -->", "**114**<!-- fact:venue.spotlight -->", 1),
            "fact venue.spotlight is shown as oral",
        ),
        (_other_theme_fact, "fact theme.t02.size of theme t02 is shown in the section of theme t01"),
        (
            lambda t: t.replace("- Rejected: **1,756**", "- Accepted as oral: **1,756**", 1),
            "fact venue.reject is listed as 'Accepted as oral'",
        ),
        (lambda t: t.replace(" as orals.", " as orals (and 9 as best papers).", 1), "9: a number that is no checked"),
    ],
)
def test_verifier_grounds_every_word_shown(
    reports: dict[str, Path],
    topics_db: Path,
    tmp_path: Path,
    edit,  # type: ignore[no-untyped-def]
    message: str,
) -> None:
    """Tampered words the marks do not cover: titles, TL;DRs, reasons, unmarked numbers, facts out of place."""
    forged = tmp_path / "forged.md"
    text = reports["overview.md"].read_text()
    assert edit(text) != text
    forged.write_text(edit(text))
    code, stdout, stderr = verify(topics_db, forged)
    assert code == 1 and stdout.startswith("FAILED") and message in stderr, stderr


@pytest.mark.sqlite_only  # the verifier's logic on an edited report; the tests above verify on PostgreSQL
@pytest.mark.parametrize(
    ("name", "edit", "message"),
    [
        (
            "overview.html",
            lambda t: re.sub(r"(<br>)[^<·]+ et al\. · ", r"\1Geoffrey Hinton et al. · ", t, count=1),
            "authors shown",
        ),
        (
            "overview.html",
            lambda t: t.replace("<h1>ICLR 2021: ", "<h1>ICLR 2021 (Kawai, May 11–17): ", 1),
            "does not name",
        ),
        ("overview.html", lambda t: t.replace('<strong data-fact="venue.accepted">', "<strong>", 1), "a number that"),
        ("digest.html", lambda t: re.sub(r'(<span class="tldr">)', r"\1We prove that ", t, count=1), "TL;DR shown"),
        ("digest.md", _reason, "are not the ranking's reasons for it"),
        (
            "stats.md",
            lambda t: re.sub(r"<!-- table:authors -->\n(.*\n.*\n\| [^|]+ \| )\d+", r"\1 999", t),
            "without its",
        ),
        ("stats.md", lambda t: t.replace("| Decision | Outcome |", "| Decision | Verdict |", 1), "the header differs"),
        ("stats.md", lambda t: t.replace("\nRates count", "\nIt was held from May 3 to May 7. Rates count"), "3, 7"),
        ("stats.html", lambda t: t.replace('<table data-table="authors">', "<table>"), "without its data-table"),
    ],
)
def test_verifier_grounds_every_report_kind(
    reports: dict[str, Path],
    topics_db: Path,
    tmp_path: Path,
    name: str,
    edit,  # type: ignore[no-untyped-def]
    message: str,
) -> None:
    forged = tmp_path / name
    text = reports[name].read_text()
    assert edit(text) != text
    forged.write_text(edit(text))
    code, _, stderr = verify(topics_db, forged)
    assert code == 1 and message in stderr, stderr


def test_every_generated_report_verifies_with_nothing_left_unchecked(reports: dict[str, Path], topics_db: Path) -> None:
    for name, path in reports.items():
        code, stdout, stderr = verify(topics_db, path)
        assert code == 0 and stdout.startswith("OK") and stderr == "", (name, stderr)


def test_statistics_match_the_data(topics_db: Path) -> None:
    result = CliRunner().invoke(cli, ["stats", "--db", str(topics_db), "--venue", "iclr2021", "--json"])
    data = json.loads(result.stdout)
    facts = data["facts"]
    assert facts["venue.reviewed"] == 2997 and facts["venue.desk_rejects"] == 17  # numbers, not text
    assert facts["venue.accepted"] == 860 and round(facts["venue.acceptance_rate"], 3) == 0.287
    assert facts["venue.oral"] == 53 and round(facts["venue.oral_rate"], 3) == 0.018
    assert facts["venue.spotlight"] == 114 and round(facts["venue.spotlight_rate"], 3) == 0.038
    assert data["labels"]["venue.reviewed"] == "Submissions that entered review"
    decisions = {row["Decision"]: row for row in data["tables"]["decisions"]}
    assert decisions["poster"]["Papers"] == 693
    institutions = [row["Institution"] for row in data["tables"]["institutions"]]
    assert institutions[0] == "Google" and "Google Brain" not in institutions
    years = data["tables"]["years"]
    assert years[0]["ICLR 2021"] == 2997


def test_digest_has_reasons_and_tldrs(reports: dict[str, Path]) -> None:
    text = reports["digest.md"].read_text()
    assert text.count("](https://openreview.net/forum?id=") == 15
    assert "ratings" in text and "(extractive TL;DR)" in text


def test_tldrs_on_every_paper_respect_the_rules(topics_db: Path) -> None:
    with open_store(topics_db, create=True) as store:
        papers = [p for p in store.iter_papers("iclr2021") if p.abstract]
    assert len(papers) == 2966
    made = {p.id: ExtractiveSummarizer().tldr(p).tldr for p in papers}
    assert sum(t is None for t in made.values()) < 10  # absent, not broken, when no sentence qualifies
    for paper_id, tldr in made.items():
        if tldr is not None:
            assert len(tldr.split()) <= 30 and is_self_contained(tldr), (paper_id, tldr)
            assert not re.search(r"[$\\{}]|\[\d", tldr), (paper_id, tldr)


def test_report_errors(iclr2021_copy: Path, topics_db: Path, tmp_path: Path) -> None:
    no_topics = CliRunner().invoke(cli, ["report", "overview", "--db", str(iclr2021_copy), "--venue", "iclr2021"])
    assert no_topics.exit_code == 1 and "run 'confnav index'" in no_topics.stderr
    unknown = CliRunner().invoke(cli, ["report", "stats", "--db", str(topics_db), "--venue", "nips1990"])
    assert unknown.exit_code == 1 and "unknown venue 'nips1990'" in unknown.stderr
    not_report = tmp_path / "x.md"
    not_report.write_text("# hello\n")
    result = CliRunner().invoke(cli, ["verify", "--db", str(topics_db), str(not_report)])
    assert result.exit_code == 1 and "not a confnav report" in result.stderr


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ("[venue]\ndates = 5\n", "[venue] dates: expected text"),
        ('[venue]\nlocation = ""\n', "[venue] location: expected text"),
        ("venue = 5\n", "expected a [venue] table"),
    ],
)
def test_a_venue_config_value_of_the_wrong_kind_is_named(tmp_path: Path, toml: str, said: str) -> None:
    from confnav.errors import InputError
    from confnav.reports.overview import load_venue_config

    config = tmp_path / "venue.toml"
    config.write_text(toml)
    with pytest.raises(InputError, match=re.escape(said)):
        load_venue_config(config)


def test_venue_config_supplies_dates_never_guessed(topics_db: Path, tmp_path: Path) -> None:
    copy = clone(topics_db, tmp_path, "copy")
    config = tmp_path / "venue.toml"
    config.write_text('[venue]\ndates = "May 3-7, 2021"\nlocation = "virtual"\n')
    out = tmp_path / "o.md"
    args = [
        "report",
        "overview",
        "--db",
        str(copy),
        "--venue",
        "iclr2021",
        "--venue-config",
        str(config),
        "-o",
        str(out),
    ]
    assert CliRunner().invoke(cli, args).exit_code == 0
    text = out.read_text()
    assert "Dates: **May 3-7, 2021**" in text and "Location: **virtual**" in text
    plain = CliRunner().invoke(cli, ["report", "overview", "--db", str(copy), "--venue", "iclr2021"]).stdout
    assert "Dates" not in plain and "Location" not in plain


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        ("Exploration is hard. In this paper, we propose Max-Q Entropy Search (MQES) for continuous RL.", "MQES"),
        ("We introduce a deep approach to spectral clustering, called SpectralNet, that scales.", "SpectralNet"),
        (
            "We study PTQ, called Post-training Quantization (PTQ). We propose a framework, dubbed BRECQ, for it.",
            "BRECQ",
        ),  # the name of what the authors propose, before the name of the task
        ("Our prover, dubbed DeepHOL Zero, outperforms provers trained on human proofs.", "DeepHOL Zero"),
        ("Our method, Counterfactual Latent Uncertainty Explanations (CLUE), shows how to change an input.", "CLUE"),
        ("Popular language models such as the one called BERT are large. They are slow.", None),  # not the authors'
        ("We propose a generative adversarial network (GAN) that draws faces.", None),  # a kind of model, not a name
        ("We propose a Local Coordinate Coding (LCC) based prior predictor.", None),  # a part, not the method
        ("We propose to train recurrent neural networks (RNNs) with noise.", None),
    ],
)
def test_method_name_is_the_name_the_abstract_gives_the_authors_method(abstract: str, name: str | None) -> None:
    assert method_name(abstract) == name


def cite(tldr: str, title: str = "A Study of Things", name: str | None = None) -> Citation:
    return Citation("p1", title, None, tldr, "extractive", name=name)


def test_paper_sentences_name_the_paper_by_its_method_name_never_twice() -> None:
    named = cite("We propose an exploration principle for continuous RL.", name="MQES")
    assert paper_subject(named) == "MQES"
    assert paper_sentence(named, "MQES") == "MQES proposes an exploration principle for continuous RL [[cite:p1]]."
    said = cite("We propose a framework called SpectralNet for clustering.", name="SpectralNet")
    assert paper_subject(said) == '"A Study of Things"'  # not "SpectralNet proposes a framework called SpectralNet"
    titled = cite("We propose a new detector.", title="Deformable DETR: Deformable Transformers", name="DDT")
    assert paper_subject(titled) == "Deformable DETR"
    apposition = cite("We introduce Watch-And-Help (WAH), a challenge for testing social intelligence.", name="WAH")
    assert paper_sentence(apposition, "WAH") == (
        "Watch-And-Help (WAH) is a challenge for testing social intelligence [[cite:p1]]."
    )
    clause = cite("We propose DiffWave, which synthesizes audio.", title="DiffWave: A Diffusion Model")
    assert paper_sentence(clause, "One paper") == "One paper proposes DiffWave, which synthesizes audio [[cite:p1]]."


@pytest.mark.parametrize(
    ("tldr", "title", "sentence"),
    [
        ("This paper proposes a retrieval mechanism.", "Retrieval", '"Retrieval" proposes a retrieval mechanism'),
        ("We aim to reduce bias.", "A Study of Things", '"A Study of Things" aims to reduce bias'),
        ("We empirically study noise.", "A Study of Things", '"A Study of Things" empirically studies noise'),
        ("We apply smoothing to flows.", "A Study of Things", '"A Study of Things" applies smoothing to flows'),
        (
            "Inspired by smoothing, we incorporate noise.",
            "A Long Study of Many Things Done With Great Care",
            "Inspired by smoothing, one paper incorporates noise",
        ),  # an opening clause kept, the ordinal in lower case
        ("SMiRL alternates between two steps.", "SMiRL: Surprise Minimizing RL", "SMiRL alternates between two steps"),
        ("We train a model with our loss.", "A Study of Things", '"A Study of Things" trains a model with its loss'),
        (
            "We propose a view of mixup and formulate its optimal batch.",
            "A Study of Things",
            '"A Study of Things" proposes a view of mixup and formulates its optimal batch',
        ),  # the second verb too
        ("We are interested in noise.", "A Study of Things", None),  # "we are" does not turn
        ("We train a model, allowing us to see.", "A Study of Things", None),  # "us" would need rewording
    ],
)
def test_paper_sentences_turn_the_authors_voice_into_the_papers(tldr: str, title: str, sentence: str | None) -> None:
    found = cite(tldr, title)
    made = paper_sentence(found, paper_subject(found) or "One paper")
    assert made == (sentence and f"{sentence} [[cite:p1]].")


def test_a_title_that_makes_a_claim_gives_no_name_and_ordinals_count_unnamed_papers() -> None:
    assert paper_name("Neural gradients are near-lognormal: improved quantized training") is None
    assert paper_name("Deep symbolic regression: recovering expressions") == "Deep symbolic regression"
    assert paper_name("Getting a CLUE: A Method for Explaining Uncertainty Estimates") is None  # a deed
    assert paper_name("Self-Organizing Intelligent Matter: A blueprint") == "Self-Organizing Intelligent Matter"
    named = Citation("p1", "DiffWave: A Diffusion Model", None, "We propose a vocoder.", "extractive")
    unnamed = Citation("p2", "A Long Study of Many Things Done With Great Care", None, "We study X.", "extractive")
    paragraph = " ".join(paper_sentences([named, unnamed]))
    assert paragraph == "DiffWave proposes a vocoder [[cite:p1]]. One paper studies X [[cite:p2]]."


def test_names_come_from_the_abstracts_of_iclr2021() -> None:
    _, items = read_file(ICLR2021[0])
    records = [i.fields for i in items if isinstance(i, SourceRecord) and i.fields.get("abstract")][:800]
    cites = []
    for number, record in enumerate(records):
        abstract, title = record["abstract"], record["title"]
        cites.append(
            Citation(
                str(number), title, None, extractive_tldr(abstract, title), "extractive", name=method_name(abstract)
            )
        )
        assert cites[-1].name is None or cites[-1].name in abstract  # never invented
    untitled = [c for c in cites if c.name and not paper_name(c.title)]  # were "One paper" or a quoted title
    made = [(paper_sentence(c, paper_subject(c) or "One paper") or "", c.name or "") for c in untitled]
    named = [m for m, name in made if m.startswith(f"{name} ") or f"({name}) is " in m]
    assert len(named) >= 25, named
