"""The ladder's summary per rung and its verdict, by a rule fixed before any rung was run.

A rung's effect is the seed mean of paired per-seed effects (the two designs trained on the same seed); its
interval is the seed range (lowest, highest seed), not a confidence interval: with 4-8 seeds the exact sign-flip
test cannot go below 2 / 2**n (0.125 with 4), so the verdict is descriptive and says so.

The toy's verdict is the sign of the lowest rung's mean. At the top rung:
  holds     every seed has that sign;
  flips     every seed has the other sign;
  vanishes  the seeds disagree in sign and the mean has shrunk to at most VANISH_SHARE of the lowest rung's;
  unclear   anything else (the seeds disagree but the mean has not shrunk, or the lowest rung has no sign).
"""

from __future__ import annotations

import math
from typing import Sequence

VERDICTS = ("holds", "flips", "vanishes", "unclear")
VANISH_SHARE = 0.25


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def rung_summary(effects: Sequence[float], reference_sign: int) -> dict:
    """Mean, seed range, seed count and how many seeds share `reference_sign` (the toy's sign)."""
    values = [float(v) for v in effects if math.isfinite(v)]
    if not values:
        return {"effect": float("nan"), "low": float("nan"), "high": float("nan"), "seeds": 0, "same_sign": 0}
    return {
        "effect": sum(values) / len(values),
        "low": min(values),
        "high": max(values),
        "seeds": len(values),
        "same_sign": sum(_sign(v) == reference_sign and reference_sign != 0 for v in values),
    }


def reference_sign(lowest_rung_effects: Sequence[float]) -> int:
    """The toy's verdict: the sign of the lowest rung's seed mean (0 when it has none)."""
    values = [v for v in lowest_rung_effects if math.isfinite(v)]
    return _sign(sum(values) / len(values)) if values else 0


def verdict(rungs: Sequence[dict]) -> str:
    """holds, flips, vanishes or unclear (the module's rule) from rung summaries, lowest rung first."""
    if len(rungs) < 2 or rungs[0]["seeds"] == 0 or rungs[-1]["seeds"] == 0:
        return "unclear"
    first, top = rungs[0], rungs[-1]
    if _sign(first["effect"]) == 0:
        return "unclear"
    if top["same_sign"] == top["seeds"]:
        return "holds"
    if top["same_sign"] == 0 and top["low"] * top["high"] > 0:
        return "flips"
    if abs(top["effect"]) <= VANISH_SHARE * abs(first["effect"]):
        return "vanishes"
    return "unclear"


LECTURE_READINGS = ("agrees", "against", "mixed")


def lecture_reading(rungs: Sequence[dict], lecture_sign: int) -> str:
    """Whether the top rung goes the lecture's way, by a rule fixed with the verdict's. Where the lecture expects
    a sign at scale: every top-rung seed with that sign is "agrees", every seed with the other is "against". Where it
    expects the effect to fade (sign 0): a "vanishes" verdict agrees; every seed of one sign, with a mean no smaller
    than the lowest rung's, is "against". Anything else is "mixed"."""
    seeds = [float(v) for v in rungs[-1].get("per_seed", {}).values() if math.isfinite(v)] if rungs else []
    if not seeds:
        return "mixed"
    signs = {_sign(v) for v in seeds}
    if lecture_sign:
        return "agrees" if signs == {lecture_sign} else "against" if signs == {-lecture_sign} else "mixed"
    if verdict(rungs) == "vanishes":
        return "agrees"
    persists = len(signs) == 1 and 0 not in signs and abs(rungs[-1]["effect"]) >= abs(rungs[0]["effect"])
    return "against" if persists else "mixed"
