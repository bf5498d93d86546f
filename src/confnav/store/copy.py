"""Copy a whole store between backends (SQLite ↔ PostgreSQL), table by table, and check the counts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from confnav.errors import ConfnavError
from confnav.store import schema
from confnav.store.sql import SqlStore

# Every table a copy carries, parents before children, with its columns: both backends have the same.
TABLES: dict[str, tuple[str, ...]] = {table.name: table.column_names for table in schema.TABLES if table.copied}


@dataclass
class CopyResult:
    """Rows copied per table (each checked against the source's count)."""

    tables: dict[str, int] = field(default_factory=dict)
    vector_indexes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"tables": self.tables, "vector_indexes": self.vector_indexes}


def table_rows(store: SqlStore, table: str) -> Iterator[tuple[Any, ...]]:
    """Every row of a store table in a stable order, vectors as float32 bytes."""
    columns = TABLES[table]
    order = ", ".join(columns[:-1] if table in ("embeddings", "caches") else columns)
    convert = _reader(store, table)
    read = store.vector_rows if table == "embeddings" else store.conn.execute
    for row in read(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}", ()):
        yield convert(tuple(row))


def table_counts(store: SqlStore) -> dict[str, int]:
    return {table: store.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in TABLES}


def copy_store(source: SqlStore, target: SqlStore, progress: Callable[[str, int], None] | None = None) -> CopyResult:
    """Copy every row of `source` into the empty store `target` in one transaction, then compare counts."""
    if target.count_papers() or target.reading_lists():
        raise ConfnavError(f"{target.location} already holds papers or lists: copy into an empty store")
    expected = table_counts(source)
    result = CopyResult()
    with target.transaction():
        target.conn.execute("DELETE FROM meta")
        for table, columns in TABLES.items():
            convert = _writer(target, table)
            target.insert_rows(table, columns, (convert(row) for row in table_rows(source, table)))
            if progress:
                progress(table, expected[table])
        target.after_bulk_load()
        copied = table_counts(target)
        wrong = {t: (expected[t], copied[t]) for t in TABLES if expected[t] != copied[t]}
        if wrong:
            listed = ", ".join(f"{t}: {want} in source, {got} copied" for t, (want, got) in wrong.items())
            raise ConfnavError(f"copy check failed, nothing was written ({listed})")
    result.tables = copied
    for model in target.embedding_models():
        if "|" not in model and target.index_vectors(model):  # a view like "model|keywords" is never searched
            result.vector_indexes.append(model)
    return result


def _reader(store: SqlStore, table: str) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    if table == "embeddings":
        return lambda row: (*row[:3], store.vector_bytes(row[3]))
    if table == "caches":
        return lambda row: (*row[:2], bytes(row[2]))
    return lambda row: row


def _writer(store: SqlStore, table: str) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    if table == "embeddings":
        return lambda row: (*row[:3], store.vector_value(row[3]))
    return lambda row: row
