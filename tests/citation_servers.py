"""Local servers that answer like Semantic Scholar's Graph API and OpenAlex, from real papers' counts.

Semantic Scholar (api docs, s2-folks release notes, recorded responses of the `semanticscholar` client):
`POST /paper/batch?fields=…` with `{"ids": [...]}` (at most 500) answers a list aligned with the ids,
`null` for unknown ids; `GET /author/{id}/papers?fields=&offset=&limit=` (limit at most 1,000) answers
`{"offset", "next", "data"}` without `next` on the last page, 404 `{"error": "Author with id … not found"}`;
`GET /paper/search/match` answers `{"data": [{paperId, title, matchScore, …}]}` or
404 `{"error": "Title match not found"}`; 429 `{"message": "Too Many Requests…", "code": "429"}`.
OpenAlex (docs and its API server): `GET /works?filter=doi:a|b&per-page=&select=` answers
`{"meta": {...}, "results": [...]}`; an invalid key gets 401 `{"error": "Invalid or missing API key"}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.local_http import bound, local_server

OPENALEX_KEY = "openalex-key-1"


@dataclass
class Work:
    """A paper as the services know it."""

    title: str
    year: int
    citations: int
    doi: str | None = None
    acl: str | None = None
    authors: list[tuple[str, str]] = field(default_factory=list)  # (authorId, name)
    abstract: str | None = None
    venue: str = ""


@dataclass
class Services:
    works: list[Work]
    faults: list[str] = field(default_factory=list)  # "429" answers the next request with Too Many Requests
    requests: int = 0

    def by_s2_id(self, given: str) -> Work | None:
        kind, _, value = given.partition(":")
        for work in self.works:
            if kind == "DOI" and work.doi and work.doi.lower() == value.lower():
                return work
            if kind == "ACL" and work.acl == value:
                return work
        return None


def _s2(work: Work, index: int) -> dict[str, Any]:
    ids = {k: v for k, v in (("DOI", work.doi), ("ACL", work.acl), ("CorpusId", 1000 + index)) if v}
    return {
        "paperId": f"{index:040x}",
        "externalIds": ids,
        "title": work.title,
        "year": work.year,
        "citationCount": work.citations,
    }


class Handler(BaseHTTPRequestHandler):
    services: Services

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, body: Any) -> None:
        data = (json.dumps(body) + "\n").encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _throttled(self) -> bool:
        self.services.requests += 1
        if self.services.faults and self.services.faults[0] == "429":
            self.services.faults.pop(0)
            self._send(
                429,
                {
                    "message": "Too Many Requests. Please wait and try again or apply for a key for higher"
                    " rate limits.",
                    "code": "429",
                },
            )
            return True
        return False

    def do_POST(self) -> None:
        if self._throttled():
            return
        url = urlsplit(self.path)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if url.path != "/graph/v1/paper/batch":
            return self._send(404, {"error": "Not found"})
        ids = body.get("ids") or []
        if len(ids) > 500:
            return self._send(400, {"error": "Can only process 500 paper ids at a time"})
        works = self.services.works
        self._send(200, [_s2(w, works.index(w)) if (w := self.services.by_s2_id(i)) else None for i in ids])

    def do_GET(self) -> None:
        if self._throttled():
            return
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        works = self.services.works
        if url.path == "/graph/v1/paper/search/match":
            wanted = " ".join(query.get("query", "").lower().split())
            for index, work in enumerate(works):
                year = query.get("year", str(work.year))
                if " ".join(work.title.lower().split()) == wanted and str(work.year) == year:
                    return self._send(200, {"data": [_s2(work, index) | {"matchScore": 120.5}]})
            return self._send(404, {"error": "Title match not found"})
        if url.path.startswith("/graph/v1/author/") and url.path.endswith("/papers"):
            return self._author_papers(url.path.split("/")[4], query)
        if url.path == "/works":
            if self.headers.get("Authorization") != f"Bearer {OPENALEX_KEY}":
                return self._send(401, {"error": "Invalid or missing API key", "message": "Check your API key."})
            return self._send(200, self._openalex(query))
        self._send(404, {"error": "Not found"})

    def _author_papers(self, author_id: str, query: dict[str, str]) -> None:
        """An author's papers a page at a time: `{"offset", "next", "data"}`, `next` left out on the last page."""
        works = self.services.works
        mine = [(i, w) for i, w in enumerate(works) if author_id in (a for a, _ in w.authors)]
        if not mine:
            return self._send(404, {"error": f"Author with id {author_id} not found"})
        offset, limit = int(query.get("offset", 0)), int(query.get("limit", 100))
        if limit > 1000:
            return self._send(400, {"error": "Unacceptable query params: [limit must be <= 1000]"})
        fields = set(query.get("fields", "title").split(","))
        data = []
        for index, work in mine[offset : offset + limit]:
            full = _s2(work, index) | {
                "abstract": work.abstract,
                "venue": work.venue,
                "authors": [{"authorId": a, "name": n} for a, n in work.authors],
            }
            data.append({k: v for k, v in full.items() if k == "paperId" or k in fields})
        page: dict[str, Any] = {"offset": offset, "data": data}
        if offset + limit < len(mine):
            page["next"] = offset + limit
        self._send(200, page)

    def _openalex(self, query: dict[str, str]) -> dict[str, Any]:
        found: list[Work] = []
        for part in query.get("filter", "").split(","):
            name, _, values = part.partition(":")
            if name == "doi":
                wanted = {v.lower().split("doi.org/")[-1] for v in values.split("|")}
                found += [w for w in self.services.works if w.doi and w.doi.lower() in wanted]
        if "search" in query:
            words = set(query["search"].lower().split())
            year = query.get("filter", "").partition("publication_year:")[2]
            found += [
                w
                for w in self.services.works
                if words <= set(w.title.lower().replace(",", " ").replace(":", " ").split())
                and (not year or str(w.year) == year)
            ]
        results = [
            {
                "id": f"https://openalex.org/W{i}",
                "doi": f"https://doi.org/{w.doi}" if w.doi else None,
                "title": w.title,
                "display_name": w.title,
                "publication_year": w.year,
                "cited_by_count": w.citations,
            }
            for i, w in enumerate(found)
        ]
        return {
            "meta": {
                "count": len(results),
                "db_response_time_ms": 3,
                "page": 1,
                "per_page": int(query.get("per-page", 25)),
            },
            "results": results,
        }


@contextmanager
def serving(services: Services) -> Iterator[str]:
    """Run the server on a free loopback port; yields its base URL."""
    with local_server(bound(Handler, services=services)) as url:
        yield url
