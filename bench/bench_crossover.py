"""Crossover sweep training: the seeds of a run as one batched (vmapped) model vs one model after another.

Both paths run the same models on the same data (the batched one uses the explicit-softmax attention that
`vmap` batches, the sequential one the fused kernel). Every window and width of the recipe at one learning
rate, 3 seeds, a short run, repeated and interleaved; one intra-op thread, as the experiment itself runs.
Also the quick preset the page trains live, whole, once. The page's slider-move reruns are timed with every
other page's in bench_pages. Quick mode: only the quick preset's models, a few steps, once.
"""

from __future__ import annotations

import time
from dataclasses import replace

from bench.stats import interleaved
from explorer.experiments.crossover import PRESETS, train_runs

STEPS = 60
QUICK_STEPS = 4
REPEATS = 3


CFG = replace(PRESETS["main"], steps=STEPS, eval_size=16, lrs=PRESETS["main"].lrs[:1])


def _sweep(cfg, batched: bool):
    cfg = replace(cfg, batched=batched)
    return lambda: train_runs(cfg, cfg.runs)


def _sequential(cfg):
    """One model at a time: each (run, seed) trained alone to the end before the next starts."""
    cfg = replace(cfg, batched=False)

    def run() -> None:
        for seed in cfg.seeds:
            one = replace(cfg, seeds=(seed,))
            train_runs(one, one.runs)  # runs interleave, but each model is on its own

    return run


def main(quick: bool = False) -> dict[str, float]:
    """Print the timings; return the sweep's median seconds, batched and sequential."""
    steps, repeats = (QUICK_STEPS, 1) if quick else (STEPS, REPEATS)
    cfg = replace(PRESETS["quick"], steps=steps, eval_size=16) if quick else CFG
    if not quick:
        start = time.perf_counter()
        run = train_runs(PRESETS["quick"], PRESETS["quick"].runs)
        print(
            f"quick preset (the page's live run): {time.perf_counter() - start:.1f} s wall, "
            f"{run['seconds']:.1f} s training"
        )
    medians = interleaved({"batched": _sweep(cfg, True), "sequential": _sequential(cfg)}, repeats=repeats)
    n_models = len(cfg.runs) * len(cfg.seeds)
    print(
        f"crossover sweep, {n_models} models x {steps} steps (+{len(cfg.checkpoints(steps))} small "
        f"evaluations), median of {repeats}, one thread:"
    )
    for name, seconds in medians.items():
        print(f"  {name:10s} {seconds:6.2f} s   {seconds / (n_models * steps) * 1000:5.1f} ms per model-step")
    print(f"  batched is x{medians['sequential'] / medians['batched']:.2f} the speed of sequential")
    return medians


if __name__ == "__main__":
    main()
