"""The one run-time model: seconds = training FLOPs / a FLOP rate measured on this kind of machine.

A rate comes from runs already made (their total FLOPs over their total seconds, so small models' overheads count
as they did), else from a per-device fallback.
"""

from __future__ import annotations

import math
from typing import Iterable

FALLBACK_FLOPS_PER_SECOND = {"cpu": 2.0e9, "cuda": 2.0e11, "mps": 2.0e10}  # small models: overheads dominate


def measured_rate(runs: Iterable[tuple[float, float]]) -> float | None:
    """FLOPs per second over (flops, seconds) pairs of finished runs, all together; None when there is none."""
    pairs = [(f, s) for f, s in runs if s and s > 0 and f and f > 0 and math.isfinite(f / s)]
    return sum(f for f, _ in pairs) / sum(s for _, s in pairs) if pairs else None


def seconds(flops: float, rate: float | None = None, device: str = "cpu") -> float:
    """Wall time for `flops` of training at `rate` (FLOPs per second), or at the device's fallback rate."""
    return float(flops) / (rate or FALLBACK_FLOPS_PER_SECOND.get(device, FALLBACK_FLOPS_PER_SECOND["cpu"]))
