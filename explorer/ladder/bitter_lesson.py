"""Slides 8-9 on a ladder: the general method (the Transformer reading raw words) minus the hand-built method
(a small MLP on a lexicon's vote and a count of "not"s) in held-out loss on the "order" reviews, where a "not" as
the first word turns the verdict (negative: the general method wins), the same seed giving both the same stream
of reviews and the same held-out set (`explorer.experiments.bitter_lesson`, run with its reviewed recipe).

Only the Transformer grows: the hand-built method is what a person believed, and belief does not scale with
compute, which is the lecture's point. Its rate is still chosen per rung by its own pilots. Steps grow as the
square root of the Transformer's parameters, and reviews grow longer per rung (16, 24, 32 words): counting over
more words is harder for the Transformer, while the counts' floor stays a closed form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from explorer.costs import parameter_count
from explorer.experiments import bitter_lesson as bl
from explorer.ladder.claim import Measured, Presets, Rung
from explorer.progress import Progress

CASE = "order"
PRESETS = {
    # (Transformer width, words per review, steps): today's model (width 32, 13.9k parameters) to 16.7x
    "main": ((32, 16, 1500), (64, 24, 3000), (136, 32, 6000)),
    # under a minute on two cores: the same rule at widths 8 -> 32, short runs, two seeds
    "quick": ((8, 16, 200), (16, 16, 400), (32, 16, 800)),
}
GRIDS = {"main": (3e-4, 1e-3, 3e-3, 1e-2), "quick": (1e-3, 1e-2)}  # the hand-built method's: 10x these


@dataclass(frozen=True)
class BitterLesson(Presets):
    presets: ClassVar = PRESETS
    columns: ClassVar = ("width", "length", "steps")
    grids: ClassVar = GRIDS
    name: str = "bitter-lesson"
    effect: str = (
        "Transformer minus hand-built held-out loss on reviews whose first word can turn the verdict "
        "(negative: the general method wins)"
    )
    lecture_sign: int = -1  # the general method ahead (below 0); the rule: explorer.ladder.verdict.lecture_reading
    prediction: str = (
        "general methods that use more compute beat the knowledge people build in, by more as "
        "compute grows (slides 8-9)"
    )
    growth: str = (
        "only the Transformer grows; steps grow as the square root of its parameters; reviews grow from "
        "16 to 24 to 32 words (main preset)"
    )

    def config(self, rung: Rung, seeds: tuple[int, ...]) -> bl.BitterConfig:
        s = rung.settings
        return bl.BitterConfig(
            cases=(CASE,),
            seeds=tuple(seeds),
            length=s["length"],
            steps=s["steps"],
            first_checkpoint=s["steps"],
            d_model=s["width"],
            recipe="reviewed",
            lr_grid=tuple(s["grid"]),
            eval_size=512,
        )

    def measure(self, rung: Rung, seeds: tuple[int, ...], device: str, progress: Progress, use_cache: bool) -> Measured:
        cfg = self.config(rung, seeds)
        out = bl.run(cfg, progress, device)
        final = {(r["method"], r["seed"]): r["loss"][-1] for r in out["runs"] if r["loss"] and r["stopped"] == "steps"}
        effects = {
            s: final[("transformer", s)] - final[("hand-built", s)]
            for s in seeds
            if ("transformer", s) in final and ("hand-built", s) in final
        }
        per_example = cfg.flops_per_example("transformer")
        return Measured(
            effects=effects,
            params=parameter_count(cfg.transformer()),
            flops=float(cfg.steps * cfg.batch_size * per_example),
            seconds=sum(r.get("seconds", 0.0) for r in out["runs"]),
            extra={"lr": out["recipe"]["lr_by_size"], "floor": bl.floors(cfg, CASE)},
        )
