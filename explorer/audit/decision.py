"""The audit's decision rule on its own (the page proposes it; the slides do not state it): the page, the CLI
and the decision figure all apply it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from explorer.audit.workbook import MEASURED
from explorer.formatting import sci

YEARS_PER_10X = 5.0  # slide 7's rate: compute per dollar grows 10x every 5 years (a fit, not a law)


@dataclass(frozen=True)
class Decision:
    case: str  # below | inside | above | no-crossover | extrapolation
    evidence: str  # "measured" when the budget and the crossover lie in the measured range, else "extrapolation"
    ship: str
    validate: str
    reason: str
    years: float | None = None  # years until the budget reaches the crossover at slide 7's rate (an extrapolation)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def decide(budget: float, crossover: float | None, lo: float | None, hi: float | None,
           measured_range: tuple[float, float], more: str, less: str) -> Decision:
    """Ship the structured method below the crossover, validate the less-structured one above it.

    `lo`..`hi` is the crossover's uncertainty (the seeds' spread; `hi` is inf when some seeds never cross
    within the measured range). A budget or a crossover outside `measured_range` makes the answer an
    extrapolation, and it is labelled so.
    """
    r_lo, r_hi = measured_range
    if not (budget > 0 and r_lo > 0 and r_hi >= r_lo):
        raise ValueError("the budget and the measured range must be positive FLOP counts, lowest first")
    where = f"the measured range {sci(r_lo)} to {sci(r_hi)} FLOPs"
    if crossover is None:
        if not r_lo <= budget <= r_hi:
            return Decision("extrapolation", "extrapolation", f"{more}, provisionally",
                            f"Measure both methods at {sci(budget)} FLOPs: nothing is measured there.",
                            f"No crossover was observed in {where}, and your budget {sci(budget)} lies outside "
                            "it: anything said about it is an extrapolation, not a measurement.")
        return Decision("no-crossover", MEASURED, more,
                        f"Extend both curves beyond {sci(r_hi)} FLOPs: a crossover there, if any, is unmeasured.",
                        f"{less} did not overtake {more} in {where}.")
    lo = crossover if lo is None else lo
    hi = crossover if hi is None else hi
    years = YEARS_PER_10X * math.log10(crossover / budget) if budget < crossover else None
    outside = [] if r_lo <= budget <= r_hi else [f"your budget {sci(budget)}"]
    if not r_lo <= crossover <= r_hi:
        outside.append(f"the crossover {sci(crossover)}")
    if outside:
        side = "below" if budget < lo else "above" if budget > hi else "inside the uncertainty of"
        return Decision(
            "extrapolation", "extrapolation",
            f"{more}, provisionally" if budget <= hi else f"nothing new until {less} is validated",
            f"Measure both methods at {sci(budget)} FLOPs before deciding; report that crossover with its spread.",
            f"{_capital(' and '.join(outside))} {'lies' if len(outside) == 1 else 'lie'} outside {where}. "
            f"Read past the data, your budget sits {side} the crossover, but that is an extrapolation, not a "
            "measurement.", years)
    span = f"{sci(lo)} to {sci(hi)}" if hi < math.inf else f"{sci(lo)} to beyond {sci(r_hi)} (some seeds never cross)"
    if budget < lo:
        return Decision("below", MEASURED, more,
                        f"Keep training {less} alongside: re-measure both as your budget approaches {sci(lo)}, "
                        "and keep both curves and their failure cases.",
                        f"Your budget {sci(budget)} lies below the crossover {sci(crossover)} (seeds: {span}), "
                        f"where {more} is ahead.", years)
    if budget <= hi:
        return Decision("inside", MEASURED, f"{more}, for now",
                        f"Run more seeds at {sci(budget)} FLOPs: the crossover's spread ({span}) covers your "
                        "budget, so this measurement cannot tell which method wins there.",
                        f"Your budget {sci(budget)} lies inside the crossover's uncertainty ({span}).", years)
    return Decision("above", MEASURED, f"{less}, once validated at your budget",
                    f"Validate {less} at {sci(budget)} FLOPs against {more} before shipping it; keep {more} as the "
                    "baseline and record its failure cases.",
                    f"Your budget {sci(budget)} lies above the crossover {sci(crossover)} (seeds: {span}), where "
                    f"{less} has overtaken.")

