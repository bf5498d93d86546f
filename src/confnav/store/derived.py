"""Data derived from the papers, tied to the store's change counters: merge version, generations, caches, vectors.

A mixin of the SQL stores (sql.py): the statements are the same for SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from confnav.store.connection import Connection

CACHE_PIECE = 8 << 20  # bytes of a cached value read per query


def versions_of(state: tuple[tuple[str, int], ...]) -> tuple[int, int]:
    """(generation, vectors) out of a store's change counters (`state`)."""
    counters = dict(state)
    return counters["generation"], counters["vectors"]


COUNT_CHANGE = "INSERT INTO meta (key, value) VALUES (?, 1) ON CONFLICT(key) DO UPDATE SET value = meta.value + 1"


def venue_generation_key(venue: str) -> str:
    return f"papers:{venue}"


def venue_generation_in(counters: Mapping[str, int], venue: str) -> int:
    """A venue's generation among a store state's counters (`dict(state())`): what an answer about that venue alone
    depends on."""
    return counters.get(venue_generation_key(venue), 0)


SIGNALS_KEY = "signals"  # the counter of signals supplied from files (citations among them)


def venue_signals_in(counters: Mapping[str, int], venue: str) -> tuple[int, int]:
    """A venue's generation and the supplied signals' counter: what an answer about the venue's papers and their
    signals (a ranking's default mode) depends on."""
    return venue_generation_in(counters, venue), counters.get(SIGNALS_KEY, 0)


def venue_vectors_key(venue: str) -> str:
    return f"vectors:{venue}"


class DerivedTables:
    """Mixin for the SQL stores: change counters, cached values and stored vectors."""

    conn: Connection
    vector_value: Callable[[bytes], Any]  # the backend's column value for a vector's float32 bytes
    vector_bytes: Callable[[Any], bytes]
    vector_rows: Callable[[str, Sequence[Any]], Iterable[Any]]  # rows holding vectors, in the backend's fastest form

    def merge_version(self) -> int:
        """The version of the merge rules the stored papers were merged with (0 before it was recorded)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'merge-version'").fetchone()
        return row[0] if row else 0

    def set_merge_version(self, version: int) -> None:
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES ('merge-version', ?) ON CONFLICT(key) DO UPDATE SET value = ?",
            (version, version),
        )

    def generation(self) -> int:
        """A number that grows whenever any paper changes, so caches know when they are stale."""
        return self.conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0]

    def venue_generation(self, venue: str) -> int:
        """A number that grows whenever a paper of this venue changes (what its themes are built from)."""
        return self.venue_generations([venue])[venue]

    def venue_generations(self, venues: Sequence[str]) -> dict[str, int]:
        """`venue_generation` of each of these venues, in one read."""
        keys = {venue_generation_key(v): v for v in venues}
        if not keys:
            return {}
        marks = ", ".join("?" * len(keys))
        found = dict(self.conn.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", list(keys)).fetchall())
        return {venue: found.get(key, 0) for key, venue in keys.items()}

    def versions(self) -> tuple[int, int]:
        """(generation, vectors): counters of changes to papers and to stored embeddings."""
        return versions_of(self.state())

    def state(self) -> tuple[tuple[str, int], ...]:
        """Every change counter (papers, vectors, themes, external signals): equal states, equal answers."""
        return tuple(self.conn.execute("SELECT key, value FROM meta ORDER BY key"))

    def count_change(self, kind: str) -> None:
        """Advance the counter of one kind of change (inside the transaction that makes it)."""
        self.conn.execute(COUNT_CHANGE, (kind,))

    def get_cache(self, name: str) -> tuple[int, bytes] | None:
        """A cached value and its generation, read in pieces: a driver that reads one 300 MB value at once
        keeps a buffer of that size for the life of the connection."""
        row = self.conn.execute("SELECT generation, length(data) FROM caches WHERE name = ?", (name,)).fetchone()
        if row is None:
            return None
        generation, size = row
        pieces = []
        for start in range(1, size + 1, CACHE_PIECE):
            piece = self.conn.execute(
                "SELECT generation, substr(data, CAST(? AS INTEGER), CAST(? AS INTEGER)) FROM caches WHERE name = ?",
                (start, CACHE_PIECE, name),
            ).fetchone()
            if piece is None or piece[0] != generation:
                return None  # replaced while being read: treat as missing, the caller rebuilds
            pieces.append(bytes(piece[1]))
        return generation, b"".join(pieces)

    def cache_generation(self, name: str) -> int | None:
        """The generation of a cached value, without reading it (None when there is none)."""
        row = self.conn.execute("SELECT generation FROM caches WHERE name = ?", (name,)).fetchone()
        return None if row is None else row[0]

    def put_cache(self, name: str, generation: int, data: bytes) -> None:
        self.conn.execute(
            "INSERT INTO caches (name, generation, data) VALUES (?, ?, ?)"
            " ON CONFLICT(name) DO UPDATE SET generation = excluded.generation, data = excluded.data",
            (name, generation, data),
        )

    def embedding_hashes(self, model: str) -> dict[int, str]:
        """Paper pk → hash of the text its stored embedding was computed from."""
        return dict(self.conn.execute("SELECT paper_pk, text_hash FROM embeddings WHERE model = ?", (model,)))

    def put_embeddings(self, model: str, rows: list[tuple[int, str, bytes]]) -> None:
        """Store (pk, text hash, float32 vector bytes) for a model, replacing older ones."""
        self.conn.executemany(
            "INSERT INTO embeddings (paper_pk, model, text_hash, vector) VALUES (?, ?, ?, ?)"
            " ON CONFLICT(model, paper_pk) DO UPDATE SET text_hash = excluded.text_hash, vector = excluded.vector",
            [(pk, model, digest, self.vector_value(vector)) for pk, digest, vector in rows],
        )
        self._vectors_changed([pk for pk, _, _ in rows])

    def copy_embeddings(self, model: str, pairs: list[tuple[int, int]]) -> None:
        """Give each (from, to) pair's second paper the first one's stored vector of a model, with its text hash
        (the same text in another venue is embedded once)."""
        self.conn.executemany(
            "INSERT INTO embeddings (paper_pk, model, text_hash, vector)"
            " SELECT CAST(? AS BIGINT), model, text_hash, vector FROM embeddings WHERE model = ? AND paper_pk = ?"
            " ON CONFLICT(model, paper_pk) DO UPDATE SET text_hash = excluded.text_hash, vector = excluded.vector",
            [(to, model, source) for source, to in pairs],
        )
        self._vectors_changed([to for _, to in pairs])

    def _vectors_changed(self, pks: list[int] | None) -> None:
        """Advance the vectors counter, and each venue's whose papers' vectors changed (`pks`; None: every venue's),
        so what is made from one venue's vectors is remade only when they change."""
        self.conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'vectors'")
        upsert = " ON CONFLICT(key) DO UPDATE SET value = meta.value + 1"
        if pks is None:
            self.conn.execute(
                f"INSERT INTO meta (key, value) SELECT 'vectors:' || id, 1 FROM venues WHERE 1 = 1{upsert}"
            )
            return
        for start in range(0, len(pks), 500):
            part = pks[start : start + 500]
            self.conn.execute(
                "INSERT INTO meta (key, value) SELECT DISTINCT 'vectors:' || venue, 1 FROM papers"
                f" WHERE pk IN ({', '.join('?' * len(part))}){upsert}",
                part,
            )

    def venue_vectors_generation(self, venue: str) -> int:
        """A number that grows whenever a vector of one of the venue's papers is written or dropped."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (venue_vectors_key(venue),)).fetchone()
        return row[0] if row else 0

    def vector_size(self, model: str) -> int | None:
        """How many numbers each stored vector of a model holds (None when it has none)."""
        row = self.conn.execute("SELECT vector FROM embeddings WHERE model = ? LIMIT 1", (model,)).fetchone()
        return None if row is None else len(self.vector_bytes(row[0])) // 4

    def drop_vectors(self, model: str) -> int:
        """Delete every vector of a model: a refit that changes their size leaves none of them usable."""
        cursor = self.conn.execute("DELETE FROM embeddings WHERE model = ?", (model,))
        self._vectors_changed(None)
        return cursor.rowcount

    def delete_embeddings(self, keep_models: list[str]) -> int:
        """Drop embeddings of every model but `keep_models` (a model change re-embeds everything)."""
        marks = ", ".join("?" * len(keep_models))
        cursor = self.conn.execute(f"DELETE FROM embeddings WHERE model NOT IN ({marks})", keep_models)
        if cursor.rowcount:
            self._vectors_changed(None)
        return cursor.rowcount

    def embedding_models(self) -> dict[str, int]:
        """Models with stored embeddings and how many papers each covers."""
        return dict(self.conn.execute("SELECT model, COUNT(*) FROM embeddings GROUP BY model ORDER BY model"))

    def embeddings(self, model: str, venue: str | None = None) -> tuple[list[int], list[bytes]]:
        """The stored vectors of a model (of one venue's papers when given), as paper pks and float32 bytes."""
        sql, params = "SELECT paper_pk, vector FROM embeddings WHERE model = ?", [model]
        if venue:
            sql, params = sql + " AND paper_pk IN (SELECT pk FROM papers WHERE venue = ?)", [model, venue]
        rows = self.vector_rows(sql + " ORDER BY paper_pk", params)
        pks, vectors = [], []
        for pk, vector in rows:
            pks.append(pk)
            vectors.append(self.vector_bytes(vector))
        return pks, vectors
