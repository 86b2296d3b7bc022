"""The audit's decision rule on its own (the page proposes it; the slides do not state it): the page, the CLI
and the decision figure all apply it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from explorer import content
from explorer.audit.workbook import MEASURED
from explorer.formatting import sci

BOOK = "audit"  # the decision's sentences: content/<lang>/audit.md

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


def decide(
    budget: float,
    crossover: float | None,
    lo: float | None,
    hi: float | None,
    measured_range: tuple[float, float],
    more: str,
    less: str,
) -> Decision:
    """Ship the structured method below the crossover, validate the less-structured one above it.

    `lo`..`hi` is the crossover's uncertainty (the seeds' spread; `hi` is inf when some seeds never cross
    within the measured range). A budget or a crossover outside `measured_range` makes the answer an
    extrapolation, and it is labelled so.
    """
    r_lo, r_hi = measured_range
    if not (budget > 0 and r_lo > 0 and r_hi >= r_lo):
        raise ValueError("the budget and the measured range must be positive FLOP counts, lowest first")

    def say(section: str, **values: object) -> str:
        return content.text(BOOK, f"decision-{section}", more=more, less=less, budget=sci(budget), **values)

    where = say("where", lo=sci(r_lo), hi=sci(r_hi))
    if crossover is None:
        if not r_lo <= budget <= r_hi:
            return Decision(
                "extrapolation",
                "extrapolation",
                say("provisionally"),
                say("measure-there"),
                say("no-crossover-outside", where=where),
            )
        return Decision("no-crossover", MEASURED, more, say("extend", hi=sci(r_hi)), say("no-crossover", where=where))
    lo = crossover if lo is None else lo
    hi = crossover if hi is None else hi
    years = YEARS_PER_10X * math.log10(crossover / budget) if budget < crossover else None
    outside = [] if r_lo <= budget <= r_hi else [say("outside-budget")]
    if not r_lo <= crossover <= r_hi:
        outside.append(say("outside-crossover", crossover=sci(crossover)))
    if outside:
        side = say("side-below") if budget < lo else say("side-above") if budget > hi else say("side-inside")
        what = _capital(outside[0] if len(outside) == 1 else say("both", first=outside[0], second=outside[1]))
        return Decision(
            "extrapolation",
            "extrapolation",
            say("provisionally") if budget <= hi else say("nothing-new"),
            say("measure-before"),
            say("outside-one" if len(outside) == 1 else "outside-two", what=what, where=where, side=side),
            years,
        )
    span = say("span", lo=sci(lo), hi=sci(hi)) if hi < math.inf else say("span-open", lo=sci(lo), hi=sci(r_hi))
    if budget < lo:
        return Decision(
            "below",
            MEASURED,
            more,
            say("below-validate", lo=sci(lo)),
            say("below-reason", crossover=sci(crossover), span=span),
            years,
        )
    if budget <= hi:
        return Decision(
            "inside",
            MEASURED,
            say("for-now"),
            say("inside-validate", span=span),
            say("inside-reason", span=span),
            years,
        )
    return Decision(
        "above",
        MEASURED,
        say("once-validated"),
        say("above-validate"),
        say("above-reason", crossover=sci(crossover), span=span),
    )
