"""Slides 53-55 on a ladder: separate minus shared held-out loss on translation (negative: separate encoder and
decoder weights help), the shared model one stack of width d, the separate one narrowed to the same parameter
count (`explorer.experiments.shared_params.separate_config`), at widths 16x apart in parameters.

Two readings per seed. Parameter-matched (the effect): both trained for the same steps on the same batches.
FLOP-matched (`flop_matched`): the separate model, being narrower, spends fewer FLOPs per step, so the shared
model is also read at the step where its training FLOPs equal the separate model's whole run (a second WSD
decay branch of the same run, so it costs nothing extra).

The toy's translation (8 words, 16 per language) is learnt almost perfectly by a wide model, so the task grows
per rung: 4 more words and twice the vocabulary per language; steps grow as the square root of parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from explorer.experiments.shared_params import separate_config
from explorer.ladder import paired
from explorer.ladder.claim import Measured, Presets, Rung
from explorer.model import TransformerConfig
from explorer.progress import Progress
from explorer.tasks import FIRST_SYMBOL

DICTIONARY_SEED = 53  # the dictionary of a given size is fixed: every seed and rung of that size uses it

PRESETS = {
    # (shared width, words, symbols per language, steps): today's model (width 64, 106k parameters) to 16.6x
    "main": ((64, 8, 16, 300), (128, 12, 32, 600), (264, 16, 64, 1200)),
    # under a minute on two cores: the same rule at widths 16 -> 64, short runs, two seeds
    "quick": ((16, 8, 16, 40), (32, 8, 16, 80), (64, 8, 16, 160)),
}
GRIDS = {"main": (3e-4, 1e-3, 3e-3), "quick": (1e-3, 1e-2)}
SEPARATE, SHARED = "separate", "shared"


@dataclass(frozen=True)
class Translation:
    """Reverse `length` words of language A and look each up in a fixed dictionary into language B (the
    experiment's translation task, with its size as a parameter)."""

    length: int = 8
    half: int = 16  # words per language

    @property
    def vocab_size(self) -> int:
        return FIRST_SYMBOL + 2 * self.half

    input_len = property(lambda self: self.length)
    target_len = property(lambda self: self.length)

    def dictionary(self) -> torch.Tensor:
        return torch.randperm(self.half, generator=torch.Generator().manual_seed(DICTIONARY_SEED))

    def sample(self, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.randint(0, self.half, (batch_size, self.length), generator=generator)
        y = self.dictionary()[x.flip(1)] + self.half
        return x + FIRST_SYMBOL, y + FIRST_SYMBOL


def shared_config(width: int, task: Translation) -> TransformerConfig:
    return TransformerConfig(
        arch="encoder_decoder",
        vocab_size=task.vocab_size,
        d_model=width,
        n_heads=4,
        n_layers=2,
        max_len=task.length,
        share_cross_self=True,
        share_encoder_decoder=True,
    )


@dataclass(frozen=True)
class SharedParams(Presets):
    presets: ClassVar = PRESETS
    columns: ClassVar = ("width", "length", "half", "steps")
    grids: ClassVar = GRIDS
    name: str = "shared-params"
    effect: str = (
        "separate minus shared held-out loss on translation at equal parameters (negative: separate "
        "encoder and decoder weights help)"
    )
    lecture_sign: int = 0  # the case for separate weights weakens; the rule: explorer.ladder.verdict.lecture_reading
    prediction: str = (
        "separate weights pay where input and target differ, as in translation (slides 53-54); as "
        "models grow and serve many tasks, the case for separating them weakens (slide 55)"
    )
    growth: str = (
        "steps grow as the square root of parameters; translation gains 4 words and doubles each "
        "language's vocabulary per rung (main preset), so no rung saturates"
    )

    def pair(self, rung: Rung) -> paired.Pair:
        s = rung.settings
        task = Translation(s["length"], s["half"])
        shared = shared_config(s["width"], task)
        arms = {SEPARATE: separate_config(shared), SHARED: shared}
        probe = paired.Pair(arms, task, s["steps"], tuple(s["grid"]))
        same_flops = round(s["steps"] * probe.flops_per_step(SEPARATE) / probe.flops_per_step(SHARED))
        return paired.Pair(arms, task, s["steps"], tuple(s["grid"]), budgets={SHARED: (max(1, same_flops),)})

    def measure(self, rung: Rung, seeds: tuple[int, ...], device: str, progress: Progress, use_cache: bool) -> Measured:
        pair = self.pair(rung)
        out = paired.run(pair, seeds, device, progress, use_cache)
        steps, same_flops = pair.steps, pair.arm_budgets(SHARED)[0]
        return Measured(
            effects=paired.loss_gaps(out["runs"], SEPARATE, SHARED, steps, steps),
            params=pair.params(SHARED),
            flops=float(steps * pair.flops_per_step(SHARED)),
            seconds=out["seconds"],
            extra={
                "flop_matched": {
                    str(k): v for k, v in paired.loss_gaps(out["runs"], SEPARATE, SHARED, steps, same_flops).items()
                },
                "flop_matched_step": same_flops,
                "lr": out["lr"],
                "separate_params": pair.params(SEPARATE),
            },
        )
