"""Do the results shipped in `data/` come from this project's own commands? Rerun them and say.

Two tiers, chosen per result from the environment it records (`explorer.environment`):
- **exact**: same torch, CPU capability, architecture, vendor and thread count; every rerun number must
  equal the shipped one bit for bit.
- **tolerance**: anywhere else. Training amplifies last-bit differences between CPU kernels, so the rerun
  is compared on what the page concludes, within `stats.rerun_tolerance` of the shipped seed spread
  (a rerun may differ as much as a fresh seed would, not more), and integer facts stay exact.

`quick` reruns a slice of each result (seconds each: what `make test` runs); the full mode retrains each
result whole (an hour or more on 2 cores: `make test-repro`). Results trained with a single seed get
their seed spread from two extra seeds trained by the check itself, in the tolerance tier only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from explorer import environment, shipped
from explorer.stats import mean_sd, rerun_tolerance

EXTRA_SEEDS = 3  # single-seed results: extra seeds trained to measure the seed spread (tolerance tier)


@dataclass(frozen=True)
class Comparison:
    """One number the page concludes from, shipped against rerun, and how far apart they may be."""

    what: str
    shipped: float
    rerun: float
    tolerance: float

    @property
    def holds(self) -> bool:
        return math.isfinite(self.rerun) and abs(self.rerun - self.shipped) <= self.tolerance

    def text(self) -> str:
        mark = "ok" if self.holds else "OUTSIDE"
        return (
            f"{self.what}: shipped {self.shipped:.6g}, rerun {self.rerun:.6g}, "
            f"|diff| {abs(self.rerun - self.shipped):.3g} <= {self.tolerance:.3g} {mark}"
        )


@dataclass
class Replay:
    """What a rerun gave: the first number that differs bit for bit ('' if none) and the comparisons."""

    difference: str
    comparisons: list[Comparison] = field(default_factory=list)
    spread: str = ""  # where the tolerance's seed spread comes from

    @property
    def identical(self) -> bool:
        return not self.difference


@dataclass(frozen=True)
class Check:
    """A shipped result and how to rerun it: `replay(record, quick, exact)` returns a Replay."""

    name: str
    path: Path
    replay: Callable[[dict, bool, bool], Replay]
    read: Callable[[Path], dict | None] = shipped.load

    def record(self) -> dict | None:
        return self.read(self.path)


def first_difference(a: object, b: object, where: str = "") -> str:
    """The path of the first value where two JSON-like structures differ ('' when equal bit for bit)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{where}.{key} (missing on one side)"
            found = first_difference(a[key], b[key], f"{where}.{key}")
            if found:
                return found
        return ""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{where} (length {len(a)} vs {len(b)})"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return ""
    return "" if a == b else f"{where or 'value'}: shipped {a!r}, rerun {b!r}"


def seed_comparison(
    what: str,
    shipped_all: list[float],
    shipped_same: list[float],
    rerun: list[float],
    resolution: float = 0.0,
    seed_sd: float | None = None,
) -> Comparison:
    """Compare the mean of `rerun` with the mean of the same seeds shipped, within the shipped seed spread
    (`seed_sd` when given, else the spread of `shipped_all`)."""
    sd = mean_sd(shipped_all)[1] if seed_sd is None else seed_sd
    return Comparison(
        what, float(np.mean(shipped_same)), float(np.mean(rerun)), rerun_tolerance(sd, len(rerun), resolution)
    )


def judge(check: Check, quick: bool = True, now: dict | None = None) -> dict:
    """Run one check: {name, tier, agrees, detail}; the detail says which tier ran and why."""
    now = now or environment.current(shipped.TRAINING_THREADS)
    record = check.record()
    if record is None:
        return {
            "name": check.name,
            "tier": "tolerance",
            "agrees": False,
            "detail": f"{check.path.name} is missing or unreadable",
        }
    made = shipped.environment_of(record)
    differences = environment.replay_difference(made, now)
    exact = not differences
    replay = check.replay(record, quick, exact)
    if exact:
        why = f"environment matches ({environment.describe(now)})"
        detail = f"{why}; {'bit-identical' if replay.identical else 'differs at ' + replay.difference}"
        return {"name": check.name, "tier": "exact", "agrees": replay.identical, "detail": detail}
    agrees = bool(replay.comparisons) and all(c.holds for c in replay.comparisons)
    detail = "; ".join(
        [
            f"environment differs ({', '.join(differences)})",
            "bit-identical" if replay.identical else "not bit-identical",
            *([replay.spread] if replay.spread else []),
            *(c.text() for c in replay.comparisons),
        ]
    )
    return {"name": check.name, "tier": "tolerance", "agrees": agrees, "detail": detail}


def reproduce(quick: bool = True, names: list[str] | None = None) -> dict:
    """Every shipped result (or those named), judged: {"environment": ..., "results": [...]}."""
    from explorer.reproduce_checks import CHECKS

    now = environment.current(shipped.TRAINING_THREADS)
    unknown = sorted(set(names or []) - {c.name for c in CHECKS})
    if unknown:
        raise ValueError(f"unknown result(s) {', '.join(unknown)}; shipped: {', '.join(c.name for c in CHECKS)}")
    chosen = [c for c in CHECKS if not names or c.name in names]
    return {"environment": now, "quick": quick, "results": [judge(c, quick, now) for c in chosen]}
