"""Length asymmetry (slides 56-58): who processes how many tokens, and a toy test of the FLAN explanation.

The lecture reports that instruction tuning (FLAN) helped an encoder-decoder (T5) more than a decoder-only
model (PaLM), and explains it by a match between architecture and data: academic tasks have long inputs and
short targets, E[Lx] >> E[Ly], and an encoder-decoder gives inputs and targets parameters of their own.
Three parts, all returning plain data:

  allocation  for a model shape and lengths Lx (input) and Ly (target): every parameter group, how many tokens
              per example it is applied to, and the exact forward FLOPs of `explorer.costs`; and where an
              encoder-decoder costs what a decoder-only model does.
  profiles    pairs of lengths: three synthetic, illustrative profiles, typed pairs or an uploaded CSV
              (validated); their mean lengths and their exact mean FLOPs per example.
  toy         tiny encoder-decoders and decoder-only models trained from scratch on a rank-summary task at
              several length ratios, matched in parameters and, separately, in FLOPs; statistics over seeds.

Nothing here decides the lecture's claim: that concerns instruction tuning of large pretrained models, which
60k-parameter models trained from scratch cannot reproduce. The toy part measures what it can and says so.
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import torch
from scipy import integrate, optimize, stats

from explorer import results
from explorer.csv_upload import (UploadError, find_column, header_text, inline_code, lines_phrase, read_rows,
                                 require_rows)
from explorer.costs import parameter_count, sequence_forward_flops
from explorer.model import TransformerConfig
from explorer.tasks import FIRST_SYMBOL
from explorer.train import TrainConfig, train

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_DIR = ROOT / "data" / "lengths"
DECODER, ENCDEC = "decoder", "encoder_decoder"
FAMILIES = (DECODER, ENCDEC)
FAMILY_NAMES = {DECODER: "decoder-only", ENCDEC: "encoder-decoder"}


# ================================================================================ 1 · parameter allocation

POSITIONS = 4096  # learned position table of the allocation view: fixed, so parameters do not move with Lx


@dataclass(frozen=True)
class CostConfig:
    """The fields `explorer.costs` reads from a `TransformerConfig`, for shapes of any size.

    `TransformerConfig` refuses models above 50M parameters (it may be built); the allocation view only
    counts, so it passes this instead. A test holds the two to the same counts wherever both exist.
    """

    arch: str
    d_model: int
    n_layers: int
    vocab_size: int
    ff_width: int
    max_len: int = POSITIONS
    share_cross_self: bool = False
    share_encoder_decoder: bool = False
    joint_softmax: bool = False

    @property
    def out_size(self) -> int:
        return self.vocab_size

    @property
    def has_cross_sublayer(self) -> bool:
        return self.arch == ENCDEC


@dataclass(frozen=True)
class Shape:
    """A model shape: the decoder-only model has `n_layers` layers; the encoder-decoder `n_layers` per stack."""

    d_model: int = 768
    n_layers: int = 12
    vocab_size: int = 32_000
    d_ff: int | None = None  # None = 4 d_model
    max_len: int = POSITIONS

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layers", "vocab_size", "max_len"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.d_ff is not None and self.d_ff < 1:
            raise ValueError(f"d_ff must be >= 1, got {self.d_ff}")

    @property
    def ff_width(self) -> int:
        return self.d_ff or 4 * self.d_model

    def config(self, family: str, n_layers: int | None = None) -> CostConfig:
        return CostConfig(arch=family, d_model=self.d_model, n_layers=n_layers or self.n_layers,
                          vocab_size=self.vocab_size, ff_width=self.ff_width, max_len=self.max_len)


@dataclass(frozen=True)
class Group:
    """One group of parameters, the tokens per example it is applied to, and the matmul work that implies."""

    name: str
    role: str  # the concept that colours it: causal, bidirectional, cross, embedding, head
    parameters: int
    weights: int  # weight-matrix entries applied to each token (a multiply-add each: 2 FLOPs)
    tokens: float  # tokens per example that pass through these parameters
    reads: str  # which tokens: "input", "target" or "both"
    note: str = ""

    @property
    def flops(self) -> float:
        return 2.0 * self.weights * self.tokens

    @property
    def token_passes(self) -> float:
        """Parameter-token passes per example: parameters x tokens they are applied to."""
        return self.parameters * self.tokens


def _check_lengths(lx: float, ly: float) -> None:
    if not (lx >= 1 and ly >= 1) or not (math.isfinite(lx) and math.isfinite(ly)):
        raise ValueError(f"input and target lengths must be at least 1 token, got Lx={lx}, Ly={ly}")


def parameter_groups(shape: Shape, family: str, lx: float, ly: float) -> list[Group]:
    """The groups of `family` at lengths (lx, ly); their parameters sum to `explorer.costs.parameter_count`.

    Biases and LayerNorms count as parameters but do no matmul work (`weights` counts matrices only), which
    is how `explorer.costs` counts FLOPs. Embedding lookups are not matmuls either.
    """
    _check_lengths(lx, ly)
    d, f, L, v = shape.d_model, shape.ff_width, shape.n_layers, shape.vocab_size
    ln = 2 * d
    attn_w, mlp_w = 4 * d * d, 2 * d * f
    layer_params = 2 * ln + 4 * (d * d + d) + (d * f + f + f * d + d)
    embeddings = Group("embeddings (token + position)", "embedding", v * d + shape.max_len * d, 0, lx + ly,
                       "both", "table lookups: no matmul")
    if family == DECODER:
        t = lx + ly
        return [embeddings,
                Group(f"{L} layers: self-attention + MLP", "causal", L * layer_params, L * (attn_w + mlp_w), t,
                      "both", "one stack reads inputs and targets"),
                Group("output head (+ final LayerNorm)", "head", ln + d * v + v, d * v, t,
                      "both", "logits at every position, as the model computes them")]
    if family != ENCDEC:
        raise ValueError(f"family must be {DECODER!r} or {ENCDEC!r}, got {family!r}")
    return [embeddings,
            Group(f"encoder: {L} layers (+ final LayerNorm)", "bidirectional", L * layer_params + ln,
                  L * (attn_w + mlp_w), lx, "input", "reads the input only"),
            Group(f"decoder: {L} layers, self-attention + MLP", "causal", L * layer_params, L * (attn_w + mlp_w),
                  ly, "target", "reads the target only"),
            Group("cross-attention: queries + output (+ LayerNorm)", "cross", L * (2 * (d * d + d) + ln),
                  L * 2 * d * d, ly, "target", "one query per target token"),
            Group("cross-attention: keys + values", "cross", L * 2 * (d * d + d), L * 2 * d * d, lx,
                  "input", "project the encoder output, per decoder layer"),
            Group("output head (+ final LayerNorm)", "head", ln + d * v + v, d * v, ly, "target",
                  "logits at target positions")]


def attention_flops(shape: Shape, family: str, lx: float, ly: float) -> float:
    """FLOPs of attention scores and weighted sums (no parameters): dense rectangles, as `explorer.costs`."""
    d, L = shape.d_model, shape.n_layers
    entries = (lx + ly) ** 2 if family == DECODER else lx * lx + ly * ly + ly * lx
    return L * 4.0 * d * entries


def _input_share(groups: list[Group], lx: float, ly: float) -> float:
    """Share of the matmul FLOPs spent on input tokens (a group that reads both splits by token count)."""
    on_input = sum(g.flops * (1.0 if g.reads == "input" else lx / (lx + ly) if g.reads == "both" else 0.0)
                   for g in groups)
    return on_input / sum(g.flops for g in groups)


def allocation(shape: Shape, lx: float, ly: float) -> dict:
    """Both families at (lx, ly): groups, totals and, for whole-token lengths, the exact FLOPs of `costs`."""
    out = {"lx": lx, "ly": ly, "shape": asdict(shape), "families": {}}
    for family in FAMILIES:
        groups = parameter_groups(shape, family, lx, ly)
        attention = attention_flops(shape, family, lx, ly)
        flops = sum(g.flops for g in groups) + attention
        if float(lx).is_integer() and float(ly).is_integer():
            flops = sequence_forward_flops(shape.config(family), int(lx), int(ly))  # the one source of truth
        out["families"][family] = {
            "groups": [{**asdict(g), "flops": g.flops, "token_passes": g.token_passes} for g in groups],
            "parameters": parameter_count(shape.config(family)), "flops": float(flops),
            "attention_flops": attention, "input_share_of_flops": _input_share(groups, lx, ly)}
    dec, ed = out["families"][DECODER], out["families"][ENCDEC]
    out["parameter_ratio"] = ed["parameters"] / dec["parameters"]
    out["flop_ratio"] = ed["flops"] / dec["flops"]
    return out


def _linear_in_layers(value: Callable[[int], float]) -> tuple[float, float]:
    """(a, b) with value(L) = a + b L: parameters and FLOPs are both affine in the number of layers."""
    one, two = value(1), value(2)
    return one - (two - one), two - one


def cost_parity(shape: Shape, lx: int, ly: int, max_layers: int = 48) -> dict:
    """Parameters vs FLOPs per example as layers vary, and the encoder-decoder that costs what the decoder does.

    Both counts are affine in the number of layers, so the equal-cost encoder-decoder has a (generally
    fractional) `layers_per_stack` found exactly by solving a + b L = FLOPs of the decoder-only shape.
    """
    _check_lengths(lx, ly)
    layers = list(range(1, max_layers + 1))
    curves = {}
    for family in FAMILIES:
        curves[family] = {"layers": layers,
                          "parameters": [parameter_count(shape.config(family, n)) for n in layers],
                          "flops": [sequence_forward_flops(shape.config(family, n), lx, ly) for n in layers]}
    target_flops = sequence_forward_flops(shape.config(DECODER), lx, ly)
    target_params = parameter_count(shape.config(DECODER))
    fa, fb = _linear_in_layers(lambda n: sequence_forward_flops(shape.config(ENCDEC, n), lx, ly))
    pa, pb = _linear_in_layers(lambda n: parameter_count(shape.config(ENCDEC, n)))
    layers_equal = (target_flops - fa) / fb
    params_equal = pa + pb * layers_equal
    return {"curves": curves, "decoder": {"layers": shape.n_layers, "parameters": target_params,
                                          "flops": target_flops},
            "equal_cost": {"layers_per_stack": layers_equal, "parameters": params_equal,
                           "parameter_ratio": params_equal / target_params, "flops": target_flops}}


# ================================================================================ 2 · length profiles

MAX_ROWS = 10_000  # pairs in an upload
MAX_BYTES = 2_000_000  # bytes in an upload
MAX_LENGTH = 100_000  # tokens on either side of one pair
MAX_TYPED = 50  # pairs typed into the text field
PROFILE_SEED = 58  # the slide that shows the length distribution
PROFILE_PAIRS = 2_000
INPUT_NAMES = ("input_len", "input_length", "input_tokens", "input", "lx", "inputs")
TARGET_NAMES = ("target_len", "target_length", "target_tokens", "target", "ly", "output_len", "output_tokens",
                "output", "targets")


class LengthsError(UploadError):
    """Pairs of lengths that cannot be used; the message names the problem for the student."""


@dataclass(frozen=True)
class Profile:
    """A synthetic length profile: log-normal input and target lengths. Illustrative, not measured."""

    name: str
    input_median: float
    input_spread: float  # sigma of log length
    target_median: float
    target_spread: float
    story: str  # what kind of example it imitates, in a few words

    def sample(self, n: int = PROFILE_PAIRS, seed: int = PROFILE_SEED) -> pd.DataFrame:
        rng = np.random.default_rng([seed, sum(map(ord, self.name))])
        lx = rng.lognormal(math.log(self.input_median), self.input_spread, n)
        ly = rng.lognormal(math.log(self.target_median), self.target_spread, n)
        clip = lambda a: np.clip(np.rint(a), 1, MAX_LENGTH).astype(np.int64)  # noqa: E731
        return pd.DataFrame({"input_len": clip(lx), "target_len": clip(ly)})


PROFILES = {
    "academic benchmark": Profile("academic benchmark", 220, 0.7, 3, 0.8,
                                  "a passage or question with options in, a label or a few words out"),
    "chat": Profile("chat", 160, 0.9, 190, 0.8,
                    "a user turn with some earlier context in, a reply of similar size out"),
    "long-form writing": Profile("long-form writing", 45, 0.6, 900, 0.6,
                                 "a short instruction in, an essay or story out"),
}


@lru_cache(maxsize=8)
def profile_pairs(name: str) -> pd.DataFrame:
    if name not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {name!r}")
    return PROFILES[name].sample()


def _as_lengths(cells: list[str], what: str, where: list[int]) -> np.ndarray:
    values, bad = [], []
    for cell, line in zip(cells, where):
        try:
            x = float(cell.strip().replace("_", ""))
        except ValueError:
            bad.append(line)
            continue
        values.append(x)
    if bad:
        raise LengthsError(f"{what} must be whole numbers of tokens; {lines_phrase(bad, 'is', 'are')} not a number.")
    arr = np.asarray(values)
    wrong = [where[i] for i in np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)) | (arr < 1)
                                                | (arr > MAX_LENGTH))]
    if wrong:
        raise LengthsError(f"{what} must be whole numbers from 1 to {MAX_LENGTH:,}; {lines_phrase(wrong, 'is', 'are')} not.")
    return arr.astype(np.int64)


def read_pairs(raw: bytes) -> pd.DataFrame:
    """An uploaded CSV of length pairs -> columns input_len, target_len; LengthsError names what is wrong.

    The header must name an input column (`input_len`, `lx`, ...) and a target column (`target_len`, `ly`, ...);
    at most MAX_ROWS rows and MAX_BYTES bytes; lengths are whole numbers of tokens from 1 to MAX_LENGTH.
    """
    try:
        header, body = read_rows(raw, MAX_ROWS, MAX_BYTES)
        col_x, col_y = find_column(header, INPUT_NAMES), find_column(header, TARGET_NAMES)
        if col_x is None or col_y is None:
            raise UploadError(f"The header must name an input column (`input_len` or `lx`) and a target column "
                              f"(`target_len` or `ly`); found {header_text(header)}.")
        require_rows(body, [col_x, col_y])
    except UploadError as err:  # the shared checks, re-raised as this page's error
        raise LengthsError(str(err)) from None
    where = [n for n, _ in body]
    return pd.DataFrame({"input_len": _as_lengths([r[col_x] for _, r in body], "Input lengths", where),
                         "target_len": _as_lengths([r[col_y] for _, r in body], "Target lengths", where)})


def parse_typed(text: str) -> pd.DataFrame:
    """Pairs typed as `Lx:Ly`, separated by commas, semicolons or spaces, e.g. `300:4, 120:8`."""
    items = [t for t in re.split(r"[,;\s]+", text.strip()) if t]
    if not items:
        raise LengthsError("Type at least one pair as input:target, e.g. `300:4, 120:8`.")
    if len(items) > MAX_TYPED:
        raise LengthsError(f"{len(items)} pairs typed; the limit here is {MAX_TYPED} (upload a CSV for more).")
    bad = [t for t in items if not re.fullmatch(r"\d+:\d+", t)]
    if bad:
        raise LengthsError(f"{inline_code(bad[0], 20)} is not a pair: write input:target in whole tokens, e.g. "
                           "`300:4`.")
    # capped before numpy (or int() and its 4300-digit limit) sees them: 10**20 tokens is too long, not an overflow
    too_long = MAX_LENGTH + 1
    pairs = np.array([[min(int(a), too_long) if len(a) <= 20 else too_long for a in t.split(":")] for t in items],
                     dtype=np.int64)
    if (pairs < 1).any() or (pairs > MAX_LENGTH).any():
        raise LengthsError(f"Lengths must be whole numbers from 1 to {MAX_LENGTH:,} tokens.")
    return pd.DataFrame({"input_len": pairs[:, 0], "target_len": pairs[:, 1]})


def length_stats(pairs: pd.DataFrame) -> dict:
    """Mean and median lengths of pairs, their ratio, and the share of a decoder-only model's tokens that are input."""
    if pairs.empty:
        raise LengthsError("There are no pairs of lengths.")
    lx, ly = pairs["input_len"].to_numpy(), pairs["target_len"].to_numpy()
    mx, my = float(lx.mean()), float(ly.mean())
    return {"n": int(len(pairs)), "mean_input": mx, "mean_target": my,
            "median_input": float(np.median(lx)), "median_target": float(np.median(ly)),
            "ratio_of_means": mx / my, "share_longer_input": float((lx > ly).mean()),
            "decoder_input_share": mx / (mx + my)}


def profile_stats(pairs: pd.DataFrame, shape: Shape) -> dict:
    """`length_stats` and the exact mean forward FLOPs per example of both families.

    FLOPs are not linear in the lengths (attention is quadratic), so the mean FLOPs average the exact
    count of every pair (grouped by distinct pairs), not the count at the mean lengths.
    """
    out = length_stats(pairs)
    distinct, counts = np.unique(pairs[["input_len", "target_len"]].to_numpy(), axis=0, return_counts=True)
    mean_flops = {}
    for family in FAMILIES:
        cfg = shape.config(family)
        per = np.array([sequence_forward_flops(cfg, int(a), int(b)) for a, b in distinct], dtype=float)
        mean_flops[family] = float((per * counts).sum() / counts.sum())
    return {**out, "mean_flops": mean_flops, "flop_ratio": mean_flops[ENCDEC] / mean_flops[DECODER]}


# ================================================================================ 3 · the toy experiment

ARMS = ("decoder", "encdec_params", "encdec_flops")
ARM_NAMES = {"decoder": "decoder-only", "encdec_params": "encoder-decoder, same parameters",
             "encdec_flops": "encoder-decoder, same FLOPs"}
MATCHINGS = {"parameters": "encdec_params", "flops": "encdec_flops"}  # matching -> the arm compared to decoder
PARAM_TOLERANCE = 0.005  # |P_encdec / P_decoder - 1| at most this (a unit of d_ff moves about 0.3%)
FLOP_TOLERANCE = 0.01  # |F_encdec / F_decoder - 1| at most this, per example at the ratio's lengths
ALPHA, POWER = 0.05, 0.8
SECONDS_PER_MODEL_STEP = 0.035  # fallback speed (one model, one step, one thread, loaded server)
CACHE_KIND = "lengths-run"


@dataclass(frozen=True)
class RankSummary:
    """Input: Lx random symbols. Target: the input's sorted values read at Ly evenly spaced ranks.

    Target j is the value at rank floor((2j + 1) Lx / (2 Ly)) of the sorted input. With Lx > Ly that is a
    summary (quantiles of the input); with Lx = Ly it is sorting; with Lx < Ly every sorted value is spelled
    out several times (an expansion). One rule at every ratio, so only the lengths change.
    """

    input_len: int
    target_len: int
    n_symbols: int = 16

    def __post_init__(self) -> None:
        if self.input_len < 1 or self.target_len < 1 or self.n_symbols < 2:
            raise ValueError("a rank-summary task needs lengths >= 1 and at least 2 symbols")

    @property
    def vocab_size(self) -> int:
        return FIRST_SYMBOL + self.n_symbols

    @property
    def ranks(self) -> list[int]:
        return [((2 * j + 1) * self.input_len) // (2 * self.target_len) for j in range(self.target_len)]

    def sample(self, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """(x [B, Lx], y [B, Ly]) token ids."""
        x = torch.randint(FIRST_SYMBOL, self.vocab_size, (batch_size, self.input_len), generator=generator)
        return x, x.sort(dim=1).values[:, self.ranks]


@dataclass(frozen=True)
class ToyConfig:
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "ratios", tuple((int(a), int(b)) for a, b in self.ratios))
        object.__setattr__(self, "seeds", tuple(int(s) for s in self.seeds))
        if not self.ratios or any(a < 1 or b < 1 for a, b in self.ratios) or len(set(self.ratios)) != len(self.ratios):
            raise ValueError(f"ratios must be distinct (Lx, Ly) pairs of lengths >= 1, got {self.ratios}")
        if not self.seeds or len(set(self.seeds)) != len(self.seeds) or min(self.seeds) < 0:
            raise ValueError(f"seeds must be distinct non-negative integers, got {self.seeds}")
        if self.n_layers < 2 or self.n_layers % 2:
            raise ValueError("the decoder-only model needs an even number of layers (half go to each stack)")
        if self.steps < 1 or self.steps % self.eval_every:
            raise ValueError(f"steps must be a positive multiple of eval_every ({self.eval_every}), got {self.steps}")

    def to_dict(self) -> dict:
        return asdict(self)

    def settings(self) -> dict:
        """Everything but the ratios, seeds and steps: runs with equal settings can share records."""
        return {k: v for k, v in self.to_dict().items() if k not in ("ratios", "seeds", "steps")}

    def train_config(self, seed: int) -> TrainConfig:
        return TrainConfig(steps=self.steps, batch_size=self.batch_size, lr=self.lr, warmup=self.warmup, seed=seed,
                           eval_every=self.eval_every, eval_size=self.eval_size)


PRESETS = {
    "main": ToyConfig(),
    # a test-sized run: two opposite ratios of short sequences, two seeds, 20 steps, a small held-out set
    "quick": ToyConfig(ratios=((8, 2), (2, 8)), seeds=(0, 1), steps=20, eval_every=10, eval_size=64),
}


def shipped_path(preset: str = "main") -> Path:
    return SHIPPED_DIR / f"{preset}.json"


def _model(cfg: ToyConfig, arch: str, n_layers: int, d_ff: int, lx: int, ly: int) -> TransformerConfig:
    task = RankSummary(lx, ly, cfg.n_symbols)
    return TransformerConfig(arch=arch, vocab_size=task.vocab_size, d_model=cfg.d_model, n_heads=cfg.n_heads,
                             n_layers=n_layers, d_ff=d_ff, max_len=lx + ly)


def _solve_width(make: Callable[[int], TransformerConfig], measure: Callable[[TransformerConfig], float],
                 target: float, tolerance: float, what: str) -> TransformerConfig:
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
        return _solve_width(lambda w: _model(cfg, ENCDEC, cfg.n_layers // 2, w, lx, ly), parameter_count,
                            parameter_count(base), PARAM_TOLERANCE, "parameters")
    if arm == "encdec_flops":
        flops = lambda c: sequence_forward_flops(c, lx, ly)  # noqa: E731
        return _solve_width(lambda w: _model(cfg, ENCDEC, cfg.n_layers, w, lx, ly), flops, flops(base),
                            FLOP_TOLERANCE, "FLOPs per example")
    raise ValueError(f"arm must be one of {ARMS}, got {arm!r}")


def arm_table(cfg: ToyConfig) -> list[dict]:
    """Per ratio and arm: layers, MLP width, parameters and forward FLOPs per example (the matching, checked)."""
    rows = []
    for lx, ly in cfg.ratios:
        for arm in ARMS:
            m = arm_config(cfg, lx, ly, arm)
            rows.append({"lx": lx, "ly": ly, "arm": arm, "layers": m.n_layers, "d_ff": m.ff_width,
                         "parameters": parameter_count(m), "flops_per_example": sequence_forward_flops(m, lx, ly)})
    return rows


def record_key(cfg: ToyConfig, lx: int, ly: int, arm: str, seed: int) -> dict:
    """The cache key of one trained model: every setting, its lengths, arm, seed and steps."""
    return {**cfg.settings(), "steps": cfg.steps, "lx": lx, "ly": ly, "arm": arm, "seed": seed}


def train_one(cfg: ToyConfig, lx: int, ly: int, arm: str, seed: int,
              should_stop: Callable[[], bool] | None = None) -> dict:
    """Train one model with `explorer.train`; its held-out history as plain data."""
    model_cfg = arm_config(cfg, lx, ly, arm)
    res = train(model_cfg, RankSummary(lx, ly, cfg.n_symbols), cfg.train_config(seed), should_stop=should_stop)
    return {"lx": lx, "ly": ly, "arm": arm, "seed": seed, "parameters": parameter_count(model_cfg),
            "flops_per_example": sequence_forward_flops(model_cfg, lx, ly), "d_ff": model_cfg.ff_width,
            "layers": model_cfg.n_layers, "stopped": res.stopped, "seconds": res.seconds,
            "history": [{k: row[k] for k in ("step", "train_loss", "eval_loss", "eval_accuracy")}
                        for row in res.history]}


def from_shipped(cfg: ToyConfig, lx: int, ly: int, arm: str, seed: int, shipped: dict | None) -> dict | None:
    """The record a run of `cfg` would produce, cut out of a longer shipped run with the same settings."""
    if not shipped or shipped.get("stopped") != "steps":
        return None
    scfg = shipped["config"]
    if json.loads(json.dumps(cfg.settings())) != {k: v for k, v in scfg.items()
                                                    if k not in ("ratios", "seeds", "steps")}:
        return None
    if cfg.steps > scfg["steps"]:
        return None
    for rec in shipped["records"]:
        if (rec["lx"], rec["ly"], rec["arm"], rec["seed"]) == (lx, ly, arm, seed):
            return {**rec, "history": [r for r in rec["history"] if r["step"] <= cfg.steps]}
    return None


def plan(cfg: ToyConfig, shipped: dict | None = None, use_cache: bool = True) -> tuple[list[dict], list[tuple]]:
    """Records ready (shipped or cached) and (lx, ly, arm, seed) still to train."""
    ready, missing = [], []
    for seed in cfg.seeds:
        for lx, ly in cfg.ratios:
            for arm in ARMS:
                rec = from_shipped(cfg, lx, ly, arm, seed, shipped)
                if rec is None and use_cache:
                    rec = results.load(CACHE_KIND, record_key(cfg, lx, ly, arm, seed))
                if rec is None:
                    missing.append((lx, ly, arm, seed))
                else:
                    ready.append(rec)
    return ready, missing


def measured_rate(shipped: dict | None) -> float:
    """Seconds per model-step per token of sequence, from a shipped run (a fallback if there is none)."""
    if shipped and shipped.get("records"):
        spent = sum(r["seconds"] for r in shipped["records"])
        work = sum(r["history"][-1]["step"] * (r["lx"] + r["ly"]) for r in shipped["records"])
        if spent > 0 and work > 0:
            return spent / work
    return SECONDS_PER_MODEL_STEP / 24


def estimate_seconds(cfg: ToyConfig, missing: list[tuple], shipped: dict | None = None) -> float:
    rate = measured_rate(shipped)
    return sum(cfg.steps * (lx + ly) * rate for lx, ly, _, _ in missing)


def run(cfg: ToyConfig, shipped: dict | None = None, use_cache: bool = True,
        on_progress: Callable[[float, str], None] | None = None,
        should_stop: Callable[[], bool] | None = None) -> dict:
    """Every model of `cfg`: reused where possible, the rest trained now (complete ones go to the cache).

    `should_stop` (a time limit or a cancel) ends the run after the model in progress stops; what is done
    so far is returned, marked `stopped="cut"`, and the analysis uses the seeds that are complete.
    """
    start = time.perf_counter()
    ready, missing = plan(cfg, shipped, use_cache)
    stopped = "steps"
    for i, (lx, ly, arm, seed) in enumerate(missing):
        if on_progress:
            on_progress(i / len(missing), f"model {i + 1} of {len(missing)}: {ARM_NAMES[arm]}, {lx}->{ly}, seed {seed}")
        if should_stop is not None and should_stop():
            stopped = "cut"
            break
        rec = train_one(cfg, lx, ly, arm, seed, should_stop)
        if rec["stopped"] != "steps":
            stopped = "cut"
            break
        ready.append(rec)
        if use_cache:
            results.save(CACHE_KIND, record_key(cfg, lx, ly, arm, seed), rec)
    return {"config": cfg.to_dict(), "records": ready, "stopped": stopped, "trained": len(missing),
            "seconds": time.perf_counter() - start}


# --- statistics ------------------------------------------------------------------------------------------

def t_test_power(effect_over_se: float, df: int, alpha: float = ALPHA) -> float:
    """Power of a two-sided t-test when the true effect is `effect_over_se` standard errors.

    The noncentral t distribution; where scipy's is not finite (df = 1, large effects) the same probability
    is integrated over the chi-square law of the variance estimate.
    """
    crit = stats.t.ppf(1 - alpha / 2, df)
    power = stats.nct.sf(crit, df, effect_over_se) + stats.nct.cdf(-crit, df, effect_over_se)
    if math.isfinite(power):
        return float(power)

    def integrand(v: float) -> float:
        s = crit * math.sqrt(v / df)
        return (stats.norm.cdf(effect_over_se - s) + stats.norm.cdf(-effect_over_se - s)) * stats.chi2.pdf(v, df)

    lo, hi = stats.chi2.ppf([1e-12, 1 - 1e-12], df)
    return float(integrate.quad(integrand, lo, hi, limit=200)[0])


def minimum_detectable(se: float, df: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest true effect that a two-sided t-test with this standard error and df detects with `power`."""
    if not (se > 0 and math.isfinite(se) and df >= 1):
        return float("nan")
    return float(optimize.brentq(lambda nc: t_test_power(nc, df, alpha) - power, 0.0, 1e3) * se)


def paired_test(encdec: np.ndarray, decoder: np.ndarray) -> dict:
    """Paired t-test over seeds on the log loss ratio ln(encdec / decoder): < 0 means encoder-decoder lower."""
    gap = np.log(encdec) - np.log(decoder)
    n = len(gap)
    out = {"n": n, "gap_mean": float(gap.mean()), "gaps": gap.tolist()}
    if n < 2:
        return {**out, "gap_sd": float("nan"), "p": float("nan"), "ci95": [float("nan")] * 2, "mde": float("nan")}
    sd = float(gap.std(ddof=1))
    se = sd / math.sqrt(n)
    t = stats.t.ppf(0.975, n - 1)
    p = float(stats.ttest_rel(np.log(encdec), np.log(decoder)).pvalue) if sd > 0 else float("nan")
    return {**out, "gap_sd": sd, "p": p, "ci95": [out["gap_mean"] - t * se, out["gap_mean"] + t * se],
            "mde": minimum_detectable(se, n - 1)}


def _sd(values: np.ndarray) -> float:
    return float(values.std(ddof=1)) if len(values) > 1 else 0.0


def loss_of(record: dict, metric: str) -> float:
    """`final`: held-out loss at the last evaluation; `curve`: mean held-out loss over every evaluation."""
    losses = [r["eval_loss"] for r in record["history"]]
    return float(losses[-1] if metric == "final" else np.mean(losses))


METRICS = {"curve": "held-out loss averaged over the run's evaluations",
           "final": "held-out loss at the last step"}


def analyse(run_result: dict, metric: str = "curve") -> dict:
    """Per ratio and matching: both families' losses over seeds, the paired test and its detectable effect;
    per matching: whether the gap moves with the length ratio (a regression of the gap on log2(Lx/Ly)).

    Only seeds complete for every arm of a ratio enter that ratio's rows.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {sorted(METRICS)}, got {metric!r}")
    cfg = run_result["config"]
    by = {(r["lx"], r["ly"], r["arm"], r["seed"]): r for r in run_result["records"]}
    rows, trend = [], {}
    for matching, arm in MATCHINGS.items():
        xs, gaps = [], []
        for lx, ly in (tuple(r) for r in cfg["ratios"]):
            seeds = [s for s in cfg["seeds"] if all((lx, ly, a, s) in by for a in ARMS)]
            if not seeds:
                continue
            dec = np.array([loss_of(by[(lx, ly, "decoder", s)], metric) for s in seeds])
            ed = np.array([loss_of(by[(lx, ly, arm, s)], metric) for s in seeds])
            test = paired_test(ed, dec)
            rows.append({"lx": lx, "ly": ly, "matching": matching, "seeds": seeds,
                         "decoder": dec.tolist(), "encdec": ed.tolist(),
                         "decoder_mean": float(dec.mean()), "decoder_sd": _sd(dec),
                         "encdec_mean": float(ed.mean()), "encdec_sd": _sd(ed),
                         "parameters": {a: by[(lx, ly, a, seeds[0])]["parameters"] for a in ("decoder", arm)},
                         "flops_per_example": {a: by[(lx, ly, a, seeds[0])]["flops_per_example"]
                                               for a in ("decoder", arm)}, **test})
            xs += [math.log2(lx / ly)] * len(seeds)
            gaps += test["gaps"]
        trend[matching] = ratio_trend(np.array(xs), np.array(gaps))
    return {"metric": metric, "metric_text": METRICS[metric], "rows": rows, "trend": trend,
            "config": cfg, "stopped": run_result.get("stopped", "steps")}


def ratio_trend(x: np.ndarray, gap: np.ndarray) -> dict:
    """Slope of the gap per doubling of Lx/Ly, its p-value and the smallest slope the design detects.

    The FLAN explanation predicts a negative slope: the longer the input relative to the target, the more
    the encoder-decoder gains (the gap is ln(encdec / decoder) loss, lower = encoder-decoder better).
    """
    if len(set(x.tolist())) < 2 or len(x) < 3:
        return {"slope": float("nan"), "p": float("nan"), "se": float("nan"), "mde": float("nan"), "n": len(x)}
    fit = stats.linregress(x, gap)
    return {"slope": float(fit.slope), "p": float(fit.pvalue), "se": float(fit.stderr), "n": len(x),
            "mde": minimum_detectable(float(fit.stderr), len(x) - 2)}


def percent(log_ratio: float) -> float:
    """A log loss ratio as a percentage change of the loss: ln(a/b) = -0.1 -> -9.5%."""
    return 100.0 * math.expm1(log_ratio)


def learning_curves(run_result: dict) -> list[dict]:
    """Per ratio and arm: the seed-mean held-out loss at each evaluation step (for a curve figure)."""
    groups: dict[tuple, list[dict]] = {}
    for r in run_result["records"]:
        groups.setdefault((r["lx"], r["ly"], r["arm"]), []).append(r)
    out = []
    for (lx, ly, arm), recs in sorted(groups.items()):
        n = min(len(r["history"]) for r in recs)
        steps = [recs[0]["history"][i]["step"] for i in range(n)]
        loss = np.array([[r["history"][i]["eval_loss"] for i in range(n)] for r in recs])
        out.append({"lx": lx, "ly": ly, "arm": arm, "steps": steps, "mean": loss.mean(0).tolist(),
                    "low": loss.min(0).tolist(), "high": loss.max(0).tolist(), "seeds": len(recs)})
    return out


def load_shipped(preset: str = "main") -> dict | None:
    try:
        return json.loads(shipped_path(preset).read_text())
    except (OSError, ValueError):
        return None
