"""What the real-text models do with a student's sentence: attention of every layer and head, their masks, the
heads' measured patterns, the decoder's next-token guesses and the encoder's masked-token guesses.

The attention shown is the self-attention over the sentence itself: the decoder's and prefix-LM's over the
sentence as their sequence (the prefix-LM with the first half as its bidirectional prefix), the encoder's over the
sentence, and the encoder-decoder's encoder over the sentence (its input). Plain data out (numpy, lists, dicts).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np
import torch

from explorer import masks
from explorer.model import Transformer
from explorer.realtext.objectives import SEQ_LEN
from explorer.realtext.tokenizer import BOS, MASK, SPECIALS, CharTokenizer

MAX_TOKENS = SEQ_LEN
PATTERNS = ("previous_token", "word_start", "same_word", "punctuation")
NAMED_AT = 0.4  # a head is named after a pattern when that pattern gets at least this share of its attention
TOP_K = 5


def prefix_length(n: int) -> int:
    """The prefix-LM's bidirectional prefix for a sentence of n tokens: its first half (at least one token)."""
    return max(1, n // 2)


def mask_of(arch: str, n: int) -> np.ndarray:
    """[n, n] booleans: may query i read key j in this architecture's self-attention over the sentence."""
    if arch in ("encoder", "encoder_decoder"):
        m = masks.bidirectional(n)
    elif arch == "decoder":
        m = masks.causal(n)
    elif arch == "prefix_lm":
        m = masks.prefix_lm(prefix_length(n), n)
    else:
        raise ValueError(f"unknown architecture {arch!r}")
    return masks.allowed(m).numpy()


def _is_cjk(ch: str) -> bool:
    return "CJK" in unicodedata.name(ch, "")


def _is_punct(ch: str) -> bool:
    return unicodedata.category(ch).startswith("P")


def word_ids(tokens: list[str]) -> list[int]:
    """The word each token belongs to (-1 for spaces and punctuation). A run of letters is a word; a Chinese
    character is a word of its own (the corpus has no word boundaries to learn finer ones from)."""
    out, current, prev_word = [], -1, False
    for tok in tokens:
        if len(tok) == 1 and tok.isalnum() and not _is_cjk(tok):
            if not prev_word:
                current += 1
            out.append(current)
            prev_word = True
        elif len(tok) == 1 and _is_cjk(tok):
            current += 1
            out.append(current)
            prev_word = False
        else:
            out.append(-1)
            prev_word = False
    return out


def pattern_keys(tokens: list[str]) -> dict[str, np.ndarray]:
    """For each pattern, [n, n] booleans: which keys count as that pattern for query i."""
    n = len(tokens)
    q, k = np.indices((n, n))
    words = np.array(word_ids(tokens))
    starts = np.array([w >= 0 and (i == 0 or words[i - 1] != w) for i, w in enumerate(words)])
    punct = np.array([len(t) == 1 and _is_punct(t) for t in tokens])
    return {
        "previous_token": k == q - 1,
        "word_start": np.broadcast_to(starts[None, :], (n, n)) & (k != q),
        "same_word": (words[q] == words[k]) & (words[q] >= 0) & (k != q),
        "punctuation": np.broadcast_to(punct[None, :], (n, n)) & (k != q),
    }


def pattern_scores(weights: np.ndarray, allowed: np.ndarray, tokens: list[str]) -> list[dict]:
    """For every layer, head and pattern: the mean share of a query's attention on that pattern's keys, over the
    queries that may read at least one such key (0 when none may). weights: [L, H, n, n]."""
    out = []
    for name, keys in pattern_keys(tokens).items():
        usable = keys & allowed
        rows = usable.any(axis=1)
        for layer in range(weights.shape[0]):
            for head in range(weights.shape[1]):
                share = (weights[layer, head] * usable).sum(axis=1)
                score = float(share[rows].mean()) if rows.any() else 0.0
                out.append({"layer": layer, "head": head, "name": name, "score": round(score, 4)})
    return out


def named_heads(scores: list[dict]) -> list[dict]:
    """Each head's strongest pattern, where that pattern takes at least NAMED_AT of its attention."""
    best: dict[tuple[int, int], dict] = {}
    for s in scores:
        key = (s["layer"], s["head"])
        if key not in best or s["score"] > best[key]["score"]:
            best[key] = s
    return sorted((s for s in best.values() if s["score"] >= NAMED_AT), key=lambda s: (s["layer"], s["head"]))


@dataclass
class Reading:
    arch: str
    tokens: list[str]  # the sentence's tokens (<unk> where outside the vocabulary)
    labels: list[str]  # readable tick labels
    attention: np.ndarray  # [L, H, n, n] self-attention over the sentence
    allowed: np.ndarray  # [n, n]
    patterns: list[dict]
    prefix_len: int = 0

    def as_json(self) -> dict:
        """The CLI's exact contract."""
        return {
            "tokens": self.tokens,
            "layers": int(self.attention.shape[0]),
            "heads": int(self.attention.shape[1]),
            "attention": np.round(self.attention.astype(float), 5).tolist(),
            "patterns": self.patterns,
        }


def encode(tok: CharTokenizer, text: str):
    """The sentence's encoding, cut to MAX_TOKENS; ValueError when nothing is left."""
    enc = tok.encode(text, max_len=MAX_TOKENS)
    if not enc.ids:
        raise ValueError("the text is empty: type a sentence")
    return enc


@torch.no_grad()
def read(model: Transformer, tok: CharTokenizer, text: str) -> Reading:
    """Run the model on the sentence and measure its attention."""
    enc = encode(tok, text)
    arch = model.cfg.arch
    x = torch.tensor([enc.ids])
    n = x.shape[1]
    prefix = prefix_length(n) if arch == "prefix_lm" else 0
    if arch == "encoder_decoder":
        out = model(x, torch.tensor([[tok.id(BOS)]]), need_weights=True)  # the encoder's reading needs no target
        weights = out.attentions["encoder_self"]
    else:
        out = model(x, prefix_len=prefix, need_weights=True)
        weights = out.attentions["encoder_self" if arch == "encoder" else "decoder_self"]
    att = torch.stack([w[0] for w in weights]).numpy()  # [L, H, n, n]
    allowed = mask_of(arch, n)
    return Reading(
        arch,
        enc.tokens,
        [tok.label(i) for i in enc.ids],
        att,
        allowed,
        pattern_scores(att, allowed, enc.tokens),
        prefix,
    )


def writable(logits: torch.Tensor) -> torch.Tensor:
    """Logits with the special tokens ruled out: a model writes characters, never <pad>, <bos>, <mask> or <unk>
    (<unk> stands for every rare character in training, so it is often likely, and says nothing)."""
    return logits.index_fill(-1, torch.arange(len(SPECIALS)), float("-inf"))


def _top(tok: CharTokenizer, logits: torch.Tensor, k: int = TOP_K) -> list[dict]:
    p = writable(logits).softmax(-1)
    values, ids = p.topk(k)
    return [{"token": tok.label(int(i)), "p": round(float(v), 4)} for v, i in zip(values, ids)]


@torch.no_grad()
def next_token_guesses(model: Transformer, tok: CharTokenizer, text: str, continue_chars: int = 40) -> dict:
    """The decoder's top guesses for the token after the sentence, and its greedy continuation."""
    ids = encode(tok, text).ids
    top = _top(tok, model(torch.tensor([ids])).logits[0, -1])
    out = list(ids)
    for _ in range(continue_chars):
        window = torch.tensor([out[-MAX_TOKENS:]])
        out.append(int(writable(model(window).logits[0, -1]).argmax()))
    return {"top": top, "continuation": tok.decode(out[len(ids) :])}


@torch.no_grad()
def masked_guesses(model: Transformer, tok: CharTokenizer, text: str) -> list[dict]:
    """For each position in turn: hide it behind <mask> and ask the encoder which token it was (one batch of n
    copies of the sentence, each with one position masked)."""
    ids = encode(tok, text).ids
    n = len(ids)
    x = torch.tensor([ids] * n)
    x[torch.arange(n), torch.arange(n)] = tok.id(MASK)
    logits = model(x).logits[torch.arange(n), torch.arange(n)]  # [n, vocab]
    out = []
    for i in range(n):
        top = _top(tok, logits[i], 3)
        out.append(
            {"position": i, "token": tok.label(ids[i]), "top": top, "right": top[0]["token"] == tok.label(ids[i])}
        )
    return out


def token_table(tok: CharTokenizer, ids: list[int]) -> list[dict]:
    """The sentence's pipeline as two rows, token and id, one column per position (text -> tokens -> ids)."""
    return [{str(i): tok.label(t) for i, t in enumerate(ids)}, {str(i): str(t) for i, t in enumerate(ids)}]


def csv_rows(readings: list[Reading]) -> list[list]:
    """(model, query, key, layer, head, weight) for every allowed cell of every model: the page's CSV export."""
    rows = [["model", "query_index", "query", "key_index", "key", "layer", "head", "weight"]]
    for r in readings:
        n = len(r.tokens)
        for layer in range(r.attention.shape[0]):
            for head in range(r.attention.shape[1]):
                for q in range(n):
                    for k in range(n):
                        if r.allowed[q, k]:
                            rows.append(
                                [
                                    r.arch,
                                    q,
                                    r.tokens[q],
                                    k,
                                    r.tokens[k],
                                    layer + 1,
                                    head + 1,
                                    f"{r.attention[layer, head, q, k]:.6f}",
                                ]
                            )
    return rows


@torch.no_grad()
def denoise(model: Transformer, tok: CharTokenizer, x: torch.Tensor) -> torch.Tensor:
    """The encoder-decoder's greedy reconstruction of a corrupted input [1, n] (its training task)."""
    target = torch.tensor([[tok.id(BOS)]])
    for _ in range(x.shape[1]):
        nxt = writable(model(x, target).logits[:, -1]).argmax(-1, keepdim=True)
        target = torch.cat([target, nxt], dim=1)
    return target[:, 1:]
