"""Compute-per-dollar page: the fit, the bootstrap, and a whole page rerun after a slider move (AppTest).

A slider move to a new window pays for one fit and one 5000-resample bootstrap; moving back to a window seen
before is a cache hit (bench_pages times those with every other page's). Both are printed as medians, with
the bootstrap's share of a cold rerun. Quick mode: one repeat, two moves.
"""

from __future__ import annotations

import statistics

import streamlit as st
from streamlit.testing.v1 import AppTest

from bench.bench_pages import Move, timed_moves
from bench.stats import median_seconds
from explorer import trend
from explorer.lecture_map import ROOT

PAGE = str(ROOT / "pages" / "compute_per_dollar.py")
MOVES = 12
START = Move("compute", "slider", "start", ())


def main(quick: bool = False) -> dict[str, float]:
    """Print and return the fit's, the bootstrap's and a page rerun's median seconds."""
    moves = 2 if quick else MOVES
    df = trend.load()
    rows = trend.fit_rows(df, trend.MAIN_SERIES, trend.FP32, 1950, 2025)
    fit_s, _ = median_seconds(lambda: trend.ols(rows["year"], rows["value"]), repeats=1 if quick else 21)
    boot_s, _ = median_seconds(lambda: trend.bootstrap(rows["year"], rows["value"]), repeats=1 if quick else 7)
    print(f"OLS fit, 129 points: {fit_s * 1e3:.2f} ms median; bootstrap 5000 resamples: {boot_s * 1e3:.1f} ms")

    st.cache_data.clear()
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    cold = timed_moves(at, START, [1951 + i for i in range(moves)])  # every window new: fit + bootstrap
    warm = timed_moves(at, START, [1951 + i for i in range(moves)])  # the same windows again: cache hits
    c, w = statistics.median(cold), statistics.median(warm)
    print(
        f"page rerun after a slider move (AppTest, {moves} moves): new window {c * 1e3:.0f} ms median, "
        f"seen window {w * 1e3:.0f} ms median; bootstrap is {boot_s / c:.0%} of a cold rerun"
    )
    return {"ols_s": fit_s, "bootstrap_s": boot_s, "rerun_new_window_s": c, "rerun_seen_window_s": w}


if __name__ == "__main__":
    main()
