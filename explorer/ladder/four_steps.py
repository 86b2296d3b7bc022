"""Slides 40-51 on a ladder: how far step 4 (an encoder-decoder with shared, layer-aligned, causal stacks) lands
from decoder-only: step 4 minus decoder-only held-out loss on sorting (positive: step 4 worse), the same seed
giving both the same batches and held-out set, at widths 16x apart in parameters (`explorer.steps`'s models).

A wide model sorts the toy's 8 of 16 symbols perfectly, so the sort grows per rung (4 more tokens, twice the
symbols); steps grow as the square root of parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from explorer.ladder import paired
from explorer.ladder.claim import Measured, Presets, Rung
from explorer.model import TransformerConfig
from explorer.progress import Progress
from explorer.steps import decoder_only_config, step_config
from explorer.tasks import Seq2SeqTask

STEP = 4  # the last of the four steps (the joint softmax comes after it)
PRESETS = {
    # (width, tokens, symbols, steps): today's model (width 64, 103k parameters) to 16.7x
    "main": ((64, 8, 16, 250), (128, 12, 32, 500), (264, 16, 64, 1000)),
    # under a minute on two cores: the same rule at widths 16 -> 64, short runs, two seeds
    "quick": ((16, 8, 16, 40), (32, 8, 16, 80), (64, 8, 16, 160)),
}
GRIDS = {"main": (3e-4, 1e-3, 3e-3), "quick": (1e-3, 1e-2)}
STEP4, DECODER = "step 4", "decoder-only"


def base_config(width: int, task: Seq2SeqTask) -> TransformerConfig:
    return TransformerConfig(
        arch="decoder",
        vocab_size=task.vocab_size,
        d_model=width,
        n_heads=4,
        n_layers=2,
        max_len=task.input_len + task.target_len,
    )


@dataclass(frozen=True)
class FourSteps(Presets):
    presets: ClassVar = PRESETS
    columns: ClassVar = ("width", "length", "n_symbols", "steps")
    grids: ClassVar = GRIDS
    name: str = "four-steps"
    effect: str = "step 4 minus decoder-only held-out loss on sorting (positive: step 4 is worse)"
    lecture_sign: int = 0  # step 4 about as good as decoder-only; the rule: explorer.ladder.verdict.lecture_reading
    prediction: str = (
        "after the four steps an encoder-decoder is a decoder-only model but for one split softmax, "
        "so the distance should stay near nothing at every size (slides 40-51)"
    )
    growth: str = (
        "steps grow as the square root of parameters; the sort gains 4 tokens and doubles its symbols "
        "per rung (main preset), so no rung saturates"
    )

    def pair(self, rung: Rung) -> paired.Pair:
        s = rung.settings
        task = Seq2SeqTask("sort", s["length"], s["n_symbols"])
        base = base_config(s["width"], task)
        return paired.Pair(
            {STEP4: step_config(base, STEP), DECODER: decoder_only_config(base)}, task, s["steps"], tuple(s["grid"])
        )

    def measure(self, rung: Rung, seeds: tuple[int, ...], device: str, progress: Progress, use_cache: bool) -> Measured:
        pair = self.pair(rung)
        out = paired.run(pair, seeds, device, progress, use_cache)
        return paired.measured(
            pair, out, paired.loss_gaps(out["runs"], STEP4, DECODER, pair.steps, pair.steps), DECODER
        )
