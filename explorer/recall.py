"""Multi-lag recall: a task where locality is a good but incomplete prior (slides 10, 13-15).

A sequence of `length` random symbols from `n_symbols`; at every position t the model answers one
question per lag L in `lags`: "which symbol stood L positions back?" (label x[t-L]; positions t < L
carry no label). The score weights the lags, so most of it can be local (lag 1) and some of it needs
long range (lags 3 .. 31).

Symbols are drawn independently and uniformly, so a model that cannot see position t-L has no
information about x[t-L] at all: its best answer is a guess, right 1 time in `n_symbols`. A one-layer
model with a local window w sees positions t-w+1 .. t, so its accuracy ceiling has a closed form:

    ceiling(w) = sum over lags L <= w-1 of weight(L)  +  (1 / n_symbols) * sum over the other lags of weight(L)

Deeper stacks see further (each layer adds w-1 positions): `receptive_field` counts that, which is why
the crossover experiment keeps one layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import torch

LAGS = (1, 3, 7, 15, 31)
WEIGHTS = (0.4, 0.15, 0.15, 0.15, 0.15)  # lag 1 carries 40% of the score, the four longer lags 60%
IGNORE = -100  # label of (position, lag) pairs that reach before the start of the sequence


@dataclass(frozen=True)
class MultiLagRecall:
    length: int = 48  # T, symbols per sequence
    n_symbols: int = 8  # V, symbols are the token ids 0 .. V-1
    lags: tuple[int, ...] = LAGS

    def __post_init__(self) -> None:
        if self.n_symbols < 2:
            raise ValueError(f"the task needs at least 2 symbols, got {self.n_symbols}")
        if not self.lags or list(self.lags) != sorted(set(self.lags)):
            raise ValueError(f"lags must be distinct and increasing, got {self.lags}")
        if self.lags[0] < 1 or self.lags[-1] >= self.length:
            raise ValueError(f"lags must lie in 1 .. {self.length - 1} for sequences of {self.length}")

    @property
    def n_labels(self) -> int:
        return len(self.lags)

    def sample(self, batch_size: int, generator: torch.Generator) -> torch.Tensor:
        """[batch_size, length] symbols, uniform and independent."""
        return torch.randint(0, self.n_symbols, (batch_size, self.length), generator=generator)

    def labels(self, x: torch.Tensor) -> torch.Tensor:
        """[..., length, n_labels]: label j at position t is x[t - lag_j], IGNORE where t < lag_j."""
        out = torch.full((*x.shape, self.n_labels), IGNORE, dtype=torch.long)
        for j, lag in enumerate(self.lags):
            out[..., lag:, j] = x[..., :-lag]
        return out

    def labelled_positions(self) -> torch.Tensor:
        """[n_labels]: how many positions of a sequence carry a label for each lag."""
        return torch.tensor([self.length - lag for lag in self.lags])


def mix(long_share: float, n_lags: int = len(LAGS)) -> tuple[float, ...]:
    """Score weights: `long_share` split evenly over the longer lags, the rest on the first (shortest) lag."""
    if not 0.0 <= long_share <= 1.0:
        raise ValueError(f"the long-range share must lie in 0 .. 1, got {long_share}")
    if n_lags < 2:
        return (1.0,)
    return (1.0 - long_share,) + (long_share / (n_lags - 1),) * (n_lags - 1)


def receptive_field(window: int | None, n_layers: int, length: int) -> int:
    """How far back position t can read: (w - 1) positions per layer, never before the sequence start."""
    if window is None:
        return length - 1
    return min(length - 1, n_layers * (window - 1))


def solvable(task: MultiLagRecall, window: int | None, n_layers: int = 1) -> tuple[bool, ...]:
    reach = receptive_field(window, n_layers, task.length)
    return tuple(lag <= reach for lag in task.lags)


def ceiling_exact(task: MultiLagRecall, weights: tuple, window: int | None, n_layers: int = 1) -> Fraction:
    """The best possible weighted accuracy of a model with this window, as an exact fraction.

    Weights are normalised to sum to 1; pass them as Fractions (or decimal strings) for an exact answer.
    """
    w = [Fraction(str(x)) if isinstance(x, float) else Fraction(x) for x in weights]
    if len(w) != task.n_labels or any(x < 0 for x in w) or sum(w) == 0:
        raise ValueError(f"need {task.n_labels} non-negative weights that do not all vanish, got {weights}")
    chance = Fraction(1, task.n_symbols)
    best = sum(wj * (1 if ok else chance) for wj, ok in zip(w, solvable(task, window, n_layers)))
    return best / sum(w)


def ceiling(task: MultiLagRecall, weights: tuple, window: int | None, n_layers: int = 1) -> float:
    return float(ceiling_exact(task, weights, window, n_layers))


def weighted(per_lag: torch.Tensor | list, weights: tuple) -> torch.Tensor:
    """Weighted accuracy from per-lag accuracies [..., n_labels] (weights normalised to sum to 1)."""
    acc = torch.as_tensor(per_lag, dtype=torch.float64)
    w = torch.tensor(weights, dtype=torch.float64)
    return acc @ (w / w.sum())


def per_lag_accuracy(predictions: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """[..., n_labels] accuracy over the labelled positions, from [..., N, T, n_labels] predictions and labels."""
    valid = labels != IGNORE
    correct = (predictions == labels) & valid
    return correct.sum(dim=(-3, -2)).double() / valid.sum(dim=(-3, -2)).double()


def oracle_predictions(
    task: MultiLagRecall, x: torch.Tensor, window: int | None, n_layers: int = 1, guess: int = 0
) -> torch.Tensor:
    """The best predictor a window allows: copy the symbol when the lag is in reach, else a fixed guess."""
    preds = torch.full((*x.shape, task.n_labels), guess, dtype=torch.long)
    for j, (lag, ok) in enumerate(zip(task.lags, solvable(task, window, n_layers))):
        if ok:
            preds[..., lag:, j] = x[..., :-lag]
    return preds
