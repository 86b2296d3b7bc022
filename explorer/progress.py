"""One progress protocol for every long call: report how far it is, learn whether to stop.

A long call (training, a sweep, a timing run) takes one `Progress`. It calls `update(fraction, message)`
as it goes (which raises `Cancelled` once someone cancelled), and asks `should_stop()` between steps:
cancelled, or out of time (`time_left()`), so that a cut run can still return what it finished. The
job queue hands work functions a `Progress` tied to a job; the CLI prints one; a library call without
one never stops early. `part(start, end)` gives a sub-call its share of the fraction. `share(partial)`
publishes what is done so far, so a page can draw a run's curves while it trains.
"""

from __future__ import annotations

import math
import sys
import time


class Cancelled(Exception):
    """Raised inside a long call when its run was cancelled."""


class Progress:
    """The protocol, and the silent default: no time limit, never cancelled, reports nowhere."""

    def report(self, fraction: float, message: str) -> None:
        """Where a subclass shows progress (the base shows nothing)."""

    @property
    def cancelled(self) -> bool:
        return False

    def time_left(self) -> float:
        return math.inf

    def share(self, partial: dict) -> None:
        """Publish the results so far (a plain dict that a figure function can draw); the base keeps nothing."""

    def update(self, fraction: float, message: str = "") -> None:
        """Report `fraction` (0..1) and `message`; raise `Cancelled` if the run was cancelled."""
        self.report(min(max(fraction, 0.0), 1.0), message)
        self.check()

    def check(self) -> None:
        if self.cancelled:
            raise Cancelled()

    def should_stop(self) -> bool:
        """Cancelled or out of time: stop after the current step and return what is done."""
        return self.cancelled or self.time_left() <= 0

    def stop_reason(self) -> str:
        """What a cut run records: "cancelled" or "time_budget"."""
        return "cancelled" if self.cancelled else "time_budget"

    def part(self, start: float = 0.0, end: float = 1.0, prefix: str = "", reserve_s: float = 0.0) -> "Progress":
        """A sub-call's view: its fraction 0..1 maps to start..end of this one, its messages get `prefix`,
        and it runs out of time `reserve_s` early (time kept for what the caller does after it)."""
        return _Part(self, start, end, prefix, reserve_s)


SILENT = Progress()


class _Part(Progress):
    def __init__(self, parent: Progress, start: float, end: float, prefix: str, reserve_s: float) -> None:
        self._parent, self._start, self._end, self._prefix, self._reserve = parent, start, end, prefix, reserve_s

    def report(self, fraction: float, message: str) -> None:
        self._parent.report(
            self._start + fraction * (self._end - self._start),
            f"{self._prefix}{message}" if message else self._prefix.rstrip(": ："),
        )

    @property
    def cancelled(self) -> bool:
        return self._parent.cancelled

    def time_left(self) -> float:
        return self._parent.time_left() - self._reserve

    def share(self, partial: dict) -> None:
        self._parent.share(partial)


class Deadline(Progress):
    """A time limit and nothing else: a library call bounded to `seconds` from now."""

    def __init__(self, seconds: float) -> None:
        self._until = time.monotonic() + seconds

    def time_left(self) -> float:
        return self._until - time.monotonic()


class Printed(Progress):
    """Progress lines on stderr, for the command line."""

    def report(self, fraction: float, message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {fraction:6.1%} {message}", file=sys.stderr, flush=True)
