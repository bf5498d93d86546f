"""Citation counts from the Semantic Scholar Academic Graph API, or from OpenAlex, stored as a ranking signal.

Semantic Scholar's `POST /paper/batch` takes up to 500 ids (DOI, arXiv, ACL Anthology; not OpenReview
URLs) and answers `null` for ids it does not know; the rest are matched by `GET /paper/search/match` on
the title, kept only when the normalised title and the year agree. OpenAlex is asked for up to 100 DOIs
per `GET /works` (`filter=doi:a|b`), else searched by title and year; it needs a free API key since 2026.
Keys come from `S2_API_KEY` and `OPENALEX_API_KEY`, never printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from confnav.errors import ConfnavError
from confnav.fetch.http import FetchError, HttpClient
from confnav.model import Paper, title_key
from confnav.progress import Progress, Silent
from confnav.settings import Settings  # placed by ruff below
from confnav.store.protocols import AnalysisStore

S2_BATCH, OPENALEX_BATCH = 500, 100
_ACL_ID = re.compile(r"^(\d{4}\.[a-z]+-[a-z0-9]+\.\d+|[A-Z]\d{2}-\d{4})$")
_ARXIV = re.compile(r"arxiv\.org/(?:abs|pdf)/([0-9]{4}\.[0-9]{4,5})")


@dataclass
class CitationResult:
    """How many papers got a count, by which route, and which did not (reported, not stored)."""

    provider: str
    venue: str
    by_id: int = 0
    by_title: int = 0
    unmatched: list[str] = field(default_factory=list)
    requests: int = 0

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__ | {"matched": self.by_id + self.by_title}


class Provider(Protocol):
    """A citation service: counts by external id in batches, and one title search."""

    name: str
    http: HttpClient

    def by_ids(self, papers: list[Paper]) -> dict[str, int]: ...

    def by_title(self, paper: Paper) -> int | None: ...


def doi_of(paper: Paper) -> str | None:
    link = paper.links.get("doi", "")
    return link.split("doi.org/", 1)[1] if "doi.org/" in link else None


def s2_id(paper: Paper) -> str | None:
    """The id Semantic Scholar's batch endpoint accepts for a paper: DOI, arXiv or ACL Anthology."""
    if doi := doi_of(paper):
        return f"DOI:{doi}"
    if match := _ARXIV.search(" ".join(paper.links.values())):
        return f"ARXIV:{match.group(1)}"
    if _ACL_ID.match(paper.id):
        return f"ACL:{paper.id}"
    return None


def _chunks(items: Sequence[Paper], size: int) -> Iterator[Sequence[Paper]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass
class SemanticScholar:
    http: HttpClient
    name: str = "Semantic Scholar"

    @classmethod
    def from_settings(cls, settings: Settings, base_url: str | None = None, **http: Any) -> SemanticScholar:
        client = HttpClient(base_url or settings.s2_url, **http)
        if settings.s2_api_key:
            client.headers["x-api-key"] = settings.s2_api_key
        return cls(client)

    def by_ids(self, papers: list[Paper]) -> dict[str, int]:
        found: dict[str, int] = {}
        with_ids = [p for p in papers if s2_id(p)]
        for chunk in _chunks(with_ids, S2_BATCH):
            answer = self.http.post(
                "/paper/batch",
                {"ids": [s2_id(p) for p in chunk]},
                params={"fields": "title,year,citationCount,externalIds"},
            )
            if not isinstance(answer, list) or len(answer) != len(chunk):
                raise FetchError(f"{self.http.host} answered /paper/batch without one entry per id")
            for paper, item in zip(chunk, answer, strict=True):
                if isinstance(item, dict) and isinstance(item.get("citationCount"), int):
                    found[paper.id] = item["citationCount"]
        return found

    def by_title(self, paper: Paper) -> int | None:
        try:
            answer = self.http.get(
                "/paper/search/match", {"query": paper.title, "year": paper.year, "fields": "title,year,citationCount"}
            )
        except FetchError as exc:
            if exc.status == 404:  # "Title match not found"
                return None
            raise
        for item in answer.get("data") or [] if isinstance(answer, dict) else []:
            if _same(paper, item.get("title"), item.get("year")) and isinstance(item.get("citationCount"), int):
                return int(item["citationCount"])
        return None


@dataclass
class OpenAlex:
    http: HttpClient
    name: str = "OpenAlex"

    @classmethod
    def from_settings(cls, settings: Settings, base_url: str | None = None, **http: Any) -> OpenAlex:
        if not settings.openalex_api_key:
            raise ConfnavError("OpenAlex needs an API key since 2026: set OPENALEX_API_KEY (free at openalex.org)")
        client = HttpClient(base_url or settings.openalex_url, **http)
        client.headers["Authorization"] = f"Bearer {settings.openalex_api_key}"
        return cls(client)

    def by_ids(self, papers: list[Paper]) -> dict[str, int]:
        found: dict[str, int] = {}
        with_doi = [p for p in papers if doi_of(p)]
        for chunk in _chunks(with_doi, OPENALEX_BATCH):
            wanted = {str(doi_of(p)).lower(): p.id for p in chunk}
            answer = self._works({"filter": "doi:" + "|".join(wanted), "per-page": OPENALEX_BATCH})
            for work in answer:
                doi = str(work.get("doi") or "").lower().split("doi.org/", 1)[-1]
                if doi in wanted and isinstance(work.get("cited_by_count"), int):
                    found[wanted[doi]] = work["cited_by_count"]
        return found

    def by_title(self, paper: Paper) -> int | None:
        words = re.sub(r"[,*?|:]", " ", paper.title)
        for work in self._works({"search": words, "filter": f"publication_year:{paper.year}", "per-page": 5}):
            if _same(paper, work.get("title") or work.get("display_name"), work.get("publication_year")):
                count = work.get("cited_by_count")
                return int(count) if isinstance(count, int) else None
        return None

    def _works(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        params |= {"select": "id,doi,title,display_name,publication_year,cited_by_count"}
        try:
            answer = self.http.get("/works", params)
        except FetchError as exc:
            if exc.status == 401:
                raise FetchError(f"{self.http.host} refused OPENALEX_API_KEY ({exc}); check the key") from None
            raise
        results = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(results, list):
            raise FetchError(f"{self.http.host} answered /works without a list of results")
        return results


def _same(paper: Paper, title: Any, year: Any) -> bool:
    """The match rule: the same normalised title and the same year."""
    return title_key(str(title or "")) == title_key(paper.title) and str(year) == str(paper.year)


def fetch_citations(
    store: AnalysisStore, venue: str, provider: Provider, *, titles: bool = True, progress: Progress | None = None
) -> CitationResult:
    """Citation counts for a venue's papers, stored as the signal `citations` with provider and date."""
    progress = progress or Silent()
    venue = store.get_venue(venue).id
    papers = list(store.iter_papers(venue))
    result = CitationResult(provider.name, venue)
    progress.start(f"citations from {provider.name}", len(papers))
    counts = provider.by_ids(papers)
    result.by_id = len(counts)
    progress.advance(len(counts))
    for paper in papers:
        if paper.id in counts:
            continue
        found = provider.by_title(paper) if titles else None
        if found is None:
            result.unmatched.append(paper.id)
        else:
            counts[paper.id] = found
            result.by_title += 1
        progress.advance()
    result.requests = provider.http.requests
    source = f"{provider.name}, as of {datetime.now(UTC).date().isoformat()}"
    with store.transaction():
        store.put_external_signals(venue, source, [(pid, "citations", float(n)) for pid, n in counts.items()])
    return result
