"""Depth page: the rerun time of a depth-slider move on the shipped results (AppTest, cached analysis), and
the training speed per step at each depth (one thread, as the experiment runs), as medians.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import replace

from bench.stats import median_seconds
from explorer.experiments import depth as dp

DEPTHS = (2, 4, 8)


def page_rerun_seconds(moves: int = 9) -> tuple[float, float, float]:
    """Median and slowest seconds of a page rerun after a depth move, and the first (cold) run."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT

    at = AppTest.from_file(str(ROOT / "pages" / "depth.py"), default_timeout=120)
    start = time.perf_counter()
    at.run()
    cold = time.perf_counter() - start
    times = []
    for i in range(moves):
        at.select_slider(key="depth").set_value(DEPTHS[i % len(DEPTHS)])
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        if at.exception:
            raise RuntimeError(f"the page failed: {at.exception[0].value}")
    return statistics.median(times), max(times), cold


def training_step_seconds(depth: int, steps: int = 30) -> float:
    cfg = replace(dp.PRESETS["main"], depths=(depth,), wirings=("final",), seeds=(0,), steps=steps,
                  eval_every=steps, eval_size=32, probe_train=64, probe_test=32)
    median, _ = median_seconds(lambda: dp.run_one(cfg, depth, "final", 0), repeats=3)
    return median / steps


def main() -> None:
    median, slowest, cold = page_rerun_seconds()
    print(f"page rerun after a depth move: median {median * 1000:.0f} ms, slowest {slowest * 1000:.0f} ms "
          f"(first run {cold:.1f} s)")
    for depth in DEPTHS:
        print(f"training, depth {depth}: {training_step_seconds(depth) * 1000:.1f} ms per step (incl. probes)")


if __name__ == "__main__":
    main()
