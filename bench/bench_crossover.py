"""Crossover sweep training: the seeds of a window as one batched (vmapped) model vs one model after another.

Both paths run the same models on the same data (the batched one uses the explicit-softmax attention that
`vmap` batches, the sequential one the fused kernel). Every window of the recipe, 3 seeds, a short run,
repeated and interleaved; one intra-op thread, as the experiment itself runs. Also the page's rerun time
for a slider move on shipped results (AppTest, cached analysis), median of several moves.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import replace

from bench.stats import interleaved
from explorer.experiments.crossover import PRESETS, train_windows

STEPS = 60
REPEATS = 3


def _sweep(batched: bool):
    cfg = replace(PRESETS["main"], steps=STEPS, eval_size=16, batched=batched)
    return lambda: train_windows(cfg)


def _sequential():
    """One model at a time: each (window, seed) trained alone to the end before the next starts."""
    cfg = replace(PRESETS["main"], steps=STEPS, eval_size=16, batched=False)

    def run() -> None:
        for seed in cfg.seeds:
            train_windows(replace(cfg, seeds=(seed,)))  # windows interleave, but each model is on its own
    return run


def page_rerun_seconds(moves: int = 7) -> tuple[float, float]:
    """Median seconds of a page rerun after moving the budget slider, and of the first (cold) run."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT

    at = AppTest.from_file(str(ROOT / "pages" / "inductive_bias.py"), default_timeout=120)
    start = time.perf_counter()
    at.run()
    cold = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(f"the page failed: {at.exception[0].value}")
    slider = next(s for s in at.slider if s.key == "budget")
    times = []
    for i in range(moves):
        slider.set_value(round(9.0 + 0.2 * i, 1))
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        if at.exception:
            raise RuntimeError(f"the page failed: {at.exception[0].value}")
        slider = next(s for s in at.slider if s.key == "budget")
    return statistics.median(times), cold


def main() -> None:
    medians = interleaved({"batched": _sweep(True), "sequential": _sequential()}, repeats=REPEATS)
    n_models = len(PRESETS["main"].windows) * len(PRESETS["main"].seeds)
    print(f"crossover sweep, {n_models} models x {STEPS} steps (+{len(PRESETS['main'].checkpoints(STEPS))} small "
          f"evaluations), median of {REPEATS}, one thread:")
    for name, seconds in medians.items():
        print(f"  {name:10s} {seconds:6.2f} s   {seconds / (n_models * STEPS) * 1000:5.1f} ms per model-step")
    print(f"  batched is x{medians['sequential'] / medians['batched']:.2f} the speed of sequential")
    median, cold = page_rerun_seconds()
    print(f"inductive-bias page: slider move reruns in {median * 1000:.0f} ms (median of 7), first run {cold:.1f} s")


if __name__ == "__main__":
    main()
