"""Background jobs recorded in the store, so that every web worker sees a job another one started."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta

from confnav.errors import NotFoundError, excerpt
from confnav.store.connection import Connection

ACTIVE = ("running",)
COLUMNS = "id, kind, venue, state, message, created, updated"
LEASE_SECONDS = 120.0  # a running job renews its lease every third of this; a lease run out means its process died
STOPPED = "stopped: the process running it ended before it finished (its lease ran out); start it again"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _lease(seconds: float = 0.0) -> str:
    """The time a lease of `seconds` from now runs to (milliseconds: leases are compared as text)."""
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat(timespec="milliseconds")


def _job(row: tuple[str, ...]) -> dict[str, str]:
    """A job as the API shows it, from its row and lease: a running job whose lease ran out is failed."""
    job = dict(zip(COLUMNS.split(", "), row[:-1], strict=True))
    if job["state"] == "running" and row[-1] < _lease():
        job.update(state="failed", message=STOPPED)
    return job


class JobTables:
    """Mixin for the SQL stores: start, finish and read jobs; one running job per kind and venue."""

    conn: Connection
    transaction: Callable[[], AbstractContextManager[None]]

    def start_job(self, kind: str, venue: str) -> tuple[dict[str, str], bool]:
        """A new running job, or the one already running for this kind and venue; True if new. A running job
        whose lease ran out (its process was killed) is recorded as failed, and a new one starts."""
        with self.transaction():
            row = self.conn.execute(
                f"SELECT {COLUMNS}, lease FROM jobs WHERE kind = ? AND venue = ? AND state = 'running'", (kind, venue)
            ).fetchone()
            if row and (running := _job(row))["state"] == "running":
                return running, False
            if row:
                self._finish(row[0], "failed", STOPPED)
            job = (uuid.uuid4().hex[:12], kind, venue, "running", "", _now(), _now(), _lease(LEASE_SECONDS))
            self.conn.execute(f"INSERT INTO jobs ({COLUMNS}, lease) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", job)
        return _job(job), True

    def renew_job(self, job_id: str) -> bool:
        """Extend a running job's lease by LEASE_SECONDS (its runner does so while it works); False once the job
        has ended or its lease ran out (it is no longer this runner's)."""
        with self.transaction():
            changed = self.conn.execute(
                "UPDATE jobs SET lease = ? WHERE id = ? AND state = 'running' AND lease >= ?",
                (_lease(LEASE_SECONDS), job_id, _lease()),
            ).rowcount
        return bool(changed)

    def finish_job(self, job_id: str, state: str, message: str = "") -> None:
        """Record how a job ended: `done` or `failed`, with a line for the user."""
        with self.transaction():
            self._finish(job_id, state, message)

    def _finish(self, job_id: str, state: str, message: str) -> None:
        self.conn.execute(
            "UPDATE jobs SET state = ?, message = ?, updated = ?, lease = '' WHERE id = ?",
            (state, message, _now(), job_id),
        )

    def job(self, job_id: str) -> dict[str, str]:
        row = self.conn.execute(f"SELECT {COLUMNS}, lease FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no job {excerpt(job_id)}")
        return _job(row)

    def jobs(self, limit: int = 20) -> list[dict[str, str]]:
        """The latest jobs, newest first."""
        rows = self.conn.execute(f"SELECT {COLUMNS}, lease FROM jobs ORDER BY created DESC, id LIMIT {int(limit)}")
        return [_job(row) for row in rows]
