"""Reports tell nothing false: inline marks point at their own section's items, people sharing a name stay apart,
every paper offered shows its decision, user-given facts say so, and the served page verifies as the CLI's."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from unittest.mock import patch

import pytest

from confnav.ingest import ingest
from confnav.model import Author, Decision, Outcome, Paper, Venue
from confnav.reports.institutions import institution_index, paper_affiliations
from confnav.reports.model import Report, decision_words
from confnav.reports.overview import build_overview, load_venue_config
from confnav.reports.render import to_html, to_markdown
from confnav.reports.stats import author_table, counted_papers, institution_table
from confnav.reports.verify import verify_text
from confnav.store import open_store
from tests.conftest import DATA

_ID = r"[\w\-~.]+"


@pytest.fixture(scope="module")
def overview(topics_db: Path) -> Report:
    with open_store(topics_db) as store:
        return build_overview(store, "iclr2021")


def test_each_inline_mark_points_at_its_own_sections_item(overview: Report) -> None:
    """A paper listed in two sections (a theme's and "Where to start") is cited in each by that section's number
    (the last section it appeared in used to number every mark)."""
    markdown, html = to_markdown(overview), to_html(overview)
    checked = 0
    for chunk in markdown.split("\n## ")[1:]:
        items = {int(n): pid for n, pid in re.findall(rf"^(\d+)\. .*?\[\^({_ID})\]", chunk, re.M)}
        for number, paper_id in re.findall(rf"\[\[(\d+)\]\](?:\([^)\s]*\))?\[\^({_ID})\]", chunk):
            assert items.get(int(number)) == paper_id, (chunk.split("\n")[0], number, paper_id)
            checked += 1
    for chunk in html.split("<section")[1:]:
        listed = re.search(r'<ol class="papers">(.*?)</ol>', chunk, re.S)
        items = re.findall(rf'<li><span class="cite" data-paper="({_ID})"', listed.group(1)) if listed else []
        for paper_id, number in re.findall(
            rf'<span class="cite mark" data-paper="({_ID})"[^>]*><a [^>]*>\[(\d+)\]', chunk
        ):
            assert items[int(number) - 1] == paper_id, (number, paper_id)
            checked += 1
    assert checked >= 200  # both renderings' marks (about 150 each)
    shared = {c.paper_id for c in overview.sections[-1].citations} & {
        c.paper_id for s in overview.sections[:-1] for c in s.citations
    }
    assert shared  # the case that went wrong: papers of "Where to start" listed in a theme too


@pytest.fixture(scope="module")
def papers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Paper]]:
    """ACL 2022 and CoRL 2023 as the statistics count them."""
    with open_store(tmp_path_factory.mktemp("acl") / "store.db", create=True) as store:
        ingest(store, [DATA / "paperlists" / "acl2022.json", DATA / "paperlists" / "corl2023.json"])
        return {venue: counted_papers(store, venue) for venue in ("acl2022", "corl2023")}


def test_authors_sharing_a_name_are_counted_apart(papers: dict[str, list[Paper]]) -> None:
    """ACL 2022's five Yang Lius (Anthology ids -icsi, -umich, -microsoft, -ict, -hk) were one row of 10 accepted
    papers; each person is a row of their own, named with their institution, as the author pages tell them."""
    table = author_table(papers["acl2022"])
    assert not any(row[0] == "Yang Liu" for row in table.rows)
    with patch("confnav.reports.stats.TOP", 10_000):
        rows = {row[0]: int(row[1]) for row in author_table(papers["acl2022"]).rows}
    yang = {name: n for name, n in rows.items() if name.startswith("Yang Liu (")}
    assert yang["Yang Liu (Amazon)"] == 3 and yang["Yang Liu (Microsoft)"] == 2 and sum(yang.values()) == 10
    assert len(yang) == 5 and "Zhiyuan Liu" in rows  # a name one person has stays plain


def test_placeholder_places_are_no_institution(papers: dict[str, list[Paper]]) -> None:
    """CoRL 2023's source writes "Unknown Institution" where it has none: it is not counted as an institution,
    nor named as where an author is."""
    corl = papers["corl2023"]
    assert any("Unknown" in place for paper in corl for place in paper.places)  # stored as the data gives it
    assert not any("Unknown" in place for paper in corl for place in paper_affiliations(paper))
    assert not any("Unknown" in place for place in institution_index((p, 1) for q in corl for p in q.places))
    with patch("confnav.reports.stats.TOP", 10_000):
        assert not any("Unknown" in row[0] for row in [*institution_table(corl).rows, *author_table(corl).rows])


def test_where_to_start_offers_accepted_papers_and_shows_every_decision(overview: Report, topics_db: Path) -> None:
    """The ways into ICLR 2021's largest themes were a rejected, a rejected and a withdrawn paper (the five most
    central papers of two of them were not accepted) shown without their decision; now each theme's accepted
    paper closest to its centre, and every listed paper says its decision."""
    with open_store(topics_db) as store:
        decision = {p.id: p.decision for p in store.iter_papers("iclr2021")}
    closing = overview.sections[-1]
    assert closing.title == "Where to start" and len(closing.citations) == 6
    assert all(decision[c.paper_id].accepted for c in closing.citations[3:])
    assert "the accepted paper closest to each theme's centre" in closing.summary
    for cite in [c for s in overview.sections for c in s.citations]:
        words = decision_words(decision[cite.paper_id])
        assert words and cite.note.startswith(words), (cite.paper_id, cite.note)
    assert {decision_words(d) for d in decision.values()} >= {"not accepted (reject)", "not accepted (withdrawn)"}


def test_user_given_venue_facts_are_marked_as_the_users(overview: Report, topics_db: Path, tmp_path: Path) -> None:
    """Dates and location from --venue-config read exactly like verified facts; they now say, in Markdown and
    HTML, that the user gave them, and the report still verifies (listing them as not checked)."""
    config = tmp_path / "venue.toml"
    config.write_text('[venue]\nlocation = "Kawai"\ndates = "May 11-17, 2021"\n')
    report = replace(overview, facts=[*load_venue_config(config), *overview.facts])
    markdown, html = to_markdown(report), to_html(report)
    assert "- Location: **Kawai**<!-- fact:config.location --> _(given by the user, not from the store)_" in markdown
    given = re.search(
        r'<span class="given" data-given="user"><strong data-fact="config.location">Kawai</strong>'
        r' <span class="muted">\(given by the user, not from the store\)</span></span>',
        html,
    )
    assert given is not None
    assert "**7**<!-- fact:venue.oral --> _(" not in markdown  # verified facts are not marked
    with open_store(topics_db) as store:
        for text in (markdown, html):
            checked = verify_text(store, text)
            assert checked.ok and len(checked.unchecked) == 2, checked.failures


def test_the_authors_table_links_each_person_to_a_page_that_exists() -> None:
    """A row telling apart people who share a name ("Yang Liu (Amazon)") links the name's author page."""
    accepted = Decision("Long", Outcome.ACCEPTED, "long", 5)
    papers = [
        Paper(
            f"p{n}",
            "acl2022",
            f"Paper {n}",
            authors=[Author("Yang Liu", profile=who, institution=where)],
            decision=accepted,
        )
        for n, (who, where) in enumerate([("/y/a", "Amazon"), ("/y/a", "Amazon"), ("/y/b", "Microsoft")])
    ]
    table = author_table(papers)
    assert [row[0] for row in table.rows] == ["Yang Liu (Amazon)", "Yang Liu (Microsoft)"]
    page = to_html(Report("stats", Venue.parse("acl2022"), "ACL 2022", tables=[table]), app_nav="")
    assert page.count('href="/author/Yang%20Liu"') == 2 and "/author/Yang%20Liu%20%28" not in page


def test_words_about_a_paper_are_checked_too(overview: Report, topics_db: Path) -> None:
    """A lead sentence's decision and standing, a sentence saying what a paper does (its TL;DR), and counts in
    words: each altered report fails, naming what the store does not back."""
    markdown = to_markdown(overview)
    lead = re.search(r"comes first in the theme, (an? (?:oral|spotlight|poster))", markdown)
    told = re.search(rf"\[\[\d+\]\]\([^)\s]*\)\[\^({_ID})\]\.", markdown)  # a sentence ending on its paper
    assert lead is not None and told is not None
    other = next(c.paper_id for s in overview.sections for c in s.citations if c.paper_id != told.group(1))
    swapped = "a poster" if lead.group(1) != "a poster" else "an oral"
    altered = {
        "decision": markdown.replace(lead.group(0), f"comes first in the theme, {swapped}", 1),
        "standing": markdown.replace("best-rated tenth", "worst-rated tenth", 1),
        "another paper's sentence": markdown.replace(told.group(0), told.group(0).replace(told.group(1), other), 1),
        "count in words": markdown.replace(" papers (", " papers (twelve of them, ", 1),
        "largest themes": re.sub(r"(The largest themes of [^.]+? are )", r"\1quantum computing, ", markdown, count=1),
        "theme heading": re.sub(r"^(## 1\. )", r"\1Quantum ", markdown, count=1, flags=re.M),
        "rate against the venue's": re.sub(
            r"(above|below) the venue's rate",
            lambda m: ("below" if m.group(1) == "above" else "above") + " the venue's rate",
            markdown,
            count=1,
        ),
    }
    with open_store(topics_db) as store:
        assert verify_text(store, markdown).ok
        for what, text in altered.items():
            assert text != markdown, what
            assert not verify_text(store, text).ok, what


def test_a_tables_caption_is_checked_and_numbers_in_names_are_no_numbers(topics_db: Path) -> None:
    """A table's caption turned round fails; "L_0" or "9.6K" in a paper's words is read whole, as the paper has it."""
    from confnav.reports.grounding import numbers_outside
    from confnav.reports.stats import build_stats_report

    with open_store(topics_db) as store:
        report = build_stats_report(store, "iclr2021")
        for text in (to_markdown(report), to_html(report)):
            assert verify_text(store, text).ok
            turned = text.replace("with the most accepted papers", "with the fewest accepted papers", 1)
            assert turned != text and not verify_text(store, turned).ok
    assert [n for _, n in numbers_outside("the L_0 norm of 9.6K questions, 23.1K more, in 2021.")] == [
        "9.6",
        "23.1",
        "2021",
    ]


def _theme_and_order_edits(markdown: str) -> list[tuple[str, str, str]]:
    """Hand edits of an overview that change what it says of its themes or of the ranking, each to a false claim:
    (text, its replacement, what the verifier's failure says)."""
    first_theme = re.search(r"are about ([^,.]+)", markdown)
    sub = re.search(r", in sub-themes such as ([^(]+) \(\*\*", markdown)
    shared = re.search(r"(both|all) work on ([^.:]+)", markdown)
    leads = re.search(rf"(\[\^({_ID})\]) comes first in the theme", markdown)
    smaller = re.search(rf"first: [^;)]*?\[\^({_ID})\]", markdown)
    start = re.search(rf"puts first [^\n]*?\[\^{_ID}\] \(([^()]+)\)", markdown)
    against = re.search(r"Against ICLR \d+,", markdown)
    assert first_theme and sub and shared and leads and start and against
    other_paper = smaller.group(1) if smaller else re.findall(rf"\[\^({_ID})\]", markdown)[-1]
    mode = "at the conference" if "Mode: at the conference." in markdown else "looking back"
    other = "looking back" if mode == "at the conference" else "at the conference"
    return [
        (first_theme.group(0), "are about quantum computing", "is said to be about 'quantum computing'"),
        (sub.group(0), ", in sub-themes such as quantum computing (**", "size is shown beside another name"),
        (shared.group(0), f"{shared.group(1)} work on quantum computing", "is said to work on 'quantum computing'"),
        (" grew most, ", " lost most, ", "the report says it lost; its share moved by +"),
        (against.group(0), "Against ICLR 2018,", "trends are said to be against 'ICLR 2018'"),
        ("fared best of the large themes", "fared worst of the large themes", "is said to have fared worst"),
        (f"In the ranking {mode}", f"In the ranking {other}", f"the report says '{other}' where its mode is"),
        (leads.group(1), f"[^{other_paper}]", "the theme's first papers are said to be"),
        (start.group(0), start.group(0).replace(start.group(1), "quantum computing"), "the venue's first papers"),
    ]


@pytest.mark.sqlite_only  # the verifier reads the store as any report does; test_reports verifies on PostgreSQL
def test_what_a_report_says_of_its_themes_and_its_ranking_is_checked(overview: Report, topics_db: Path) -> None:
    """A theme's name beside its size, the term papers share, the theme that grew or fared best, the edition a trend
    is measured against, the mode, and which paper the ranking puts first: each altered, the report fails saying
    so (one verification of all the edits, each in its own place)."""
    markdown = to_markdown(overview)
    altered = markdown
    edits = _theme_and_order_edits(markdown)
    for old, new, _ in edits:
        assert old in altered, old
        altered = altered.replace(old, new, 1)
    with open_store(topics_db) as store:
        assert verify_text(store, markdown).ok and verify_text(store, to_html(overview)).ok
        failures = " | ".join(verify_text(store, altered).failures)
    for _, _, said in edits:
        assert said in failures, (said, failures)


@pytest.mark.sqlite_only
def test_a_digest_lists_the_ranking_in_its_own_mode(topics_db: Path) -> None:
    """A digest whose papers are swapped, or whose title names the other mode, fails verification."""
    from confnav.reports.digest import build_digest

    with open_store(topics_db) as store:
        report = build_digest(store, "iclr2021", top=5)
        for text in (to_markdown(report), to_html(report)):
            assert verify_text(store, text).ok
            items = (
                re.findall(r"^1\. .*$|^2\. .*$", text, re.M)
                or re.findall(r"<li><span class=\"cite.*?</li>", text, re.S)[:2]
            )
            one, two = items[0], items[1]
            swapped = text.replace(one, "\0").replace(two, "2. " + one[3:] if one.startswith("1. ") else one)
            swapped = swapped.replace("\0", "1. " + two[3:] if two.startswith("2. ") else two)
            label = report.title.rsplit(", ", 1)[1]
            other = "looking back" if label == "at the conference" else "at the conference"
            retitled = text.replace(f"must-read digest, {label}", f"must-read digest, {other}", 1)
            assert not verify_text(store, swapped).ok and not verify_text(store, retitled).ok


@pytest.mark.sqlite_only
def test_a_themes_list_order_and_every_note_are_checked(overview: Report, topics_db: Path) -> None:
    """A theme's list swapped, a line written as a note, a note's text extended, and a number after the notes: each
    fails, in Markdown and HTML (a `> ` line once made every number after it go unchecked)."""
    markdown, html = to_markdown(overview), to_html(overview)
    first = re.search(r"^1\. (.*)\n2\. (.*)$", markdown, re.M)
    assert first is not None
    swapped = markdown.replace(first.group(0), f"1. {first.group(2)}\n2. {first.group(1)}", 1)
    items = re.search(r'<ol class="papers">(<li>.*?</li>)(<li>.*?</li>)', html, re.S)
    assert items is not None
    html_swapped = html.replace(items.group(0), f'<ol class="papers">{items.group(2)}{items.group(1)}', 1)
    heading = re.search(r"^## .*$", markdown, re.M)
    assert heading is not None
    noted = markdown.replace(heading.group(0), f"> See below.\n\n{heading.group(0)}", 1)
    after = markdown.rstrip("\n") + "\n\nICLR 2021 received 901 submissions and accepted 22.1% of them.\n"
    with open_store(topics_db) as store:
        assert "list puts" in " ".join(verify_text(store, swapped).failures)
        assert "list puts" in " ".join(verify_text(store, html_swapped).failures)
        assert "a note the store does not give" in " ".join(verify_text(store, noted).failures)
        assert "901, 22.1" in " ".join(verify_text(store, after).failures)
        if overview.notes:  # a note extended with a claim of its own
            note = re.search(r"^> (.*)$", markdown, re.M)
            assert note is not None
            extended = markdown.replace(note.group(0), f"{note.group(0)} The acceptance rate was 22.1%.", 1)
            assert "a note the store does not give" in " ".join(verify_text(store, extended).failures)


def test_a_character_reference_ends_no_clause() -> None:
    """In HTML a quoted name ends on "&quot;": its semicolon ends no clause (a count in words before it was cut off
    from the citation that backs it)."""
    from confnav.reports.claims import clauses

    text = "To address two problems, &quot;S4-Tuning&quot; proposes a method &amp; more [5]. Next one."
    assert [text[a:b].strip() for a, b in clauses(text)] == [
        "To address two problems, &quot;S4-Tuning&quot; proposes a method &amp; more [5].",
        "Next one.",
    ]


@pytest.mark.sqlite_only
def test_a_tldr_credited_to_anyone_but_its_maker_fails(topics_db: Path) -> None:
    """A digest's extractive TL;DR relabelled as the authors', reviewers', a human expert's, GPT-4's or an LLM's
    (in a report that notes no LLM) fails verification, in Markdown and HTML; its own label passes."""
    from confnav.reports.digest import build_digest

    with open_store(topics_db) as store:
        report = build_digest(store, "iclr2021", top=5)
        markdown, html = to_markdown(report), to_html(report)
        note = re.search(r"^\[\^([\w\-]+)\]: .* \(extractive TL;DR\)$", markdown, re.M)
        assert note is not None and store.get_paper(note.group(1)).tldr is None  # no author TL;DR
        card = re.search(r"<strong>TL;DR</strong> \(extractive\)", html)
        assert card is not None and verify_text(store, markdown).ok and verify_text(store, html).ok
        for label in ("authors'", "reviewers'", "human expert", "GPT-4", "llm", "author"):
            tampered = markdown.replace(note.group(0), note.group(0).replace("(extractive TL;DR)", f"({label} TL;DR)"))
            failures = " | ".join(verify_text(store, tampered).failures)
            assert f'credited "{label}"' in failures, (label, failures)
            relabelled = html.replace(card.group(0), f"<strong>TL;DR</strong> ({label})", 1)
            assert not verify_text(store, relabelled).ok, label
