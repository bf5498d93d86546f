"""Background jobs recorded in the store, so that every web worker sees a job another one started."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime

from confnav.errors import NotFoundError
from confnav.store.connection import Connection

ACTIVE = ("running",)
COLUMNS = "id, kind, venue, state, message, created, updated"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _job(row: tuple[str, ...]) -> dict[str, str]:
    return dict(zip(COLUMNS.split(", "), row, strict=True))


class JobTables:
    """Mixin for the SQL stores: start, finish and read jobs; one running job per kind and venue."""

    conn: Connection
    transaction: Callable[[], AbstractContextManager[None]]

    def start_job(self, kind: str, venue: str) -> tuple[dict[str, str], bool]:
        """A new running job, or the one already running for this kind and venue; True if new."""
        with self.transaction():
            row = self.conn.execute(
                f"SELECT {COLUMNS} FROM jobs WHERE kind = ? AND venue = ? AND state = 'running'", (kind, venue)
            ).fetchone()
            if row:
                return _job(row), False
            job = (uuid.uuid4().hex[:12], kind, venue, "running", "", _now(), _now())
            self.conn.execute(f"INSERT INTO jobs ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", job)
        return _job(job), True

    def finish_job(self, job_id: str, state: str, message: str = "") -> None:
        """Record how a job ended: `done` or `failed`, with a line for the user."""
        with self.transaction():
            self.conn.execute(
                "UPDATE jobs SET state = ?, message = ?, updated = ? WHERE id = ?", (state, message, _now(), job_id)
            )

    def job(self, job_id: str) -> dict[str, str]:
        row = self.conn.execute(f"SELECT {COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no job {job_id!r}")
        return _job(row)

    def jobs(self, limit: int = 20) -> list[dict[str, str]]:
        """The latest jobs, newest first."""
        rows = self.conn.execute(f"SELECT {COLUMNS} FROM jobs ORDER BY created DESC, id LIMIT {int(limit)}")
        return [_job(row) for row in rows]
