"""The four training objectives, one per architecture, on windows of real text.

    decoder          next token: read x[0..T-1], predict x[1..T] (a causal mask)
    prefix_lm        next token after a bidirectional prefix of p tokens (p drawn per batch); the loss counts only
                     predictions of tokens outside the prefix (a prefix token is visible to the positions before it)
    encoder          masked tokens (BERT): 15% of positions chosen; of those 80% become <mask>, 10% a random token,
                     10% stay; the loss counts only the chosen positions
    encoder_decoder  denoising (BART): spans covering ~15% of the window become <mask> in the encoder's input; the
                     decoder writes the whole clean window after <bos>; the loss counts every target position, and
                     the held-out report also gives it on the corrupted positions alone

Every batch is (inputs, target-side tokens or None, labels, loss weights, prefix length); labels are -100 where
nothing is predicted. Windows come from one language at a time, chosen with probability ZH_SHARE for Chinese.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from explorer.model import Transformer
from explorer.realtext import corpus
from explorer.realtext.tokenizer import BOS, MASK, SPECIALS, CharTokenizer

SEQ_LEN = 64  # tokens per training window; also the longest sentence the page reads
ZH_SHARE = 0.3  # Chinese windows per batch on average (3.5% of the characters: oversampled so they are learned)
MASK_RATE = 0.15
SPAN_MEAN = 3  # mean length of a denoising span
IGNORE = -100


@dataclass
class Batch:
    inputs: torch.Tensor  # [B, T]
    target_in: torch.Tensor | None  # [B, T] decoder input of an encoder-decoder (<bos> + clean[:-1])
    labels: torch.Tensor  # [B, T], IGNORE where no loss
    prefix_len: int = 0
    corrupted: torch.Tensor | None = None  # [B, T] bool: positions the encoder saw corrupted (encoder-decoder)


class Streams:
    """Each language's text as ids, training and held-out parts."""

    def __init__(self, tok: CharTokenizer, directory=corpus.DATA_DIR) -> None:
        self.tok = tok
        self.train, self.held_out = {}, {}
        for lang in corpus.LANGS:
            c = corpus.load(lang, directory)
            self.train[lang] = torch.tensor(tok.encode(c.train).ids, dtype=torch.long)
            self.held_out[lang] = torch.tensor(tok.encode(c.held_out).ids, dtype=torch.long)

    def windows(self, part: str, lang: str, n: int, length: int, g: torch.Generator) -> torch.Tensor:
        ids = (self.train if part == "train" else self.held_out)[lang]
        starts = torch.randint(0, len(ids) - length, (n,), generator=g)
        return torch.stack([ids[s : s + length] for s in starts.tolist()])


def _mixed_windows(streams: Streams, part: str, batch_size: int, length: int, g: torch.Generator) -> torch.Tensor:
    n_zh = int(torch.binomial(torch.tensor(float(batch_size)), torch.tensor(ZH_SHARE), generator=g))
    parts = [streams.windows(part, "en", batch_size - n_zh, length, g)]
    if n_zh:
        parts.append(streams.windows(part, "zh", n_zh, length, g))
    return torch.cat(parts)


def _random_tokens(shape, vocab: int, g: torch.Generator) -> torch.Tensor:
    return torch.randint(len(SPECIALS), vocab, shape, generator=g)


def mask_tokens(x: torch.Tensor, tok: CharTokenizer, g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's corruption: (corrupted inputs, labels at the chosen positions)."""
    chosen = torch.rand(x.shape, generator=g) < MASK_RATE
    roll = torch.rand(x.shape, generator=g)
    corrupted = x.clone()
    corrupted[chosen & (roll < 0.8)] = tok.id(MASK)
    swap = chosen & (roll >= 0.8) & (roll < 0.9)
    corrupted[swap] = _random_tokens(x.shape, tok.vocab_size, g)[swap]
    return corrupted, torch.where(chosen, x, IGNORE)


def span_mask(shape: tuple[int, int], g: torch.Generator) -> torch.Tensor:
    """Spans of mean length SPAN_MEAN covering about MASK_RATE of each row: start a span at a position with
    probability MASK_RATE / SPAN_MEAN, and let it run SPAN_MEAN positions."""
    starts = torch.rand(shape, generator=g) < MASK_RATE / SPAN_MEAN
    covered = starts.clone()
    for k in range(1, SPAN_MEAN):
        covered[:, k:] |= starts[:, :-k]
    return covered


def batch(
    arch: str, streams: Streams, batch_size: int, g: torch.Generator, part: str = "train", length: int = SEQ_LEN
) -> Batch:
    tok = streams.tok
    if arch in ("decoder", "prefix_lm"):
        w = _mixed_windows(streams, part, batch_size, length + 1, g)
        x, y = w[:, :-1], w[:, 1:].clone()
        if arch == "decoder":
            return Batch(x, None, y)
        p = int(torch.randint(length // 8, length - length // 8, (1,), generator=g))
        y[:, : p - 1] = IGNORE  # position i < p-1 sees token i+1 inside the prefix
        return Batch(x, None, y, prefix_len=p)
    w = _mixed_windows(streams, part, batch_size, length, g)
    if arch == "encoder":
        x, y = mask_tokens(w, tok, g)
        return Batch(x, None, y)
    if arch == "encoder_decoder":
        covered = span_mask(tuple(w.shape), g)
        x = w.masked_fill(covered, tok.id(MASK))
        target_in = torch.cat([torch.full((w.shape[0], 1), tok.id(BOS)), w[:, :-1]], dim=1)
        return Batch(x, target_in, w, corrupted=covered)
    raise ValueError(f"unknown architecture {arch!r}")


def forward(model: Transformer, b: Batch, need_weights: bool = False):
    return model(b.inputs, b.target_in, prefix_len=b.prefix_len, need_weights=need_weights)


def loss(model: Transformer, b: Batch) -> torch.Tensor:
    logits = forward(model, b).logits
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), b.labels.reshape(-1), ignore_index=IGNORE)


@torch.no_grad()
def held_out_loss(
    model: Transformer, streams: Streams, batches: int = 8, batch_size: int = 32, seed: int = 7_000_001
) -> dict:
    """Mean cross-entropy (nats per predicted token) on fixed held-out windows, per language; for the
    encoder-decoder also on the corrupted positions alone."""
    model.eval()
    out = {}
    for lang in corpus.LANGS:
        g = torch.Generator().manual_seed(seed)
        total = count = cor_total = cor_count = 0.0
        for _ in range(batches):
            w_stream = _LangOnly(streams, lang)
            b = batch(model.cfg.arch, w_stream, batch_size, g, part="held_out")
            logits = forward(model, b).logits
            nll = F.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), b.labels.reshape(-1), ignore_index=IGNORE, reduction="none"
            ).view(b.labels.shape)
            valid = b.labels != IGNORE
            total, count = total + float(nll[valid].sum()), count + int(valid.sum())
            if b.corrupted is not None:
                cor_total += float(nll[b.corrupted].sum())
                cor_count += int(b.corrupted.sum())
        out[lang] = total / count
        if cor_count:
            out[f"{lang}_corrupted"] = cor_total / cor_count
    return out


class _LangOnly(Streams):
    """A view of `Streams` whose every window is in one language (held-out losses per language)."""

    def __init__(self, streams: Streams, lang: str) -> None:  # super() not called: a view, nothing to load
        self.tok, self.lang, self._s = streams.tok, lang, streams

    def windows(self, part: str, lang: str, n: int, length: int, g: torch.Generator) -> torch.Tensor:
        return self._s.windows(part, self.lang, n, length, g)
