"""Learning-rate schedules, as a factor of the peak rate per optimizer step (steps count from 1).

- `constant`: linear warm-up, then constant (the old recipe). A run read at several budgets is read mid-flight.
- `wsd` (warm-up, stable, decay): the same trunk, and for every budget b a decay branch that leaves the trunk at
  step b - d(b) and lowers the rate linearly to near zero at step b, with d(b) = `decay_fraction` of b. Each
  budget is then read from a run that ended properly, at the cost of the branches' extra steps.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("constant", "wsd")


@dataclass(frozen=True)
class Schedule:
    kind: str = "constant"
    warmup: int = 20
    decay_fraction: float = 0.2

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"schedule must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.warmup < 0 or not 0 < self.decay_fraction <= 1:
            raise ValueError("warm-up must be >= 0 and the decay fraction in (0, 1]")

    def warm(self, step: int) -> float:
        """The trunk's factor at `step` (1-based): what `LambdaLR(min(1, (s + 1) / warmup))` gives step s + 1."""
        return min(1.0, step / max(1, self.warmup))

    def decay_steps(self, budget: int) -> int:
        """Length of the decay branch that ends at `budget` (none for the constant schedule)."""
        return max(1, round(self.decay_fraction * budget)) if self.kind == "wsd" else 0

    def branch_start(self, budget: int) -> int:
        """The trunk step after which the branch for `budget` leaves it."""
        return budget - self.decay_steps(budget)

    def factor(self, step: int, budget: int | None = None) -> float:
        """The factor at `step` on the trunk (budget None) or on the decay branch that ends at `budget`."""
        f = self.warm(step)
        if budget is None or self.kind == "constant":
            return f
        d = self.decay_steps(budget)
        return f * max(0.0, (budget - step + 1) / d) if step > budget - d else f

    def total_steps(self, budgets: tuple[int, ...]) -> int:
        """Optimizer steps a run read at `budgets` takes: the trunk plus every branch."""
        last = max(budgets)
        if self.kind == "constant":
            return last
        return self.branch_start(last) + sum(self.decay_steps(b) for b in budgets)

    def describe(self) -> str:
        if self.kind == "constant":
            return f"linear warm-up over {self.warmup} steps, then constant"
        return (
            f"WSD: linear warm-up over {self.warmup} steps, constant, then at every budget a branch that decays "
            f"linearly to zero over its last {self.decay_fraction:.0%} of steps"
        )
