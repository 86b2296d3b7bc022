"""Small timing helpers shared by the benchmarks: interleaved repeats, medians and spreads."""

from __future__ import annotations

import statistics
import time
from typing import Callable


def median_seconds(
    fn: Callable[[], object], repeats: int = 7, warmup: int = 1, clock: Callable[[], float] = time.perf_counter
) -> tuple[float, float]:
    """Median and interquartile range of `fn`'s time over `repeats` runs.

    `clock` is wall time by default; `time.thread_time` counts only this thread's CPU time, which a
    loaded shared machine disturbs far less.
    """
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = clock()
        fn()
        times.append(clock() - start)
    q = statistics.quantiles(times, n=4) if len(times) > 1 else [times[0]] * 3
    return statistics.median(times), q[2] - q[0]


def interleaved(fns: dict[str, Callable[[], object]], repeats: int = 7) -> dict[str, float]:
    """Median seconds per named function, alternating between them so machine noise hits all alike."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for fn in fns.values():
        fn()  # warm-up
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def percentiles(values: list[float], *qs: float) -> list[float]:
    """The `qs` percentiles (0-100) of `values`, linear between order statistics (numpy's default); NaN when there
    are none."""
    ordered = sorted(values)
    if not ordered:
        return [float("nan")] * len(qs)
    out = []
    for q in qs:
        pos = (len(ordered) - 1) * q / 100
        lo = int(pos)
        hi = min(lo + 1, len(ordered) - 1)
        out.append(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))
    return out
