"""The attention page's computations: who may read whom in each architecture, and what a trained model reads.

Four small demo models, one per architecture of slides 17-37, learn the same task: reverse a string of at
most `MAX_CHARS` characters. Reversal makes attention readable: to write output character t the model has to
look at input character n-1-t, so the encoder-decoder's cross-attention draws the anti-diagonal that slide 28's
translation example draws as an alignment.

    encoder          [x ; <pad> ...]          a fixed window of MAX_CHARS slots, bidirectional; a head labels
                                              each slot, and slot p gets the token of slot MAX_CHARS-1-p, so the
                                              reversed text fills the last n slots (slide 32: an encoder-only
                                              model labels positions, it does not generate)
    decoder          [x ; <bos> ; y[:-1]]     causal (slide 37)
    prefix_lm        [x ; <bos> ; y[:-1]]     x and <bos> bidirectional, the rest causal
    encoder_decoder  x -> encoder, [<bos> ; y[:-1]] -> decoder with cross-attention (slides 22-28)

The model has no padding mask, so every training batch of the generating models draws one length n (all
strings in it have that length), with P(n) proportional to n so that the late positions are trained as often
as the early ones. The encoder-only window needs no such care: its pads are ordinary tokens.
Everything here returns plain data (numpy arrays, lists, dicts); the figures and the page build on that.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch

from explorer import checkpoints, content, masks, shipped, tokenizer
from explorer.layouts import greedy_decode, make_batch
from explorer.model import Transformer, TransformerConfig
from explorer.progress import SILENT, Progress
from explorer.store.local import cache_dir
from explorer.train import TrainConfig, config_dict, train

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_DIR = ROOT / "data" / "demo_models"
MAX_CHARS = 16  # the longest text the demo models were trained on
ARCHS = ("encoder_decoder", "encoder", "decoder", "prefix_lm")  # the lecture's order (slides 22-37)
ARCH_NAMES = {
    "encoder_decoder": "Encoder-decoder",
    "encoder": "Encoder-only",
    "decoder": "Decoder-only",
    "prefix_lm": "Prefix-LM",
}
ROLE_NAMES = {
    "encoder_self": "encoder self-attention",
    "decoder_self": "decoder self-attention",
    "cross": "cross-attention (target reads input)",
}
SINGLE_STACK_ROLE = {
    "decoder": "self-attention over [input ; target]",
    "prefix_lm": "self-attention over [input ; target]",
    "encoder": "self-attention over the input",
}
CATEGORIES = ("bidirectional", "causal", "cross", "blocked")  # code i = CATEGORIES[i]
BI, CAUSAL, CROSS, BLOCKED = range(4)
RECIPE_STEPS = {"encoder_decoder": 4000, "encoder": 600, "decoder": 4000, "prefix_lm": 8000}  # to near-full accuracy
EVAL_PER_LENGTH = 32  # held-out strings per length in the accuracy the page claims
EVAL_SEED = 20_240_425  # never a training seed


# --- the task ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReverseTask:
    """Reverse a random string of `min_chars`..`max_chars` alphabet symbols; one length per batch."""

    max_chars: int = MAX_CHARS
    min_chars: int = 1
    window: bool = False  # the encoder-only layout: pad every string to max_chars, reverse the whole window

    def __post_init__(self) -> None:
        if not 1 <= self.min_chars <= self.max_chars:
            raise ValueError(f"need 1 <= min_chars <= max_chars, got {self.min_chars}, {self.max_chars}")

    @property
    def vocab_size(self) -> int:
        return tokenizer.VOCAB_SIZE

    @property
    def input_len(self) -> int:  # the longest input: positions and FLOPs are counted for it
        return self.max_chars

    @property
    def target_len(self) -> int:
        return self.max_chars

    def sample(self, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        if self.window:  # every string its own length, padded into the window
            x = torch.randint(
                tokenizer.FIRST_SYMBOL, tokenizer.VOCAB_SIZE, (batch_size, self.max_chars), generator=generator
            )
            n = torch.randint(self.min_chars, self.max_chars + 1, (batch_size, 1), generator=generator)
            x = x.masked_fill(torch.arange(self.max_chars) >= n, tokenizer.PAD)
            return x, x.flip(dims=[1])
        lengths = torch.arange(self.min_chars, self.max_chars + 1, dtype=torch.float)
        n = self.min_chars + int(torch.multinomial(lengths, 1, generator=generator))  # P(n) ~ n
        x = torch.randint(tokenizer.FIRST_SYMBOL, tokenizer.VOCAB_SIZE, (batch_size, n), generator=generator)
        return x, x.flip(dims=[1])


# --- the demo models ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class DemoSpec:
    arch: str
    model: TransformerConfig
    train: TrainConfig
    task: ReverseTask

    def config(self) -> dict:
        return {"arch": self.arch, **config_dict(self.model, self.task, self.train)}


def demo_spec(arch: str, steps: int | None = None) -> DemoSpec:
    """The seeded recipe of one demo model (`steps` shortens it, e.g. for a quick test)."""
    if arch not in ARCHS:
        raise ValueError(f"architecture must be one of {', '.join(ARCHS)}, got {arch!r}")
    task = ReverseTask(window=arch == "encoder")
    model = TransformerConfig(
        arch=arch, vocab_size=tokenizer.VOCAB_SIZE, d_model=64, n_heads=4, n_layers=2, d_ff=128, max_len=2 * MAX_CHARS
    )
    full = TrainConfig(
        steps=RECIPE_STEPS[arch], batch_size=64, lr=2e-3, warmup=100, seed=0, eval_every=200, eval_size=256
    )
    if steps is not None and steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    return DemoSpec(arch, model, full if steps is None else replace(full, steps=steps), task)


def model_input(arch: str, ids) -> torch.Tensor:
    """The input [B, n] a demo model of `arch` reads for these ids ([n] or [B, n]): the encoder-only
    model reads them padded into its window of MAX_CHARS slots."""
    x = torch.as_tensor(ids, dtype=torch.long)
    x = x.unsqueeze(0) if x.dim() == 1 else x
    if arch == "encoder":
        x = torch.cat([x, torch.full((x.shape[0], MAX_CHARS - x.shape[1]), tokenizer.PAD)], dim=1)
    return x


@torch.no_grad()
def generate(model: Transformer, x: torch.Tensor, n: int) -> torch.Tensor:
    """The model's answer for inputs laid out by `model_input`: greedy decoding, or for the encoder-only
    window the labels of its last n slots."""
    if model.cfg.arch == "encoder":
        return model(x).logits.argmax(-1)[:, -n:]
    return greedy_decode(model, x, n)


@torch.no_grad()
def reversal_accuracy(
    model: Transformer, per_length: int = EVAL_PER_LENGTH, seed: int = EVAL_SEED, max_chars: int = MAX_CHARS
) -> dict:
    """Greedy-decoded accuracy on fresh random strings of every length 1..max_chars (what the page claims)."""
    arch = model.cfg.arch
    g = torch.Generator().manual_seed(seed)
    right = total = exact = 0
    per = {}
    for n in range(1, max_chars + 1):
        x = torch.randint(tokenizer.FIRST_SYMBOL, tokenizer.VOCAB_SIZE, (per_length, n), generator=g)
        hits = generate(model, model_input(arch, x), n) == x.flip(dims=[1])
        right, total = right + int(hits.sum()), total + hits.numel()
        exact += int(hits.all(dim=1).sum())
        per[n] = float(hits.float().mean())
    return {
        "char_accuracy": right / total,
        "exact_match": exact / (per_length * max_chars),
        "per_length": per,
        "strings": per_length * max_chars,
        "seed": seed,
    }


def train_demo(spec: DemoSpec, progress: Progress = SILENT) -> tuple[Transformer, dict]:
    """Train one demo model and measure it; return (model, meta)."""
    result = train(spec.model, spec.task, spec.train, progress)
    accuracy = reversal_accuracy(result.model)
    meta = shipped.stamp(
        {
            "arch": spec.arch,
            "config": spec.config(),
            "tokenizer": tokenizer.NAME,
            "accuracy": accuracy,
            "training": result.summary(),
            "history": result.history,
            "parameters": result.model.num_parameters(),
        }
    )
    return result.model, meta


def on_demand_dir() -> Path:
    """Where the page stores models it had to train itself (never over the shipped ones)."""
    return cache_dir() / "demo_models"


def demo_path(arch: str, directory: Path) -> Path:
    return Path(directory) / f"{arch}{checkpoints.WEIGHTS_SUFFIX}"


def find_demo(arch: str, directories: tuple[Path, ...] | None = None) -> Path | None:
    """The shipped checkpoint of `arch`, else one trained on demand, else None."""
    for directory in directories or (SHIPPED_DIR, on_demand_dir()):
        path = demo_path(arch, directory)
        if checkpoints.exists(path):
            return path
    return None


def train_and_save(spec: DemoSpec, directory: Path, progress: Progress = SILENT) -> dict:
    model, meta = train_demo(spec, progress)
    sidecar = checkpoints.save(model, demo_path(spec.arch, directory), meta)
    return {"path": str(demo_path(spec.arch, directory)), "bytes": sidecar["bytes"], **meta}


def train_on_demand(arch: str, progress: Progress, reserve_s: float = 30.0) -> dict:
    """A page's background run: the demo model of `arch` into the on-demand folder, stopping `reserve_s` before
    the job's limit (measuring and saving the model take the rest). Returns where it is."""
    saved = train_and_save(demo_spec(arch), on_demand_dir(), progress.part(reserve_s=reserve_s))
    progress.check()
    return {"path": saved["path"]}


# --- masks: who may read whom ------------------------------------------------------------------------
def role_masks(arch: str, n: int, m: int, causal_input: bool = False) -> dict[str, torch.Tensor]:
    """The additive mask of every attention role, built exactly as the model builds it.

    n: input tokens (the whole window for encoder-only); m: target-side tokens ([<bos> ; y[:-1]]).
    """
    if arch == "encoder":
        return {"encoder_self": masks.bidirectional(n)}
    if arch == "decoder":
        return {"decoder_self": masks.causal(n + m)}
    if arch == "prefix_lm":
        return {"decoder_self": masks.prefix_lm(n + 1, n + m)}  # the prefix is x and <bos>
    if arch != "encoder_decoder":
        raise ValueError(f"unknown architecture {arch!r}")
    encoder = masks.causal(n) if causal_input else masks.bidirectional(n)
    return {"encoder_self": encoder, "decoder_self": masks.causal(m), "cross": masks.bidirectional(m, n)}


def role_categories(arch: str, n: int, m: int, causal_input: bool = False) -> dict[str, np.ndarray]:
    """Per role, each cell's kind of permission (a CATEGORIES code), -1 where the mask forbids it."""
    out = {}
    for role, mask in role_masks(arch, n, m, causal_input).items():
        allowed = masks.allowed(mask).numpy()
        if role == "cross":
            kind = np.full(allowed.shape, CROSS)
        elif role == "encoder_self":
            kind = np.full(allowed.shape, CAUSAL if causal_input else BI)
        elif arch == "prefix_lm":  # bidirectional inside the prefix, causal after it
            q, k = np.indices(allowed.shape)
            kind = np.where((q <= n) & (k <= n), BI, CAUSAL)
        else:
            kind = np.full(allowed.shape, CAUSAL)
        out[role] = np.where(allowed, kind, -1)
    return out


def combined_categories(arch: str, n: int, m: int, causal_input: bool = False) -> np.ndarray:
    """One [T, T] map over the concatenated [input ; target] sequence: every block's kind, BLOCKED where
    no role lets that query read that key (slide 37's view of all four architectures)."""
    roles = role_categories(arch, n, m, causal_input)
    if arch != "encoder_decoder":
        codes = next(iter(roles.values()))
    else:
        codes = np.full((n + m, n + m), -1)
        codes[:n, :n] = roles["encoder_self"]
        codes[n:, :n] = roles["cross"]
        codes[n:, n:] = roles["decoder_self"]
    return np.where(codes < 0, BLOCKED, codes)


@dataclass(frozen=True)
class Wiring:
    """Which encoder level each decoder layer's cross-attention reads (slides 28, 47, 63)."""

    n_layers: int
    reads: tuple[int, ...]  # per decoder layer: the encoder level it reads; n_layers = the final output
    causal_input: bool

    @property
    def layer_aligned(self) -> bool:
        return self.reads != (self.n_layers,) * self.n_layers


def wiring(n_layers: int, layer_aligned: bool, causal_input: bool) -> Wiring:
    """Standard: every decoder layer reads the encoder's final output. Layer-aligned: decoder layer l reads
    what encoder layer l reads (its input), so both stacks move up in step."""
    reads = tuple(range(n_layers)) if layer_aligned else (n_layers,) * n_layers
    return Wiring(n_layers, reads, causal_input)


# --- the student's text through a trained model ------------------------------------------------------
def _labels(ids) -> list[str]:
    return [tokenizer.label(int(i)) for i in ids]


def layout_labels(arch: str, input_ids, target_side_ids) -> tuple[list[str], list[str], dict]:
    """Tick labels of the input side, the target side, and (rows, columns) of every role's matrix."""
    inputs, targets = _labels(input_ids), _labels(target_side_ids)
    seq = inputs + targets
    axes = {
        "encoder_self": (inputs, inputs),
        "cross": (targets, inputs),
        "decoder_self": (targets, targets) if arch == "encoder_decoder" else (seq, seq),
    }
    return inputs, targets, axes


def expected_layout(arch: str, ids) -> tuple[list[int], list[int]]:
    """The input ids and target-side ids ([<bos> ; y[:-1]]) when the model writes the right answer."""
    x = model_input(arch, ids)[0].tolist()
    target = list(reversed(ids))
    return x, ([] if arch == "encoder" else [tokenizer.BOS, *target[:-1]])


@torch.no_grad()
def read_text(model: Transformer, ids: list[int] | tuple[int, ...]) -> dict:
    """Run a demo model on the student's text the way it runs at inference, and record everything the page
    shows: the greedy output, the expected output, and every role's attention weights with its mask.

    The weights come from one forward pass over the layout the model saw while writing its last character
    (its own output as the target prefix); earlier rows are the same as at each earlier step, because no
    query reads a later target token.
    """
    arch = model.cfg.arch
    if not ids:
        raise ValueError("the text is empty: type at least one character")
    if len(ids) > MAX_CHARS:
        raise ValueError(f"the demo models read at most {MAX_CHARS} characters, got {len(ids)}")
    x = model_input(arch, ids)
    output = generate(model, x, len(ids))  # [1, n]
    if arch == "encoder":
        out = model(x, need_weights=True)
        target_side: list[int] = []
    else:
        out = make_batch(arch, x, output).run(model, need_weights=True)
        target_side = [tokenizer.BOS, *output[0, :-1].tolist()]
    inputs, targets, axes = layout_labels(arch, x[0].tolist(), target_side)
    n, m = len(inputs), len(targets)
    roles = {}
    for role, mask in role_masks(arch, n, m, model.cfg.causal_encoder).items():
        rows, cols = axes[role]
        weights = torch.stack(out.attentions[role])[:, 0]  # [L, H, Tq, Tk]
        roles[role] = {
            "weights": weights.numpy().astype(np.float64),
            "allowed": masks.allowed(mask).numpy(),
            "rows": rows,
            "cols": cols,
        }
    expected = list(reversed(ids))
    got = output[0].tolist()
    return {
        "arch": arch,
        "input_ids": list(ids),
        "output_ids": got,
        "expected_ids": expected,
        "output": tokenizer.decode(got),
        "expected": tokenizer.decode(expected),
        "wrong_positions": [i for i, (a, b) in enumerate(zip(got, expected)) if a != b],
        "input_labels": inputs,
        "target_labels": targets,
        "roles": roles,
        "n_layers": model.cfg.n_layers,
        "n_heads": model.cfg.n_heads,
    }


@torch.no_grad()
def embedding_rows(model: Transformer, ids: list[int] | tuple[int, ...]) -> dict:
    """h^(0)_t = E[i_t] + p_t for the student's tokens (slide 21): the three [n, d] matrices."""
    tok = model.tok_emb.weight[torch.tensor(list(ids), dtype=torch.long)]
    pos = model.pos_emb.weight[: len(ids)]
    return {
        "token": tok.numpy().astype(np.float64),
        "position": pos.numpy().astype(np.float64),
        "sum": (tok + pos).numpy().astype(np.float64),
        "labels": _labels(ids),
    }


def config_text(sidecar: dict) -> str:
    """A one-line description of a demo model for its evidence badge."""
    cfg, meta = sidecar["config"], sidecar.get("meta", {})
    train_cfg = meta.get("config", {}).get("train", {})
    acc = meta.get("accuracy", {}).get("char_accuracy")
    values = dict(
        arch=cfg["arch"],
        d=cfg["d_model"],
        L=cfg["n_layers"],
        H=cfg["n_heads"],
        seed=train_cfg.get("seed", "?"),
        steps=meta.get("training", {}).get("steps_done", "?"),
    )
    if acc is not None:
        return content.text("attention", "config-text-acc", acc=acc, **values)
    return content.text("attention", "config-text", **values)
