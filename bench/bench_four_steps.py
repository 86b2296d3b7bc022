"""Four-steps page: rerun time for a slider move, figure build times, the check and one ablation run.

`python -m bench.bench_four_steps` (or `make bench`). Prints medians and ratios; asserts nothing.
"""

from __future__ import annotations

import itertools
import os
import tempfile
import time

import torch

from bench.stats import median_seconds
from explorer.experiments import four_steps as fs
from explorer.figures import four_steps as figs
from tests.conftest import ROOT


def _page_reruns(repeats: int = 12) -> dict[str, float]:
    """Median seconds of an AppTest rerun after moving each control, models and counts already cached."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    os.environ.setdefault("EXPLORER_CACHE_DIR", tempfile.mkdtemp(prefix="bench-four-steps-"))
    at = AppTest.from_file(str(ROOT / "pages" / "four_steps.py"), default_timeout=120).run()
    moves = {
        "step": (lambda k: at.slider(key="step").set_value(k), itertools.cycle(range(6))),
        "depth": (lambda k: at.slider(key="depth").set_value(k), itertools.cycle([1, 2, 3, 4])),
        "width": (lambda k: at.select_slider(key="width").set_value(k), itertools.cycle([32, 64, 128])),
    }
    out = {}
    for name, (move, values) in moves.items():
        for _ in range(4):  # warm the caches for every value of the cycle
            move(next(values)).run()
        times = []
        for _ in range(repeats):
            move(next(values))
            start = time.perf_counter()
            at.run()
            times.append(time.perf_counter() - start)
        assert not at.exception, at.exception
        out[name] = sorted(times)[len(times) // 2]
    cold = []  # every cache cleared: the first visit of a view (counts, figures and shipped files rebuilt)
    for _ in range(5):
        st.cache_data.clear()
        moves["step"][0](next(moves["step"][1]))
        start = time.perf_counter()
        at.run()
        cold.append(time.perf_counter() - start)
    out["step, caches cleared"] = sorted(cold)[len(cold) // 2]
    return out


def _figures() -> dict[str, float]:
    base = fs.base_config(**fs.DEFAULT_SIZES)
    counts = fs.parameter_counts(base)
    check = fs.load_shipped(fs.CHECK_PATH)
    record = fs.load_shipped()
    cfg = fs.step_config(base, 4)
    builders = {
        "diff table": lambda: figs.diff_table(fs.diff_table(base, 4, counts), 4, fs.STEP_TITLES[4]),
        "wiring": lambda: figs.wiring(fs.wiring(cfg), "w"),
        "masks": lambda: figs.combined_masks([("a", fs.combined_mask(cfg, 6, 6)),
                                              ("b", fs.combined_mask(fs.decoder_only_config(base), 6, 6))]),
        "parameter counts (meta device)": lambda: fs.parameter_counts(base),
        "parameter bars": lambda: figs.parameter_bars(counts, "4", base.to_dict()),
        "logit check": lambda: figs.logit_check(check, 4),
        "ablation dots": lambda: figs.ablation(record),
    }
    return {name: median_seconds(fn, repeats=7)[0] for name, fn in builders.items()}


def main() -> None:
    reruns = _page_reruns()
    print("page rerun after a control move (AppTest, median of 12 with warm caches, of 5 with cleared ones):")
    for name, seconds in reruns.items():
        print(f"  {name:22s} {seconds * 1000:7.0f} ms")
    print("figure and data builders (median of 7):")
    for name, seconds in _figures().items():
        print(f"  {name:32s} {seconds * 1000:7.1f} ms")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        check, _ = median_seconds(lambda: fs.numeric_check(fs.base_config(**fs.DEFAULT_SIZES)), repeats=3)
        settings = fs.AblationSettings(seeds=(0,), variants=("4",))
        one_run, _ = median_seconds(lambda: fs.run_one(settings, "4", 0), repeats=3)
    finally:
        torch.set_num_threads(before)
    record = fs.load_shipped()
    print(f"numeric check at the default sizes (train 100 steps + 6 steps x 2 dtypes), 1 thread: {check:.2f} s")
    print(f"one ablation run (step 4, seed 0, {settings.steps} steps), 1 thread: {one_run:.2f} s; the shipped "
          f"ablation took {record['wall_seconds']:.0f} s for {len(record['runs'])} runs "
          f"(x{record['wall_seconds'] / len(record['runs']) / one_run:.2f} of this run's time per run)")
    print(f"step-move rerun / the 1 s budget: x{reruns['step']:.2f} warm, "
          f"x{reruns['step, caches cleared']:.2f} with every cache cleared")


if __name__ == "__main__":
    main()
