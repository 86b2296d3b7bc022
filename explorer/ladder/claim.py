"""What a scale claim hands the ladder: its rungs per preset, and a function that measures one rung's paired
per-seed effects. Each claim lives in its own module; `registry` names them as the CLI does."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from explorer.progress import Progress


@dataclass(frozen=True)
class Rung:
    """One size on a ladder: its label and the claim's own settings for it (width, steps, task size...)."""

    label: str
    settings: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Measured:
    """One rung measured: the paired effect per seed, the models' parameters and the training FLOPs of one arm."""

    effects: dict[int, float]
    params: int
    flops: float
    seconds: float
    extra: dict = field(default_factory=dict)


class Claim(Protocol):
    name: str  # the CLI's CLAIM
    effect: str  # what the effect is, in one line (positive means ...)
    prediction: str  # what the lecture predicts of it as size grows, in one line
    lecture_sign: int  # the effect's sign the lecture expects at scale (0: it should fade)
    growth: str  # how compute and task difficulty grow along the ladder (the rule, stated)

    def rungs(self, preset: str) -> list[Rung]: ...

    def seeds(self, preset: str) -> tuple[int, ...]: ...

    def measure(
        self, rung: Rung, seeds: tuple[int, ...], device: str, progress: Progress, use_cache: bool
    ) -> Measured: ...


MeasureFn = Callable[[Rung, tuple[int, ...], str, Progress, bool], Measured]
