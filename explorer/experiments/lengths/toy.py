"""The toy experiment's recipe: its settings and presets, and the arms matched in parameters or FLOPs.

Tiny encoder-decoders and decoder-only models at several length ratios; an encoder-decoder arm gets the MLP
width that matches the decoder-only model's parameters or, separately, its forward FLOPs per example.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable

from explorer.costs import parameter_count, sequence_forward_flops
from explorer.experiments.lengths.families import DECODER, ENCDEC
from explorer.experiments.lengths.task import RankSummary
from explorer.model import TransformerConfig
from explorer.recipe import Reviewable, check_seeds

ARMS = ("decoder", "encdec_params", "encdec_flops")
ARM_NAMES = {
    "decoder": "decoder-only",
    "encdec_params": "encoder-decoder, same parameters",
    "encdec_flops": "encoder-decoder, same FLOPs",
}
MATCHINGS = {"parameters": "encdec_params", "flops": "encdec_flops"}  # matching -> the arm compared to decoder
MAX_SEEDS = 8
PARAM_TOLERANCE = 0.005  # |P_encdec / P_decoder - 1| at most this (a unit of d_ff moves about 0.3%)
FLOP_TOLERANCE = 0.01  # |F_encdec / F_decoder - 1| at most this, per example at the ratio's lengths


@dataclass(frozen=True)
class ToyConfig(Reviewable):
    ratios: tuple[tuple[int, int], ...] = ((20, 4), (12, 12), (4, 20))  # (Lx, Ly)
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
    steps: int = 1200
    n_symbols: int = 16
    d_model: int = 48
    n_heads: int = 4
    n_layers: int = 2  # the decoder-only model; same parameters: n_layers/2 per stack; same FLOPs: n_layers per stack
    d_ff: int = 192  # the decoder-only model's MLP; the encoder-decoders' is solved for to match
    batch_size: int = 32
    lr: float = 3e-3
    warmup: int = 20
    eval_every: int = 100
    eval_size: int = 1024
    # variants: (Lx, Ly, symbols) for ratios that use another number of symbols than n_symbols (to match
    # the tasks' difficulty), and target symbols of their own (input and target vocabularies that differ)
    symbols_by_ratio: tuple[tuple[int, int, int], ...] = ()
    separate_target: bool = False

    SLICES = ("ratios", "seeds", "steps")

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "ratios", tuple((int(a), int(b)) for a, b in self.ratios))
        object.__setattr__(self, "seeds", check_seeds(self.seeds, MAX_SEEDS))
        if not self.ratios or any(a < 1 or b < 1 for a, b in self.ratios) or len(set(self.ratios)) != len(self.ratios):
            raise ValueError(f"ratios must be distinct (Lx, Ly) pairs of lengths >= 1, got {self.ratios}")
        if self.n_layers < 2 or self.n_layers % 2:
            raise ValueError("the decoder-only model needs an even number of layers (half go to each stack)")
        if self.steps < 1 or self.steps % self.eval_every:
            raise ValueError(f"steps must be a positive multiple of eval_every ({self.eval_every}), got {self.steps}")
        if any(n < 2 for _, _, n in self.symbols_by_ratio):
            raise ValueError(f"every ratio needs at least 2 symbols, got {self.symbols_by_ratio}")

    def task(self, lx: int, ly: int) -> RankSummary:
        """The task at one ratio, with that ratio's number of symbols."""
        symbols = {(a, b): n for a, b, n in self.symbols_by_ratio}.get((lx, ly), self.n_symbols)
        return RankSummary(lx, ly, symbols, self.separate_target)


PRESETS = {
    "main": ToyConfig(),
    # a test-sized run: two opposite ratios of short sequences, two seeds, 20 steps, a small held-out set
    "quick": ToyConfig(ratios=((8, 2), (2, 8)), seeds=(0, 1), steps=20, eval_every=10, eval_size=64),
    # difficulty-matched: the two extreme ratios with symbol counts that give the decoder-only model about the
    # same loss averaged over the run (0.39 and 0.36 nats in one calibration run, seed 0, decoder-only alone,
    # against 0.44 and 0.019 in `main`), 8 seeds (an exact test reaches 0.008), 300 steps to fit a small budget
    "matched": ToyConfig(
        ratios=((20, 4), (4, 20)),
        seeds=tuple(range(8)),
        steps=300,
        eval_every=50,
        eval_size=512,
        symbols_by_ratio=((20, 4, 8), (4, 20, 64)),
    ),
}
# the same, with target symbols of their own: input and target distributions differ (slides 53-54, 58)
PRESETS["split-vocab"] = replace(PRESETS["matched"], separate_target=True)
SHIPPED_PRESETS = ("main", "matched", "split-vocab")  # the CLI writes data/lengths/<preset>.json for these


def _model(cfg: ToyConfig, arch: str, n_layers: int, d_ff: int, lx: int, ly: int) -> TransformerConfig:
    task = cfg.task(lx, ly)
    return TransformerConfig(
        arch=arch,
        vocab_size=task.vocab_size,
        d_model=cfg.d_model,
        n_heads=cfg.n_heads,
        n_layers=n_layers,
        d_ff=d_ff,
        max_len=lx + ly,
    )


def _solve_width(
    make: Callable[[int], TransformerConfig],
    measure: Callable[[TransformerConfig], float],
    target: float,
    tolerance: float,
    what: str,
) -> TransformerConfig:
    """The MLP width whose model comes closest to `target` in `measure` (both are monotone in the width)."""
    widths = range(1, 16 * make(1).d_model + 1)
    best = min(widths, key=lambda w: abs(measure(make(w)) - target))
    cfg = make(best)
    if abs(measure(cfg) / target - 1) > tolerance:
        raise ValueError(f"no MLP width matches the decoder-only model's {what} within {tolerance:.1%}")
    return cfg


@lru_cache(maxsize=256)
def arm_config(cfg: ToyConfig, lx: int, ly: int, arm: str) -> TransformerConfig:
    """The model of one arm at lengths (lx, ly); encoder-decoders get the MLP width that matches."""
    base = _model(cfg, DECODER, cfg.n_layers, cfg.d_ff, lx, ly)
    if arm == "decoder":
        return base
    if arm == "encdec_params":
        return _solve_width(
            lambda w: _model(cfg, ENCDEC, cfg.n_layers // 2, w, lx, ly),
            parameter_count,
            parameter_count(base),
            PARAM_TOLERANCE,
            "parameters",
        )
    if arm == "encdec_flops":
        flops = lambda c: sequence_forward_flops(c, lx, ly)  # noqa: E731
        return _solve_width(
            lambda w: _model(cfg, ENCDEC, cfg.n_layers, w, lx, ly),
            flops,
            flops(base),
            FLOP_TOLERANCE,
            "FLOPs per example",
        )
    raise ValueError(f"arm must be one of {ARMS}, got {arm!r}")


def arm_table(cfg: ToyConfig) -> list[dict]:
    """Per ratio and arm: layers, MLP width, parameters and forward FLOPs per example (the matching, checked)."""
    rows = []
    for lx, ly in cfg.ratios:
        for arm in ARMS:
            m = arm_config(cfg, lx, ly, arm)
            rows.append(
                {
                    "lx": lx,
                    "ly": ly,
                    "arm": arm,
                    "layers": m.n_layers,
                    "d_ff": m.ff_width,
                    "parameters": parameter_count(m),
                    "flops_per_example": sequence_forward_flops(m, lx, ly),
                }
            )
    return rows
