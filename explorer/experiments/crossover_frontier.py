"""The compute-optimal frontier of the crossover sweep, and how sure its winner is: plain numpy, no training.

Each run (one window, one width, one learning rate) has a score per seed at its own checkpoints; its
compute axis is the training FLOPs it has spent, which grows with its width. To compare structures at
equal compute, every run's curve is read on one log-spaced FLOP grid (linear in log FLOPs between two of
its checkpoints, nothing before its first or after its last: a curve is never extrapolated). A window's
frontier at a grid point is the best seed-mean score over its runs and their checkpoints that spent at most
that compute: what a person with that budget would get by picking the best model size and stopping at its
best checkpoint (slide 10's "more compute" means bigger models as well as longer training). So a frontier
never falls, also where a small model's run ends before the budget does.

The bootstrap is paired: a resample draws seeds with replacement (`stats.seed_resamples`), the same draw
for every run (a seed fixes the initial weights, batches and held-out set of all of them), and rebuilds
every window's frontier from the resampled means. `top_share` says how often each window is on top.
"""

from __future__ import annotations

import math

import numpy as np

from explorer import stats

GRID_PER_DECADE = 8  # grid points per decade of FLOPs
TIE = 1e-12  # relative: scores this close share the top


def log_grid(lo: float, hi: float, per_decade: int = GRID_PER_DECADE) -> np.ndarray:
    """Log-spaced FLOPs from `lo` to `hi` (both included), about `per_decade` points per decade."""
    span = math.log10(hi) - math.log10(lo)
    return np.logspace(math.log10(lo), math.log10(hi), max(2, math.ceil(span * per_decade) + 1))


def on_grid(flops: np.ndarray, values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """`values` [..., C] measured at `flops` [C], read at `grid` [G]: linear in log FLOPs; NaN outside the run."""
    xs, x = np.log10(np.asarray(flops, float)), np.log10(np.asarray(grid, float))
    values = np.asarray(values, float)
    flat = values.reshape(-1, values.shape[-1])
    out = np.array([np.interp(x, xs, row) for row in flat]).reshape(*values.shape[:-1], len(x))
    out[..., (x < xs[0] - 1e-9) | (x > xs[-1] + 1e-9)] = np.nan
    return out


def so_far(curves: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Best value at or before each grid point (last axis): a budget may always stop earlier. NaN stays
    NaN only before a curve's first point."""
    sign = 1.0 if higher_is_better else -1.0
    return sign * np.fmax.accumulate(sign * np.asarray(curves, float), axis=-1)


def best_of(curves: np.ndarray, higher_is_better: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Best over runs of their best so far: curves [K, ..., G] (NaN = not reached) -> (best [..., G], index
    of the run [..., G], -1 where no run has started)."""
    sign = 1.0 if higher_is_better else -1.0
    reached = so_far(curves, higher_is_better)
    filled = np.where(np.isnan(reached), -np.inf, sign * reached)
    index = filled.argmax(axis=0)
    best = np.take_along_axis(reached, index[None], axis=0)[0]
    none = np.isnan(reached).all(axis=0)
    return np.where(none, np.nan, best), np.where(none, -1, index)


def resample_weights(n_seeds: int) -> np.ndarray:
    """[R, n] weights: row r averages the seeds drawn by resample r (`stats.seed_resamples`)."""
    draws = stats.seed_resamples(n_seeds)
    weights = np.zeros(draws.shape)
    np.add.at(weights, (np.arange(len(draws))[:, None], draws), 1.0 / n_seeds)
    return weights


def top_share(per_window: np.ndarray) -> np.ndarray | None:
    """How often each window's frontier is on top when the seeds are resampled, rebuilding the frontiers.

    per_window [W, K, S, G]: every window's K runs, S seeds (paired), G grid points (NaN = not reached).
    Returns [W, G] shares (windows tied on top split the credit); None for one seed (nothing to resample).
    """
    if per_window.shape[2] < 2:
        return None
    means = np.einsum("rs,wksg->wkrg", resample_weights(per_window.shape[2]), per_window)  # [W, K, R, G]
    reached = so_far(means)
    frontiers = np.where(np.isnan(reached), -np.inf, reached).max(axis=1)  # [W, R, G]
    best = frontiers.max(axis=0, keepdims=True)
    top = frontiers >= best - TIE * np.maximum(1.0, np.abs(best))
    return (top / top.sum(axis=0, keepdims=True)).mean(axis=1)


def crossing(flops: np.ndarray, more: np.ndarray, less: np.ndarray, min_lead: float) -> float | None:
    """Compute at which the `less`-structured curve overtakes the `more`-structured one for good.

    Requires that `more` led by at least `min_lead` at some point and that `less` leads by at least
    `min_lead` at the end; the crossing is the last time `less` was not ahead, interpolated linearly in
    log FLOPs between the points around it. None when there is no such crossing.
    """
    diff = np.asarray(less, float) - np.asarray(more, float)
    if diff[-1] < min_lead:
        return None
    behind = np.flatnonzero(diff <= 0)
    if behind.size == 0 or not (diff[: behind[-1] + 1] <= -min_lead).any():
        return None
    i = behind[-1]
    x0, x1 = math.log10(flops[i]), math.log10(flops[i + 1])
    t = -diff[i] / (diff[i + 1] - diff[i])
    return 10 ** (x0 + t * (x1 - x0))


def spread(per_seed: list[float | None]) -> dict:
    """Crossings of the seeds: geometric mean, range and count of those that cross."""
    found = [x for x in per_seed if x is not None]
    return {
        "flops_mean": 10 ** float(np.mean(np.log10(found))) if found else None,
        "flops_min": min(found) if found else None,
        "flops_max": max(found) if found else None,
        "flops_per_seed": per_seed,
        "seeds_with_crossover": len(found),
        "seeds": len(per_seed),
    }
