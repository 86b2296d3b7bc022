"""The queue cannot wedge: whatever fails in a job's life (its file lock, its advisory lock, the store, the work)
ends that job as FAILED with a message, frees its place, and the next press runs once the cause is gone.

Each failure is real: a directory planted where a lock file goes, a database that does not answer, a results table
renamed away, the lock's PostgreSQL connection terminated by the server. Every queue has its own lock folder."""

from __future__ import annotations

import threading
import time

import pytest
import sqlalchemy as sa

from explorer import results
from explorer.jobs import DONE, FAILED, QUEUED, JobQueue
from explorer.store import db, locks


def _wait(job, timeout: float = 15):
    """Until the job's thread has let go of its locks (`ended` is set after they are released, `finished` before)."""
    deadline = time.time() + timeout
    while job.ended is None and time.time() < deadline:
        time.sleep(0.02)
    return job


def _until(condition, timeout: float = 15) -> None:
    """Wait for a worker thread to get somewhere (a loaded machine may take its time)."""
    deadline = time.time() + timeout
    while not condition() and time.time() < deadline:
        time.sleep(0.02)


def _next_press_runs(queue: JobQueue, key: str = "after") -> None:
    """What a student sees once the cause is gone: a new press is not queued behind anything, and it runs."""
    assert queue.active() == []
    job = _wait(queue.submit(key, lambda p: {"ran": True}, owner="next-tab", address="10.0.0.9"))
    assert job.state == DONE and job.result == {"ran": True}


# --- the file lock (SQLite deployments) ------------------------------------------------------------------------


def test_a_directory_planted_at_the_only_slot_fails_the_job_and_the_next_press_runs_once_it_is_gone(tmp_path):
    planted = tmp_path / "slot-0.lock"
    planted.mkdir()
    queue = JobQueue(max_running=1, lock_dir=tmp_path)
    job = _wait(queue.submit("train", lambda p: {"ran": True}, owner="tab", address="10.0.0.7"))
    assert job.state == FAILED and job.result is None
    assert "IsADirectoryError" in job.error and "place in the run queue" in job.error
    assert "slot-0.lock" in job.error and str(tmp_path) not in job.error  # the file, not the server's folders
    assert queue.busy_slots() == 0  # a broken slot holds no run; asking does not raise
    queue.collected("train", "tab")
    planted.rmdir()
    _next_press_runs(queue)


def test_a_broken_slot_0_falls_through_to_slot_1(tmp_path):
    (tmp_path / "slot-0.lock").mkdir()
    queue = JobQueue(max_running=2, lock_dir=tmp_path)
    gate = threading.Event()
    job = queue.submit("train", lambda p: gate.wait(5) and {"ran": True})
    _until(lambda: job.state != QUEUED)
    assert job.state == "running" and queue.busy_slots() == 1  # slot 1 holds it; slot 0 counted free, not raised
    gate.set()
    assert _wait(job).state == DONE


def test_a_broken_key_lock_fails_only_that_run(tmp_path):
    (tmp_path / f"{locks._file_name('key:poisoned')}.lock").mkdir()
    queue = JobQueue(max_running=1, lock_dir=tmp_path)
    bad = _wait(queue.submit("poisoned", lambda p: {"ran": True}))
    assert bad.state == FAILED and "IsADirectoryError" in bad.error
    _next_press_runs(queue, "another-key")


def test_a_failed_job_waiting_in_line_does_not_hold_up_the_jobs_behind_it(tmp_path):
    """A job queued behind a run, whose own key lock breaks, leaves the line: the one after it still runs."""
    (tmp_path / f"{locks._file_name('key:second')}.lock").mkdir()
    queue = JobQueue(max_running=1, lock_dir=tmp_path)
    gate = threading.Event()
    first = queue.submit("first", lambda p: gate.wait(5) and {})
    _until(lambda: first.state == "running")
    second = queue.submit("second", lambda p: {})
    third = queue.submit("third", lambda p: {"third": True})
    assert _wait(second).state == FAILED
    gate.set()
    assert _wait(first).state == DONE and _wait(third).result == {"third": True}


def test_an_error_of_any_kind_while_taking_a_lock_fails_the_job(tmp_path):
    """Not only OSError: whatever a lock raises (here a RuntimeError from a lock that always breaks)."""

    class Broken(JobQueue):
        def _try_lock(self, name):
            raise RuntimeError("the lock service is down")

    queue = Broken(max_running=2, lock_dir=tmp_path)
    job = _wait(queue.submit("k", lambda p: {}))
    assert job.state == FAILED and "RuntimeError: the lock service is down" in job.error
    assert queue.busy_slots() == 0 and queue.active() == []


def test_a_job_whose_thread_cannot_start_fails_instead_of_staying_queued(tmp_path):
    """A process at its thread limit raises on Thread.start: the job it was for must not wait in line for ever."""

    class NoThreads(JobQueue):
        def _start(self, job, work):
            raise RuntimeError("can't start new thread")

    queue = NoThreads(max_running=1, per_address=1, lock_dir=tmp_path)
    job = queue.submit("k", lambda p: {}, owner="tab", address="10.0.0.9")
    assert job.state == FAILED and job.error == "RuntimeError: can't start new thread" and queue.active() == []
    assert queue.submit("k", lambda p: {}, owner="tab", address="10.0.0.9") is not job  # pressing again is a new try


# --- the work and the store, on both backends ---------------------------------------------------------------


def test_an_error_inside_the_work_fails_the_job_and_frees_its_place(store, tmp_path):
    queue = JobQueue(max_running=1, per_address=1, lock_dir=tmp_path)
    job = _wait(queue.submit("k", lambda p: {}["missing"], owner="tab", address="10.0.0.9"))
    assert job.state == FAILED and job.error == "KeyError: 'missing'"
    assert queue.busy_slots() == 0
    _next_press_runs(queue)  # the same address, whose cap is 1: the failed job no longer counts


def _rename_results(to: str, back: str) -> None:
    with db.engine().begin() as conn:
        conn.execute(sa.text(f"ALTER TABLE {to} RENAME TO {back}"))


def test_a_renamed_results_table_fails_the_run_and_the_next_press_runs_once_it_is_back(store, tmp_path):
    queue = JobQueue(max_running=1, lock_dir=tmp_path)

    def work(p):
        return results.cached("watchdog", {"store": store}, lambda: {"x": 1.0})

    _rename_results("results", "results_moved")
    try:
        job = _wait(queue.submit("store", work, owner="tab"))
    finally:
        _rename_results("results_moved", "results")
    assert job.state == FAILED and ("OperationalError" in job.error or "ProgrammingError" in job.error)
    assert "results" in job.error and queue.busy_slots() == 0
    queue.collected("store", "tab")
    again = _wait(queue.submit("store", work, owner="tab"))
    assert again.state == DONE and results.load("watchdog", {"store": store}) == {"x": 1.0}


# --- the advisory lock (PostgreSQL deployments) ------------------------------------------------------------


def test_a_database_that_does_not_answer_fails_the_job_and_the_next_press_runs_once_it_is_back(
    postgres_url, monkeypatch, tmp_path
):
    monkeypatch.setenv("EXPLORER_DB_URL", postgres_url)
    dead = sa.make_url(postgres_url).set(port=1)  # nothing listens on port 1: a real OperationalError
    monkeypatch.setenv("EXPLORER_DB_URL", dead.render_as_string(hide_password=False))
    queue = JobQueue(max_running=2, lock_dir=tmp_path)
    job = _wait(queue.submit("train", lambda p: {"ran": True}, owner="tab"))
    assert job.state == FAILED and "OperationalError" in job.error and "place in the run queue" in job.error
    assert queue.busy_slots() == 0 and queue.active() == []
    monkeypatch.setenv("EXPLORER_DB_URL", postgres_url)
    _next_press_runs(queue)


def _advisory_holders() -> list[int]:
    with db.engine().connect() as conn:
        return list(
            conn.execute(
                sa.text("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()")
            ).scalars()
        )


def test_the_server_ending_the_lock_connection_mid_run_neither_wedges_nor_fails_the_run(
    postgres_url, monkeypatch, tmp_path
):
    """pg_terminate_backend on the connection holding the run's slot and key: the run's result stands, letting go
    of its locks does not raise, and the slot is free for the next press."""
    monkeypatch.setenv("EXPLORER_DB_URL", postgres_url)
    queue = JobQueue(max_running=1, lock_dir=tmp_path)
    started, gate = threading.Event(), threading.Event()

    def work(p):
        started.set()
        gate.wait(10)
        return {"ran": True}

    job = queue.submit("train", work, owner="tab")
    assert started.wait(10) and queue.busy_slots() == 1
    holders = _advisory_holders()
    assert len(holders) == 2  # the key's lock and the slot's, each on a connection of its own
    with db.engine().connect() as conn:
        for pid in holders:
            conn.execute(sa.select(sa.func.pg_terminate_backend(pid)))
    gate.set()
    assert _wait(job).state == DONE and job.result == {"ran": True}
    assert _advisory_holders() == [] and queue.busy_slots() == 0
    queue.collected("train", "tab")
    _next_press_runs(queue)


def test_a_lock_connection_ended_while_the_job_waits_fails_nothing_that_should_run(postgres_url, monkeypatch, tmp_path):
    """The first run's slot connection is terminated while a second job waits for that slot: the slot is free
    at once (the server let go), so the second runs, and the first still finishes."""
    monkeypatch.setenv("EXPLORER_DB_URL", postgres_url)
    queue = JobQueue(max_running=1, lock_dir=tmp_path)
    gate = threading.Event()
    first = queue.submit("first", lambda p: gate.wait(10) and {"first": True})
    _until(lambda: first.state == "running")
    second = queue.submit("second", lambda p: {"second": True})
    _until(lambda: second._wants_slot)
    assert second.state == QUEUED
    slot = locks.lock_id("slot-0")
    with db.engine().connect() as conn:
        pids = (
            conn.execute(
                sa.text(
                    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND "
                    "((classid::bigint << 32) | objid::bigint) = :k"
                ),
                {"k": slot},
            )
            .scalars()
            .all()
        )
        assert len(pids) == 1
        for pid in pids:
            conn.execute(sa.select(sa.func.pg_terminate_backend(pid)))
    assert _wait(second).result == {"second": True}
    gate.set()
    assert _wait(first).state == DONE


@pytest.mark.parametrize("kind", ["IsADirectoryError", "RuntimeError"])
def test_the_page_message_of_a_lock_failure_names_no_more_than_one_line(tmp_path, kind):
    """The message a page shows is the error's kind and first line, at most about 300 characters plus context."""
    if kind == "IsADirectoryError":
        (tmp_path / "slot-0.lock").mkdir()
        queue = JobQueue(max_running=1, lock_dir=tmp_path)
    else:

        class Broken(JobQueue):
            def _try_lock(self, name):
                raise RuntimeError("x" * 5000 + "\nsecond line")

        queue = Broken(max_running=1, lock_dir=tmp_path)
    job = _wait(queue.submit("k", lambda p: {}))
    assert job.state == FAILED and kind in job.error and "\n" not in job.error and len(job.error) < 600


# --- what a student sees: the page says the run failed, and the next press runs -------------------------------

PAGE = """
import sys
sys.path.insert(0, {root!r})
import streamlit as st
from ui import jobs
result = jobs.run_in_background("watchdog-page-run", lambda progress: {{"trained": 1}}, "Training the test run",
                                button="Train")
st.write(f"result: {{result}}")
"""


def test_a_page_whose_run_meets_a_planted_lock_directory_says_so_and_the_next_press_trains(monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    from explorer.jobs import QUEUE
    from tests.conftest import ROOT

    monkeypatch.setenv("EXPLORER_JOBS_DIR", str(tmp_path))
    planted = [tmp_path / f"slot-{i}.lock" for i in range(QUEUE.max_running)]
    for folder in planted:
        folder.mkdir()
    at = AppTest.from_string(PAGE.format(root=str(ROOT)), default_timeout=30).run()
    at.button(key="start-watchdog-page-run").click().run()
    assert QUEUE.wait_idle(30)
    at.run()
    assert not at.exception
    (failed,) = [e.value for e in at.error]
    assert failed.startswith("Training the test run failed: the server could not take or keep its place")
    assert "IsADirectoryError" in failed and str(tmp_path) not in failed
    assert QUEUE.active() == []  # nothing left queued in front of the next press
    for folder in planted:
        folder.rmdir()
    at.button(key="again-watchdog-page-run").click().run()
    assert QUEUE.wait_idle(30)
    at.run()
    assert not at.exception and not at.error and at.markdown[-1].value == "result: {'trained': 1}"
