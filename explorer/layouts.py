"""How one (input x, target y) pair is fed to each architecture, and greedy decoding under that layout.

decoder          [x ; BOS ; y[:-1]]            causal; loss on the last m positions (slide 37)
prefix_lm        [x ; BOS ; y[:-1]]            x and BOS bidirectional, the rest causal
encoder_decoder  x -> encoder, [BOS ; y[:-1]] -> decoder (teacher forcing, slide 28)
encoder          x -> one label per position   needs len(y) == len(x): a task head (slide 32)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from explorer.model import KVCache, Output, Transformer
from explorer.tasks import BOS

IGNORE = -100  # label of positions that carry no loss


@dataclass
class Batch:
    tokens: torch.Tensor  # [B, T] single-stack sequence, or the encoder input
    labels: torch.Tensor  # [B, T_out] targets aligned with the logits, IGNORE where no loss
    target: torch.Tensor | None = None  # [B, m] decoder input (encoder-decoder only)
    prefix_len: int = 0

    def run(self, model: Transformer, **kwargs) -> Output:
        return model(self.tokens, self.target, prefix_len=self.prefix_len, **kwargs)


def _shift_right(y: torch.Tensor) -> torch.Tensor:
    bos = torch.full((y.shape[0], 1), BOS, dtype=y.dtype, device=y.device)
    return torch.cat([bos, y[:, :-1]], dim=1)


def make_batch(arch: str, x: torch.Tensor, y: torch.Tensor) -> Batch:
    n = x.shape[1]
    if arch == "encoder_decoder":
        return Batch(tokens=x, target=_shift_right(y), labels=y)
    if arch == "encoder":
        if y.shape[1] != n:
            raise ValueError(
                "an encoder-only model labels each input position: target length must equal "
                f"input length ({y.shape[1]} != {n})"
            )
        return Batch(tokens=x, labels=y)
    if arch not in ("decoder", "prefix_lm"):
        raise ValueError(f"unknown arch {arch!r}")
    tokens = torch.cat([x, _shift_right(y)], dim=1)
    labels = torch.cat([torch.full_like(x, IGNORE), y], dim=1)
    return Batch(tokens=tokens, labels=labels, prefix_len=n + 1 if arch == "prefix_lm" else 0)


def positions_needed(cfg, n_input: int, n_target: int) -> int:
    """Learned positions a model of `cfg` uses for an (input, target) pair laid out as above."""
    if cfg.arch == "encoder":
        return n_input
    if cfg.arch == "encoder_decoder" and not cfg.causal_encoder:
        return max(n_input, n_target)  # both stacks count from 0
    return n_input + n_target  # one sequence, or step 4's targets continuing after the input


def loss_and_accuracy(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean cross-entropy and token accuracy over labelled positions."""
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=IGNORE)
    keep = labels != IGNORE
    accuracy = (logits.argmax(-1)[keep] == labels[keep]).float().mean()
    return loss, accuracy


@torch.no_grad()
def greedy_decode(model: Transformer, x: torch.Tensor, target_len: int) -> torch.Tensor:
    """Generate `target_len` tokens for input `x` ([B, n]) the way the architecture would at inference."""
    arch = model.cfg.arch
    if arch == "encoder":
        return model(x).logits.argmax(-1)[:, :target_len]
    bos = torch.full((x.shape[0], 1), BOS, dtype=x.dtype)
    out = bos
    if arch == "decoder":  # prefill [x ; BOS] once, then one cached step per new token
        cache = KVCache(model.cfg, x.shape[0], x.shape[1] + target_len)
        logits = model(torch.cat([x, bos], dim=1), cache=cache).logits
        for _ in range(target_len - 1):
            nxt = logits[:, -1:].argmax(-1)
            out = torch.cat([out, nxt], dim=1)
            logits = model(nxt, cache=cache).logits
        return torch.cat([out, logits[:, -1:].argmax(-1)], dim=1)[:, 1:]
    for _ in range(target_len):  # prefix-LM and encoder-decoder: recompute (the prefix is bidirectional)
        if arch == "encoder_decoder":
            logits = model(x, out).logits
        else:
            logits = model(torch.cat([x, out], dim=1), prefix_len=x.shape[1] + 1).logits
        out = torch.cat([out, logits[:, -1:].argmax(-1)], dim=1)
    return out[:, 1:]
