"""The store as its users see it: small protocols, each what one kind of caller needs.

Every backend implements all of them (`Store`); callers are typed against the
smallest one that covers what they do, so that a second backend is a matter of
implementing these methods, not of knowing the SQLite class.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from confnav.decisions import DecisionTable
from confnav.model import Decision, DecisionsArrived, Paper, RatingScale, ReviewText, ReviewVersion, Session, Venue
from confnav.settings import Settings
from confnav.sources.base import SourceRecord
from confnav.store.base import PaperFilter, VenueSummary

if TYPE_CHECKING:
    from confnav.store.news import NewsItem, Watch
    from confnav.store.profiles import ProfileItem
    from confnav.store.topics import StoredAssignment, StoredTheme


class Transactional(Protocol):
    """Writes that commit together or not at all, and a way to let go of the store."""

    def transaction(self) -> AbstractContextManager[None]: ...

    def close(self) -> None: ...


class Versioned(Protocol):
    """Change counters: equal counters, equal answers (caches key on them); and the settings the store was
    opened with (whether it serves requests)."""

    settings: Settings

    def generation(self) -> int: ...

    def venue_generation(self, venue: str) -> int: ...

    def versions(self) -> tuple[int, int]: ...

    def state(self) -> tuple[tuple[str, int], ...]: ...

    def count_change(self, kind: str) -> None: ...


class VenueReader(Protocol):
    """The venues in the store."""

    def get_venue(self, venue_id: str) -> Venue: ...

    def pick_venue(self, venue: str | None) -> str: ...

    def venues(self) -> list[VenueSummary]: ...


class PaperReader(VenueReader, Versioned, Protocol):
    """Papers by id, filter or venue; what every read-only caller needs."""

    def get_paper(self, paper_id: str, venue: str | None = None) -> Paper: ...

    def papers(self, where: PaperFilter | None = None, limit: int | None = None) -> list[Paper]: ...

    def iter_papers(self, venue: str | None = None) -> Iterator[Paper]: ...

    def paper_rows(self, venue: str | None = None) -> Iterator[tuple[int, Paper]]: ...

    def count_papers(self, venue: str | None = None) -> int: ...

    def filter_pks(self, where: PaperFilter) -> list[int]: ...

    def papers_by_pk(self, pks: Sequence[int]) -> dict[int, Paper]: ...

    def paper_places(self) -> list[tuple[str, int]]: ...

    def pks_of(self, paper_id: str, venue: str | None = None) -> list[int]: ...

    def row_facts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]: ...

    def placeholder_pks(self) -> list[int]: ...

    def venues_of(self, paper_ids: Iterable[str]) -> dict[str, set[str]]: ...

    def decision_names(self) -> list[str]: ...

    def decision_counts(self, venue: str) -> list[tuple[Decision, int]]: ...

    def decision_labels(self, venue: str | None = None) -> list[dict[str, object]]: ...

    def paper_decisions(self, venue: str, paper_id: str | None = None) -> dict[str, tuple[str, Decision]]: ...

    def rating_scales(self) -> dict[str, RatingScale]: ...


class IngestStore(Transactional, Protocol):
    """What ingest needs: the decision table, source records, venues and merged papers."""

    def decision_table(self) -> DecisionTable: ...

    def put_decision_overrides(self, table: DecisionTable) -> None: ...

    def put_venue(self, venue: Venue) -> None: ...

    def put_records(self, records: list[SourceRecord]) -> None: ...

    def records(self, venue: str) -> dict[str, list[SourceRecord]]: ...

    def rename_paper(self, venue: str, old: str, new: str) -> None: ...

    def put_papers(self, papers: list[Paper]) -> list[str]: ...

    def papers_by_id(self, venue: str, paper_ids: Sequence[str]) -> dict[str, Paper]: ...

    def venues(self) -> list[VenueSummary]: ...

    def merge_version(self) -> int: ...

    def set_merge_version(self, version: int) -> None: ...

    def sync_list_sessions(self, venue: str) -> None: ...


class CacheStore(Transactional, Versioned, Protocol):
    """Derived data kept with the store (keyword index, embedder state), tagged with a generation."""

    def get_cache(self, name: str) -> tuple[int, bytes] | None: ...

    def put_cache(self, name: str, generation: int, data: bytes) -> None: ...


class VectorStore(CacheStore, Protocol):
    """Embeddings by model and paper row."""

    def embedding_hashes(self, model: str) -> dict[int, str]: ...

    def put_embeddings(self, model: str, rows: list[tuple[int, str, bytes]]) -> None: ...

    def vector_size(self, model: str) -> int | None: ...

    def drop_vectors(self, model: str) -> int: ...

    def delete_embeddings(self, keep_models: list[str]) -> int: ...

    def embedding_models(self) -> dict[str, int]: ...

    def embeddings(self, model: str, venue: str | None = None) -> tuple[list[int], list[bytes]]: ...

    def index_vectors(self, model: str) -> bool: ...


@runtime_checkable
class NearestNeighbours(Protocol):
    """A backend that searches vectors itself (PostgreSQL with pgvector) instead of in the caller's memory."""

    def nearest(
        self,
        model: str,
        vector: np.ndarray,
        where: PaperFilter | None = None,
        limit: int = 10,
        share: float | None = None,
    ) -> list[tuple[int, float]]: ...

    def vector_scores(self, model: str, vector: np.ndarray, pks: Sequence[int]) -> dict[int, float]: ...

    def vectors_of(self, model: str, pks: Sequence[int]) -> dict[int, np.ndarray]: ...


class TopicStore(Transactional, Versioned, Protocol):
    """Themes, paper assignments and map positions of each venue."""

    def topic_run(self, venue: str) -> tuple[int, str, dict[str, Any]] | None: ...

    def put_topics(
        self,
        venue: str,
        generation: int,
        model: str,
        params: dict[str, Any],
        themes: list[StoredTheme],
        assignments: list[StoredAssignment],
    ) -> None: ...

    def themes(self, venue: str, level: int | None = None) -> list[StoredTheme]: ...

    def assignments(self, venue: str) -> dict[int, StoredAssignment]: ...


class SignalStore(Transactional, Protocol):
    """External signals (citations, mentions) by paper."""

    def put_external_signals(self, venue: str, source: str, rows: list[tuple[str, str, float]]) -> None: ...

    def external_signals(self, venue: str) -> dict[str, dict[str, float]]: ...


class ListStore(Transactional, Protocol):
    """Named reading lists."""

    def reading_lists(self) -> list[tuple[str, int]]: ...

    def create_list(self, name: str) -> None: ...

    def delete_list(self, name: str) -> None: ...

    def add_to_list(self, name: str, paper_id: str, venue: str | None = None) -> Paper: ...

    def remove_from_list(self, name: str, paper_id: str, venue: str | None = None) -> None: ...

    def list_papers(self, name: str) -> list[Paper]: ...


class ProfileStore(Transactional, Protocol):
    """Researcher profiles: their papers or own texts, and their liked and disliked papers."""

    def profiles(self) -> list[tuple[str, int, int]]: ...

    def create_profile(self, name: str) -> None: ...

    def add_profile_items(self, name: str, items: list[ProfileItem]) -> int: ...

    def profile_items(self, name: str) -> list[ProfileItem]: ...

    def mark_paper(self, name: str, paper_id: str, mark: str, venue: str | None = None) -> Paper: ...

    def unmark_paper(self, name: str, paper_id: str, venue: str | None = None) -> Paper: ...

    def profile_marks(self, name: str) -> list[tuple[str, str, str]]: ...

    def note_paper(self, name: str, paper_id: str, note: str, venue: str | None = None) -> Paper: ...

    def tag_paper(self, name: str, paper_id: str, tag: str, venue: str | None = None) -> Paper: ...

    def profile_notes(self, name: str) -> dict[tuple[str, str], str]: ...

    def profile_tags(self, name: str) -> dict[tuple[str, str], list[str]]: ...

    def give_list(self, list_name: str, name: str) -> None: ...

    def profile_lists(self, name: str, default: bool) -> list[tuple[str, int]]: ...

    def profile_key(self, name: str) -> str | None: ...

    def set_profile_key(self, name: str, key_hash: str | None, new: bool = False) -> bool: ...


class NewsStore(Transactional, Protocol):
    """Watches of each profile and the news items ingests found for them."""

    def add_watch(self, profile: str, kind: str, value: str, venue: str | None = None) -> Watch: ...

    def watches(self, profile: str | None = None) -> list[Watch]: ...

    def remove_watch(self, watch_id: str) -> Watch: ...

    def put_news(self, items: list[NewsItem]) -> None: ...

    def news(self, profile: str, since: str | None = None, limit: int | None = None) -> list[NewsItem]: ...

    def themes_of(self, venue: str, paper_ids: Sequence[str]) -> dict[str, tuple[str, ...]]: ...

    def papers_by_id(self, venue: str, paper_ids: Sequence[str]) -> dict[str, Paper]: ...


class ScheduleStore(Transactional, Protocol):
    """A venue's programme: sessions with times and rooms, and the papers presented in each."""

    def put_sessions(self, venue: str, source: str, sessions: list[Session], links: list[tuple[str, str]]) -> None: ...

    def sessions(self, venue: str) -> list[Session]: ...

    def session_papers(self, venue: str) -> list[tuple[str, str]]: ...


class ReviewStore(Transactional, Protocol):
    """Review histories: every version of each review's rating and confidence; the last text of each review."""

    def add_review_versions(self, versions: Iterable[ReviewVersion]) -> int: ...

    def review_versions(self, venue: str, paper_id: str | None = None) -> list[ReviewVersion]: ...

    def review_ratings(
        self, venue: str, paper_id: str | None = None, start: int | None = None, end: int | None = None
    ) -> list[tuple[str, str, str, int, float | None]]: ...

    def put_review_texts(self, texts: Iterable[ReviewText]) -> int: ...

    def review_texts(self, venue: str, paper_id: str) -> list[ReviewText]: ...
    def history_venues(self) -> set[str]: ...


class ArrivalStore(Transactional, Protocol):
    """Each fetch of a venue and the pending papers it found decided."""

    def put_arrivals(self, venue: str, fetched: str, decided: Sequence[tuple[str, str, str]]) -> None: ...

    def put_fetch_run(self, venue: str, fetched: str) -> None: ...

    def decisions_arrived(self, venue: str | None = None) -> dict[str, DecisionsArrived]: ...


class JobStore(Transactional, Protocol):
    """Background jobs every worker of a shared server can see."""

    def start_job(self, kind: str, venue: str) -> tuple[dict[str, str], bool]: ...

    def renew_job(self, job_id: str) -> bool: ...

    def finish_job(self, job_id: str, state: str, message: str = "") -> None: ...

    def job(self, job_id: str) -> dict[str, str]: ...

    def jobs(self, limit: int = 20) -> list[dict[str, str]]: ...


class SearchStore(PaperReader, VectorStore, Protocol):
    """Search: papers, filters, the keyword index cache and the vectors."""


class AnalysisStore(SearchStore, TopicStore, SignalStore, Protocol):
    """Themes, ranking and reports: papers, vectors, themes and signals."""


@runtime_checkable
class Store(
    AnalysisStore,
    IngestStore,
    ListStore,
    ProfileStore,
    NewsStore,
    ScheduleStore,
    ReviewStore,
    ArrivalStore,
    JobStore,
    Protocol,
):
    """Everything a backend offers; the CLI and the web app hold one of these."""

    location: str  # what messages call the store: its file, or its URL without the password

    def files_home(self) -> Path: ...
