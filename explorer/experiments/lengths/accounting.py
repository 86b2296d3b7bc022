"""Token accounting (slide 57): which parameters read how many tokens per example, and what that costs.

For a model shape and lengths Lx (input) and Ly (target): every parameter group, how many tokens per example
it is applied to, and the exact forward FLOPs of `explorer.costs`; and where an encoder-decoder costs what a
decoder-only model does. Counting only, no torch, so shapes of any size work.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Callable

from explorer.costs import parameter_count, sequence_forward_flops
from explorer.experiments.lengths.families import DECODER, ENCDEC, FAMILIES

POSITIONS = 4096  # learned position table of the allocation view: fixed, so parameters do not move with Lx


@dataclass(frozen=True)
class CostConfig:
    """The fields `explorer.costs` reads from a `TransformerConfig`, for shapes of any size.

    `explorer.costs.check_size` refuses to build models above 50M parameters; the allocation view only
    counts, for shapes of any size, so it passes this instead. A test holds the two to the same counts wherever
    both exist.
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
        return CostConfig(
            arch=family,
            d_model=self.d_model,
            n_layers=n_layers or self.n_layers,
            vocab_size=self.vocab_size,
            ff_width=self.ff_width,
            max_len=self.max_len,
        )


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
    embeddings = Group(
        "embeddings (token + position)",
        "embedding",
        v * d + shape.max_len * d,
        0,
        lx + ly,
        "both",
        "table lookups: no matmul",
    )
    if family == DECODER:
        t = lx + ly
        return [
            embeddings,
            Group(
                f"{L} layers: self-attention + MLP",
                "causal",
                L * layer_params,
                L * (attn_w + mlp_w),
                t,
                "both",
                "one stack reads inputs and targets",
            ),
            Group(
                "output head (+ final LayerNorm)",
                "head",
                ln + d * v + v,
                d * v,
                t,
                "both",
                "logits at every position, as the model computes them",
            ),
        ]
    if family != ENCDEC:
        raise ValueError(f"family must be {DECODER!r} or {ENCDEC!r}, got {family!r}")
    return [
        embeddings,
        Group(
            f"encoder: {L} layers (+ final LayerNorm)",
            "bidirectional",
            L * layer_params + ln,
            L * (attn_w + mlp_w),
            lx,
            "input",
            "reads the input only",
        ),
        Group(
            f"decoder: {L} layers, self-attention + MLP",
            "causal",
            L * layer_params,
            L * (attn_w + mlp_w),
            ly,
            "target",
            "reads the target only",
        ),
        Group(
            "cross-attention: queries + output (+ LayerNorm)",
            "cross",
            L * (2 * (d * d + d) + ln),
            L * 2 * d * d,
            ly,
            "target",
            "one query per target token",
        ),
        Group(
            "cross-attention: keys + values",
            "cross",
            L * 2 * (d * d + d),
            L * 2 * d * d,
            lx,
            "input",
            "project the encoder output, per decoder layer",
        ),
        Group(
            "output head (+ final LayerNorm)", "head", ln + d * v + v, d * v, ly, "target", "logits at target positions"
        ),
    ]


def attention_flops(shape: Shape, family: str, lx: float, ly: float) -> float:
    """FLOPs of attention scores and weighted sums (no parameters): dense rectangles, as `explorer.costs`."""
    d, L = shape.d_model, shape.n_layers
    entries = (lx + ly) ** 2 if family == DECODER else lx * lx + ly * ly + ly * lx
    return L * 4.0 * d * entries


def _input_share(groups: list[Group], lx: float, ly: float) -> float:
    """Share of the matmul FLOPs spent on input tokens (a group that reads both splits by token count)."""
    on_input = sum(
        g.flops * (1.0 if g.reads == "input" else lx / (lx + ly) if g.reads == "both" else 0.0) for g in groups
    )
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
            "parameters": parameter_count(shape.config(family)),
            "flops": float(flops),
            "attention_flops": attention,
            "input_share_of_flops": _input_share(groups, lx, ly),
        }
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
        curves[family] = {
            "layers": layers,
            "parameters": [parameter_count(shape.config(family, n)) for n in layers],
            "flops": [sequence_forward_flops(shape.config(family, n), lx, ly) for n in layers],
        }
    target_flops = sequence_forward_flops(shape.config(DECODER), lx, ly)
    target_params = parameter_count(shape.config(DECODER))
    fa, fb = _linear_in_layers(lambda n: sequence_forward_flops(shape.config(ENCDEC, n), lx, ly))
    pa, pb = _linear_in_layers(lambda n: parameter_count(shape.config(ENCDEC, n)))
    layers_equal = (target_flops - fa) / fb
    params_equal = pa + pb * layers_equal
    return {
        "curves": curves,
        "decoder": {"layers": shape.n_layers, "parameters": target_params, "flops": target_flops},
        "equal_cost": {
            "layers_per_stack": layers_equal,
            "parameters": params_equal,
            "parameter_ratio": params_equal / target_params,
            "flops": target_flops,
        },
    }
