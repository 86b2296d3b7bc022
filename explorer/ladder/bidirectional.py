"""Slide 64 on a ladder: decoder-only minus prefix-LM held-out loss (positive: bidirectional input helps), the
same seed giving both masks the same weights and batches, at widths 16x apart in parameters.

Compute grows with size by a stated rule: steps double per rung while parameters grow about 4x (steps about the
square root of parameters, so training FLOPs grow as parameters to about 1.5), and the sort grows harder per rung
(4 more tokens and twice the symbols), since a wide model sorts 8 of 16 symbols perfectly and a loss near zero
says nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from explorer.costs import parameter_count
from explorer.experiments import bidirectional_scaling as bs
from explorer.ladder.claim import Measured, Presets, Rung
from explorer.progress import Progress

PRESETS = {
    # widths 64 -> 264: today's largest model of this claim (d=64, 103k parameters) to 16.7x its parameters
    "main": ((64, 8, 16, 200), (128, 12, 32, 400), (264, 16, 64, 800)),
    # under a minute on two cores: the same rule at widths 16 -> 64 with short runs and two seeds
    "quick": ((16, 8, 16, 40), (32, 8, 16, 80), (64, 8, 16, 160)),
}
# the reviewed recipe's grid spans 10x: wider models want smaller rates (a GPU run stalled at 3e-3 by width 256);
# the quick view pilots two rates only
GRIDS = {"main": (3e-4, 1e-3, 3e-3), "quick": (1e-3, 1e-2)}


@dataclass(frozen=True)
class Bidirectional(Presets):
    presets: ClassVar = PRESETS
    columns: ClassVar = ("width", "length", "n_symbols", "steps")
    grids: ClassVar = GRIDS
    name: str = "bidirectional"
    effect: str = "decoder-only minus prefix-LM held-out loss per target token (positive: bidirectional input helps)"
    lecture_sign: int = 0  # the gain should shrink towards nothing; the rule: explorer.ladder.verdict.lecture_reading
    prediction: str = "the gain from bidirectional input shrinks towards nothing as models grow (slide 64)"
    growth: str = (
        "steps grow as the square root of parameters; the sort gains 4 tokens and doubles its symbols "
        "per rung (main preset), so no rung saturates"
    )

    def config(self, rung: Rung, seeds: tuple[int, ...]) -> bs.ScalingConfig:
        s = rung.settings
        return bs.ScalingConfig(
            widths=(s["width"],),
            budgets=(s["steps"],),
            seeds=tuple(seeds),
            length=s["length"],
            n_symbols=s["n_symbols"],
            recipe="reviewed",
            lr_grid=tuple(s["grid"]),
            eval_size=256,
        )

    def measure(self, rung: Rung, seeds: tuple[int, ...], device: str, progress: Progress, use_cache: bool) -> Measured:
        cfg = self.config(rung, seeds)
        swept = bs.sweep(cfg, use_cache=use_cache, progress=progress, device=device)
        width, steps = rung.settings["width"], rung.settings["steps"]
        effects = bs.paired_gaps(swept).get((width, steps), {})
        return Measured(
            effects=effects,
            params=parameter_count(cfg.model_config(width, "decoder")),
            flops=float(steps * cfg.flops_per_step(width)),
            seconds=float(swept["seconds"]),
            extra={"recipe": swept["recipe"]},
        )
