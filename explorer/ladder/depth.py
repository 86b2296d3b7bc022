"""Slides 59-63 on a ladder: layer-aligned minus final-layer held-out token accuracy at depth 8 (positive: letting
decoder layer l read encoder layer l helps), both wirings from the same initial weights and batches, at widths 16x
apart in parameters (`explorer.experiments.depth`'s models and majority-shifted copy, with width and task size
as parameters).

A wide model learns the toy's copy of 9 symbols almost perfectly, so the task grows per rung: 4 more symbols and
twice the alphabet. Steps stay at the toy's 600, so training compute grows in proportion to parameters: a
deep model is slow on two cores, and the square-root rule of the other ladders would take this one past two
hours there (its top rung belongs on an accelerator, `--top 1 --device cuda`, where steps could grow too)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from explorer.experiments.depth import MajorityShiftedCopy
from explorer.ladder import paired
from explorer.ladder.claim import Measured, Presets, Rung
from explorer.model import TransformerConfig
from explorer.progress import Progress

DEPTH = 8  # layers per stack: today's deepest model of the claim
PRESETS = {
    # (width, symbols in the input, alphabet, steps): today's deepest model (width 32, 240k parameters) to 16.5x
    "main": ((32, 9, 16, 600), (64, 13, 32, 600), (132, 17, 64, 600)),
    # under a minute on two cores: the same depth and rule at widths 8 -> 32, short runs, two seeds
    "quick": ((8, 9, 16, 60), (16, 9, 16, 60), (32, 9, 16, 60)),
}
GRIDS = {"main": (3e-4, 1e-3, 3e-3), "quick": (1e-3, 1e-2)}
ALIGNED, FINAL = "aligned", "final"


def wiring_config(width: int, task: MajorityShiftedCopy, wiring: str) -> TransformerConfig:
    return TransformerConfig(
        arch="encoder_decoder",
        vocab_size=task.vocab_size,
        d_model=width,
        n_heads=4,
        n_layers=DEPTH,
        max_len=2 * task.length,
        layer_aligned=wiring == ALIGNED,
    )


@dataclass(frozen=True)
class Depth(Presets):
    presets: ClassVar = PRESETS
    columns: ClassVar = ("width", "length", "n_symbols", "steps")
    grids: ClassVar = GRIDS
    name: str = "depth"
    effect: str = (
        "layer-aligned minus final-layer held-out token accuracy at depth 8 (positive: decoder layer l "
        "reading encoder layer l helps)"
    )
    lecture_sign: int = 1  # layer-aligned reading ahead (above 0); the rule: explorer.ladder.verdict.lecture_reading
    prediction: str = (
        "reading only the encoder's final layer makes deep models harder to train; layer-aligned "
        "reading, as decoder-only models do, helps more as models grow deep (slides 59-63)"
    )
    growth: str = (
        "depth stays 8 while width grows; steps stay at 600, so compute grows in proportion to "
        "parameters; the copy gains 4 symbols and doubles its alphabet per rung (main preset), so no "
        "rung saturates"
    )

    def pair(self, rung: Rung) -> paired.Pair:
        s = rung.settings
        task = MajorityShiftedCopy(s["length"], s["n_symbols"])
        return paired.Pair(
            {w: wiring_config(s["width"], task, w) for w in (ALIGNED, FINAL)}, task, s["steps"], tuple(s["grid"])
        )

    def measure(self, rung: Rung, seeds: tuple[int, ...], device: str, progress: Progress, use_cache: bool) -> Measured:
        pair = self.pair(rung)
        out = paired.run(pair, seeds, device, progress, use_cache)
        effects = paired.loss_gaps(out["runs"], ALIGNED, FINAL, pair.steps, pair.steps, metric="eval_accuracy")
        losses = paired.loss_gaps(out["runs"], ALIGNED, FINAL, pair.steps, pair.steps)
        return paired.measured(pair, out, effects, FINAL, loss_gap={str(k): v for k, v in losses.items()})
