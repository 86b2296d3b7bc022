"""Attention masks: who may read whom (slides 23, 25, 27, 37, 50).

Every mask is additive: 0 where a query may read a key, -inf where it may not, so
`softmax(scores + mask)` gives exactly zero weight to forbidden keys. Rows are queries, columns keys.
The model and the figures build masks with these same functions, so what a page draws is what runs.
"""

from __future__ import annotations

import torch

NEG_INF = float("-inf")


def _additive(allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    mask = torch.zeros(allowed.shape, dtype=dtype)
    return mask.masked_fill(~allowed, NEG_INF)


def _positions(n_queries: int, n_keys: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Absolute positions of queries and keys; the queries are the last `n_queries` of the keys."""
    if n_queries > n_keys:
        raise ValueError(f"{n_queries} queries cannot be the tail of {n_keys} keys")
    q = torch.arange(n_keys - n_queries, n_keys).unsqueeze(1)
    k = torch.arange(n_keys).unsqueeze(0)
    return q, k


def bidirectional(n_queries: int, n_keys: int | None = None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Every query reads every key (encoder self-attention, slide 23; cross-attention, slide 27)."""
    return torch.zeros(n_queries, n_queries if n_keys is None else n_keys, dtype=dtype)


def causal(n_queries: int, n_keys: int | None = None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """M_ij = 0 for j <= i, -inf otherwise (slide 25).

    With `n_keys > n_queries` the queries are the newest tokens after a KV cache of earlier ones.
    """
    q, k = _positions(n_queries, n_queries if n_keys is None else n_keys)
    return _additive(k <= q, dtype)


def prefix_lm(prefix_len: int, total_len: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Bidirectional inside the first `prefix_len` tokens, causal after them."""
    q, k = _positions(total_len, total_len)
    return _additive((k <= q) | (k < prefix_len), dtype)


def local_window(mask: torch.Tensor, window: int) -> torch.Tensor:
    """Restrict an existing self-attention mask to keys fewer than `window` positions away.

    Under a causal mask this is "the last `window` positions, itself included"; under a
    bidirectional mask it is symmetric. The window is the structure knob of the crossover page.
    """
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    n_queries, n_keys = mask.shape[-2:]
    q, k = _positions(n_queries, n_keys)
    return mask.masked_fill((q - k).abs() >= window, NEG_INF)


def joint(n_input: int, n_target: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """One softmax over [input ; target prefix]: targets read all input keys and their own causal prefix.

    This is the decoder-only view of a target query (slide 37), used by the exact-equivalence change.
    """
    return torch.cat([bidirectional(n_target, n_input, dtype), causal(n_target, dtype=dtype)], dim=1)


def allowed(mask: torch.Tensor) -> torch.Tensor:
    """Boolean view of an additive mask: True where attention is permitted."""
    return torch.isfinite(mask)
