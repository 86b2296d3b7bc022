"""Seeded synthetic sequence-to-sequence tasks, generated on the fly (nothing is downloaded).

Token ids: 0 is padding, 1 is BOS (the separator between input and target in a decoder-only layout),
symbols start at `FIRST_SYMBOL`. Every sample is drawn from a `torch.Generator`, so a seed fixes the data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

PAD, BOS = 0, 1
FIRST_SYMBOL = 2


def _copy(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


def _reverse(x: torch.Tensor) -> torch.Tensor:
    return x.flip(dims=[1])


def _sort(x: torch.Tensor) -> torch.Tensor:
    return x.sort(dim=1).values


RULES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {"copy": _copy, "reverse": _reverse, "sort": _sort}


@dataclass(frozen=True)
class Seq2SeqTask:
    """Map a random symbol string x to a target y of the same length by a fixed rule."""

    name: str = "sort"
    length: int = 8  # tokens in x (and in y)
    n_symbols: int = 16  # distinct symbols

    def __post_init__(self) -> None:
        if self.name not in RULES:
            raise ValueError(f"task must be one of {sorted(RULES)}, got {self.name!r}")
        if self.length < 1 or self.n_symbols < 2:
            raise ValueError("a task needs length >= 1 and at least 2 symbols")

    @property
    def vocab_size(self) -> int:
        return FIRST_SYMBOL + self.n_symbols

    @property
    def input_len(self) -> int:
        return self.length

    @property
    def target_len(self) -> int:
        return self.length

    def sample(self, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """Return (x, y), both [batch_size, length] token ids."""
        x = torch.randint(FIRST_SYMBOL, self.vocab_size, (batch_size, self.length), generator=generator)
        return x, RULES[self.name](x)


def make_task(name: str, length: int = 8, n_symbols: int = 16) -> Seq2SeqTask:
    return Seq2SeqTask(name=name, length=length, n_symbols=n_symbols)
