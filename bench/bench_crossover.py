"""Crossover sweep training: the seeds of a window as one batched (vmapped) model vs one model after another.

Both paths run the same models on the same data (the batched one uses the explicit-softmax attention that
`vmap` batches, the sequential one the fused kernel). Every window of the recipe, 3 seeds, a short run,
repeated and interleaved; one intra-op thread, as the experiment itself runs. The page's slider-move reruns
are timed with every other page's in bench_pages.
"""

from __future__ import annotations

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


def main() -> None:
    medians = interleaved({"batched": _sweep(True), "sequential": _sequential()}, repeats=REPEATS)
    n_models = len(PRESETS["main"].windows) * len(PRESETS["main"].seeds)
    print(f"crossover sweep, {n_models} models x {STEPS} steps (+{len(PRESETS['main'].checkpoints(STEPS))} small "
          f"evaluations), median of {REPEATS}, one thread:")
    for name, seconds in medians.items():
        print(f"  {name:10s} {seconds:6.2f} s   {seconds / (n_models * STEPS) * 1000:5.1f} ms per model-step")
    print(f"  batched is x{medians['sequential'] / medians['batched']:.2f} the speed of sequential")


if __name__ == "__main__":
    main()
