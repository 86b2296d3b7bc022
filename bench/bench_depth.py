"""Depth page: the training speed per step at each depth (one thread, as the experiment runs), as medians.
Its slider-move reruns are timed with every other page's in bench_pages.
"""

from __future__ import annotations

from dataclasses import replace

from bench.stats import median_seconds
from explorer.experiments import depth as dp

DEPTHS = (2, 4, 8)


def training_step_seconds(depth: int, steps: int = 30) -> float:
    cfg = replace(dp.PRESETS["main"], depths=(depth,), wirings=("final",), seeds=(0,), steps=steps,
                  eval_every=steps, eval_size=32, probe_train=64, probe_test=32)
    median, _ = median_seconds(lambda: dp.run_one(cfg, depth, "final", 0), repeats=3)
    return median / steps


def main() -> None:
    for depth in DEPTHS:
        print(f"training, depth {depth}: {training_step_seconds(depth) * 1000:.1f} ms per step (incl. probes)")


if __name__ == "__main__":
    main()
