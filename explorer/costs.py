"""Closed-form parameter, FLOP and memory counts.

They are written from the architecture, not read off a model, so tests can hold the model to them
(and `torch.utils.flop_counter` can hold them to the model). FLOPs count matrix multiplies only,
2 FLOPs per multiply-add, which is what dominates and what `FlopCounterMode` counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer import content

if TYPE_CHECKING:
    from explorer.model import TransformerConfig

TRAIN_FLOPS_PER_FORWARD = 3  # backward costs about twice the forward (Kaplan et al. 2020, sec. 2.1)
MAX_PARAMETERS = 50_000_000  # a CPU classroom server: refuse anything bigger before allocating it


def _attention_params(d: int) -> int:
    return 4 * (d * d + d)  # q, k, v, o projections with biases


def _layer_norm_params(d: int) -> int:
    return 2 * d


def parameter_count(cfg: TransformerConfig) -> int:
    """Number of distinct parameters of `Transformer(cfg)`."""
    d, f, L = cfg.d_model, cfg.ff_width, cfg.n_layers
    mlp = d * f + f + f * d + d
    self_layer = 2 * _layer_norm_params(d) + _attention_params(d) + mlp
    embeddings = cfg.vocab_size * d + cfg.max_len * d
    head = _layer_norm_params(d) + d * cfg.out_size + cfg.out_size
    if cfg.arch != "encoder_decoder":
        return embeddings + L * self_layer + head
    cross = 0
    if cfg.has_cross_sublayer:
        cross = _layer_norm_params(d) + (0 if cfg.share_cross_self else _attention_params(d))
    decoder = L * (self_layer + cross)
    encoder = 0 if cfg.share_encoder_decoder else L * self_layer
    return embeddings + decoder + encoder + _layer_norm_params(d) + head


def check_size(cfg: TransformerConfig) -> None:
    """Raise ValueError, naming the limit, if `Transformer(cfg)` would exceed MAX_PARAMETERS (no allocation); the
    message is in the run's language (a page shows it)."""
    if (n := parameter_count(cfg)) > MAX_PARAMETERS:
        raise ValueError(content.text("messages", "too-many-parameters", n=n, limit=MAX_PARAMETERS))


def attention_entries(n_queries: int, n_keys: int, causal: bool) -> int:
    """Query-key pairs that are computed: all of them (dense) or only the permitted ones (causal).

    Causal queries are the last `n_queries` positions of `n_keys`, as after a KV cache.
    """
    if not causal:
        return n_queries * n_keys
    offset = n_keys - n_queries
    return sum(offset + i + 1 for i in range(n_queries))


def stack_forward_flops(
    cfg: TransformerConfig, n_new: int, n_context: int, causal_only: bool = False, causal: bool = True
) -> int:
    """FLOPs of one self-attention stack processing `n_new` tokens that attend over `n_context` keys.

    `n_context >= n_new`; with a KV cache the earlier `n_context - n_new` keys are reused, not recomputed.
    `causal_only=True` counts only the permitted attention entries (what a causal kernel could skip to);
    the default counts the dense rectangle that a masked matmul really computes.
    """
    d, f = cfg.d_model, cfg.ff_width
    projections = 2 * n_new * d * d * 4  # q, k, v, o for the new tokens
    mlp = 2 * n_new * d * f * 2
    entries = attention_entries(n_new, n_context, causal) if causal_only else n_new * n_context
    attention = 2 * entries * d * 2  # scores QK^T and the weighted sum AV
    head = 2 * n_new * d * cfg.out_size
    return cfg.n_layers * (projections + mlp + attention) + head


def kv_cache_bytes(cfg: TransformerConfig, n_tokens: int, bytes_per_value: int = 4) -> int:
    """Memory of the KV cache: 2 (keys and values) x layers x tokens x width x bytes."""
    return 2 * cfg.n_layers * n_tokens * cfg.d_model * bytes_per_value


def sequence_forward_flops(cfg: TransformerConfig, n_input: int, n_target: int) -> int:
    """Forward FLOPs of one training example laid out for `cfg.arch` (see `explorer.layouts`)."""
    if cfg.arch == "encoder":
        return stack_forward_flops(cfg, n_input, n_input)
    if cfg.arch in ("decoder", "prefix_lm"):
        t = n_input + n_target
        return stack_forward_flops(cfg, t, t)
    d, L = cfg.d_model, cfg.n_layers
    encoder = stack_forward_flops(cfg, n_input, n_input) - 2 * n_input * d * cfg.out_size  # no head
    if cfg.joint_softmax:  # one attention over [input ; target]: target rows only, input keys projected again
        decoder = stack_forward_flops(cfg, n_target, n_input + n_target)
        return encoder + decoder + L * 2 * n_input * d * d * 2
    decoder = stack_forward_flops(cfg, n_target, n_target)
    cross = L * (2 * n_target * d * d * 2 + 2 * n_input * d * d * 2 + 2 * n_target * n_input * d * 2)
    return encoder + decoder + cross
