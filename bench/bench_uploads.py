"""Uploads: the extra peak memory each upload reader costs the server for a file at its limits.

Four cases, each at the edge of what a page accepts: a 10,000-row compute CSV (about 220 KB), a 64-column
compute CSV of 4.5 MB (10,000 rows), a 1 MB audit import and a 64-column lengths file at its 2 MB limit.
Each is read the way its page reads it (the compute page also fits and bootstraps the upload), in a fresh
process, and measured twice: Python's own allocations (tracemalloc, numpy's arrays included) and the
process's resident peak above where it stood (the kernel's VmHWM, `bench.memory.PeakMemory`).

`python -m bench uploads`, or `python -m bench.bench_uploads [case ...]`. Quick mode: the smallest case only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from typing import Callable

import numpy as np

CASES = ("compute-10k", "compute-64col", "audit-1mb", "lengths-64col")


def compute_csv(rows: int = 10_000) -> bytes:
    """A valid compute upload of `rows` machines: year, value, name (about 18 bytes a row)."""
    rng = np.random.default_rng(1)
    years = rng.uniform(1950, 2025, rows).round(2)
    values = 10 ** (0.15 * (years - 2000) + rng.normal(0, 0.5, rows))
    lines = ["year,value,name", *(f"{y},{v:.4g},m{i}" for i, (y, v) in enumerate(zip(years, values)))]
    return ("\n".join(lines) + "\n").encode()


def wide_csv(
    columns: int,
    target_bytes: int,
    used: tuple[str, str],
    rows: int = 10_000,
    value: Callable[[int], tuple[str, str]] | None = None,
) -> bytes:
    """A valid `columns`-wide CSV of `rows` rows, about `target_bytes` long: the two `used` columns the reader
    needs (filled by `value(row)`), the rest padding cells of equal width, as a spreadsheet export can have."""
    pad_cells = columns - 2
    used_chars = sum(len(",".join(value(i))) + 2 for i in range(min(rows, 100))) / min(rows, 100)
    cell = max(1, round((target_bytes / rows - used_chars) / pad_cells - 1))
    header = ",".join([*used, *(f"extra_{i}" for i in range(pad_cells))])
    filler = ",".join(["7" * cell] * pad_cells)
    body = (f"{a},{b},{filler}" for a, b in map(value, range(rows)))
    return (header + "\n" + "\n".join(body) + "\n").encode()


def compute_wide() -> bytes:
    """64 columns, 10,000 rows, 4.5 MB: year and value, then 62 columns the compute page never reads."""
    rng = np.random.default_rng(2)
    years = rng.uniform(1950, 2025, 10_000).round(2)
    values = 10 ** (0.15 * (years - 2000) + rng.normal(0, 0.5, 10_000))
    return wide_csv(64, 4_300_000, ("year", "value"), value=lambda i: (f"{years[i]}", f"{values[i]:.4g}"))


def lengths_wide() -> bytes:
    """64 columns at the lengths page's 2 MB limit, 10,000 rows: input_len and target_len, then padding."""
    from explorer.experiments.lengths.profiles import MAX_BYTES

    rng = np.random.default_rng(3)
    lx, ly = rng.integers(1, 4000, 10_000), rng.integers(1, 800, 10_000)
    return wide_csv(64, MAX_BYTES - 60_000, ("input_len", "target_len"), value=lambda i: (f"{lx[i]}", f"{ly[i]}"))


def audit_json() -> bytes:
    """A 1 MB audit import as costly to parse as a file the import lets through gets: its few objects, lists and
    texts within `MAX_JSON_PARTS`, then a row list of numbers (a Python float for every four bytes), refused
    after parsing for holding too many rows. (A list of `{}` would cost more, and is refused unparsed.)"""
    from explorer.audit import MAX_IMPORT_BYTES
    from explorer.audit.workbook import FORMAT, VERSION

    head = json.dumps({"format": FORMAT, "version": VERSION})[:-1] + ', "rows": ['
    n = (MAX_IMPORT_BYTES - len(head) - 2) // 4
    return (head + ",".join(["0.5"] * n) + "]}").encode()


def reader(case: str) -> tuple[bytes, Callable[[bytes], object]]:
    """The file of `case` and the function its page reads it with."""
    if case.startswith("compute"):
        from explorer import trend_view

        return (compute_csv() if case == "compute-10k" else compute_wide()), trend_view.upload
    if case == "audit-1mb":
        from explorer import audit
        from explorer.audit.workbook import AuditError

        def read(raw: bytes) -> object:
            try:
                return audit.import_json(raw, {})
            except AuditError as err:
                return str(err)

        return audit_json(), read
    if case == "lengths-64col":
        from explorer.experiments.lengths.profiles import read_pairs

        return lengths_wide(), read_pairs
    raise ValueError(f"case must be one of {', '.join(CASES)}, got {case!r}")


def measure(case: str) -> dict:
    """Extra peak of one read in this process: tracemalloc's peak and the resident peak, in MB."""
    from bench.memory import PeakMemory

    raw, read = reader(case)
    read(compute_csv(50) if case.startswith("compute") else raw[:2000])  # first-call imports and caches
    with PeakMemory(os.getpid()) as rss:
        result = read(raw)
    tracemalloc.start()  # counts only what is allocated from here on: its peak is the read's extra peak
    read(raw)
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    problem = getattr(result, "problem", None) if not isinstance(result, str) else result
    return {
        "case": case,
        "bytes": len(raw),
        "traced_mb": traced,
        "rss_mb": rss.extra_mb,
        "problem": (problem or "")[:80],
    }


def main(cases: tuple[str, ...] = CASES, quick: bool = False) -> list[dict]:
    """Each case in its own process, so one case's freed memory does not hide the next one's peak."""
    results = []
    cases = cases[:1] if quick else cases
    for case in cases:
        out = subprocess.run(
            [sys.executable, "-m", "bench.bench_uploads", "--one", case], capture_output=True, text=True, check=True
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        results.append(r)
        print(
            f"{r['case']:14s} {r['bytes'] / 1e6:5.2f} MB file: +{r['traced_mb']:6.1f} MB traced, "
            f"+{r['rss_mb']:6.1f} MB resident peak{'  (' + r['problem'] + ')' if r['problem'] else ''}"
        )
    return results


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(measure(sys.argv[2])))
    else:
        main(tuple(sys.argv[1:]) or CASES)
