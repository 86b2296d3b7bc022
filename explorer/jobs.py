"""A small in-process job queue for on-demand training runs.

A classroom shares one 2-core server, so long runs go through here: at most `max_running` at once
(the rest wait in order, with a visible queue position), one job per key (two students asking for the
same settings share one run), a per-owner limit, progress and cancellation that the work function
polls, and a time limit that the work function enforces through `Progress.time_left`.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"


class Cancelled(Exception):
    """Raised inside a work function when its job was cancelled."""


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

    @property
    def finished(self) -> bool:
        return self.state in (DONE, FAILED, CANCELLED)

    def cancel(self) -> None:
        self._cancel.set()


class Progress:
    """Handed to a work function: report progress, and learn whether to stop."""

    def __init__(self, job: Job) -> None:
        self._job = job

    def update(self, fraction: float, message: str = "") -> None:
        self._job.fraction = min(max(fraction, 0.0), 1.0)
        if message:
            self._job.message = message
        self.check()

    @property
    def cancelled(self) -> bool:
        return self._job._cancel.is_set()

    def time_left(self) -> float:
        started = self._job.started or time.monotonic()
        return self._job.time_limit_s - (time.monotonic() - started)

    def check(self) -> None:
        """Raise `Cancelled` if the job was cancelled (work functions call this between steps)."""
        if self.cancelled:
            raise Cancelled()


class JobQueue:
    def __init__(self, max_running: int | None = None, per_owner: int = 2) -> None:
        self.max_running = max_running or max(1, min(2, (os.cpu_count() or 1) // 2))
        self.per_owner = per_owner
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._order = itertools.count()

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

    def position(self, job: Job) -> int:
        """0 when running or finished, else how many jobs run or wait before it."""
        if job.state != QUEUED:
            return 0
        with self._lock:
            return sum(1 for j in self._jobs.values() if j.state == RUNNING
                       or (j.state == QUEUED and j._order < job._order))

    def _may_start(self, job: Job) -> bool:
        with self._lock:
            running = sum(1 for j in self._jobs.values() if j.state == RUNNING)
            first = min((j._order for j in self._jobs.values() if j.state == QUEUED), default=job._order)
            if running < self.max_running and job._order == first:
                job.state, job.started, job.message = RUNNING, time.monotonic(), "starting"
                return True
            return False

    def _run(self, job: Job, work: Callable[[Progress], dict]) -> None:
        while not self._may_start(job):
            if job._cancel.is_set():
                job.state, job.message = CANCELLED, "cancelled while waiting"
                return
            time.sleep(0.1)
        try:
            job.result = work(Progress(job))
            job.state, job.fraction, job.message = DONE, 1.0, "done"
        except Cancelled:
            job.state, job.message = CANCELLED, "cancelled"
        except Exception as err:  # reported to the page as a message, kept for the server log
            job.state, job.error, job.message = FAILED, f"{type(err).__name__}: {err}", "failed"
            traceback.print_exc()


QUEUE = JobQueue()  # one per server process
