"""The path of slides 40-51 from encoder-decoder to decoder-only, as model configurations.

Step k turns on the first k of the four flags; step 5 adds the joint softmax, after which the
encoder-decoder computes exactly the decoder-only function. `transplant` copies a decoder-only
model's weights into a model at any step, so the two can be compared on the same batch.
"""

from __future__ import annotations

from dataclasses import replace

import torch

from explorer.model import STEP_FLAGS, Transformer, TransformerConfig

STEP_NAMES = (
    "encoder-decoder",
    "1. share cross/self-attention",
    "2. share encoder/decoder",
    "3. layer l reads layer l",
    "4. causal encoder",
    "+ one joint softmax",
)
FINAL_STEP = len(STEP_NAMES) - 1


def step_config(base: TransformerConfig, step: int) -> TransformerConfig:
    """The encoder-decoder of `base`'s sizes after `step` steps (0 = standard, 5 = joint softmax)."""
    if not 0 <= step <= FINAL_STEP:
        raise ValueError(f"step must be 0..{FINAL_STEP}, got {step}")
    flags = {flag: i < step for i, flag in enumerate(STEP_FLAGS)}
    return replace(base, arch="encoder_decoder", joint_softmax=step == FINAL_STEP, **flags)


def decoder_only_config(base: TransformerConfig) -> TransformerConfig:
    return replace(base, arch="decoder", joint_softmax=False, **{flag: False for flag in STEP_FLAGS})


# Where a parameter of an encoder-decoder finds its counterpart in a decoder-only model.
_COUNTERPARTS = (("encoder_blocks.", "blocks."), (".cross_attn.", ".attn."), (".ln_cross.", ".ln1."))


@torch.no_grad()
def transplant(target: Transformer, source: Transformer) -> list[str]:
    """Copy decoder-only `source` weights into encoder-decoder `target`; return the names left as they were.

    Separate encoder layers and cross-attention projections receive copies of the shared ones, so at
    every step the two models start from the same function as far as the architecture allows.
    """
    src = source.state_dict()
    untouched = []
    for name, tensor in target.state_dict().items():
        mapped = name
        for old, new in _COUNTERPARTS:
            mapped = mapped.replace(old, new)
        if mapped in src and src[mapped].shape == tensor.shape:
            tensor.copy_(src[mapped])
        else:
            untouched.append(name)
    return untouched
