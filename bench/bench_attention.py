"""Attention page: rerun time of a slider move (layer or head) with the models loaded, per architecture.

Runs the page through AppTest in this process: one warm-up run per architecture (loads the model and fills
the caches), then alternating layer and head moves; prints the median and interquartile range of the rerun
wall time, and the first (cold-cache) run for comparison. A move only slices cached arrays and redraws.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from explorer.experiments.attention import ARCH_NAMES, ARCHS, demo_spec

PAGE = Path(__file__).resolve().parent.parent / "pages" / "attention.py"
MOVES = 12


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def slider_moves(arch: str, text: str = "hello world", moves: int = MOVES) -> dict:
    spec = demo_spec(arch).model
    at = AppTest.from_file(str(PAGE), default_timeout=120)
    at.query_params["arch"], at.query_params["text"] = ARCH_NAMES[arch], text
    first = _time(at.run)
    times = []
    for i in range(moves):
        slider, top = (at.slider[0], spec.n_layers) if i % 2 else (at.slider[1], spec.n_heads)
        slider.set_value(1 + (i // 2) % top)
        times.append(_time(at.run))
        assert not at.exception, at.exception
    q = statistics.quantiles(times, n=4)
    return {"first": first, "median": statistics.median(times), "iqr": q[2] - q[0]}


def main() -> None:
    print(f"attention page, slider move rerun (AppTest, {MOVES} moves after a warm-up run):")
    for arch in ARCHS:
        r = slider_moves(arch)
        print(f"  {arch:16s} median {r['median'] * 1000:6.0f} ms  IQR {r['iqr'] * 1000:5.0f} ms   "
              f"first run {r['first']:.2f} s   x{r['first'] / r['median']:.1f} of a move")


if __name__ == "__main__":
    main()
