"""Slides 10-15 on a ladder: a local attention window (structure) against full attention on multi-lag recall
(`explorer.recall`): windowed minus full held-out loss (negative: the structure helps), both one-layer decoders
of the same width, trained from the same initial weights on the same batches, at widths 16x apart in parameters.

The toy's crossover says structure wins while compute is small and general attention wins once compute is large;
on a ladder, compute grows with the model, so the lecture expects the windowed model's lead to turn into a
deficit. A window of 8 sees lag 1, 3 and 7 but not 15 or 31 (a ceiling), full attention can learn them all.

A one-layer model recalls the toy's 8 symbols well once wide, so the alphabet doubles per rung; steps grow as the
square root of parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch
import torch.nn.functional as F
from torch import nn

from explorer.costs import TRAIN_FLOPS_PER_FORWARD, stack_forward_flops
from explorer.ladder import paired
from explorer.ladder.claim import Measured, Presets, Rung
from explorer.model import Transformer, TransformerConfig
from explorer.progress import Progress
from explorer.recall import IGNORE, LAGS, WEIGHTS, MultiLagRecall, per_lag_accuracy, weighted
from explorer.train import EVAL_SEED_OFFSET

WINDOW, LENGTH, POS_INIT_STD = 8, 48, 0.3  # the sweep's middle window, its sequence length and position init
PRESETS = {
    # (width, -, symbols, steps): today's widest model (width 64, 53k parameters) to 16x and more
    "main": ((64, LENGTH, 8, 400), (128, LENGTH, 16, 800), (264, LENGTH, 32, 1600)),
    # under a minute on two cores: the same rule at widths 16 -> 64, short runs, two seeds
    "quick": ((16, LENGTH, 8, 80), (32, LENGTH, 8, 160), (64, LENGTH, 8, 320)),
}
GRIDS = {"main": (1e-3, 3e-3, 1e-2), "quick": (1e-3, 1e-2)}
WINDOWED, FULL = "windowed", "full"


@dataclass(frozen=True)
class RecallLab:
    """Multi-lag recall under the lab's task protocol: loss is the cross-entropy averaged per lag over labelled
    positions, then over lags weighted as the sweep weights its score; accuracy the weighted accuracy."""

    task: MultiLagRecall

    def batches(self, n: int, generator: torch.Generator, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.task.sample(n, generator)
        return x.to(device), self.task.labels(x).to(device)

    def _scores(self, model: nn.Module, batch: tuple) -> tuple[torch.Tensor, torch.Tensor]:
        x, labels = batch
        v = self.task.n_symbols
        logits = model(x).logits.view(*labels.shape, v)  # [B, T, J, V]
        ce = F.cross_entropy(logits.reshape(-1, v), labels.reshape(-1), ignore_index=IGNORE, reduction="none")
        per_lag = ce.view(labels.shape).sum(dim=(0, 1)) / (labels != IGNORE).sum(dim=(0, 1))
        w = torch.tensor(WEIGHTS, dtype=per_lag.dtype, device=per_lag.device)
        acc = weighted(per_lag_accuracy(logits.argmax(-1), labels).cpu(), WEIGHTS)
        return per_lag @ (w / w.sum()), acc

    def loss(self, model: nn.Module, batch: tuple) -> tuple[torch.Tensor, torch.Tensor]:
        return self._scores(model, batch)

    def readout(self, model: nn.Module, batch: tuple) -> dict[str, float]:
        loss, acc = self._scores(model, batch)
        return {"eval_loss": float(loss), "eval_accuracy": float(acc)}


@dataclass(frozen=True)
class Recall:
    """What `explorer.ladder.paired` needs of a task outside `explorer.train`: the lab task, seeded initial
    weights (the sweep's position init), the seed's held-out set and the FLOPs of one step."""

    n_symbols: int = 8
    length: int = LENGTH

    @property
    def recall(self) -> MultiLagRecall:
        return MultiLagRecall(length=self.length, n_symbols=self.n_symbols, lags=LAGS)

    def lab_task(self) -> RecallLab:
        return RecallLab(self.recall)

    def init(self, cfg: TransformerConfig, seed: int) -> Transformer:
        torch.manual_seed(seed)  # the same initial weights for both windows of a seed
        model = Transformer(cfg)
        torch.nn.init.normal_(model.pos_emb.weight, std=POS_INIT_STD)
        return model

    def held_out(self, n: int, seed: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        return self.lab_task().batches(n, torch.Generator().manual_seed(seed + EVAL_SEED_OFFSET), device)

    def flops_per_step(self, cfg: TransformerConfig, batch_size: int) -> int:
        return TRAIN_FLOPS_PER_FORWARD * batch_size * stack_forward_flops(cfg, self.length, self.length)


def window_config(width: int, task: Recall, window: int | None) -> TransformerConfig:
    return TransformerConfig(
        arch="decoder",
        vocab_size=task.n_symbols,
        n_out=task.n_symbols * len(LAGS),
        d_model=width,
        n_heads=4,
        n_layers=1,
        max_len=task.length,
        window=window,
    )


@dataclass(frozen=True)
class Crossover(Presets):
    presets: ClassVar = PRESETS
    columns: ClassVar = ("width", "length", "n_symbols", "steps")
    grids: ClassVar = GRIDS
    name: str = "crossover"
    effect: str = (
        f"window-{WINDOW} minus full-attention held-out loss on multi-lag recall (negative: the local structure helps)"
    )
    lecture_sign: int = (
        1  # full attention ahead at large compute (above 0); the rule: explorer.ladder.verdict.lecture_reading
    )
    prediction: str = (
        "structure helps while compute is small and caps what large compute buys, so the windowed "
        "model's lead should turn into a deficit as model and compute grow (slides 10-15)"
    )
    growth: str = (
        "steps grow as the square root of parameters, so compute grows about as parameters to 1.5; the "
        "alphabet doubles per rung (main preset), so recall does not saturate"
    )

    def pair(self, rung: Rung) -> paired.Pair:
        s = rung.settings
        task = Recall(s["n_symbols"], s["length"])
        return paired.Pair(
            {WINDOWED: window_config(s["width"], task, WINDOW), FULL: window_config(s["width"], task, None)},
            task,
            s["steps"],
            tuple(s["grid"]),
            batch_size=16,
            eval_size=128,
        )

    def measure(self, rung: Rung, seeds: tuple[int, ...], device: str, progress: Progress, use_cache: bool) -> Measured:
        pair = self.pair(rung)
        out = paired.run(pair, seeds, device, progress, use_cache)
        effects = paired.loss_gaps(out["runs"], WINDOWED, FULL, pair.steps, pair.steps)
        accuracy = paired.loss_gaps(out["runs"], WINDOWED, FULL, pair.steps, pair.steps, metric="eval_accuracy")
        return paired.measured(pair, out, effects, FULL, accuracy_gap={str(k): v for k, v in accuracy.items()})
