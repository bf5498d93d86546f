"""A local server that answers like OpenReview's API 1 and API 2, holding venues made from real paper lists.

Shapes follow the official openreview-py client and OpenReview's documentation: `/login` answers
`{"token", "user"}` (a refused login echoes the request body, password and all, in its message, as OpenReview's
has been seen to); `/groups?id=` answers `{"groups": [...]}` with `domain` set only for API 2 venues;
`/notes` pages at most 1,000 notes as `{"notes": [...], "count": n}`, API 2 content wrapped as
`{"value": …}` and replies under `details.replies`, API 1 plain with `details.directReplies`; errors are
`{"name", "message", "status"}` (`ChallengeRequiredError` 403 without login, `RateLimitError` 429).
A person's papers: `/profiles?id=~X` answers `{"profiles": [...]}` (empty for an unknown id) and
`/notes?content.authorids=~X` the submissions naming the profile in either form of authors, API 1's under `/v1`.
`/notes/edits?note.id=` answers `{"edits": [...], "count": n}` as the official client's `get_note_edits` reads
it: each edit with `tcdate`/`tmdate`, `signatures`, `invitations` and the `note` as that edit wrote it (the
first edit the whole review, later ones only the fields they changed); 403 `ForbiddenError` on a venue whose
edits are not public.
Reviews carry their texts as the real forms do: API 2 (ICLR 2024's form) `summary`, `soundness`, `presentation`,
`contribution`, `strengths`, `weaknesses`, `questions`, …, each `{"value": …}`, and a `Meta_Review` note
(`metareview`, `recommendation`, `confidence`: openreview-py's `meta_review_v2`) once decided; API 1 (ICLR 2021's
form, openreview-py's `review`) plain `title` and `review` strings, and a `Decision` with its `comment`. The first
review of submission 1 says `HOSTILE` things (markup, a script, 120,000 characters).
`/notes/edits?note.id=` or `?invitation=` (a submission's review invitation: the edits of all its reviews) answers
`{"edits": [...], "count": n}` as the official client's `get_note_edits` asks and reads it, at most 1,000 a page
(`offset`, `sort=tcdate:asc`): each edit with `tcdate`/`tmdate`, `domain`, `signatures`, the `invitation` it was
made under and the `note` as that edit wrote it (the first edit the whole review, later ones only the fields they
changed); 403 `ForbiddenError` on a venue whose edits are not public; a venue with `edits_by_invitation` off
stands for a deployment that refuses the invitation filter (400 `ValidationError`). Replies carry `tcdate` (when
posted) and `tmdate` (when last changed). Every answer's size is counted in `bytes_served`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.local_http import bound, local_server

LIMIT = 1000
HOSTILE = (
    "<script>alert('review')</script> <b onmouseover=\"alert(1)\">bold</b> </details></article>"
    " &amp; {{ 7*7 }} {% raw %}\n\n" + "A very long paragraph of a review. " * 3400
)
# What reviewers say, by aspect: praise and criticism of each, worded differently by each reviewer.
PRAISE = {
    "writing": (
        "The paper is clearly written and easy to follow.",
        "The writing is clear and the paper is easy to follow.",
        "Overall the paper is well written and clearly organised.",
    ),
    "experiments": (
        "The experiments are thorough and convincing on several datasets.",
        "The experimental evaluation on several datasets is convincing.",
    ),
}
CRITICISM = {
    "experiments": (
        "The experiments are limited to small datasets and are not convincing.",
        "The experimental evaluation is weak: only small datasets are used.",
    ),
    "related": (
        "The related work section misses several recent papers on {topic}.",
        "Several recent papers on {topic} are missing from the related work.",
    ),
}
USER, PASSWORD, TOKEN = "reader@example.org", "correct horse", "token-abc123"


@dataclass
class Venue:
    """One venue as the server holds it: its API, group and submission notes (replies inside)."""

    id: str
    api: int
    notes: list[dict[str, Any]]
    group: dict[str, Any] = field(default_factory=dict)
    edits_public: bool = True
    edits_by_invitation: bool = True


@dataclass
class FakeOpenReview:
    """The server's state: venues, whether a login is required, faults to inject, and what was served."""

    venues: dict[str, Venue] = field(default_factory=dict)
    require_login: bool = True
    faults: list[str] = field(default_factory=list)  # consumed one per /notes request: 429, 500, timeout, garbage
    requests: int = 0
    notes_served: int = 0
    edits_served: int = 0
    bytes_served: int = 0
    edits: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # note id → its edits, oldest first
    edits_under: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # invitation → its edits
    clock: int = 1_700_000_000_000

    def tick(self) -> int:
        self.clock += 1000
        return self.clock

    def add_venue(self, venue: Venue) -> None:
        if venue.api == 2:
            venue.group = {
                "id": venue.id,
                "domain": venue.id,
                "content": {"submission_id": {"value": f"{venue.id}/-/Submission"}},
            }
            for reply in self.all_notes(venue):
                if reply.get("replyto"):
                    self._edit(venue.id, reply, reply["content"], reply["tmdate"])
        else:
            venue.group = {"id": venue.id, "web": "// legacy webfield"}
        self.venues[venue.id] = venue

    def authored(self, username: str, api: int) -> list[dict[str, Any]]:
        """The submissions on one API whose authors name this profile id (either form of authors)."""
        return [
            note
            for venue in self.venues.values()
            if venue.api == api
            for note in venue.notes
            if username in authorids(note)
        ]

    def profile(self, username: str) -> dict[str, Any] | None:
        """A profile as API 2 answers it, for any profile id some note names."""
        for venue in self.venues.values():
            for note in venue.notes:
                content = note["content"]
                names = [a.get("fullname") if isinstance(a, dict) else a for a in value(content, "authors") or []]
                for name, author in zip(names, authorids(note), strict=False):
                    if author == username:
                        entry = {"fullname": name, "username": username, "preferred": True}
                        return {"id": username, "content": {"names": [entry]}, "active": True}
        return None

    def _edit(self, venue: str, reply: dict[str, Any], content: dict[str, Any], stamp: int) -> None:
        edits = self.edits.setdefault(reply["id"], [])
        edit = {
            "id": f"{reply['id']}-e{len(edits)}",
            "domain": venue,
            "invitation": reply["invitations"][0],
            "signatures": reply.get("signatures") or [],
            "cdate": stamp,
            "tcdate": stamp,
            "tmdate": stamp,
            "note": {"id": reply["id"], "forum": reply["forum"], "replyto": reply["replyto"], "content": content},
        }
        edits.append(edit)
        self.edits_under.setdefault(edit["invitation"], []).append(edit)

    def revise(self, venue: str, review_id: str, **values: Any) -> int:
        """A reviewer edits a review (`rating=6`): the note takes the new values and time, an edit records them."""
        for reply in self.all_notes(self.venues[venue]):
            if reply["id"] == review_id:
                return self.revise_reply(venue, reply, **values)
        raise KeyError(review_id)

    def revise_reply(self, venue: str, reply: dict[str, Any], **values: Any) -> int:
        """`revise` for a reply already in hand (a benchmark revising thousands of reviews)."""
        stamp = self.tick()
        changed = {key: {"value": v} for key, v in values.items()}
        reply["content"] = {**reply["content"], **changed}
        reply["tmdate"] = stamp
        self._edit(venue, reply, changed, stamp)
        return stamp

    def add_review(self, venue: str, forum: str, review_id: str, rating: int, confidence: int) -> int:
        """A review posted late (after the others), with its one edit."""
        stamp = self.tick()
        note = next(n for n in self.venues[venue].notes if n["id"] == forum)
        reply = {
            "id": review_id,
            "forum": forum,
            "replyto": forum,
            "cdate": stamp,
            "tcdate": stamp,
            "tmdate": stamp,
            "domain": venue,
            "invitations": [f"{venue}/Submission{note['number']}/-/Official_Review"],
            "signatures": [f"{venue}/Submission{note['number']}/Reviewer_late"],
            "content": {"rating": {"value": rating}, "confidence": {"value": confidence}},
        }
        note["details"]["replies"].append(reply)
        self._edit(venue, reply, reply["content"], stamp)
        return stamp

    def decide(self, venue: str, forum: str, decision: str) -> int:
        """The program chairs post a decision (`Accept (Oral)`, `Reject`): a decision reply, and the submission
        moved to the venue (accepted) or its rejected submissions, both at a new time."""
        stamp = self.tick()
        note = next(n for n in self.venues[venue].notes if n["id"] == forum)
        accepted = decision.startswith("Accept")
        note["content"]["venueid"] = {"value": venue if accepted else f"{venue}/Rejected_Submission"}
        note["tmdate"] = note["mdate"] = stamp
        note["details"]["replies"].append(
            {
                "id": f"{forum}-d",
                "forum": forum,
                "replyto": forum,
                "tmdate": stamp,
                "domain": venue,
                "invitations": [f"{venue}/Submission{note['number']}/-/Decision"],
                "content": {"decision": {"value": decision}},
            }
        )
        return stamp

    def all_notes(self, venue: Venue) -> Iterator[dict[str, Any]]:
        for note in venue.notes:
            yield note
            yield from note.get("details", {}).get("replies" if venue.api == 2 else "directReplies", [])


def value(content: dict[str, Any], key: str) -> Any:
    found = content.get(key)
    return found.get("value") if isinstance(found, dict) else found


def authorids(note: dict[str, Any]) -> list[str]:
    """A note's author profile ids, from the unified `authors` form or `authorids` (API 1 or API 2)."""
    content = note["content"]
    authors = value(content, "authors") or []
    if authors and isinstance(authors[0], dict):
        return [a.get("username") or "" for a in authors]
    return list(value(content, "authorids") or [])


def api2_note(venue: str, number: int, record: dict[str, Any], stamp: int, state: str) -> dict[str, Any]:
    """A submission in API 2's shape from a paperlists record; `state`: accepted, rejected, withdrawn, review."""
    forum = record["id"]
    authors = [a.strip() for a in record.get("author", "").split(";") if a.strip()]
    ids = [a.strip() for a in record.get("authorids", "").split(";")]
    venueid = {
        "accepted": venue,
        "rejected": f"{venue}/Rejected_Submission",
        "withdrawn": f"{venue}/Withdrawn_Submission",
        "review": f"{venue}/Submission",
    }[state]
    content: dict[str, Any] = {
        "title": {"value": record["title"]},
        "abstract": {"value": record.get("abstract", "")},
        "keywords": {"value": [k for k in record.get("keywords", "").split(";") if k]},
        "venueid": {"value": venueid},
        "pdf": {"value": f"/pdf/{forum}.pdf"},
    }
    if number % 2:  # the newer "unified authors" form
        content["authors"] = {
            "value": [
                {"fullname": a, "username": i if i.startswith("~") else ""}
                for a, i in zip(authors, ids + [""] * len(authors), strict=False)
            ]
        }
    else:
        content["authors"] = {"value": authors}
        content["authorids"] = {"value": ids[: len(authors)]}
    if record.get("tldr"):
        content["TLDR"] = {"value": record["tldr"]}
    replies = []
    ratings = [r for r in record.get("rating", "").split(";") if r]
    confidences = [c for c in record.get("confidence", "").split(";") if c]
    for i, rating in enumerate(ratings):
        replies.append(
            {
                "id": f"{forum}-r{i}",
                "forum": forum,
                "replyto": forum,
                "tcdate": stamp,
                "tmdate": stamp,
                "domain": venue,
                "invitations": [f"{venue}/Submission{number}/-/Official_Review"],
                "signatures": [f"{venue}/Submission{number}/Reviewer_{i}"],
                "content": {
                    **{key: {"value": text} for key, text in review_form(record, number, i, 2).items()},
                    "rating": {"value": int(float(rating))} if i % 2 else {"value": f"{int(float(rating))}: fine"},
                    "confidence": {"value": int(float(confidences[i]))} if i < len(confidences) else {},
                    "code_of_conduct": {"value": "Yes"},
                },
            }
        )
    if state in ("accepted", "rejected"):
        decision = f"Accept ({record['status']})" if state == "accepted" else "Reject"
        replies.append(
            {
                "id": f"{forum}-m",
                "forum": forum,
                "replyto": forum,
                "tmdate": stamp,
                "domain": venue,
                "invitations": [f"{venue}/Submission{number}/-/Meta_Review"],
                "signatures": [f"{venue}/Submission{number}/Area_Chair_{number % 7}"],
                "content": {
                    "metareview": {"value": meta_review(record)},
                    "recommendation": {"value": decision},
                    "confidence": {"value": 4},
                },
            }
        )
        replies.append(
            {
                "id": f"{forum}-d",
                "forum": forum,
                "replyto": forum,
                "tmdate": stamp,
                "domain": venue,
                "invitations": [f"{venue}/Submission{number}/-/Decision"],
                "content": {"decision": {"value": decision}},
            }
        )
    return {
        "id": forum,
        "forum": forum,
        "number": number,
        "cdate": stamp,
        "mdate": stamp,
        "tcdate": stamp,
        "tmdate": stamp,
        "domain": venue,
        "invitations": [f"{venue}/-/Submission"],
        "content": content,
        "details": {"replies": replies},
    }


def api1_note(venue: str, number: int, record: dict[str, Any], stamp: int) -> dict[str, Any]:
    """A submission in API 1's shape (ICLR 2021): plain content, one invitation, direct replies."""
    forum = record["id"]
    status = record["status"]
    invitation = {"Withdraw": "Withdrawn_Submission", "Desk Reject": "Desk_Rejected_Submission"}.get(
        status, "Blind_Submission"
    )
    replies = [
        {
            "id": f"{forum}-r{i}",
            "forum": forum,
            "replyto": forum,
            "tmdate": stamp,
            "invitation": f"{venue}/Paper{number}/-/Official_Review",
            "signatures": [f"{venue}/Paper{number}/AnonReviewer{i + 1}"],
            "content": {
                **review_form(record, number, i, 1),
                "rating": f"{int(float(r))}: Good paper, accept",
                "confidence": f"{c}: The reviewer is confident",
            },
        }
        for i, (r, c) in enumerate(
            zip(
                [x for x in record.get("rating", "").split(";") if x],
                [x for x in record.get("confidence", "").split(";") if x],
                strict=False,
            )
        )
    ]
    if invitation == "Blind_Submission":
        decision = "Reject" if status == "Reject" else f"Accept ({status})"
        decided = f"{venue}/Paper{number}/-/Decision"
        replies.append(
            {
                "id": f"{forum}-d",
                "forum": forum,
                "tmdate": stamp,
                "invitation": decided,
                "signatures": [f"{venue}/Program_Chairs"],
                "content": {"title": "Final Decision", "decision": decision, "comment": meta_review(record)},
            }
        )
    return {
        "id": forum,
        "forum": forum,
        "number": number,
        "original": f"orig-{forum}",
        "cdate": stamp,
        "tcdate": stamp,
        "tmdate": stamp,
        "invitation": f"{venue}/-/{invitation}",
        "content": {
            "title": record["title"],
            "authors": [a for a in record["author"].split(";") if a],
            "authorids": [a for a in record.get("authorids", "").split(";") if a],
            "keywords": [k for k in record.get("keywords", "").split(";") if k],
            "abstract": "An abstract.",
        },
        "details": {"directReplies": replies},
    }


def topic(record: dict[str, Any]) -> str:
    keywords = [k.strip() for k in record.get("keywords", "").split(";") if k.strip()]
    return keywords[0].lower() if keywords else "this problem"


def review_form(record: dict[str, Any], number: int, i: int, api: int) -> dict[str, str]:
    """Review `i` of a submission: API 2's fields in the order of ICLR 2024's form, or API 1's title and review
    (paragraphs joined by blank lines); even reviewers praise the experiments, odd ones criticise them."""
    about = topic(record)
    summary = f'The paper "{record["title"]}" studies {about}. The authors propose a method and evaluate it.'
    strengths = [PRAISE["writing"][i % 3]] + ([PRAISE["experiments"][i // 2 % 2]] if i % 2 == 0 else [])
    weaknesses = ([CRITICISM["experiments"][i // 2 % 2]] if i % 2 else []) + [
        CRITICISM["related"][i % 2].format(topic=about)
    ]
    questions = HOSTILE if number == 1 and i == 0 else f"How does the method scale to larger {about} problems?"
    if api == 1:
        body = [f"Summary: {summary}", "Strengths:\n- " + "\n- ".join(strengths)]
        body += ["Weaknesses:\n- " + "\n- ".join(weaknesses), f"Questions: {questions}"]
        return {"title": f"Review of {about}", "review": "\n\n".join(body)}
    return {
        "summary": summary,
        "soundness": f"{2 + i % 2} {'good' if i % 2 else 'fair'}",
        "presentation": "3 good",
        "contribution": "2 fair",
        "strengths": " ".join(strengths),
        "weaknesses": "\n".join(f"- {w}" for w in weaknesses),
        "questions": questions,
    }


def meta_review(record: dict[str, Any]) -> str:
    """The area chair's text: what the reviewers agreed on, in the chair's words."""
    return (
        f"This submission on {topic(record)} was reviewed by several reviewers. All reviewers agree that the paper"
        " is clearly written and easy to follow. The reviewers disagree on whether the experiments are convincing."
    )


class Handler(BaseHTTPRequestHandler):
    state: FakeOpenReview

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(body).encode()
        self.state.bytes_served += len(data)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, name: str, message: str, headers: dict[str, str] | None = None) -> None:
        self._send(status, {"name": name, "message": message, "status": status, "details": {}}, headers)

    def do_POST(self) -> None:
        self.state.requests += 1
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}"
        body = json.loads(raw)
        if urlsplit(self.path).path != "/login":
            return self._error(404, "NotFoundError", "Not Found")
        if body.get("id") != USER or body.get("password") != PASSWORD:  # as OpenReview may: the body echoed
            return self._error(400, "Error", f"Invalid username or password in {raw.decode()}")
        self._send(200, {"token": TOKEN, "user": {"id": USER, "profile": {"id": "~Reader_One1"}}})

    def do_GET(self) -> None:
        state = self.state
        state.requests += 1
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        authorized = self.headers.get("Authorization") == f"Bearer {TOKEN}"
        api, path = (1, url.path.removeprefix("/v1")) if url.path.startswith("/v1/") else (2, url.path)
        if path == "/profiles":
            if state.require_login and not authorized:
                return self._error(403, "ChallengeRequiredError", "Challenge verification required")
            found = state.profile(query.get("id", ""))
            return self._send(200, {"profiles": [found] if found else []})
        if url.path == "/groups":
            venue = state.venues.get(query.get("id", ""))
            if venue is None:
                return self._error(404, "NotFoundError", f"Group Not Found: {query.get('id')}")
            return self._send(200, {"groups": [venue.group]})
        if path not in ("/notes", "/notes/edits"):
            return self._error(404, "NotFoundError", "Not Found")
        if state.require_login and not authorized:
            return self._error(403, "ChallengeRequiredError", "Challenge verification required")
        if state.faults:
            fault = state.faults.pop(0)
            if fault == "429":
                return self._error(429, "RateLimitError", "Too many requests", {"Retry-After": "0"})
            if fault == "500":
                return self._error(500, "Error", "Internal Server Error")
            if fault == "timeout":
                time.sleep(20)  # past any client timeout the tests set
            if fault == "garbage":
                return self._send(200, None, raw=b"<html>not json")
        if url.path == "/notes/edits":
            return self._note_edits(query)
        self._send(200, self._notes(query, api))

    def _note_edits(self, query: dict[str, str]) -> None:
        state = self.state
        if "note.id" in query:
            edits = state.edits.get(query["note.id"], [])
        else:
            edits = state.edits_under.get(query.get("invitation", ""), [])
        if "invitation" in query:
            edits = [e for e in edits if e["invitation"] == query["invitation"]]
        venue = state.venues.get(edits[0]["domain"]) if edits else None
        if venue is not None and not venue.edits_public:
            return self._error(403, "ForbiddenError", "You do not have permission to read these edits")
        if venue is not None and "note.id" not in query and not venue.edits_by_invitation:
            return self._error(400, "ValidationError", "querystring must have required property 'note.id'")
        found = sorted(edits, key=lambda e: e["tcdate"], reverse=query.get("sort") == "tcdate:desc")
        offset, limit = int(query.get("offset", 0)), min(int(query.get("limit", LIMIT)), LIMIT)
        page = found[offset : offset + limit]
        state.edits_served += len(page)
        self._send(200, {"edits": page, "count": len(found)})

    def _notes(self, query: dict[str, str], api: int) -> dict[str, Any]:
        state = self.state
        found: list[dict[str, Any]] = []
        if "content.authorids" in query:
            found = state.authored(query["content.authorids"], api)
        for venue in state.venues.values():
            if "domain" in query and venue.id == query["domain"] and venue.api == 2:
                found += list(state.all_notes(venue))
            for note in venue.notes:
                invitations = note.get("invitations") or [note.get("invitation")]
                if query.get("invitation") in invitations or query.get("id") == note["id"]:
                    found.append(note)
        if query.get("sort") == "tmdate:desc":
            found.sort(key=lambda n: -n["tmdate"])
        offset, limit = int(query.get("offset", 0)), min(int(query.get("limit", LIMIT)), LIMIT)
        page = found[offset : offset + limit]
        if "details" not in query:
            page = [{k: v for k, v in n.items() if k != "details"} for n in page]
        state.notes_served += len(page)
        return {"notes": page, "count": len(found)}


def signed_in(monkeypatch: Any) -> None:
    """Give `confnav fetch` this server's account (username and password, no token), as a user's environment does."""
    monkeypatch.setenv("OPENREVIEW_USERNAME", USER)
    monkeypatch.setenv("OPENREVIEW_PASSWORD", PASSWORD)
    monkeypatch.delenv("OPENREVIEW_TOKEN", raising=False)


@contextmanager
def serving(state: FakeOpenReview) -> Iterator[str]:
    """Run the server on a free loopback port; yields its base URL."""
    with local_server(bound(Handler, state=state)) as url:
        yield url
