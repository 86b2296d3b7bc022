"""Seeds batched with vmap against one model after another, per device: the lab batches seeds only where this
says it is faster (`explorer.experiments.crossover.BATCHED_ON`). Every window and width of the crossover's main
recipe at one learning rate, 3 seeds, a short run; median of interleaved repeats (machine noise hits both alike).
`python -m bench.bench_vmap [device] [steps] [repeats]` prints the JSON; in `python -m bench` it runs on the CPU
(quick mode: the quick preset's models, 2 steps, once)."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace

from bench.stats import interleaved
from explorer.experiments.crossover import PRESETS, train_runs
from explorer.lab import device as lab_device


def measure(device: str = "cpu", steps: int = 30, repeats: int = 3, preset: str = "main") -> dict:
    lab_device.use(device)
    cfg = replace(PRESETS[preset], steps=steps, eval_size=16, lrs=PRESETS[preset].lrs[:1])
    fns = {
        name: (lambda b=batched: train_runs(replace(cfg, batched=b), cfg.runs))
        for name, batched in (("batched", True), ("one_by_one", False))
    }
    start = time.perf_counter()
    medians = interleaved(fns, repeats)
    return {
        "device": lab_device.current(),
        "steps": steps,
        "repeats": repeats,
        "runs": len(cfg.runs),
        "seeds": len(cfg.seeds),
        "median_seconds": medians,
        "batched_speed": medians["one_by_one"] / medians["batched"],
        "wall_seconds": time.perf_counter() - start,
    }


def run() -> dict:
    return measure()


def main(quick: bool = False) -> dict:
    """Print and return the CPU timing of batched against one-by-one seeds."""
    r = measure("cpu", *((2, 1, "quick") if quick else (30, 3)))
    m = r["median_seconds"]
    print(
        f"{r['runs']} runs x {r['seeds']} seeds x {r['steps']} steps on {r['device']}, median of {r['repeats']}: "
        f"batched {m['batched']:.2f} s, one by one {m['one_by_one']:.2f} s, batched x{r['batched_speed']:.2f} "
        f"the speed"
    )
    return r


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(measure(args[0] if args else "cpu", *(int(a) for a in args[1:3]))))
