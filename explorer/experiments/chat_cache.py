"""Slide 66's chat, for real: which tokens' states each turn reuses or recomputes, and how far old ones move.

A chat is typed as turns separated by `TURN_SEPARATOR` ("How are you? / Bad"). The project's tokenizer turns it
into characters; every turn after the first opens with a space, so the chat reads as one line of text. Two
trained demo models of the attention page (`explorer.experiments.attention`) read it:

    bidirectional   the encoder of the encoder-decoder demo model: every input token reads every other
    causal          the decoder-only demo model: a token reads only the tokens before it

Both were trained to reverse strings of at most `att.MAX_CHARS` characters, so their states are measured only
while the chat fits in that many tokens. What a turn reuses or recomputes holds by construction at any length:
a causal token never reads later ones, so its keys and values from earlier turns stay valid (the KV cache); a
bidirectional one reads the new turn, so it is computed again. The drift is measured by real forward passes:
each old token's keys and values per layer before the turn arrived against after, as a relative L2 change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch

from explorer import checkpoints, content, tokenizer
from explorer.experiments import attention as att
from explorer.model import Transformer
from explorer.tasks import BOS

TURN_SEPARATOR = "/"  # not in the tokenizer's alphabet, so it can only mean "next turn"
DEFAULT_CHAT = "How are you? / Bad"  # slide 66
MAX_TURNS = 8
MAX_TURN_CHARS = 48
MAX_TEXT = MAX_TURNS * (MAX_TURN_CHARS + 3)  # what the text box takes: the turns and their separators
JOIN = " "  # the token that opens every later turn
MEASURED_LIMIT = att.MAX_CHARS  # the demo models were trained to read at most this many tokens
DEMO_ARCHS = {"bidirectional": "encoder_decoder", "causal": "decoder"}
DEMO_LAYERS = att.demo_spec("decoder").model.n_layers  # every demo model has this depth
MODELS_TEXT = "demo models: the encoder-decoder's encoder (bidirectional), decoder-only (causal)"
BOOK = "cache"  # the refusals a student reads: content/<lang>/cache.md


@dataclass(frozen=True)
class Chat:
    """A typed chat as the models read it: one token id per character, and where each turn ends."""

    turns: tuple[str, ...]  # each turn as the tokenizer left it, without its joining space
    ids: tuple[int, ...]
    ends: tuple[int, ...]  # token index just after each turn
    notices: tuple[str, ...] = ()  # the tokenizer's fallbacks (accents removed, unknown characters)

    @property
    def labels(self) -> list[str]:
        return [tokenizer.label(i) for i in self.ids]

    def start(self, turn: int) -> int:
        """Token index where turn `turn` (0-based) begins."""
        return self.ends[turn - 1] if turn else 0


def parse_chat(text: str) -> Chat:
    """Split typed text into turns and tokenise them; ValueError naming the limit when it is too long."""
    if not isinstance(text, str):
        raise ValueError(content.text(BOOK, "chat-error-not-text", kind=type(text).__name__))
    raw = [part.strip() for part in text.split(TURN_SEPARATOR)]
    raw = [part for part in raw if part]
    if not raw:
        raise ValueError(content.text(BOOK, "chat-error-empty", separator=TURN_SEPARATOR, example=DEFAULT_CHAT))
    if len(raw) > MAX_TURNS:
        raise ValueError(content.text(BOOK, "chat-error-turns", turns=len(raw), limit=MAX_TURNS))
    longest = max(raw, key=len)
    if len(longest) > MAX_TURN_CHARS:
        raise ValueError(content.text(BOOK, "chat-error-chars", chars=len(longest), limit=MAX_TURN_CHARS))
    raw = [part.lower() for part in raw]  # as the tokenizer would: its notices then name only real fallbacks
    turns, ids, ends = [], [], []
    for part in raw:
        enc = tokenizer.encode((JOIN if ids else "") + part)
        if len(enc.ids) <= (1 if ids else 0):
            continue  # nothing visible was left of this turn (only invisible marks)
        turns.append(enc.text.removeprefix(JOIN) if ids else enc.text)
        ids += enc.ids
        ends.append(len(ids))
    if not ids:
        raise ValueError(content.text(BOOK, "chat-error-invisible"))
    notices = tokenizer.encode(JOIN.join(raw)).notices()
    return Chat(tuple(turns), tuple(ids), tuple(ends), tuple(notices))


def load_models() -> dict[str, Transformer] | None:
    """The two shipped demo models (eval mode), or None when one is not on disk."""
    paths = {role: att.find_demo(arch) for role, arch in DEMO_ARCHS.items()}
    if any(path is None for path in paths.values()):
        return None
    return {role: checkpoints.load(path)[0] for role, path in paths.items()}


def quantities(n_layers: int) -> list[str]:
    """What `token_states` returns, in order: each layer's keys and values, then the stack's output."""
    return [f"layer {layer} keys & values" for layer in range(1, n_layers + 1)] + ["output state"]


def token_states(model: Transformer, ids: Sequence[int]) -> list[torch.Tensor]:
    """Per layer, each token's keys and values of every head side by side ([tokens, 2 d]), then the stack's
    output ([tokens, d]: what the next stage reads, for an encoder-decoder the decoder's cross-attention).

    An encoder-decoder runs its encoder on `ids` (its decoder gets <bos> alone, which the encoder never reads).
    """
    x = torch.tensor([list(ids)])
    target = torch.tensor([[BOS]]) if model.cfg.arch == "encoder_decoder" else None
    stack = "decoder" if model.cfg.arch == "decoder" else "encoder"
    with torch.no_grad():
        out = model(x, target, return_states=True) if target is not None else model(x, return_states=True)
    kv = [
        torch.cat(pair, dim=-1)[0].transpose(0, 1).reshape(len(ids), -1)  # [H, T, 2 dh] -> [T, 2 d]
        for pair in out.keys_values[stack]
    ]
    return kv + [out.states[stack][-1][0]]


def old_token_drift(model: Transformer, before: Sequence[int], after: Sequence[int]) -> np.ndarray:
    """[layers + 1, len(before)]: how far each old token's keys and values (per layer) and output moved,
    ||after - before|| / ||before||."""
    n = len(before)
    if list(after[:n]) != list(before):
        raise ValueError("the chat after a turn must start with the chat before it")
    rows = [
        ((a[:n] - b).norm(dim=-1) / b.norm(dim=-1)).numpy()
        for b, a in zip(token_states(model, before), token_states(model, after))
    ]
    return np.stack(rows).astype(float)


def chat_reuse(chat: Chat, models: dict[str, Transformer] | None) -> dict:
    """Per turn: its tokens, how many old tokens each model reuses or recomputes, and the measured drift.

    A turn's `drift` maps "bidirectional" / "causal" to a [quantity][old tokens] list (`quantities`: each
    layer's keys and values, then the output) when the chat up to that turn fits the models (`MEASURED_LIMIT`
    tokens) and the models are there; else `drift` is None.
    """
    turns = []
    for t, text in enumerate(chat.turns):
        start, end = chat.start(t), chat.ends[t]
        row = {
            "turn": t + 1,
            "text": text,
            "start": start,
            "end": end,
            "old": start,
            "new": end - start,
            "causal_reused": start,
            "bidirectional_recomputed": start,
            "drift": None,
        }
        if models is not None and t > 0 and end <= MEASURED_LIMIT:
            row["drift"] = {
                role: old_token_drift(model, chat.ids[:start], chat.ids[:end]).tolist()
                for role, model in models.items()
            }
        turns.append(row)
    return {
        "tokens": chat.labels,
        "turns": turns,
        "limit": MEASURED_LIMIT,
        "quantities": quantities(DEMO_LAYERS),
        "models": MODELS_TEXT if models else None,
    }


def drift_summary(turn: dict, shown: int) -> dict | None:
    """The bidirectional model's drift at one turn, of quantity `shown` (0-based): mean, largest and its token
    index; the causal model's largest, which only float rounding makes non-zero. None when not measured."""
    if turn["drift"] is None:
        return None
    moved = np.asarray(turn["drift"]["bidirectional"][shown])
    return {
        "mean": float(moved.mean()),
        "max": float(moved.max()),
        "argmax": int(moved.argmax()),
        "causal_max": float(np.max(turn["drift"]["causal"])),
    }
