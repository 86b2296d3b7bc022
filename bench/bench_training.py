"""Training throughput per architecture (tokens/s, median of repeats) and `import explorer` cost.

Numbers to compare between runs on the same machine; the ratios are what travel between machines. Quick mode:
a few steps, one repeat.
"""

from __future__ import annotations

import subprocess
import sys

from bench.stats import interleaved
from explorer.model import ARCHITECTURES, TransformerConfig
from explorer.tasks import make_task
from explorer.train import TrainConfig, train

STEPS = 40
QUICK_STEPS = 4
TASK = make_task("sort", length=8, n_symbols=16)


def _trainer(arch: str, steps: int):
    cfg = TransformerConfig(
        arch=arch,
        vocab_size=TASK.vocab_size,
        d_model=64,
        n_heads=4,
        n_layers=2,
        max_len=TASK.input_len + TASK.target_len,
    )
    return lambda: train(cfg, TASK, TrainConfig(steps=steps, batch_size=32, eval_every=steps))


def _import_seconds(statement: str) -> float:
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def main(quick: bool = False) -> dict[str, float]:
    """Print the throughputs and import times; return tokens/s by architecture."""
    steps, repeats = (QUICK_STEPS, 1) if quick else (STEPS, 5)
    medians = interleaved({arch: _trainer(arch, steps) for arch in ARCHITECTURES}, repeats=repeats)
    tokens = {arch: steps * 32 * (TASK.input_len + TASK.target_len) for arch in ARCHITECTURES}
    tokens["encoder"] = steps * 32 * TASK.input_len
    base = tokens["decoder"] / medians["decoder"]
    print(f"training throughput, d=64 L=2, batch 32, sort-8, median of {repeats} x {steps} steps:")
    for arch in ARCHITECTURES:
        rate = tokens[arch] / medians[arch]
        print(f"  {arch:16s} {rate:10.0f} tokens/s   x{rate / base:.2f} of decoder")
    imports = {
        name: sorted(_import_seconds(stmt) for _ in range(repeats))[repeats // 2]
        for name, stmt in [("torch", "import torch"), ("explorer.model", "import explorer.model")]
    }
    print(
        f"import explorer.model: {imports['explorer.model']:.2f} s median, "
        f"x{imports['explorer.model'] / imports['torch']:.2f} of `import torch` alone"
    )
    return {arch: tokens[arch] / medians[arch] for arch in ARCHITECTURES}


if __name__ == "__main__":
    main()
