import threading
import time

import pytest

from explorer.jobs import CANCELLED, DONE, FAILED, JobQueue, QueueFull

# Every queue here has its own lock folder: a page test's background run elsewhere in this worker must not
# hold the slot these tests count on.


def _wait(job, timeout=10):
    deadline = time.time() + timeout
    while not job.finished and time.time() < deadline:
        time.sleep(0.02)
    return job


def test_a_job_runs_and_returns_its_result(tmp_path):
    q = JobQueue(max_running=1, lock_dir=tmp_path)
    job = _wait(q.submit("a", lambda p: {"x": 1}))
    assert job.state == DONE and job.result == {"x": 1}


def test_the_same_key_shares_one_run(tmp_path):
    q = JobQueue(max_running=1, lock_dir=tmp_path)
    calls = []
    gate = threading.Event()

    def work(p):
        calls.append(1)
        gate.wait(5)
        return {}

    first = q.submit("k", work)
    second = q.submit("k", work)
    gate.set()
    _wait(first)
    assert first is second and len(calls) == 1


def test_at_most_max_running_run_at_once_and_the_rest_queue_in_order(tmp_path):
    q = JobQueue(max_running=1, lock_dir=tmp_path)
    gate = threading.Event()
    a = q.submit("a", lambda p: gate.wait(5) and {})
    time.sleep(0.2)
    b = q.submit("b", lambda p: {})
    c = q.submit("c", lambda p: {})
    time.sleep(0.3)
    assert (a.state, b.state, c.state) == ("running", "queued", "queued")
    assert (q.position(b), q.position(c)) == (1, 2)
    gate.set()
    assert _wait(c).state == DONE and _wait(b).state == DONE


def test_what_a_run_shares_through_a_part_of_its_progress_reaches_the_job_while_it_runs(tmp_path):
    q = JobQueue(max_running=1, lock_dir=tmp_path)
    gate = threading.Event()

    def work(p):
        p.part(0.5, 1.0, "second half: ").share({"steps": [10], "loss": [2.5]})
        gate.wait(5)
        p.share({"steps": [10, 20], "loss": [2.5, 1.5]})
        return {"done": True}

    job = q.submit("shares", work)
    deadline = time.time() + 5
    while job.partial is None and time.time() < deadline:
        time.sleep(0.02)
    assert job.partial == {"steps": [10], "loss": [2.5]} and not job.finished
    gate.set()
    assert _wait(job).state == DONE and job.partial == {"steps": [10, 20], "loss": [2.5, 1.5]}


def test_cancel_stops_a_running_job_between_steps(tmp_path):
    q = JobQueue(max_running=1, lock_dir=tmp_path)

    def work(p):
        for i in range(1000):
            p.update(i / 1000, f"step {i}")
            time.sleep(0.01)
        return {}

    job = q.submit("long", work)
    time.sleep(0.2)
    job.cancel()
    assert _wait(job).state == CANCELLED and job.fraction < 0.5


def test_wait_idle_waits_for_every_job_and_cancel_all_stops_them(tmp_path):
    q = JobQueue(max_running=2, lock_dir=tmp_path)

    def work(p):
        for i in range(1000):
            p.update(i / 1000)
            time.sleep(0.01)
        return {}

    jobs = [q.submit(key, work) for key in ("a", "b")]
    assert q.wait_idle(0.2) is False and not any(j.finished for j in jobs)
    q.cancel_all()
    assert q.wait_idle(10) is True and [j.state for j in jobs] == [CANCELLED, CANCELLED]


def test_a_failing_job_reports_its_error_and_can_be_resubmitted(tmp_path):
    q = JobQueue(max_running=1, lock_dir=tmp_path)
    job = _wait(q.submit("bad", lambda p: 1 / 0))
    assert job.state == FAILED and "ZeroDivisionError" in job.error
    again = _wait(q.submit("bad", lambda p: {"ok": True}))
    assert again is not job and again.result == {"ok": True}


def test_per_owner_limit_is_enforced_with_a_message(tmp_path):
    q = JobQueue(max_running=1, per_owner=1, lock_dir=tmp_path)
    gate = threading.Event()
    q.submit("one", lambda p: gate.wait(5) and {}, owner="student")
    with pytest.raises(RuntimeError, match="limit is 1"):
        q.submit("two", lambda p: {}, owner="student")
    gate.set()


def test_time_left_counts_down_from_the_limit(tmp_path):
    q = JobQueue(max_running=1, lock_dir=tmp_path)
    job = _wait(q.submit("t", lambda p: {"left": p.time_left()}, time_limit_s=30))
    assert 29 < job.result["left"] <= 30


# --- across server processes: two queues sharing one store (lock files or PostgreSQL) stand in for two replicas ---


def test_the_run_limit_holds_across_processes(store, tmp_path):
    a, b = JobQueue(max_running=1, lock_dir=tmp_path), JobQueue(max_running=1, lock_dir=tmp_path)
    gate = threading.Event()
    first = a.submit("one", lambda p: gate.wait(5) and {})
    time.sleep(0.3)
    second = b.submit("two", lambda p: {})
    time.sleep(0.4)
    assert (first.state, second.state) == ("running", "queued") and a.busy_slots() == 1
    gate.set()
    assert _wait(second).state == DONE and a.busy_slots() == 0


def test_the_same_key_in_another_process_waits_for_the_first_run(store, tmp_path):
    a, b = JobQueue(max_running=2, lock_dir=tmp_path), JobQueue(max_running=2, lock_dir=tmp_path)
    gate, order = threading.Event(), []
    first = a.submit("same", lambda p: gate.wait(5) and order.append("a") or {})
    time.sleep(0.3)
    second = b.submit("same", lambda p: order.append("b") or {})
    time.sleep(0.4)
    assert second.state == "queued" and "another server process" in second.message
    gate.set()
    _wait(first), _wait(second)
    assert order == ["a", "b"]  # b ran after a: a real page's work then reads a's cached result


def test_a_job_waiting_for_another_process_can_be_cancelled(store, tmp_path):
    a, b = JobQueue(max_running=1, lock_dir=tmp_path), JobQueue(max_running=1, lock_dir=tmp_path)
    gate = threading.Event()
    a.submit("busy", lambda p: gate.wait(5) and {})
    time.sleep(0.3)
    waiting = b.submit("other", lambda p: {})
    waiting.cancel()
    assert _wait(waiting).state == CANCELLED
    gate.set()


def test_a_crashed_process_leaves_no_slot_taken(tmp_path):
    """flock locks die with their process: a replica killed mid-run frees its slot."""
    import subprocess
    import sys

    script = (
        "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR); "
        "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)"
    )
    queue = JobQueue(max_running=1, lock_dir=tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "slot-0.lock")], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout.readline().strip() == "held" and queue.busy_slots() == 1
    child.kill()
    child.wait()
    assert queue.busy_slots() == 0


# --- caps, viewers who leave, and what the queue forgets ----------------------------------------------------


def _steps(p, n=2000):
    for i in range(n):
        p.update(i / n)
        time.sleep(0.01)
    return {}


def test_a_new_session_from_the_same_address_does_not_get_round_the_cap(tmp_path):
    q = JobQueue(max_running=1, per_owner=2, per_address=3, lock_dir=tmp_path)
    gate = threading.Event()
    for i in range(3):  # three fresh tabs, one run each, all from one address
        q.submit(f"k{i}", lambda p: gate.wait(5) and {}, owner=f"tab{i}", address="10.0.0.7")
    with pytest.raises(QueueFull, match=r"limit is 3 per address.*Try again in about \d+ s") as refused:
        q.submit("k3", lambda p: {}, owner="tab3", address="10.0.0.7")
    assert refused.value.retry_s >= 5
    q.submit("k4", lambda p: {}, owner="tab4", address="10.0.0.8")  # another address still gets in
    gate.set()


def test_the_whole_queue_has_a_cap_and_says_when_to_retry(tmp_path):
    q = JobQueue(max_running=1, max_active=2, lock_dir=tmp_path)
    gate = threading.Event()
    q.submit("a", lambda p: gate.wait(5) and {}, time_limit_s=42)
    q.submit("b", lambda p: {}, time_limit_s=42)
    with pytest.raises(QueueFull, match=r"run queue is full: 2 runs.*limit is 2\. Try again in about (40|45) s"):
        q.submit("c", lambda p: {}, owner="x", address="y")
    q.submit("a", lambda p: {})  # joining a run already queued is never refused
    gate.set()


def test_runs_whose_viewers_all_left_are_cancelled_running_or_queued(tmp_path):
    """Twelve tabs ask for twelve runs and close: nothing stays queued for the thirteenth visitor."""
    q = JobQueue(max_running=1, per_address=20, max_active=20, abandon_after_s=0.3, lock_dir=tmp_path)
    open_tabs = set(range(12))
    jobs = [
        q.submit(f"run{i}", _steps, owner=f"tab{i}", address="lab", alive=lambda i=i: i in open_tabs) for i in range(12)
    ]
    time.sleep(0.3)
    assert jobs[0].state == "running" and q.position(jobs[-1]) == 11
    open_tabs.clear()
    for job in jobs:
        assert _wait(job, timeout=5).state == CANCELLED and "everyone who watched it had left" in job.message
    assert q.active() == []
    late = q.submit("run12", lambda p: {"ok": 1}, owner="tab12", address="lab", alive=lambda: True)
    assert _wait(late).state == DONE


def test_a_run_goes_on_while_any_viewer_is_still_there(tmp_path):
    q = JobQueue(max_running=1, abandon_after_s=0.2, lock_dir=tmp_path)
    gone, stays = [False], [True]
    job = q.submit("shared", lambda p: _steps(p, 60), owner="left", alive=lambda: not gone[0])
    q.submit("shared", lambda p: {}, owner="stayed", alive=lambda: stays[0])
    gone[0] = True
    assert _wait(job).state == DONE


def test_finished_jobs_are_forgotten_once_collected_or_after_a_while(tmp_path):
    q = JobQueue(max_running=1, keep_finished_s=0.5, lock_dir=tmp_path)
    job = _wait(q.submit("a", lambda p: {"x": 1}, owner="tab", alive=lambda: True))
    assert q.get("a") is job
    q.collected("a", "tab")
    assert q.get("a") is None  # its only viewer has the result: the next request starts afresh
    _wait(q.submit("b", lambda p: {"x": 2}))  # no viewer (a test or the CLI) collects it
    assert q.get("b") is not None
    time.sleep(0.6)
    assert q.get("b") is None


def test_a_cut_run_is_not_the_answer_for_its_key_for_ever(tmp_path):
    q = JobQueue(max_running=1, lock_dir=tmp_path)
    first = _wait(q.submit("k", lambda p: {"stopped": "time_budget"}, owner="tab", alive=lambda: True))
    q.collected("k", "tab")
    second = _wait(q.submit("k", lambda p: {"stopped": "steps"}, owner="tab", alive=lambda: True))
    assert second is not first and second.result == {"stopped": "steps"}


def test_a_run_leaves_no_lock_file_behind(tmp_path):
    q = JobQueue(max_running=1, lock_dir=tmp_path)
    for i in range(5):
        _wait(q.submit(f"key{i}", lambda p: {}))
    time.sleep(0.1)
    assert sorted(p.name for p in tmp_path.rglob("*.lock")) == []  # neither its key's nor its slot's
