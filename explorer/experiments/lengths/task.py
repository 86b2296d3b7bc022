"""The toy experiment's task: one rule at every length ratio, so only the lengths change between runs."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from explorer.tasks import FIRST_SYMBOL


@dataclass(frozen=True)
class RankSummary:
    """Input: Lx random symbols. Target: the input's sorted values read at Ly evenly spaced ranks.

    Target j is the value at rank floor((2j + 1) Lx / (2 Ly)) of the sorted input. With Lx > Ly that is a
    summary (quantiles of the input); with Lx = Ly it is sorting; with Lx < Ly every sorted value is spelled
    out several times (an expansion). One rule at every ratio, so only the lengths change.
    With `separate_target`, the target spells each value with a symbol of its own (ids after the input's), so
    input and target tokens come from different vocabularies, as in translation (slides 53-54).
    """

    input_len: int
    target_len: int
    n_symbols: int = 16
    separate_target: bool = False

    def __post_init__(self) -> None:
        if self.input_len < 1 or self.target_len < 1 or self.n_symbols < 2:
            raise ValueError("a rank-summary task needs lengths >= 1 and at least 2 symbols")

    @property
    def vocab_size(self) -> int:
        return FIRST_SYMBOL + self.n_symbols * (2 if self.separate_target else 1)

    @property
    def ranks(self) -> list[int]:
        return [((2 * j + 1) * self.input_len) // (2 * self.target_len) for j in range(self.target_len)]

    def sample(self, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """(x [B, Lx], y [B, Ly]) token ids."""
        x = torch.randint(
            FIRST_SYMBOL, FIRST_SYMBOL + self.n_symbols, (batch_size, self.input_len), generator=generator
        )
        return x, x.sort(dim=1).values[:, self.ranks] + (self.n_symbols if self.separate_target else 0)
