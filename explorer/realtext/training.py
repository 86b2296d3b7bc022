"""Train, measure and save the four real-text models (`python -m explorer real-text train --arch ARCH`).

All four are the project's one `Transformer`, configured only through `TransformerConfig`: width 128, 4 heads,
MLP 256, and the same number of layers of computation per token: 4 for a single stack, 2 + 2 for the
encoder-decoder (its cross-attention makes it ~12% larger). The recipe is seeded and runs on one CPU thread, so
the shipped weights are re-created by the same command (bit for bit on the same CPU and torch, within the
tolerance of the held-out loss elsewhere). The tokenizer is trained on the corpus first and saved beside the
weights.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch

from explorer import checkpoints, shipped
from explorer.model import ARCHITECTURES, Transformer, TransformerConfig
from explorer.progress import SILENT, Progress
from explorer.realtext import corpus, objectives, reading
from explorer.realtext.tokenizer import CharTokenizer

SHIPPED_DIR = corpus.DATA_DIR
TOKENIZER_FILE = "tokenizer.json"
ARCHS = ("decoder", "encoder", "prefix_lm", "encoder_decoder")
assert set(ARCHS) == set(ARCHITECTURES)
MAX_WEIGHT_BYTES = 5_000_000


@dataclass(frozen=True)
class Recipe:
    steps: int = 500
    batch_size: int = 32
    lr: float = 2e-3
    warmup: int = 100
    seed: int = 0
    d_model: int = 128
    n_heads: int = 4
    d_ff: int = 256
    layers: int = 4  # per single stack; the encoder-decoder gets layers // 2 per stack

    def __post_init__(self) -> None:
        if self.steps < 1 or self.batch_size < 1:
            raise ValueError("steps and batch_size must be >= 1")


def tokenizer(directory: Path = SHIPPED_DIR) -> CharTokenizer:
    """The shipped tokenizer, else one trained on the shipped corpus (the same one: training is deterministic)."""
    path = Path(directory) / TOKENIZER_FILE
    if path.is_file():
        return CharTokenizer.load(path)
    return train_tokenizer()


def train_tokenizer(directory: Path = corpus.DATA_DIR) -> CharTokenizer:
    return CharTokenizer.train([corpus.load(lang, directory).train for lang in corpus.LANGS])


def model_config(arch: str, vocab_size: int, recipe: Recipe = Recipe()) -> TransformerConfig:
    if arch not in ARCHS:
        raise ValueError(f"architecture must be one of {', '.join(ARCHS)}, got {arch!r}")
    layers = recipe.layers // 2 if arch == "encoder_decoder" else recipe.layers
    return TransformerConfig(
        arch=arch,
        vocab_size=vocab_size,
        d_model=recipe.d_model,
        n_heads=recipe.n_heads,
        n_layers=max(1, layers),
        d_ff=recipe.d_ff,
        max_len=objectives.SEQ_LEN,
    )


def _lr(step: int, recipe: Recipe) -> float:
    """Linear warm-up, then cosine decay to a tenth of the peak."""
    if step < recipe.warmup:
        return recipe.lr * (step + 1) / recipe.warmup
    t = (step - recipe.warmup) / max(1, recipe.steps - recipe.warmup)
    return recipe.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, t))))


def train(
    arch: str, recipe: Recipe = Recipe(), progress: Progress = SILENT, streams: objectives.Streams | None = None
) -> tuple[Transformer, dict]:
    """Train one model; return it with its record (recipe, held-out loss per language, history, timing)."""
    streams = streams or objectives.Streams(tokenizer())
    torch.manual_seed(recipe.seed)
    model = Transformer(model_config(arch, streams.tok.vocab_size, recipe))
    opt = torch.optim.AdamW(model.parameters(), lr=recipe.lr, weight_decay=0.01, betas=(0.9, 0.98))
    g = torch.Generator().manual_seed(recipe.seed + 1)
    history, start, step = [], time.perf_counter(), 0
    running = None
    for step in range(recipe.steps):
        if progress.should_stop():
            break
        for group in opt.param_groups:
            group["lr"] = _lr(step, recipe)
        model.train()
        loss = objectives.loss(model, objectives.batch(arch, streams, recipe.batch_size, g))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        value = loss.item()
        running = value if running is None else 0.98 * running + 0.02 * value
        if step % 100 == 0 or step == recipe.steps - 1:
            history.append({"step": step + 1, "train_loss": running})
            progress.update((step + 1) / recipe.steps, f"step {step + 1}/{recipe.steps}, loss {running:.3f}")
    seconds = time.perf_counter() - start
    model.eval()
    record = {
        "arch": arch,
        "recipe": asdict(recipe),
        "steps_done": step + 1,
        "seconds": seconds,
        "held_out_loss": objectives.held_out_loss(model, streams),
        "history": history,
        "parameters": model.num_parameters(),
        "tokenizer": streams.tok.digest(),
        "vocab_size": streams.tok.vocab_size,
        **describe(model, streams.tok),
    }
    return model, record


def weights_path(arch: str, directory: Path = SHIPPED_DIR) -> Path:
    return Path(directory) / f"{arch}{checkpoints.WEIGHTS_SUFFIX}"


def save(model: Transformer, record: dict, tok: CharTokenizer, directory: Path = SHIPPED_DIR) -> dict:
    """Write the weights, their sidecar (the record) and the tokenizer; refuse weights over MAX_WEIGHT_BYTES."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tok.save(directory / TOKENIZER_FILE)
    sidecar = checkpoints.save(model, weights_path(record["arch"], directory), shipped.stamp(record))
    if sidecar["bytes"] > MAX_WEIGHT_BYTES:
        raise ValueError(f"{record['arch']}: {sidecar['bytes']:,} bytes of weights, over {MAX_WEIGHT_BYTES:,}")
    return sidecar


def load(arch: str, directory: Path = SHIPPED_DIR) -> tuple[Transformer, dict, CharTokenizer]:
    """A saved model, its sidecar and its tokenizer; ValueError when they do not belong together."""
    model, sidecar = checkpoints.load(weights_path(arch, directory))
    tok = CharTokenizer.load(Path(directory) / TOKENIZER_FILE)
    if sidecar.get("meta", {}).get("tokenizer") != tok.digest():
        raise ValueError(f"{arch}: the weights were trained with another tokenizer than {TOKENIZER_FILE}")
    return model, sidecar, tok


def quick(recipe: Recipe = Recipe(), steps: int = 20) -> Recipe:
    """The recipe shortened to `steps` (a test's slice)."""
    return replace(recipe, steps=steps, warmup=min(recipe.warmup, steps))


SAMPLE_PROMPTS = ("And God said unto", "The LORD is my", "床前明月光，", "春风")
SAMPLE_MASKED = ("In the beginning God created the heaven and the earth.", "白日依山尽，黄河入海流。")


@torch.no_grad()
def samples(model: Transformer, tok: CharTokenizer) -> list[dict]:
    """A few things the model writes, so a reader sees whether it learned the language: the decoder and
    prefix-LM continue prompts (greedy); the encoder and encoder-decoder fill every 4th character masked."""
    out = []
    if model.cfg.arch in ("decoder", "prefix_lm"):
        for prompt in SAMPLE_PROMPTS:
            ids = tok.encode(prompt).ids
            for _ in range(40):
                x = torch.tensor([ids[-objectives.SEQ_LEN :]])
                prefix = len(tok.encode(prompt).ids) if model.cfg.arch == "prefix_lm" else 0
                logits = model(x, prefix_len=min(prefix, x.shape[1])).logits[0, -1]
                ids.append(int(reading.writable(logits).argmax()))
            out.append({"prompt": prompt, "continuation": tok.decode(ids[len(tok.encode(prompt).ids) :])})
        return out
    for text in SAMPLE_MASKED:
        ids = torch.tensor([tok.encode(text).ids])
        hidden = torch.zeros_like(ids, dtype=torch.bool)
        hidden[:, 1::4] = True
        x = ids.masked_fill(hidden, tok.id("<mask>"))
        if model.cfg.arch == "encoder":
            guess = reading.writable(model(x).logits).argmax(-1)
        else:
            guess = reading.denoise(model, tok, x)
        filled = torch.where(hidden, guess, ids)
        out.append(
            {
                "masked": tok.decode(x[0]).replace("<mask>", "_"),
                "filled": tok.decode(filled[0]),
                "right": f"{int((filled == ids)[hidden].sum())}/{int(hidden.sum())}",
            }
        )
    return out


def describe(model: Transformer, tok: CharTokenizer) -> dict:
    """What the record says about a trained model beyond its loss: samples and the forward time."""
    return {"samples": samples(model, tok), "forward_ms_64_tokens": forward_ms(model)}


@torch.no_grad()
def forward_ms(model: Transformer, tokens: int = objectives.SEQ_LEN, repeats: int = 21) -> float:
    """Median wall time of one forward pass on a `tokens`-long sentence, one thread, in milliseconds."""
    x = torch.randint(4, model.cfg.vocab_size, (1, tokens))
    target = x if model.cfg.arch == "encoder_decoder" else None
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        model(x, target)
        times.append((time.perf_counter() - t) * 1000)
    return round(sorted(times)[len(times) // 2], 2)
