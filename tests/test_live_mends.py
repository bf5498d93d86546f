"""The review period's small promises: a moved rating beside a new review, bad base URLs and broken answers as
one-line errors, a feed's --since and its stable id."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from confnav.fetch.http import FetchError, HttpClient
from confnav.ingest.results import PaperChange
from confnav.model import Paper
from confnav.personal.feed import feed_id
from confnav.personal.news import what_changed


def _paper(ratings: list[float]) -> Paper:
    return Paper(id="p1", venue="v", title="A paper", ratings=ratings)


def test_a_new_review_does_not_hide_an_earlier_rating_that_moved() -> None:
    kinds, summary = what_changed(PaperChange(_paper([4, 5, 6, 7, 7]), _paper([1, 5, 6, 7, 7, 8]))) or ("", "")
    assert kinds == "reviews+ratings" and "1 new review" in summary and "ratings changed: " in summary
    assert what_changed(PaperChange(_paper([4, 5]), _paper([4, 5, 8]))) == (
        "reviews",
        "1 new review, mean rating 4.50 → 5.67",
    )


@pytest.mark.parametrize("url", ["not a url", "api2.openreview.net", "localhost", "ftp://host/x"])
def test_a_base_url_that_is_no_web_address_is_refused_in_one_line(url: str) -> None:
    with pytest.raises(FetchError, match="is not a web address"):
        HttpClient(url)


def _serve_once(answer: bytes) -> str:
    """A loopback socket that answers every connection with `answer` and closes it: a server that is not HTTP."""
    listener = socket.create_server(("127.0.0.1", 0))

    def run() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(answer)

    threading.Thread(target=run, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}"


@pytest.mark.parametrize(
    "answer",
    [b"HELLO THIS IS NOT HTTP\r\n\r\n", b'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{"notes": []'],
)
def test_an_answer_that_is_not_http_or_cut_short_is_a_fetch_error(answer: bytes) -> None:
    client = HttpClient(_serve_once(answer), retries=1, backoff=0)
    with pytest.raises(FetchError, match=r"cannot reach 127\.0\.0\.1"):
        client.get("/notes")


def test_a_feed_id_is_the_same_however_the_store_path_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert feed_id("s.db", "me") == feed_id(str(tmp_path / "s.db"), "me") != feed_id("s.db", "other")
    assert feed_id("postgresql://h/db", "me") == feed_id("postgresql://h/db", "me")


def test_a_deleted_submission_is_no_longer_pending_and_a_deleted_review_no_longer_counts(tmp_path: Path) -> None:
    """OpenReview marks what it deleted with `ddate`: the submission is "Deleted" (in no rate), a review is gone."""
    import json

    from confnav.sources import read_file
    from tests.conftest import DATA
    from tests.openreview_server import api2_note

    venue = "robot-learning.org/CoRL/2023/Conference"
    rows = [r for r in json.loads((DATA / "paperlists" / "corl2023.json").read_text()) if r.get("rating")][:2]
    kept, deleted = (api2_note(venue, i, r, 1_700_000_000_000, "review") for i, r in enumerate(rows, 1))
    deleted["ddate"] = 1_700_000_100_000
    reviews = [r for r in kept["details"]["replies"] if "rating" in r["content"]]
    reviews[0]["ddate"] = 1_700_000_100_000
    snapshot = tmp_path / "corl2023.jsonl"
    lines = [{"note": n, "api": 2, "venue": venue, "fetched": "2023-11-14T00:00:00Z"} for n in (kept, deleted)]
    snapshot.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    _, items = read_file(snapshot)
    first, second = items
    assert second.fields["decision"] == "Deleted" and first.fields["decision"] == "Under Review"
    assert len(first.fields["ratings"]) == len(reviews) - 1
    from confnav.decisions import DecisionTable

    gone = DecisionTable().classify("Deleted")
    assert gone.kind == "deleted" and not gone.decided and not gone.accepted
