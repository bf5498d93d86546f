"""The shared store: PostgreSQL with pgvector, for a lab or a community site (psycopg 3).

Papers are read as they are used, never held in memory; semantic search runs in the
database on an HNSW index per model, with the paper filters inside the query.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from confnav.errors import ConfnavError, MissingExtraError, StoreBusyError, StoreFullError
from confnav.store.base import PaperFilter, StoreCaches
from confnav.store.connection import PostgresConnection
from confnav.store.deferred import DeferredWrites
from confnav.store.migrations import migrate, not_a_store
from confnav.store.postgres_schema import MIGRATIONS
from confnav.store.postgres_writes import CopyWrites

MIGRATION_LOCK = "SELECT pg_advisory_xact_lock(727001)"
WRITER_LOCK = "SELECT pg_advisory_xact_lock(727002)"  # one writer at a time, as on SQLite
MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search
BEAM = 100  # hnsw.ef_search of every connection: at least the candidates a search asks for
FAST_EF_SEARCH = 400  # the widest beam of a caller that knows the filter's share (a search: about 30 ms at 500k)
EXACT_LIMIT = 5_000  # a filter admitting at most this many papers may be answered exactly when the index falls short


def redact(url: str) -> str:
    """The URL without its password, in the user part or a `password=` parameter, for messages and logs (whatever
    else is wrong with it: everything up to the last `@` after the user name is taken for the password)."""
    url = re.sub(r"^([^:/?#]+://[^:@/?#]*):[^@]*@", r"\1:***@", url)
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", url, flags=re.IGNORECASE)


def url_problem(url: str) -> str | None:
    """Why a postgresql:// URL cannot name a server (a port out of range or not a number, a broken IPv6 host),
    said in words; None when it can. A URL may list several hosts (`h1:5432,h2:5433`), as libpq reads them."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return "the host is not a valid address (an IPv6 address goes in brackets: [::1])"
    if "@" in parts.path and "@" not in parts.netloc:
        return "a '/', '?' or '#' in the user name or password must be percent-encoded (%2F, %3F, %23)"
    hosts = parts.netloc.rpartition("@")[2]
    for host in hosts.split(","):
        after = host.rpartition("]")[2] if host.startswith("[") else host
        port = after.rpartition(":")[2] if ":" in after else ""
        if port and not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
            return f"the port {port!r} is not a number from 1 to 65535"
    return None


class PostgresStore(CopyWrites):
    """Papers of several venues in one PostgreSQL database (schema created and migrated on open)."""

    keeps_rows = False
    conn: PostgresConnection
    rating_values_sql = "SELECT DISTINCT venue, r::float8 FROM papers, json_array_elements_text(ratings::json) r"
    # No `?` or `%` in the text: the connection turns `?` into parameters
    decision_json_sql = (
        "COALESCE((data::json) #>> '{decision,label}', (data::json) ->> 'decision'), (data::json) #>> '{decision,kind}'"
    )
    citation_count_sql = "(data::json) #>> '{citations,count}'"
    has_code_sql = (
        "(lower(substr((p.data::json) -> 'links' ->> 'code', 1, 8)) = 'https://'"
        " OR lower(substr((p.data::json) -> 'links' ->> 'code', 1, 7)) = 'http://')"
    )

    def __init__(self, url: str, read_only: bool = False, caches: StoreCaches | None = None) -> None:
        self.caches = caches if caches is not None else StoreCaches()
        try:
            import psycopg
            from pgvector.psycopg import register_vector
        except ImportError:
            raise MissingExtraError("a PostgreSQL store", "postgres") from None
        self.location = redact(url)
        self.read_only = read_only
        if problem := url_problem(url):
            raise ConfnavError(f"cannot connect to {self.location}: {problem}")
        try:
            raw = psycopg.connect(url, autocommit=True)
        except psycopg.Error as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ConfnavError(f"cannot connect to {self.location}: {reason}") from None
        self.raw = raw
        self.conn = PostgresConnection(raw)
        self.deferred = DeferredWrites()
        self.conn.settle = self.deferred.settle
        try:
            self._require_store()
            if not read_only:
                migrate(self.conn, MIGRATIONS, begin="BEGIN", lock=MIGRATION_LOCK)
            register_vector(raw)
        except psycopg.Error as exc:
            raw.close()
            raise ConfnavError(f"{self.location}: not a usable confnav store ({exc})") from None
        except ConfnavError:
            raw.close()
            raise
        if read_only:
            raw.execute("SET default_transaction_read_only = on")
        raw.execute(f"SET hnsw.ef_search = {BEAM}")
        self._counts: dict[str, int] = {}
        self._sizes: dict[str, int | None] = {}  # vector size per model, as this connection last read it

    def _require_store(self) -> None:
        """Refuse a database whose tables are another program's (nothing written to it); an empty database is
        given the schema when opened for writing, a read-only open needs a store."""
        tables = [
            row[0]
            for row in self.conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
            )
        ]
        if (tables or self.read_only) and (reason := not_a_store(tables)):
            raise ConfnavError(f"{self.location}: not a confnav store ({reason})")

    def close(self) -> None:
        self.deferred.close()
        self.raw.close()

    @contextmanager
    def _atomic(self) -> Iterator[None]:
        """A transaction holding the store's writer lock: keys an ingest derives from what it reads stay true
        until it commits, so two ingests at once never make the same paper twice."""
        import psycopg

        try:
            with self.raw.transaction():
                try:
                    wait = max(1, int(self.lock_wait() * 1000))  # 0 would be no limit at all
                    self.raw.execute(f"SET LOCAL lock_timeout = '{wait}ms'")
                    self.raw.execute(WRITER_LOCK)
                except psycopg.errors.LockNotAvailable:
                    raise StoreBusyError(self.location, self.write_wait) from None
                self._generation_now = None
                try:
                    yield
                except BaseException:
                    self.deferred.discard()
                    raise
                self.deferred.settle()
        except psycopg.errors.DiskFull:  # rolled back by the transaction block
            raise StoreFullError(self.location) from None

    def wait_for_writers(self, seconds: float) -> None:
        """How long a write waits for another writer before giving up with StoreBusyError."""
        self.write_wait = seconds

    # --- vectors in pgvector ---

    def vector_value(self, data: bytes) -> np.ndarray:
        return np.frombuffer(data, dtype=np.float32)

    def vector_bytes(self, value: Any) -> bytes:
        return _array(value).tobytes()

    def vector_rows(self, sql: str, parameters: Sequence[Any] = ()) -> Iterable[Any]:
        """In binary format: pgvector's text form costs a Python float per number (seconds per read of a venue)."""
        return self.conn.execute(sql, parameters, binary=True)

    def author_clause(self, tokens: list[str]) -> tuple[str, list[object]]:
        """The same rule as SQLite's, answered from a GIN index of each author's name tokens."""
        return (
            "p.pk IN (SELECT a.paper_pk FROM paper_authors a WHERE string_to_array(a.name_key, ' ') @> ?::text[])",
            [tokens],
        )

    def after_bulk_load(self) -> None:
        self.conn.execute(
            "SELECT setval(pg_get_serial_sequence('papers', 'pk'), COALESCE(MAX(pk), 0) + 1, false) FROM papers"
        )

    def index_vectors(self, model: str) -> bool:
        """Build the model's HNSW index (inner product) unless it exists; True if built now."""
        dimension = self.vector_size(model)
        if dimension is None:
            return False
        name = _index_name(model)
        if self.conn.execute("SELECT to_regclass(?)", (name,)).fetchone()[0] is not None:
            return False
        with self.transaction():
            self.raw.execute("SET LOCAL maintenance_work_mem = '1GB'")
            self.raw.execute("SET LOCAL max_parallel_maintenance_workers = 1")
            self.raw.execute(
                f"CREATE INDEX {name} ON embeddings USING hnsw ((vector::vector({dimension})) vector_ip_ops)"
                f" WHERE model = {_literal(model)}"
            )
        return True

    def nearest(
        self,
        model: str,
        vector: np.ndarray,
        where: PaperFilter | None = None,
        limit: int = 10,
        share: float | None = None,
    ) -> list[tuple[int, float]]:
        """(pk, inner product) of the `limit` papers nearest to `vector` among those `where` admits.

        The HNSW index gives approximate answers, and a filter is applied to the rows its beam found
        (pgvector 0.6 has no iterative scans): the beam is widened by the `share` of papers the filter
        admits when the caller knows it (else a short answer is retried with the widest beam), and a
        short answer is then answered exactly when the filter admits few papers (else it is the best found).
        """
        import psycopg

        if not self._fits(model, len(vector)):  # no vectors, or a query embedded by a fit of another size (a refit)
            return []
        dimension = len(vector)
        clauses, params = self._where(where or PaperFilter())
        extra = clauses.replace("WHERE ", "AND ", 1)
        column = f"e.vector::vector({dimension})"
        query = vector.astype(np.float32)
        sql = (
            f"SELECT e.paper_pk, ({column} <#> ?) * -1 FROM embeddings e JOIN papers p ON p.pk = e.paper_pk"
            f" WHERE e.model = {_literal(model)} {extra} ORDER BY {{order}} LIMIT {int(limit)}"
        )
        if share is None:  # the default beam, then the widest
            beams = [BEAM, MAX_EF_SEARCH]
        else:  # one beam, wide enough for the filter's share of papers (a caller that knows it wants speed)
            beams = [int(min(FAST_EF_SEARCH, max(BEAM, 1.5 * limit / max(share, 1e-6))))]
        found: list[tuple[int, float]] = []
        try:
            for beam in beams:
                found = self._with_beam(beam, sql.format(order=f"{column} <#> ?"), [query, *params, query])
                if len(found) >= limit:
                    break
            if len(found) < limit and self._admitted(model, clauses, params, share) <= EXACT_LIMIT:
                # exact: an ORDER BY expression no index matches, over the admitted rows only (few of them)
                found = list(self.conn.execute(sql.format(order=f"({column} <#> ?) + 0"), [query, *params, query]))
        except psycopg.errors.DataException as exc:
            if not self._size_changed(model, exc):
                raise
            return []
        return [(int(pk), float(score)) for pk, score in found]

    def _fits(self, model: str, size: int) -> bool:
        """Whether the model's vectors have this size. The size this connection last read is trusted (a round trip
        saved on every search) unless it differs, or a transaction is open, where a query failing on a size changed
        since would end it; a size changed by another process is caught by `_size_changed`."""
        from psycopg.pq import TransactionStatus

        if self._sizes.get(model) != size or self.raw.info.transaction_status != TransactionStatus.IDLE:
            self._sizes[model] = self.vector_size(model)
        return self._sizes[model] == size

    def _size_changed(self, model: str, error: Exception) -> bool:
        """Whether a query sized by `_fits` failed because the model's vectors changed size since (another
        process refitted the model): its answer is then that of a query of another size, nothing."""
        from psycopg.pq import TransactionStatus

        if "dimensions" not in str(error) or self.raw.info.transaction_status != TransactionStatus.IDLE:
            return False
        self._sizes.pop(model, None)
        return True

    def _admitted(self, model: str, clauses: str, params: list[object], share: float | None) -> int:
        """How many papers with a vector of `model` a filter admits (estimated from `share` when given)."""
        if share is not None:  # vectors counted once per connection: a threshold needs no exact count
            if model not in self._counts:
                self._counts[model] = self.embedding_models().get(model, 0)
            return int(share * self._counts[model])
        extra = clauses.replace("WHERE ", "AND ", 1)
        sql = f"SELECT COUNT(*) FROM embeddings e JOIN papers p ON p.pk = e.paper_pk WHERE e.model = ? {extra}"
        return int(self.conn.execute(sql, [model, *params]).fetchone()[0])

    def _with_beam(self, beam: int, sql: str, params: list[object]) -> list[tuple[int, float]]:
        """The rows of an HNSW query run with this beam width (hnsw.ef_search)."""
        if beam == BEAM:
            return list(self.conn.execute(sql, params))
        with self.raw.transaction():
            self.raw.execute(f"SET LOCAL hnsw.ef_search = {beam}")
            return list(self.conn.execute(sql, params))

    def vector_scores(self, model: str, vector: np.ndarray, pks: Sequence[int]) -> dict[int, float]:
        """Inner product of `vector` with the stored vectors of these papers (papers without one left out)."""
        import psycopg

        if not self._fits(model, len(vector)):
            return {}
        try:
            rows = self.conn.execute(
                "SELECT paper_pk, (vector <#> ?) * -1 FROM embeddings WHERE model = ? AND paper_pk = ANY(?)",
                (vector.astype(np.float32), model, [int(pk) for pk in pks]),
            ).fetchall()
        except psycopg.errors.DataException as exc:
            if not self._size_changed(model, exc):
                raise
            return {}
        return {int(pk): float(score) for pk, score in rows}

    def vectors_of(self, model: str, pks: Sequence[int]) -> dict[int, np.ndarray]:
        """The stored vectors of these papers (papers without one left out)."""
        rows = self.vector_rows(
            "SELECT paper_pk, vector FROM embeddings WHERE model = ? AND paper_pk = ANY(?)",
            (model, [int(pk) for pk in pks]),
        )
        return {int(pk): _array(vector) for pk, vector in rows}

    def vector_size(self, model: str) -> int | None:
        """Read on every call: another process's refit may change the size while this connection is open."""
        found = self.conn.execute(
            "SELECT vector_dims(vector) FROM embeddings WHERE model = ? LIMIT 1", (model,)
        ).fetchone()
        return None if found is None else int(found[0])

    def drop_vectors(self, model: str) -> int:
        """Also drops the model's HNSW index, whose expression fixes the old size."""
        self.conn.execute(f"DROP INDEX IF EXISTS {_index_name(model)}")
        return super().drop_vectors(model)


def _array(value: Any) -> np.ndarray:
    """A pgvector value as loaded (a `Vector`, or an array) as a float32 array."""
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


def _index_name(model: str) -> str:
    return "embeddings_hnsw_" + hashlib.sha1(model.encode()).hexdigest()[:12]


def _literal(text: str) -> str:
    """A SQL string literal (the partial index's predicate must appear verbatim in queries to be used)."""
    return "'" + text.replace("'", "''") + "'"
