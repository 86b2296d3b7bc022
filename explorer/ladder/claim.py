"""What a scale claim hands the ladder: its rungs per preset, and a function that measures one rung's paired
per-seed effects. Each claim lives in its own module; `registry` names them as the CLI does. A claim states its
presets as rows of numbers (`Presets`); how rows become rungs, and the seeds every ladder uses, live here once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ClassVar, Protocol

from explorer.lab.recipe import LabRecipe
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


SEEDS = {"main": (0, 1, 2, 3), "quick": (0, 1)}  # every ladder: 4 paired seeds per rung, 2 on the live view


class Presets:
    """The rungs of a claim from its `presets` (preset -> rows whose first number is the width; `columns` names
    a row's numbers) and `grids` (preset -> learning-rate grid): every rung labelled by its width."""

    presets: ClassVar[dict[str, tuple[tuple[int, ...], ...]]]
    columns: ClassVar[tuple[str, ...]]
    grids: ClassVar[dict[str, tuple[float, ...]]]

    def rungs(self, preset: str) -> list[Rung]:
        return [
            Rung(f"d={row[0]}", {**dict(zip(self.columns, row, strict=True)), "grid": tuple(self.grids[preset])})
            for row in self.presets[preset]
        ]

    def seeds(self, preset: str) -> tuple[int, ...]:
        return SEEDS[preset]

    def recipe(self, preset: str) -> dict:
        """The recipe every rung of `preset` is trained with (each rung records the rates its pilots chose)."""
        return LabRecipe("reviewed", lr_grid=self.grids[preset]).record()


class Claim(Protocol):
    name: str  # the CLI's CLAIM
    effect: str  # what the effect is, in one line (positive means ...)
    prediction: str  # what the lecture predicts of it as size grows, in one line
    lecture_sign: int  # the effect's sign the lecture expects at scale (0: it should fade)
    growth: str  # how compute and task difficulty grow along the ladder (the rule, stated)

    def rungs(self, preset: str) -> list[Rung]: ...

    def seeds(self, preset: str) -> tuple[int, ...]: ...

    def recipe(self, preset: str) -> dict: ...

    def measure(
        self, rung: Rung, seeds: tuple[int, ...], device: str, progress: Progress, use_cache: bool
    ) -> Measured: ...


MeasureFn = Callable[[Rung, tuple[int, ...], str, Progress, bool], Measured]
