"""Every page that takes an upload reads one at its limits within the declared memory budget.

The extra peak of the page run that reads the file (Python's allocations, numpy's arrays among them, traced by
tracemalloc from just before the run) must stay under `UPLOAD_PEAK_MB`: the compute page with a 10,000-row
file and with a 64-column 4.5 MB one (both fitted and bootstrapped), the lengths page with a 64-column file at
its 2 MB limit, and the audit page with a 1 MB import. The same files are in `bench/bench_uploads.py`, which
also reports the resident peak of each reader in its own process.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from bench.bench_uploads import audit_json, compute_csv, compute_wide, lengths_wide
from explorer.csv_upload import UPLOAD_PEAK_MB
from explorer.experiments.lengths.profiles import read_pairs
from tests.pages.conftest import assert_clean, run_page

CASES = {  # case -> (page, its URL parameters, the uploader's key, the file, MIME type)
    "compute-10k": ("compute_per_dollar.py", {}, "upload", compute_csv, "text/csv"),
    "compute-64col": ("compute_per_dollar.py", {}, "upload", compute_wide, "text/csv"),
    "lengths-64col": (
        "length_asymmetry.py",
        {"profile": "uploaded CSV", "section": "Your own lengths"},
        "upload",
        lengths_wide,
        "text/csv",
    ),
    "audit-1mb": (
        "bias_audit.py",
        {"section": "Export, import and share"},
        "audit-upload",
        audit_json,
        "application/json",
    ),
}


def peak_of_upload(case: str) -> tuple[float, object]:
    """(extra peak MB of the page run that reads the upload, the AppTest after it)."""
    page, query, key, make, mime = CASES[case]
    at = run_page(page, **query)
    raw = make()
    # a first, smaller upload of the same kind: the code it runs is imported and compiled before the measured one
    # (a fresh checkout compiles each module on first import, which tracemalloc would count as the upload's)
    warm = raw[: raw.rfind(b"\n", 0, len(raw) // 4) + 1] if mime == "text/csv" else raw
    at.file_uploader(key=key).set_value((f"warm-{case}.{mime.split('/')[1]}", warm, mime)).run()
    uploader = at.file_uploader(key=key).set_value((f"{case}.{mime.split('/')[1]}", raw, mime))
    gc.collect()  # what earlier tests left for the collector is not this upload's
    tracemalloc.start()
    try:
        uploader.run()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    return peak, at


@pytest.mark.parametrize("case", CASES)
def test_an_upload_at_the_limits_stays_within_the_memory_budget(case):
    peak, at = peak_of_upload(case)
    assert_clean(at)
    if case.startswith("compute"):
        assert not at.warning, [w.value for w in at.warning]  # read, fitted and drawn
    if case == "lengths-64col":
        mean_input = read_pairs(lengths_wide())["input_len"].mean()
        assert not at.warning and f"{mean_input:,.1f}" in [m.value for m in at.metric]  # its own pairs shown
    if case == "audit-1mb":
        assert any("at most 20" in w.value for w in at.warning)  # refused, after parsing it
    print(f"{case}: +{peak:.1f} MB traced")
    assert peak < UPLOAD_PEAK_MB, f"{case}: +{peak:.1f} MB, budget {UPLOAD_PEAK_MB} MB"
