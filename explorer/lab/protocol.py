"""What a task offers the training loop. Every experiment's task implements this, so one loop trains them all.

A batch is whatever the task likes (a tuple of tensors, a `layouts.Batch`); the loop only passes it back. Batches
are drawn on the CPU from a seeded generator and then moved to `device`, so a seed fixes the data on every device.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import torch
from torch import nn


@runtime_checkable
class Task(Protocol):
    def batches(self, n: int, generator: torch.Generator, device: torch.device) -> Any:
        """`n` fresh examples drawn with `generator`, on `device`."""

    def loss(self, model: nn.Module, batch: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """(mean training loss with its graph, accuracy) of `model` on `batch`."""

    def readout(self, model: nn.Module, batch: Any) -> dict[str, float]:
        """Held-out numbers of `model` on `batch` (no graph): at least `eval_loss` and `eval_accuracy`."""
