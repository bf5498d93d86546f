"""Fetch a venue's submissions, reviews and decisions from OpenReview into a snapshot (see snapshot.py).

API 2 (venues from 2023 on) and API 1 (earlier) are told apart as the official client does: the venue
group, read from API 2, has a `domain` only on API 2. Pages hold at most 1,000 notes. A second run asks
API 2 for the venue's notes modified since the snapshot's newest (`domain=…&sort=tmdate:desc`) and puts
them in place in the submissions already held: only what changed is transferred (a submission not held yet
is read whole). Since 2026 OpenReview answers anonymous calls with 403 `ChallengeRequiredError`:
credentials come from the environment only and are never printed or stored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from confnav.fetch.http import FetchError, HttpClient
from confnav.fetch.snapshot import PageLog
from confnav.progress import Progress, Silent
from confnav.settings import Settings  # placed by ruff below

PAGE = 1000
LOGIN_HELP = (
    "set OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD (or OPENREVIEW_TOKEN) in the environment;"
    " OpenReview has answered anonymous API calls with 'ChallengeRequiredError' since 2026"
)


@dataclass
class VenueInfo:
    """Where a venue's submissions live: its API and the queries that list them."""

    venue_id: str
    api: int
    invitations: list[str]


@dataclass
class OpenReviewClient:
    """Both APIs of one OpenReview deployment, logged in once from the environment."""

    api2: HttpClient
    api1: HttpClient
    progress: Progress = field(default_factory=Silent)
    page_size: int = PAGE

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        base_url: str | None = None,
        v1_url: str | None = None,
        progress: Progress | None = None,
        **http: Any,
    ) -> OpenReviewClient:
        api2 = HttpClient(base_url or settings.openreview_url, **http)
        api1 = HttpClient(v1_url or settings.openreview_v1_url, **http)
        client = cls(api2, api1, progress or Silent())
        client.log_in(settings)
        return client

    def log_in(self, settings: Settings) -> None:
        """A token from OPENREVIEW_TOKEN, or one from /login with OPENREVIEW_USERNAME/OPENREVIEW_PASSWORD."""
        token = settings.openreview_token
        username, password = settings.openreview_username, settings.openreview_password
        if not token and username and password:
            try:
                answer = self.api2.post("/login", {"id": username, "password": password})
            except FetchError as exc:
                if exc.status in (400, 401, 403, 404):
                    raise FetchError(
                        f"{self.api2.host} refused the login of OPENREVIEW_USERNAME ({_message(exc.body)});"
                        " check OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD",
                        exc.status,
                    ) from None
                raise
            token = answer.get("token") if isinstance(answer, dict) else None
            if not token:
                raise FetchError(
                    f"{self.api2.host} answered the login without a token (two-factor login is not"
                    " supported: use OPENREVIEW_TOKEN)"
                )
        if token:
            for client in (self.api2, self.api1):
                client.headers["Authorization"] = f"Bearer {token}"

    def get(self, client: HttpClient, path: str, params: dict[str, Any]) -> Any:
        """A GET that turns OpenReview's own refusals into messages that say what to do."""
        try:
            return client.get(path, params)
        except FetchError as exc:
            name = exc.body.get("name") if isinstance(exc.body, dict) else None
            if (exc.status == 403 and name == "ChallengeRequiredError") or exc.status == 401:
                logged_in = "Authorization" in client.headers
                raise FetchError(
                    f"{client.host} refused the request ({name or exc.status})"
                    + ("; the token or login in the environment was not accepted" if logged_in else f": {LOGIN_HELP}"),
                    exc.status,
                ) from None
            raise

    def venue(self, venue_id: str) -> VenueInfo:
        """The venue's API and submission invitations; FetchError when OpenReview has no such venue."""
        try:
            answer = self.get(self.api2, "/groups", {"id": venue_id})
        except FetchError as exc:
            if exc.status == 404:
                raise FetchError(_no_venue(venue_id)) from None
            raise
        groups = answer.get("groups") if isinstance(answer, dict) else None
        if not groups:
            raise FetchError(_no_venue(venue_id))
        group = groups[0]
        if group.get("domain"):
            submission = (group.get("content") or {}).get("submission_id", {}).get("value")
            return VenueInfo(venue_id, 2, [submission or f"{venue_id}/-/Submission"])
        kinds = ("Blind_Submission", "Withdrawn_Submission", "Desk_Rejected_Submission")
        return VenueInfo(venue_id, 1, [f"{venue_id}/-/{kind}" for kind in kinds])

    def submissions(self, info: VenueInfo, log: PageLog) -> Iterator[dict[str, Any]]:
        """Every submission with its replies, page by page (pages already in `log` are not asked again)."""
        client, details = (self.api2, "replies") if info.api == 2 else (self.api1, "directReplies")
        for invitation in info.invitations:
            yield from self._pages(client, {"invitation": invitation, "details": details}, log)

    def changed_since(
        self, info: VenueInfo, since: int, log: PageLog, held: Callable[[], Mapping[str, dict[str, Any]]] | None = None
    ) -> Iterator[dict[str, Any]]:
        """The submissions whose note or any reply changed after `since` (ms): a submission `held` (paper id →
        its note with replies, as fetched before; asked for only when something changed) takes the changed notes
        in place, any other is read again."""
        client, details = (self.api2, "replies") if info.api == 2 else (self.api1, "directReplies")
        if info.api == 1:  # API 1 venues are closed: only their submission notes can still change
            for invitation in info.invitations:
                params = {"invitation": invitation, "details": details, "sort": "tmdate:desc"}
                yield from self._pages(client, params, log, stop_at=since)
            return
        changed: dict[str, list[dict[str, Any]]] = {}
        scan = {"domain": info.venue_id, "sort": "tmdate:desc", "trash": "true"}  # deletions too, to drop them
        for note in self._pages(client, scan, log, stop_at=since):
            changed.setdefault(str(note.get("forum") or note.get("id")), []).append(note)
        notes = held() if held is not None and changed else {}
        for forum in [forum for forum in changed if forum in notes]:
            yield patched(notes[forum], changed.pop(forum))
        self.progress.start("reading new submissions", len(changed))
        for forum in changed:
            answer = log.page(("id", forum), 0) or log.record(
                ("id", forum), 0, self.get(client, "/notes", {"id": forum, "details": details})
            )
            for note in answer.get("notes") or []:
                if any(str(i).startswith(tuple(info.invitations)) for i in _invitations(note)):
                    yield note
            self.progress.advance()

    def pages(self, client: HttpClient, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Every note a query finds, page by page (offset and limit), nothing kept on disk."""
        return self._pages(client, params, None)

    def note_edits(self, note_id: str, log: PageLog) -> list[dict[str, Any]]:
        """Every edit of one API 2 note, oldest first, asked as the official client's `get_note_edits` asks
        (`/notes/edits?note.id=…&sort=tcdate:asc`), at most 1,000 a page; FetchError 403 when they are not public."""
        return self._edits("note.id", note_id, log)

    def invitation_edits(self, invitation: str, log: PageLog) -> list[dict[str, Any]]:
        """Every edit made under one invitation, oldest first (`get_note_edits(invitation=…)`): for a submission's
        review invitation, the edits of all its reviews in one request; FetchError 400 where the filter is refused."""
        return self._edits("invitation", invitation, log)

    def _edits(self, field_name: str, wanted: str, log: PageLog) -> list[dict[str, Any]]:
        key, offset, edits = ("edits", field_name, wanted), 0, []
        while True:
            params = {field_name: wanted, "sort": "tcdate:asc", "offset": offset, "limit": PAGE}
            answer = log.page(key, offset) or log.record(key, offset, self.get(self.api2, "/notes/edits", params))
            page = answer.get("edits") if isinstance(answer, dict) else None
            if not isinstance(page, list):
                raise FetchError(f"{self.api2.host} answered /notes/edits without a list of edits")
            edits += [edit for edit in page if isinstance(edit, dict)]
            if len(page) < PAGE:
                return edits
            offset += len(page)

    def _pages(
        self, client: HttpClient, params: dict[str, Any], log: PageLog | None, stop_at: int | None = None
    ) -> Iterator[dict[str, Any]]:
        """Notes page by page; a scan for changes (`stop_at`) starts with tiny pages, growing tenfold, so that
        an unchanged venue costs one note and a few changes cost a few."""
        offset, key = 0, tuple(sorted(params.items()))
        size = 1 if stop_at is not None else self.page_size
        while True:
            answer = log.page(key, offset) if log else None
            if not answer:
                answer = self.get(client, "/notes", {**params, "offset": offset, "limit": size})
                if log:
                    log.record(key, offset, answer)
            notes = answer.get("notes") if isinstance(answer, dict) else None
            if not isinstance(notes, list):
                raise FetchError(f"{client.host} answered /notes without a list of notes")
            for note in notes:
                if stop_at is not None and int(note.get("tmdate") or 0) <= stop_at:
                    return
                yield note
            self.progress.advance(len(notes))
            if len(notes) < size:
                return
            offset += len(notes)
            size = min(self.page_size, size * 10)


def patched(note: dict[str, Any], changes: list[dict[str, Any]]) -> dict[str, Any]:
    """A submission as fetched before with the notes of its forum that changed since put in place: the submission's
    own fields replaced (its replies kept), a changed reply replaced, a new one added, a deleted one (`ddate`) gone."""
    details: dict[str, Any] = given if isinstance(given := note.get("details"), dict) else {}
    kind = "replies" if "replies" in details or "directReplies" not in details else "directReplies"
    replies = {str(r.get("id")): r for r in details.get(kind) or [] if isinstance(r, dict)}
    result = dict(note)
    for change in sorted(changes, key=lambda n: int(n.get("tmdate") or 0)):
        if str(change.get("id")) == str(note.get("id")):
            result.update({k: v for k, v in change.items() if k != "details"})
        elif change.get("ddate"):
            replies.pop(str(change.get("id")), None)
        else:
            replies[str(change.get("id"))] = change
    result["details"] = {**details, kind: list(replies.values())}
    return result


def _invitations(note: dict[str, Any]) -> list[str]:
    return list(note.get("invitations") or ([note["invitation"]] if note.get("invitation") else []))


def _no_venue(venue_id: str) -> str:
    return f"OpenReview has no venue {venue_id!r} (check the id, e.g. ICLR.cc/2025/Conference)"


def _message(body: Any) -> str:
    return str(body.get("message") or body.get("name")) if isinstance(body, dict) else "no reason given"
