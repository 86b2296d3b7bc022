"""A job queue for on-demand training runs, shared by every server process of a deployment.

A classroom shares a few cores, so long runs go through here, and no visitor can hold them up for the others:
- at most `max_running` runs at once across the whole deployment: a run holds one of that many slot
  lock files in a shared folder (several app replicas behind a load balancer share it);
- one run per key: two students asking for the same settings share a run in one process, and a second
  process waits on the key's lock, then finds the first one's result in the store's result cache;
- caps on what is queued: per browser session (`per_owner`), per client address (`per_address`: a free new
  session does not get round it) and in all (`max_active`); a refusal says which cap and when to retry;
- a run nobody watches any more is cancelled: every session that asked for it is a viewer, and once none of
  them has been alive for `abandon_after_s` the run stops at its next progress check (or leaves the line);
- a finished job is forgotten once every live viewer has collected its result, or `keep_finished_s` after it
  ended, so a cut or failed run is never the permanent answer for its key;
- progress and cancellation that the work function polls, and a time limit the work function enforces
  through `Progress.time_left`.

Slots and key locks are the store's named locks (`explorer.store.locks`): PostgreSQL advisory locks when the
deployment shares a PostgreSQL (replicas on several machines), else `fcntl.flock` files under
`$EXPLORER_JOBS_DIR` (default: `jobs/` in the local cache folder). Either way a lock dies with its holder,
so a crashed replica never leaves a slot taken.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from explorer import content, i18n
from explorer.formatting import plural
from explorer.progress import Cancelled, Progress
from explorer.store import locks
from explorer.store.local import cache_dir

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
POLL_S = 0.1
ABANDONED = "cancelled: everyone who watched it had left"


def _env_count(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.isdigit() and int(value) > 0 else default


def default_max_running() -> int:
    """`$EXPLORER_MAX_RUNS`, else one run per two cores (at least 1, at most 2): the deployment-wide limit."""
    return _env_count("EXPLORER_MAX_RUNS", max(1, min(2, (os.cpu_count() or 1) // 2)))


def jobs_dir() -> Path:
    return Path(os.environ.get("EXPLORER_JOBS_DIR") or cache_dir() / "jobs")


class QueueFull(RuntimeError):
    """A cap refused the run; the message names the cap, `retry_s` says when a place is likely free."""

    def __init__(self, message: str, retry_s: float) -> None:
        super().__init__(message)
        self.retry_s = retry_s


@dataclass
class Viewer:
    """A session that asked for a job. `alive` says whether it is still connected; None: it cannot be told
    (a test or the command line), so it counts as watching."""

    alive: Callable[[], bool] | None = None
    address: str = ""
    collected: bool = False

    def watching(self) -> bool:
        return self.alive is None or bool(self.alive())


@dataclass
class Job:
    key: str
    label: str
    owner: str
    time_limit_s: float
    address: str = ""
    state: str = QUEUED
    fraction: float = 0.0
    message: str = ""
    lang: str = i18n.DEFAULT  # the language of the session that asked: the work's progress messages speak it
    result: dict | None = None
    partial: dict | None = None  # what the work has shared so far (`Progress.share`), for a live figure
    error: str | None = None
    submitted: float = field(default_factory=time.monotonic)
    started: float | None = None
    ended: float | None = None
    viewers: dict[str, Viewer] = field(default_factory=dict, repr=False)
    abandon_after_s: float = math.inf
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    _unwatched_since: float | None = None
    _order: int = 0
    _wants_slot: bool = False  # past its key lock, waiting in line for a slot

    @property
    def finished(self) -> bool:
        return self.state in (DONE, FAILED, CANCELLED)

    def cancel(self) -> None:
        self._cancel.set()

    def abandoned(self) -> bool:
        """No viewer has been alive for `abandon_after_s` (a job without viewers, from a test, never is)."""
        if not self.viewers or any(v.watching() for v in list(self.viewers.values())):
            self._unwatched_since = None
            return False
        now = time.monotonic()
        if self._unwatched_since is None:
            self._unwatched_since = now
        return now - self._unwatched_since >= self.abandon_after_s

    def should_cancel(self) -> bool:
        if not self._cancel.is_set() and self.abandoned():
            self.message = ABANDONED
            self._cancel.set()
        return self._cancel.is_set()

    def seconds_left(self) -> float:
        """At most this long until the job ends: its limit from the start, or all of it while it waits."""
        started = self.started or time.monotonic()
        return max(0.0, self.time_limit_s - (time.monotonic() - started))


class JobProgress(Progress):
    """Handed to a work function: its reports go to the job; cancel (asked, or nobody watching) and the time
    limit come from it."""

    def __init__(self, job: Job) -> None:
        self._job = job

    def report(self, fraction: float, message: str) -> None:
        self._job.fraction = fraction
        if message:
            self._job.message = message

    @property
    def cancelled(self) -> bool:
        return self._job.should_cancel()

    def time_left(self) -> float:
        return self._job.seconds_left()

    def share(self, partial: dict) -> None:
        self._job.partial = partial


class JobQueue:
    def __init__(
        self,
        max_running: int | None = None,
        per_owner: int = 2,
        lock_dir: Path | None = None,
        per_address: int | None = None,
        max_active: int | None = None,
        abandon_after_s: float = 10.0,
        keep_finished_s: float = 60.0,
    ) -> None:
        self.max_running = max_running or default_max_running()
        self.per_owner = per_owner
        self.per_address = per_address or _env_count("EXPLORER_RUNS_PER_ADDRESS", 4)
        self.max_active = max_active or _env_count("EXPLORER_MAX_QUEUED", 8)
        self.abandon_after_s = abandon_after_s
        self.keep_finished_s = keep_finished_s
        self._lock_dir = lock_dir
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._order = itertools.count()

    @property
    def lock_dir(self) -> Path:
        return self._lock_dir or jobs_dir()

    def submit(
        self,
        key: str,
        work: Callable[[Progress], dict],
        label: str = "",
        owner: str = "",
        time_limit_s: float = 120.0,
        address: str = "",
        alive: Callable[[], bool] | None = None,
    ) -> Job:
        """Queue `work` under `key`, or join the job already holding that key (unless it failed or was
        cancelled); the caller becomes one of its viewers. Raises `QueueFull` when a cap refuses it."""
        with self._lock:
            self._forget_finished()
            job = self._jobs.get(key)
            if job is None or job.state in (FAILED, CANCELLED):
                self._check_caps(owner, address)
                job = Job(
                    key=key,
                    label=label or key,
                    owner=owner,
                    address=address,
                    time_limit_s=time_limit_s,
                    abandon_after_s=self.abandon_after_s,
                    _order=next(self._order),
                    lang=i18n.current(),
                    message=content.text("common", "run-waiting"),
                )
                self._jobs[key] = job
                try:
                    self._start(job, work)
                except Exception as err:  # noqa: BLE001 (no thread: the job must not stay queued for ever)
                    job.state, job.error, job.message = FAILED, _failure(err), "failed"
                    job.ended = time.monotonic()
                    traceback.print_exc()
            if owner and owner not in job.viewers:
                job.viewers[owner] = Viewer(alive=alive, address=address)
            return job

    def get(self, key: str) -> Job | None:
        with self._lock:
            self._forget_finished()
            return self._jobs.get(key)

    def collected(self, key: str, owner: str) -> None:
        """`owner` has taken the finished job's result: once every live viewer has, the job is forgotten."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and owner in job.viewers:
                job.viewers[owner].collected = True
            self._forget_finished()

    def active(self) -> list[Job]:
        """The jobs of this process that are queued or running."""
        with self._lock:
            return [j for j in self._jobs.values() if not j.finished]

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until every job of this process has finished (or `timeout_s` passed); whether they all did.

        For callers that drive pages without a browser (tests, benchmarks, the figure export): a page that
        started a run shows its result on the next rerun after this."""
        deadline = time.monotonic() + timeout_s
        while self.active():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)
        return True

    def cancel_all(self) -> None:
        """Ask every job of this process to stop (each stops at its next progress check)."""
        for job in self.active():
            job.cancel()

    def position(self, job: Job) -> int:
        """0 when running or finished, else how many of this process's jobs run or wait before it."""
        if job.state != QUEUED:
            return 0
        with self._lock:
            return sum(
                1 for j in self._jobs.values() if j.state == RUNNING or (j.state == QUEUED and j._order < job._order)
            )

    def busy_slots(self) -> int:
        """Runs going on now across every process that shares the lock folder. A slot whose lock cannot be
        taken at all (a directory where its file should be, the database gone) holds no run: it counts as free
        here, and `_take_slot` passes over it."""
        busy = 0
        for i in range(self.max_running):
            try:
                held = self._take(_slot_name(i))
            except Exception:  # noqa: BLE001 (a broken slot runs nothing; the job that meets it says why)
                continue
            busy += held is None
            if held is not None:
                held.close()
        return busy

    def _check_caps(self, owner: str, address: str) -> None:
        """Raise `QueueFull` if this owner, this address or the whole process has its most runs already."""
        active = [j for j in self._jobs.values() if not j.finished]
        retry = _retry_after(active)
        mine = [j for j in active if owner and owner in j.viewers]
        if owner and len(mine) >= self.per_owner:
            raise QueueFull(
                content.text(
                    "common", "queue-full-tab", n=len(mine), runs=plural(len(mine), "run"), limit=self.per_owner
                ),
                _retry_after(mine),
            )
        ours = [j for j in active if address and j.address == address]
        if address and len(ours) >= self.per_address:
            raise QueueFull(
                content.text(
                    "common",
                    "queue-full-address",
                    n=len(ours),
                    runs=plural(len(ours), "run"),
                    limit=self.per_address,
                    retry=_retry_after(ours),
                ),
                _retry_after(ours),
            )
        if len(active) >= self.max_active:
            raise QueueFull(
                content.text("common", "queue-full-server", n=len(active), limit=self.max_active, retry=retry), retry
            )

    def _forget_finished(self) -> None:
        """Drop finished jobs that every live viewer has collected, or that ended `keep_finished_s` ago."""
        now = time.monotonic()
        for key, job in list(self._jobs.items()):
            if (
                job.finished
                and job.ended is not None
                and (
                    now - job.ended >= self.keep_finished_s
                    or (job.viewers and all(v.collected or not v.watching() for v in job.viewers.values()))
                )
            ):
                del self._jobs[key]

    def _start(self, job: Job, work: Callable[[Progress], dict]) -> None:
        """The job's thread (raises when the process cannot start another: `submit` then fails the job)."""
        threading.Thread(target=self._run, args=(job, work), daemon=True, name=f"job-{job.key[:12]}").start()

    def _try_lock(self, name: str):
        return locks.try_lock(name, self.lock_dir)

    def _first_in_line(self, job: Job) -> bool:
        with self._lock:
            return job._order == min(j._order for j in self._jobs.values() if j.state == QUEUED and j._wants_slot)

    def _run(self, job: Job, work: Callable[[Progress], dict]) -> None:
        """The job's whole life. Whatever goes wrong in it (a lock that cannot be taken or let go, the store, the
        work) ends the job as FAILED with a message the page shows: a job that stayed QUEUED would be first in
        line for ever, and every later press would wait behind it."""
        try:
            with i18n.using(job.lang):
                self._hold_and_work(job, work)
        except BaseException as err:  # noqa: BLE001 (the last resort of a thread nobody joins)
            if not job.finished:  # before its run: a lock failed; during it: something the work let through
                context = content.text("common", "run-lock-failed") if job.state == QUEUED else ""
                job.state, job.error, job.message = FAILED, _failure(err, context), "failed"
            traceback.print_exc()  # for the server log; after a finished job, only its locks failed to let go
        finally:
            job.ended = time.monotonic()

    def _hold_and_work(self, job: Job, work: Callable[[Progress], dict]) -> None:
        with contextlib.ExitStack() as held:
            if not self._hold(
                held, job, lambda: self._take(f"key:{job.key}"), content.text("common", "run-waiting-elsewhere")
            ):
                return
            job._wants_slot = True
            if not self._hold(held, job, self._take_slot, content.text("common", "run-waiting")):
                return
            job.state, job.started, job.message = RUNNING, time.monotonic(), content.text("common", "run-starting")
            try:
                progress = JobProgress(job)
                job.result = work(progress)
                progress.check()  # a long call that stopped early because of a cancel returns: it was cancelled
                job.state, job.fraction, job.message = DONE, 1.0, "done"
            except Cancelled:
                job.state = CANCELLED
                if job.message != ABANDONED:
                    job.message = "cancelled"
            except Exception as err:  # reported to the page as a message, kept for the server log
                job.state, job.error, job.message = FAILED, _failure(err), "failed"
                traceback.print_exc()

    def _take(self, name: str) -> contextlib.ExitStack | None:
        """Hold the lock `name` if it is free: the stack that lets it go, else None. Raises what taking it
        raised, having let go of whatever it had opened."""
        manager = self._try_lock(name)
        if manager.__enter__():
            held = contextlib.ExitStack()
            held.push(manager.__exit__)
            return held
        manager.__exit__(None, None, None)
        return None

    def _take_slot(self) -> contextlib.ExitStack | None:
        """Hold the first free run slot, else None. A slot whose lock raises is passed over (slot 1 still
        runs when slot 0 is broken); only when every slot raised does this raise, naming the last error."""
        broken: list[Exception] = []
        for i in range(self.max_running):
            try:
                held = self._take(_slot_name(i))
            except Exception as err:  # noqa: BLE001 (any kind: a file, the database, a driver)
                broken.append(err)
                continue
            if held is not None:
                return held
        if len(broken) == self.max_running:
            raise broken[-1]
        return None

    def _hold(
        self, stack: contextlib.ExitStack, job: Job, take: Callable[[], contextlib.ExitStack | None], message: str
    ) -> bool:
        """Wait until `take()` holds its lock (kept held in `stack`); False if cancelled meanwhile. What `take`
        raises goes up to `_run`, which fails the job."""
        while True:
            if job.should_cancel():
                job.state = CANCELLED
                if job.message != ABANDONED:
                    job.message = "cancelled while waiting"
                return False
            if not job._wants_slot or self._first_in_line(job):
                held = take()
                if held is not None:
                    stack.enter_context(held)
                    return True
                job.message = message
            time.sleep(POLL_S)


def _failure(err: BaseException, context: str = "") -> str:
    """What a failed job's page says: the error's kind and its first line, cut to a readable length, after
    `context` when there is one (the lock, not the work, failed)."""
    if isinstance(err, OSError) and err.filename and err.strerror:  # the file's name, not the server's folders
        first = f"{err.strerror}: {Path(str(err.filename)).name}"
    else:
        first = (str(err).strip().splitlines() or [""])[0]
    text = f"{type(err).__name__}: {first}" if first else type(err).__name__
    text = text if len(text) <= 300 else text[:299] + "…"
    return f"{context} ({text})" if context else text


def _slot_name(i: int) -> str:
    return f"slot-{i}"


def _retry_after(jobs: list[Job]) -> float:
    """Seconds until the first of `jobs` has surely ended (each within its time limit), rounded up to 5 s."""
    soonest = min((j.seconds_left() for j in jobs), default=0.0)
    return max(5.0, 5.0 * math.ceil(soonest / 5.0))


QUEUE = JobQueue()  # one per server process; the limits hold across processes through the lock folder
