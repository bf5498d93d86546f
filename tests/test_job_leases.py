"""A background job whose process is killed is seen as stopped once its lease runs out, never "running" for ever;
a job that renews its lease keeps running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from confnav.store import jobs, open_store
from tests.backends import Location

pytestmark = pytest.mark.failure_injection
LEASE = 1.5  # seconds, for the test: a real server's lease is jobs.LEASE_SECONDS

# A server process that starts a theme build, says its id, and is then killed before it can finish it.
RUNNER = """
import sys, time
from confnav.store import jobs, open_store
jobs.LEASE_SECONDS = float(sys.argv[2])
store = open_store(sys.argv[1])
print(store.start_job("topics", "iclr2020")[0]["id"], flush=True)
time.sleep(600)
"""


def test_a_killed_job_is_stopped_once_its_lease_runs_out(
    iclr2020_copy: Location, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "LEASE_SECONDS", LEASE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    runner = subprocess.Popen(
        [sys.executable, "-c", RUNNER, str(iclr2020_copy), str(LEASE)], env=env, stdout=subprocess.PIPE, text=True
    )
    assert runner.stdout is not None
    job_id = runner.stdout.readline().strip()
    os.kill(runner.pid, signal.SIGKILL)
    runner.wait()
    with open_store(iclr2020_copy) as store:
        assert store.job(job_id)["state"] == "running"  # until its lease runs out
        time.sleep(LEASE + 0.5)
        stopped = store.job(job_id)
        assert stopped["state"] == "failed" and "lease ran out" in stopped["message"], stopped
        assert [j["state"] for j in store.jobs() if j["id"] == job_id] == ["failed"]
        again, new = store.start_job("topics", "iclr2020")  # a new build starts instead of waiting for ever
        assert new and again["id"] != job_id and again["state"] == "running"
        assert store.job(job_id)["state"] == "failed" and not store.renew_job(job_id)


def test_a_job_that_renews_its_lease_keeps_running(iclr2020_copy: Location, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs, "LEASE_SECONDS", LEASE)
    with open_store(iclr2020_copy) as store:
        job, _ = store.start_job("topics", "iclr2020")
        for _ in range(3):
            time.sleep(LEASE / 3)
            assert store.renew_job(job["id"])
        assert store.job(job["id"])["state"] == "running"
        assert store.start_job("topics", "iclr2020") == (store.job(job["id"]), False)
        store.finish_job(job["id"], "done", "themes of iclr2020 built")
        assert store.job(job["id"])["state"] == "done" and not store.renew_job(job["id"])
