"""Depth page: the training speed per step at each depth (one thread, as the experiment runs), as medians.
Its slider-move reruns are timed with every other page's in bench_pages. Quick mode: the shallowest depth, a few
steps, once.
"""

from __future__ import annotations

from dataclasses import replace

from bench.stats import median_seconds
from explorer.experiments import depth as dp

DEPTHS = (2, 4, 8)


def training_step_seconds(depth: int, steps: int = 30, repeats: int = 3) -> float:
    cfg = replace(
        dp.PRESETS["main"],
        depths=(depth,),
        wirings=("final",),
        seeds=(0,),
        steps=steps,
        eval_every=steps,
        eval_size=32,
        probe_train=64,
        probe_test=32,
    )
    median, _ = median_seconds(lambda: dp.run_one(cfg, depth, "final", 0), repeats=repeats)
    return median / steps


def main(quick: bool = False) -> dict[int, float]:
    """Print and return the seconds per training step, by depth."""
    out = {}
    for depth in DEPTHS[:1] if quick else DEPTHS:
        out[depth] = training_step_seconds(depth, *((3, 1) if quick else ()))
        print(f"training, depth {depth}: {out[depth] * 1000:.1f} ms per step (incl. probes)")
    return out


if __name__ == "__main__":
    main()
