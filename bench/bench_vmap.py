"""Seeds batched with vmap against one model after another, per device: the lab batches seeds only where this
says it is faster (`explorer.experiments.crossover.BATCHED_ON`). Every window and width of the crossover's main
recipe at one learning rate, 3 seeds, a short run; median of interleaved repeats (machine noise hits both alike).
`python -m bench.bench_vmap [device] [steps] [repeats]`."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace

from bench.stats import interleaved
from explorer.experiments.crossover import PRESETS, train_runs
from explorer.lab import device as lab_device


def measure(device: str = "cpu", steps: int = 30, repeats: int = 3) -> dict:
    lab_device.use(device)
    cfg = replace(PRESETS["main"], steps=steps, eval_size=16, lrs=PRESETS["main"].lrs[:1])
    fns = {name: (lambda b=batched: train_runs(replace(cfg, batched=b), cfg.runs))
           for name, batched in (("batched", True), ("one_by_one", False))}
    start = time.perf_counter()
    medians = interleaved(fns, repeats)
    return {"device": lab_device.current(), "steps": steps, "repeats": repeats, "runs": len(cfg.runs),
            "seeds": len(cfg.seeds), "median_seconds": medians,
            "batched_speed": medians["one_by_one"] / medians["batched"], "wall_seconds": time.perf_counter() - start}


def run() -> dict:
    return measure()


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(measure(args[0] if args else "cpu", *(int(a) for a in args[1:3]))))
