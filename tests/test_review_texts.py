"""What reviewers said: review texts fetched from a local OpenReview server (API 1 and API 2 shapes) and stored as
fetched, shown escaped and folded on the paper page and in its JSON, with a summary made of their own sentences."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from confnav.fetch import fetch_openreview
from confnav.fetch.openreview import OpenReviewClient
from confnav.limits import MAX_REVIEW_FIELD_CHARS
from confnav.settings import Settings
from confnav.sources.openreview_reviews import review_texts
from confnav.store import open_store
from confnav.store.copy import copy_store, table_counts
from confnav.store.sql import SqlStore
from confnav.summarize.agreement import Statement, polarity, summarize_reviews
from confnav.summarize.reviews import paper_reviews, paragraphs
from confnav.web.app import create_app
from confnav.web.bodies import Paper as PaperBody
from confnav.web.state import STATE_AGE
from tests.backends import new_location
from tests.conftest import DATA
from tests.llm_server import fake_llm
from tests.openreview_server import (
    HOSTILE,
    FakeOpenReview,
    Venue,
    api1_note,
    api2_note,
    serving,
    signed_in,
)
from tests.web_fixtures import PHONE, SHOTS, needs_chromium, running_server

CORL, ICLR2021 = "robot-learning.org/CoRL/2023/Conference", "ICLR.cc/2021/Conference"


def records(name: str, count: int) -> list[dict[str, Any]]:
    rows = json.loads((DATA / name).read_text())
    return [r for r in rows if r.get("rating") and r.get("status") not in ("Withdraw", "Desk Reject")][:count]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeOpenReview, str]]:
    """CoRL 2023 on API 2 (decided, meta-reviews) and ICLR 2021 on API 1 (decision comments), eight papers each."""
    signed_in(monkeypatch)
    state = FakeOpenReview()
    corl = [
        api2_note(CORL, i, r, state.tick(), "accepted") for i, r in enumerate(records("paperlists/corl2023.json", 8), 1)
    ]
    state.add_venue(Venue(CORL, 2, corl))
    iclr = records("iclr2021/paperlists-iclr2021.json", 8)
    state.add_venue(Venue(ICLR2021, 1, [api1_note(ICLR2021, i, r, state.tick()) for i, r in enumerate(iclr, 1)]))
    with serving(state) as url:
        yield state, url


def fetch(store: SqlStore, tmp_path: Path, url: str, venue: str) -> None:
    client = OpenReviewClient.from_settings(Settings.load(), url, url, timeout=5.0, backoff=0.0)
    fetch_openreview(store, tmp_path / "store.db", venue, client=client)


def replies(state: FakeOpenReview, venue: str, number: int) -> list[dict[str, Any]]:
    note = state.venues[venue].notes[number - 1]
    return list(note["details"].get("replies") or note["details"].get("directReplies"))


def plain(content: dict[str, Any]) -> dict[str, Any]:
    return {k: v.get("value") if isinstance(v, dict) else v for k, v in content.items()}


def test_texts_are_stored_as_fetched_in_the_forms_order_on_both_apis(server, store: SqlStore, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    fetch(store, tmp_path, url, CORL)
    fetch(store, tmp_path, url, ICLR2021)
    first = state.venues[CORL].notes[0]
    stored = {t.review_id: t for t in store.review_texts("corl2023", first["id"])}
    for reply in replies(state, CORL, 1):
        content = plain(reply["content"])
        if set(content) == {"decision"}:  # a decision saying no more than its label is no text to show
            assert reply["id"] not in stored
            continue
        text = stored[reply["id"]]
        if text.kind == "review":  # scores are kept as versions, with their history
            assert [name for name, _ in text.fields] == [k for k in content if k not in ("rating", "confidence")]
        else:
            assert text.kind == "meta-review" and dict(text.fields)["metareview"] == content["metareview"]
        assert dict(text.fields) == {
            name: str(content[name]).strip()[:MAX_REVIEW_FIELD_CHARS] for name, _ in text.fields
        }
    hostile = stored[f"{first['id']}-r0"]
    kept = dict(hostile.fields)["questions"]  # as fetched: markup and script; cut to the limit from 120,000 characters
    assert kept == HOSTILE.strip()[:MAX_REVIEW_FIELD_CHARS] and len(kept) == MAX_REVIEW_FIELD_CHARS
    assert stored[f"{first['id']}-r0"].reviewer.endswith("/Reviewer_0")
    iclr = state.venues[ICLR2021].notes[1]
    said = {t.kind: t for t in store.review_texts("iclr2021", iclr["id"])}
    decision = plain(next(r for r in replies(state, ICLR2021, 2) if "comment" in r["content"])["content"])
    assert dict(said["decision"].fields)["comment"] == decision["comment"]
    assert [name for name, _ in said["review"].fields] == ["title", "review"]
    assert "\n\nWeaknesses:\n- " in dict(said["review"].fields)["review"]  # the paragraphs as written


def test_a_refetch_keeps_the_last_text_and_the_ratings_history(server, store: SqlStore, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    fetch(store, tmp_path, url, CORL)
    paper = state.venues[CORL].notes[1]["id"]
    review = f"{paper}-r1"
    state.revise(CORL, review, summary="After the rebuttal: the authors answered my concerns.", rating=8)
    fetch(store, tmp_path, url, CORL)
    text = next(t for t in store.review_texts("corl2023", paper) if t.review_id == review)
    assert dict(text.fields)["summary"] == "After the rebuttal: the authors answered my concerns."
    assert [name for name, _ in text.fields][:2] == ["summary", "soundness"]  # the form's order kept
    assert len([t for t in store.review_texts("corl2023", paper) if t.review_id == review]) == 1
    assert [v.rating for v in store.review_versions("corl2023", paper) if v.review_id == review][-1] == 8.0
    assert len([v for v in store.review_versions("corl2023", paper) if v.review_id == review]) == 2
    shown = paper_reviews(store, "corl2023", paper)
    assert shown.reviews[0].kind == "meta-review"
    assert next(r for r in shown.reviews if r.review_id == review).rating == 8.0


def test_texts_copy_between_backends_unchanged(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """SQLite → PostgreSQL → SQLite carries every text unchanged (JSON fields, 100,000 characters, markup)."""
    state, url = server
    db = fetched_store(tmp_path, url)
    middle, back = new_location(tmp_path, "middle", "postgres"), tmp_path / "back.db"
    with open_store(db) as source, open_store(middle) as target:
        assert copy_store(source, target).tables["review_texts"] == table_counts(source)["review_texts"] > 0
    with open_store(middle) as source, open_store(back, create=True) as target:
        copy_store(source, target)
    first = state.venues[CORL].notes[0]["id"]
    with open_store(db) as one, open_store(back) as other:
        assert one.review_texts("corl2023", first) == other.review_texts("corl2023", first)


def test_the_summary_quotes_the_reviews_verbatim_and_links_to_them(server, store: SqlStore, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    fetch(store, tmp_path, url, CORL)
    fetch(store, tmp_path, url, ICLR2021)
    for venue, paper in (
        ("corl2023", state.venues[CORL].notes[2]["id"]),
        ("iclr2021", state.venues[ICLR2021].notes[2]["id"]),
    ):
        shown = paper_reviews(store, venue, paper)
        by_anchor = {r.anchor: r for r in shown.reviews}
        summary = shown.summary
        assert summary.agreed and summary.disagreed
        for point in summary.agreed:
            assert len({q.review_id for q in point}) == len(point) >= 2  # from different reviews
        for praise, criticism in summary.disagreed:
            assert praise.polarity == 1 and criticism.polarity == -1 and praise.review_id != criticism.review_id
        for quote in [q for point in summary.agreed + summary.disagreed for q in point]:
            review = by_anchor[quote.anchor]
            assert review.review_id == quote.review_id and quote.text in dict(review.fields)[quote.field]


def test_odd_replies_give_no_text_and_never_fail(store: SqlStore) -> None:
    """Replies a source may send malformed (no id, no content, content of the wrong type, values that are no
    text) are left out; an API 2 meta-review's numbers read as text; a paper without texts shows no reviews."""
    venue = "ICLR.cc/2025/Conference"
    meta = {"id": "m", "invitations": [f"{venue}/Submission1/-/Meta_Review"], "tmdate": 5}
    replies: list[Any] = [
        "not a note",
        {"invitations": [f"{venue}/Submission1/-/Official_Review"], "content": {"review": {"value": "No id."}}},
        {"id": "a", "invitations": [f"{venue}/Submission1/-/Official_Review"], "content": ["not", "a", "dict"]},
        {"id": "b", "invitation": f"{venue}/Paper1/-/Official_Review", "content": {"rating": "6: ok", "x": None}},
        {"id": "c", "invitations": [f"{venue}/Submission1/-/Official_Comment"], "content": {"comment": "A comment."}},
        {**meta, "content": {"metareview": {"value": " Fine. "}, "confidence": {"value": 4}, "x": {"value": {}}}},
    ]
    texts = review_texts({"venue": venue, "note": {"id": "p", "details": {"replies": replies}}})
    assert [(t.review_id, t.kind, t.fields) for t in texts] == [
        ("m", "meta-review", (("metareview", "Fine."), ("confidence", "4")))
    ]
    assert (
        not paper_reviews(store, "iclr2025", "p") and paper_reviews(store, "iclr2025", "p").to_dict()["reviews"] == []
    )


def test_agreement_and_disagreement_by_method_not_by_wording() -> None:
    reviews = [
        Statement(
            "a", "review-a", "R1", "review", (("strengths", "The proofs are rigorous and the bounds are tight."),)
        ),
        Statement(
            "b",
            "review-b",
            "R2",
            "review",
            (
                (
                    "review",
                    "Pros:\n- The proofs are rigorous, and the bounds tight.\n"
                    "Cons:\n- The evaluation uses only toy environments.",
                ),
            ),
        ),
        Statement(
            "c",
            "review-c",
            "R3",
            "review",
            (("main_review", "I find the evaluation on real environments convincing and thorough."),),
        ),
    ]
    summary = summarize_reviews(reviews)
    assert [[q.review_id for q in point] for point in summary.agreed] == [["a", "b"]]
    assert [[q.review_id for q in point] for point in summary.disagreed] == [["c", "b"]]
    assert summary.disagreed[0][1].text == "The evaluation uses only toy environments."
    assert polarity("The method is not convincing in practice.", "review") == -1
    assert polarity("The paper studies graph neural networks.", "summary") == 0
    assert summarize_reviews(reviews[:1]).agreed == []  # one review agrees with nobody
    assert paragraphs("One.\r\n\r\nTwo,\nstill two.\n  \nThree.") == ["One.", "Two,\nstill two.", "Three."]


def fetched_store(tmp_path: Path, url: str) -> Path:
    """A SQLite store holding the CoRL venue as fetched, for the web app."""
    db = tmp_path / "web.db"
    with open_store(db, create=True) as store:
        fetch(store, tmp_path, url, CORL)
    return db


def test_the_paper_page_shows_reviews_folded_and_escaped(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state, url = server
    db = fetched_store(tmp_path, url)
    first = state.venues[CORL].notes[0]["id"]
    client = TestClient(create_app(db), base_url="http://127.0.0.1")
    page = client.get(f"/paper/{first}?venue=corl2023")
    assert page.status_code == 200
    html = page.text
    assert "<script>alert" not in html and "onmouseover=" not in html.replace("onmouseover=&#34;", "")
    assert "&lt;script&gt;alert(&#39;review&#39;)&lt;/script&gt;" in html and "&lt;/details&gt;&lt;/article&gt;" in html
    section = html[html.index('id="reviews-said"') :]
    folded = section[section.index('<details class="review"') :]
    assert folded.index("Area Chair") < folded.index("Reviewer 0")  # the meta-review first
    assert section.count('<details class="review"') == 5 and " open" not in section.split("</section>")[0]
    anchors = set(re.findall(r'<details class="review" id="([^"]+)"', section))
    links = re.findall(r'<a class="to-review" href="#([^"]+)" title="([^"]*)"', section)
    assert links and {anchor for anchor, _ in links} <= anchors
    texts = {r["anchor"]: r for r in client.get(f"/api/paper/{first}?venue=corl2023").json()["reviews"]["reviews"]}
    for anchor, quoted in links:
        assert unescape(quoted) in " ".join(f["text"] for f in texts[anchor]["fields"])
    assert "<p>A very long paragraph" in section  # the hostile text's second paragraph, kept as one
    answer = client.get(f"/api/paper/{first}?venue=corl2023").json()
    PaperBody.model_validate(answer)  # the described body, no field more or less (as the API fuzzer checks)
    data = answer["reviews"]
    assert data["reviews"][0]["kind"] == "meta-review" and data["summary"]["agreed"]
    state.revise(CORL, f"{first}-r2", summary="Revised after the discussion.")
    with open_store(db) as store:  # a later fetch changes only a text: the served answer follows
        fetch(store, tmp_path, url, CORL)
    time.sleep(STATE_AGE * 1.2)  # a write made outside the app is seen within STATE_AGE (the fetch can be quicker)
    again = client.get(f"/api/paper/{first}?venue=corl2023").json()["reviews"]["reviews"]
    assert {"name": "summary", "text": "Revised after the discussion."} in next(
        r["fields"] for r in again if r["review_id"] == f"{first}-r2"
    )


def test_with_an_llm_only_sentences_citing_the_quoted_reviews_are_shown(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The model sees the quotes labelled by review; a sentence citing a review it was not given, stating a number
    the quotes do not, or citing nothing is dropped; the rest link to their reviews."""
    state, url = server
    db = fetched_store(tmp_path, url)
    first = state.venues[CORL].notes[0]["id"]
    with fake_llm() as (llm, chat):
        client = TestClient(create_app(db, settings=Settings(llm_url=llm)), base_url="http://127.0.0.1")
        answer = client.get(f"/api/paper/{first}?venue=corl2023").json()
        page = client.get(f"/paper/{first}?venue=corl2023").text
    PaperBody.model_validate(answer)
    written = answer["reviews"]["written"]
    assert (written["generated"], written["dropped"]) == (4, 2)
    assert [s["text"] for s in written["sentences"]] == [
        "The reviewers agree that the paper is clearly written.",
        "Some find the experiments convincing and others do not.",
    ]
    asked = str(chat.requests[-1]["messages"])
    quoted = answer["reviews"]["summary"]["agreed"][0]
    assert f'"{quoted[0]["text"]}" [R1]' in asked and f'"{quoted[1]["text"]}" [R2]' in asked
    assert [c["anchor"] for c in written["sentences"][0]["cites"]] == [quoted[0]["anchor"], quoted[1]["anchor"]]
    assert len(chat.requests) == 1  # asked once, kept for the page
    assert 'The reviewers agree that the paper is clearly written. (<a class="to-review"' in page
    assert "42 flaws" not in page and "(2 of 4 dropped)" in page


@needs_chromium
def test_reviews_on_a_phone_open_on_tap_and_never_scroll_sideways(server, tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    """On a phone, folded reviews open on a tap, a summary's sentence opens the review it quotes, and the hostile
    review (markup, 100,000 characters) stays text within the screen's width; axe-core finds nothing."""
    from axe_playwright_python.sync_playwright import Axe

    state, url = server
    first = state.venues[CORL].notes[0]["id"]
    with running_server(fetched_store(tmp_path, url)) as base:
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        tab = context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.on("dialog", lambda dialog: (errors.append(dialog.message), dialog.dismiss()))
        tab.goto(f"{base}/paper/{first}?venue=corl2023")
        folded = tab.locator("details.review")
        assert folded.count() == 5
        assert tab.evaluate("[...document.querySelectorAll('details.review')].every((d) => !d.open)")
        hostile = tab.locator(f"details#review-{first}-r0")
        hostile.locator("summary").tap()
        tab.wait_for_function("(id) => document.getElementById(id).open", arg=f"review-{first}-r0")
        assert hostile.locator(".review-body").is_visible() and "<script>alert" in hostile.inner_text()
        link = tab.locator("a.to-review").nth(1)
        target = str(link.get_attribute("href")).lstrip("#")
        if target == f"review-{first}-r0":
            link = tab.locator("a.to-review").nth(2)
            target = str(link.get_attribute("href")).lstrip("#")
        link.tap()
        tab.wait_for_function("(id) => document.getElementById(id).open", arg=target)
        assert tab.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
        tab.screenshot(path=str(SHOTS / "paper-reviews-phone.png"))
        violations = Axe().run(tab).response["violations"]  # WCAG 2 A/AA and best practice, reviews open
        assert not violations, [(v["id"], v["nodes"][0]["html"][:120]) for v in violations]
        context.close()
    assert not errors, errors
