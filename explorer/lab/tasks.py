"""The project's sequence-to-sequence tasks (`explorer.tasks`) under the lab's task protocol, per architecture."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from explorer.layouts import Batch, loss_and_accuracy, make_batch
from explorer.tasks import Seq2SeqTask


@dataclass(frozen=True)
class SeqTask:
    """`task` laid out for `arch` (`explorer.layouts`): token-level cross-entropy on the target positions."""

    task: Seq2SeqTask
    arch: str

    def batches(self, n: int, generator: torch.Generator, device: torch.device) -> Batch:
        x, y = self.task.sample(n, generator)
        return make_batch(self.arch, x.to(device), y.to(device))

    def loss(self, model: nn.Module, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        return loss_and_accuracy(batch.run(model).logits, batch.labels)

    def readout(self, model: nn.Module, batch: Batch) -> dict[str, float]:
        loss, accuracy = self.loss(model, batch)
        return {"eval_loss": float(loss), "eval_accuracy": float(accuracy)}

    def tokens(self, batch: Batch) -> int:
        """Tokens one batch feeds the model (both stacks of an encoder-decoder)."""
        return batch.tokens.numel() + (batch.target.numel() if batch.target is not None else 0)
