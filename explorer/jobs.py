"""A job queue for on-demand training runs, shared by every server process of a deployment.

A classroom shares a few cores, so long runs go through here:
- at most `max_running` runs at once across the whole deployment: a run holds one of that many slot
  lock files in a shared folder (several app replicas behind a load balancer share it);
- one run per key: two students asking for the same settings share a run in one process, and a second
  process waits on the key's lock file, then finds the first one's result in the on-disk result cache;
- a per-owner limit, the queue position, progress and cancellation that the work function polls, and a
  time limit the work function enforces through `Progress.time_left`.

Locks are `fcntl.flock` on files under `$EXPLORER_JOBS_DIR` (default: `jobs/` in the result cache folder);
the kernel releases them when a process dies, so a crashed replica never leaves a slot taken.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import itertools
import os
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from explorer.progress import Cancelled, Progress

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
POLL_S = 0.1


def default_max_running() -> int:
    """`$EXPLORER_MAX_RUNS`, else one run per two cores (at least 1, at most 2): the deployment-wide limit."""
    env = os.environ.get("EXPLORER_MAX_RUNS", "")
    return int(env) if env.isdigit() and int(env) > 0 else max(1, min(2, (os.cpu_count() or 1) // 2))


def jobs_dir() -> Path:
    from explorer.results import cache_dir

    return Path(os.environ.get("EXPLORER_JOBS_DIR") or cache_dir() / "jobs")


@dataclass
class Job:
    key: str
    label: str
    owner: str
    time_limit_s: float
    state: str = QUEUED
    fraction: float = 0.0
    message: str = "waiting for a free worker"
    result: dict | None = None
    error: str | None = None
    submitted: float = field(default_factory=time.monotonic)
    started: float | None = None
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    _order: int = 0
    _wants_slot: bool = False  # past its key lock, waiting in line for a slot

    @property
    def finished(self) -> bool:
        return self.state in (DONE, FAILED, CANCELLED)

    def cancel(self) -> None:
        self._cancel.set()


class JobProgress(Progress):
    """Handed to a work function: its reports go to the job; cancel and the time limit come from it."""

    def __init__(self, job: Job) -> None:
        self._job = job

    def report(self, fraction: float, message: str) -> None:
        self._job.fraction = fraction
        if message:
            self._job.message = message

    @property
    def cancelled(self) -> bool:
        return self._job._cancel.is_set()

    def time_left(self) -> float:
        started = self._job.started or time.monotonic()
        return self._job.time_limit_s - (time.monotonic() - started)


@contextlib.contextmanager
def _try_lock(path: Path) -> Iterator[bool]:
    """Hold an exclusive lock on `path` if it is free; yield whether we got it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


class JobQueue:
    def __init__(self, max_running: int | None = None, per_owner: int = 2, lock_dir: Path | None = None) -> None:
        self.max_running = max_running or default_max_running()
        self.per_owner = per_owner
        self._lock_dir = lock_dir
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._order = itertools.count()

    @property
    def lock_dir(self) -> Path:
        return self._lock_dir or jobs_dir()

    def submit(self, key: str, work: Callable[[Progress], dict], label: str = "", owner: str = "",
               time_limit_s: float = 120.0) -> Job:
        """Queue `work` under `key`, or return the job already holding that key (unless it failed)."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and job.state not in (FAILED, CANCELLED):
                return job
            active = [j for j in self._jobs.values() if j.owner == owner and not j.finished]
            if owner and len(active) >= self.per_owner:
                raise RuntimeError(f"you already have {len(active)} runs queued or running; the limit is "
                                   f"{self.per_owner}. Wait for one to finish or cancel it.")
            job = Job(key=key, label=label or key, owner=owner, time_limit_s=time_limit_s, _order=next(self._order))
            self._jobs[key] = job
        threading.Thread(target=self._run, args=(job, work), daemon=True, name=f"job-{key[:12]}").start()
        return job

    def get(self, key: str) -> Job | None:
        return self._jobs.get(key)

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until every job of this process has finished (or `timeout_s` passed); whether they all did.

        For callers that drive pages without a browser (tests, benchmarks, the figure export): a page that
        started a run shows its result on the next rerun after this."""
        deadline = time.monotonic() + timeout_s
        while any(not job.finished for job in list(self._jobs.values())):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)
        return True

    def cancel_all(self) -> None:
        """Ask every job of this process to stop (each stops at its next progress check)."""
        for job in list(self._jobs.values()):
            job.cancel()

    def position(self, job: Job) -> int:
        """0 when running or finished, else how many of this process's jobs run or wait before it."""
        if job.state != QUEUED:
            return 0
        with self._lock:
            return sum(1 for j in self._jobs.values() if j.state == RUNNING
                       or (j.state == QUEUED and j._order < job._order))

    def busy_slots(self) -> int:
        """Runs going on now across every process that shares the lock folder."""
        busy = 0
        for i in range(self.max_running):
            with _try_lock(self._slot_path(i)) as got:
                busy += not got
        return busy

    def _slot_path(self, i: int) -> Path:
        return self.lock_dir / f"slot-{i}.lock"

    def _key_path(self, key: str) -> Path:
        return self.lock_dir / "keys" / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.lock"

    def _first_in_line(self, job: Job) -> bool:
        with self._lock:
            return job._order == min(j._order for j in self._jobs.values() if j.state == QUEUED and j._wants_slot)

    def _run(self, job: Job, work: Callable[[Progress], dict]) -> None:
        with contextlib.ExitStack() as held:
            if not self._hold(held, job, lambda: _try_lock(self._key_path(job.key)),
                              "the same run is going on in another server process; waiting for its result"):
                return
            job._wants_slot = True
            if not self._hold(held, job, self._free_slot, "waiting for a free worker"):
                return
            job.state, job.started, job.message = RUNNING, time.monotonic(), "starting"
            try:
                progress = JobProgress(job)
                job.result = work(progress)
                progress.check()  # a long call that stopped early because of a cancel returns: it was cancelled
                job.state, job.fraction, job.message = DONE, 1.0, "done"
            except Cancelled:
                job.state, job.message = CANCELLED, "cancelled"
            except Exception as err:  # reported to the page as a message, kept for the server log
                job.state, job.error, job.message = FAILED, f"{type(err).__name__}: {err}", "failed"
                traceback.print_exc()

    @contextlib.contextmanager
    def _free_slot(self) -> Iterator[bool]:
        for i in range(self.max_running):
            with _try_lock(self._slot_path(i)) as got:
                if got:
                    yield True
                    return
        yield False

    def _hold(self, stack: contextlib.ExitStack, job: Job, acquire, message: str) -> bool:
        """Wait until `acquire()` yields True (keeping it held in `stack`); False if cancelled meanwhile."""
        while True:
            if job._cancel.is_set():
                job.state, job.message = CANCELLED, "cancelled while waiting"
                return False
            if not job._wants_slot or self._first_in_line(job):
                manager = acquire()
                if manager.__enter__():
                    stack.push(manager.__exit__)
                    return True
                manager.__exit__(None, None, None)
                job.message = message
            time.sleep(POLL_S)


QUEUE = JobQueue()  # one per server process; the limits hold across processes through the lock folder
