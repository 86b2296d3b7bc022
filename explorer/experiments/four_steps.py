"""Four steps from encoder-decoder to decoder-only (slides 40-55), measured on real models.

Everything the page shows is derived here from `TransformerConfig`s built by `explorer.steps`:

  describe / diff_table    the comparison table of slides 42-51, one row per structural difference,
                           generated from the flags of the model at a step (never written per step)
  parameter_counts         distinct parameters of each step's instantiated model (on the meta device,
                           so even large sizes cost no memory)
  wiring / combined_mask   which encoder level each decoder layer reads, and who reads whom over
                           [input ; target], built with the same `explorer.masks` the model runs
  numeric_check            a briefly trained decoder-only model transplanted into every step; max |logit
                           difference| in float32 and float64, plus the three causes that remain after
                           step 4, each put back alone into the exact (joint-softmax) model
  run_ablation / summarize every variant trained from scratch with several seeds at an equal budget;
                           held-out loss per variant, and how far each trained model's predictions are
                           from decoder-only's of the same seed (agreement, KL) on one shared input set
  paired_analysis          every pair of variants seed by seed (exact sign-flip, Holm over all pairs) and
                           step 4's equivalence test against decoder-only with a declared margin
  matched_width            the parameter-matched path: steps 0 and 1 (the only ones with more parameters
                           than decoder-only) narrowed to the width closest to decoder-only's count

Budgets: the learning rate warms up for 20 steps, then stays constant, and evaluation draws no training
randomness, so a shorter run is exactly the first steps of a longer one (same seed). The long preset's
curves therefore contain the main preset's losses; its models, and so its agreement and KL, are its own.

The ablation's numbers depend on the intra-op thread count (training is chaotic enough that rounding
order shows); torch runs on one thread everywhere (see explorer.model), so a rerun in the page's
server or the CLI reproduces the shipped numbers bit for bit.
"""

from __future__ import annotations

import copy
import time
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from explorer import content, i18n, masks
from explorer import shipped as shipped_results
from explorer.costs import TRAIN_FLOPS_PER_FORWARD, check_size, parameter_count, sequence_forward_flops
from explorer.formatting import colon, p_label, p_text
from explorer.layouts import IGNORE, make_batch
from explorer.lab.reviewed import train_by_recipe
from explorer.lab.runner import Units
from explorer.lab.runner import run as run_units
from explorer.model import Transformer, TransformerConfig
from explorer.progress import SILENT, Progress
from explorer.recipe import Reviewable, check_seeds
from explorer.stats import compare_unpaired, holm, sign_flip_p, smallest_p, tost_sign_flip
from explorer.steps import FINAL_STEP, STEP_NAMES, decoder_only_config, step_config, transplant
from explorer.tasks import RULES, Seq2SeqTask, make_task
from explorer.train import EVAL_SEED_OFFSET, TrainConfig, train

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "data" / "four_steps"
ABLATION_PATH = DATA_DIR / "ablation.json"  # the main preset (250 steps); the long one is ablation_long.json
CHECK_PATH = DATA_DIR / "check.json"  # the numeric check at the default sizes
CHECK_KIND = "four-steps-check"
ABLATION_KIND = "four-steps-ablation"
CHECK_SHAPE = {  # what a cached numeric check must hold (`explorer.shapes`)
    "steps": [
        {
            "step": int,
            "name": str,
            "params": int,
            "max_abs_logit_diff": float,
            "relative_diff": float,
            "max_abs_logit_diff_f64": float,
            "relative_diff_f64": float,
        }
    ],
    "causes": [{"cause": str, "label": str, "why": str, "f32": float, "f64": float}],
    "max_abs_logit": float,
    "decoder_only_params": int,
}
_PAIR = {"n": [int], "mean_diff": float, "p": float, "mde": float}
ABLATION_SHAPE = {  # what a cached ablation must hold
    "runs": [
        {
            "variant": str,
            "seed": int,
            "eval_loss": float,
            "eval_accuracy": float,
            "flops": float,
            "steps_done": int,
            "curve": [[float]],
        }
    ],
    "complete": bool,
    "summary": {
        "variants": [{"variant": str, "name": str, "n": int, "mean": float, "sd": float, "min": float, "max": float}],
        "path": [{"from": str, "to": str, **_PAIR}],
    },
}

# --- sizes ----------------------------------------------------------------------------------------
DEPTH_RANGE = (1, 12)
WIDTHS = (16, 32, 64, 128, 256, 512)
HEADS = (1, 2, 4, 8, 16)
DEFAULT_SIZES = {"depth": 2, "width": 64, "heads": 4}
LIVE_PARAM_LIMIT = 2_000_000  # step-0 parameters up to which the page trains models on demand
DEFAULT_TASK = make_task("sort", length=8, n_symbols=16)

DECODER = "decoder"
VARIANTS = tuple(str(k) for k in range(FINAL_STEP + 1)) + (DECODER,)  # the shared-width path
MATCHED = {"0m": 0, "1m": 1}  # steps 0 and 1 narrowed to decoder-only's parameter count (`matched_width`)
ALL_VARIANTS = ("0", "0m", "1", "1m", *VARIANTS[2:])  # both paths, in the order of the path
VARIANT_NAMES = {
    **{str(k): name for k, name in enumerate(STEP_NAMES)},
    DECODER: "decoder-only",
    **{v: f"{STEP_NAMES[k]}, parameter-matched width" for v, k in MATCHED.items()},
}
STEP_TITLES = (
    "step 0: encoder-decoder",
    *(f"step {k}: {STEP_NAMES[k].split('. ', 1)[1]}" for k in range(1, FINAL_STEP)),
    "final change: one joint softmax",
)
VARIANT_SHORT = {
    **{str(k): f"step {k}" for k in range(FINAL_STEP)},
    str(FINAL_STEP): "final change",
    DECODER: "decoder-only",
    **{v: f"step {k} matched" for v, k in MATCHED.items()},
}
BOOK = "four-steps"  # the page's content file: what the page and its figures show of these names and sentences
MESSAGES = "messages"  # a run's progress messages: content/<lang>/messages.md


def step_title(step: int) -> str:
    """STEP_TITLES[step] in the run's language ("step 3: layer l reads layer l")."""
    return content.text(BOOK, f"step-title-{step}")


def variant_short(variant: str) -> str:
    """VARIANT_SHORT[variant] in the run's language ("step 1 matched")."""
    return content.text(BOOK, f"variant-{variant}")


def variant_name(variant: str) -> str:
    """VARIANT_NAMES[variant] in the run's language (a variant's long name, for tables)."""
    return content.text(BOOK, f"variant-name-{variant}")


def list_sep() -> str:
    """Between the items of a short list: ", " in English, "、" in Chinese."""
    return ", " if i18n.current() == "en" else "、"


def clause_sep() -> str:
    """Between clauses: "; " in English, "；" in Chinese."""
    return "; " if i18n.current() == "en" else "；"


def _sentence_gap() -> str:
    """Between sentences of one paragraph: a space in English, nothing in Chinese."""
    return " " if i18n.current() == "en" else ""


def base_config(depth: int, width: int, heads: int, task: Seq2SeqTask = DEFAULT_TASK) -> TransformerConfig:
    """The sizes shared by every variant; raises ValueError for sizes the model refuses."""
    return TransformerConfig(
        arch="decoder",
        vocab_size=task.vocab_size,
        d_model=width,
        n_heads=heads,
        n_layers=depth,
        max_len=task.input_len + task.target_len,
    )


def variant_config(base: TransformerConfig, variant: str) -> TransformerConfig:
    if variant in MATCHED:
        step = MATCHED[variant]
        return step_config(replace(base, d_model=matched_width(base, step)), step)
    return decoder_only_config(base) if variant == DECODER else step_config(base, int(variant))


@lru_cache(maxsize=64)
def matched_width(base: TransformerConfig, step: int) -> int:
    """The width (a multiple of the heads, at most base's) whose model at `step` has the parameter count
    closest to decoder-only's at base's width: the count grows with the width, so bisect, then take the
    nearer neighbour (the narrower one on a tie). Counts from the closed form (equal to the instantiated
    models', a unit test holds them together), so that large sizes cost no model building."""
    target = parameter_count(decoder_only_config(base))

    def count(width: int) -> int:
        return parameter_count(step_config(replace(base, d_model=width), step))

    lo, hi = 1, base.d_model // base.n_heads  # in units of heads: count(lo * h) .. count(hi * h)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if count(mid * base.n_heads) <= target else (lo, mid)
    return min((lo * base.n_heads, hi * base.n_heads), key=lambda w: (abs(count(w) - target), w))


def parameter_table(base: TransformerConfig, variants: tuple[str, ...] = ALL_VARIANTS) -> list[dict]:
    """Per variant its width, distinct parameters and the mismatch to decoder-only's count (the matched path's
    residual)."""
    decoder = instantiated_parameters(decoder_only_config(base))
    rows = []
    for v in variants:
        cfg = variant_config(base, v)
        n = instantiated_parameters(cfg)
        rows.append({"variant": v, "width": cfg.d_model, "params": n, "vs_decoder": n / decoder - 1})
    return rows


def step_configs(base: TransformerConfig) -> dict[str, TransformerConfig]:
    """Every variant's configuration; raises ValueError (naming the limit) if any is too large."""
    configs = {v: variant_config(base, v) for v in VARIANTS}
    for cfg in configs.values():
        check_size(cfg)
    return configs


def instantiated_parameters(cfg: TransformerConfig) -> int:
    """Distinct parameters of a real `Transformer(cfg)`, built on the meta device (no memory, no init)."""
    with torch.device("meta"):
        return Transformer(cfg).num_parameters()


def parameter_counts(base: TransformerConfig) -> dict[str, int]:
    return {v: instantiated_parameters(cfg) for v, cfg in step_configs(base).items()}


# --- the comparison table -------------------------------------------------------------------------
ROLES = "Attention roles"
SHARED_ROLES = "Projections shared between roles"
SHARED_STACKS = "Layers shared between stacks"
READS = "Decoder layer l reads the input"
INPUT_MASK = "Input self-attention"
POSITIONS = "Target positions"
SOFTMAXES = "Softmaxes per target query"
PARAMETERS = "Parameters"
ASPECTS = (ROLES, SHARED_ROLES, SHARED_STACKS, READS, INPUT_MASK, POSITIONS, SOFTMAXES)
_ASPECT_KEYS = {
    ROLES: "roles",
    SHARED_ROLES: "shared-roles",
    SHARED_STACKS: "shared-stacks",
    READS: "reads",
    INPUT_MASK: "input-mask",
    POSITIONS: "positions",
    SOFTMAXES: "softmaxes",
    PARAMETERS: "parameters",
}


def aspect_label(aspect: str) -> str:
    """A row name of the table (one of ASPECTS or PARAMETERS) in the run's language."""
    return content.text(BOOK, f"aspect-{_ASPECT_KEYS[aspect]}")


def _is(cfg: TransformerConfig, flag: str) -> bool:
    """A decoder-only model has every step's property by construction."""
    return cfg.arch == "decoder" or getattr(cfg, flag)


def describe(cfg: TransformerConfig) -> dict[str, str]:
    """The structural properties of a model, in the table's words (the run's language), read from its
    configuration."""
    joint, shared_roles = _is(cfg, "joint_softmax"), _is(cfg, "share_cross_self")
    shared_stacks, aligned = _is(cfg, "share_encoder_decoder"), _is(cfg, "layer_aligned")
    causal = _is(cfg, "causal_encoder")
    return {
        ROLES: content.text(BOOK, f"desc-roles-{'joint' if joint else 'split'}"),
        SHARED_ROLES: content.text(BOOK, f"desc-shared-roles-{'yes' if shared_roles else 'no'}"),
        SHARED_STACKS: content.text(BOOK, f"desc-shared-stacks-{'yes' if shared_stacks else 'no'}"),
        READS: content.text(BOOK, f"desc-reads-{'aligned' if aligned else 'final'}"),
        INPUT_MASK: content.text(BOOK, f"desc-input-{'causal' if causal else 'bidirectional'}"),
        POSITIONS: content.text(BOOK, f"desc-positions-{'continue' if causal else 'restart'}"),
        SOFTMAXES: content.text(BOOK, f"desc-softmaxes-{'one' if joint else 'two'}"),
    }


def diff_table(base: TransformerConfig, step: int, counts: dict[str, int]) -> list[dict]:
    """Rows of the comparison at `step`: its value, the previous step's, decoder-only's, what changed."""
    if not 0 <= step <= FINAL_STEP:
        raise ValueError(f"step must be 0..{FINAL_STEP}, got {step}")
    now = describe(step_config(base, step))
    before = describe(step_config(base, step - 1)) if step else now
    target = describe(decoder_only_config(base))
    rows = [
        {
            "aspect": a,
            "previous": before[a],
            "value": now[a],
            "decoder_only": target[a],
            "changed": now[a] != before[a],
            "as_decoder_only": now[a] == target[a],
        }
        for a in ASPECTS
    ]
    n_now, n_before, n_dec = counts[str(step)], counts[str(max(step - 1, 0))], counts[DECODER]
    rows.append(
        {
            "aspect": PARAMETERS,
            "previous": f"{n_before:,}",
            "value": _params_text(n_now, n_dec),
            "decoder_only": f"{n_dec:,}",
            "changed": n_now != n_before,
            "as_decoder_only": n_now == n_dec,
        }
    )
    return rows


def _params_text(n: int, n_decoder: int) -> str:
    extra = n - n_decoder
    return f"{n:,}" + (f" (+{extra:,})" if extra else "")


def extra_parameters_explained(base: TransformerConfig, step: int, counts: dict[str, int]) -> str:
    """Say what the parameters beyond decoder-only are, from the closed form of the layers involved."""
    cfg = step_config(base, step)
    d, L = base.d_model, base.n_layers
    extra = counts[str(step)] - counts[DECODER]
    parts = []
    if not cfg.share_encoder_decoder:
        parts.append(content.text(BOOK, "extra-stack", L=L))
    if cfg.has_cross_sublayer and not cfg.share_cross_self:
        parts.append(content.text(BOOK, "extra-cross", L=L))
    if cfg.has_cross_sublayer:
        parts.append(content.text(BOOK, "extra-ln-cross", L=L))
    parts.append(content.text(BOOK, f"extra-final-ln-{'unused' if cfg.layer_aligned else 'used'}"))
    layer_norms = 2 * d * ((L if cfg.has_cross_sublayer else 0) + 1)
    head = (
        content.text(BOOK, "extra-head-ln", extra=extra, k=layer_norms // (2 * d))
        if extra == layer_norms
        else content.text(BOOK, "extra-head", extra=extra)
    )
    return content.text(BOOK, "extra-text", head=head, parts=clause_sep().join(parts))


# --- wiring and masks -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Wiring:
    """Which encoder level each decoder layer reads; level k is the input after k encoder layers."""

    depth: int
    reads: tuple[int, ...]  # per decoder layer (0-based), the encoder level it reads
    input_mask: str  # "bidirectional" or "causal"
    shared_stacks: bool
    shared_roles: bool
    joint: bool
    decoder_only: bool
    positions_continue: bool  # target positions continue after the input (step 4)


def wiring(cfg: TransformerConfig) -> Wiring:
    L = cfg.n_layers
    aligned = _is(cfg, "layer_aligned")
    return Wiring(
        depth=L,
        reads=tuple(range(L)) if aligned else (L,) * L,
        input_mask="causal" if _is(cfg, "causal_encoder") else "bidirectional",
        shared_stacks=_is(cfg, "share_encoder_decoder"),
        shared_roles=_is(cfg, "share_cross_self"),
        joint=_is(cfg, "joint_softmax"),
        decoder_only=cfg.arch == "decoder",
        positions_continue=target_start(cfg, 1) > 0,
    )


@dataclass(frozen=True)
class WeightTile:
    """One attention or MLP block a layer runs, and whose weights it runs: steps 1 and 2 change no mask, they
    make blocks run the same weights, which only this shows."""

    stack: str  # "encoder" (runs over the input) or "decoder" (runs over the target)
    layer: int  # 1-based
    role: str  # "self", "cross" or "mlp"
    owner: str  # whose weights: "encoder" (the encoder's own), "decoder" (a decoder layer's), "cross" (cross's own)
    owner_layer: int
    merged: bool = False  # cross-attention merged into the self-attention: one softmax (the final change)

    @property
    def borrowed(self) -> bool:
        """Whether the block runs weights that belong to another block."""
        own = "cross" if self.role == "cross" else self.stack
        return (self.owner, self.owner_layer) != (own, self.layer)


def weight_tiles(cfg: TransformerConfig) -> list[WeightTile]:
    """Whose weights every block of `cfg`'s model runs, read from the built model (meta device: no memory) by
    module identity, not from the flags: a shared module is the same object in both places. In decoder-only the
    input runs through the same layers as the target, so its "encoder" blocks are the decoder's."""
    with torch.device("meta"):
        model = Transformer(cfg)
    owners: dict[int, tuple[str, int]] = {}
    for layer, block in enumerate(model.blocks, start=1):
        owners[id(block.attn)] = owners[id(block.mlp)] = ("decoder", layer)
        if getattr(block, "cross_attn", None) is not None:
            owners[id(block.cross_attn)] = ("cross", layer)
    encoder = model.encoder_stack if cfg.arch == "encoder_decoder" else model.blocks
    for layer, block in enumerate(encoder, start=1):
        owners.setdefault(id(block.attn), ("encoder", layer))
        owners.setdefault(id(block.mlp), ("encoder", layer))
    tiles = []
    for layer, block in enumerate(encoder, start=1):
        tiles += [
            WeightTile("encoder", layer, "self", *owners[id(block.attn)]),
            WeightTile("encoder", layer, "mlp", *owners[id(block.mlp)]),
        ]
    for layer, block in enumerate(model.blocks, start=1):
        crossed = cfg.has_cross_sublayer
        tiles += [
            WeightTile("decoder", layer, "self", *owners[id(block.attn)], merged=not crossed),
            WeightTile(
                "decoder", layer, "cross", *owners[id(block.cross if crossed else block.attn)], merged=not crossed
            ),
            WeightTile("decoder", layer, "mlp", *owners[id(block.mlp)]),
        ]
    return tiles


def weight_blocks(tiles: list[WeightTile]) -> int:
    """Distinct attention and MLP weight blocks among `tiles`."""
    return len({(t.owner, t.owner_layer, t.role == "mlp") for t in tiles})


MASK_CATEGORIES = ("bidirectional", "causal", "cross", "joint")  # code i = MASK_CATEGORIES[i]; -1 = blocked


def target_start(cfg: TransformerConfig, n: int) -> int:
    """The position of the first target token: after the input once the input is causal (step 4)."""
    return n if _is(cfg, "causal_encoder") else 0


def combined_mask(cfg: TransformerConfig, n: int, m: int) -> dict:
    """Who reads whom over [input ; target], by the kind of attention; labels carry each token's position.

    Targets are the decoder's input: BOS then the target shifted right, as in `explorer.layouts`.
    """
    code = {name: i for i, name in enumerate(MASK_CATEGORIES)}
    codes = np.full((n + m, n + m), -1)

    def fill(rows: slice, cols: slice, mask: torch.Tensor, kind: str) -> None:
        codes[rows, cols] = np.where(masks.allowed(mask).numpy(), code[kind], -1)

    inp, tgt = slice(0, n), slice(n, n + m)
    if cfg.arch == "decoder":
        fill(slice(0, n + m), slice(0, n + m), masks.causal(n + m), "causal")
    else:
        causal_input = cfg.causal_encoder
        fill(
            inp,
            inp,
            masks.causal(n) if causal_input else masks.bidirectional(n),
            "causal" if causal_input else "bidirectional",
        )
        if cfg.joint_softmax:
            fill(tgt, slice(0, n + m), masks.joint(n, m), "joint")
        else:
            fill(tgt, inp, masks.bidirectional(m, n), "cross")
            fill(tgt, tgt, masks.causal(m), "causal")
    if (
        cfg.arch != "decoder"
        and cfg.joint_softmax
        and np.array_equal(codes >= 0, masks.allowed(masks.causal(n + m)).numpy())
    ):
        # one softmax per row over exactly decoder-only's cells: the same attention, so decoder-only's colour
        codes[codes >= 0] = code["causal"]
    start = target_start(cfg, n)
    labels = [f"x{i + 1}@{i}" for i in range(n)] + [f"{'BOS' if j == 0 else f'y{j}'}@{start + j}" for j in range(m)]
    return {"codes": codes, "categories": MASK_CATEGORIES, "labels": labels}


# --- numeric check --------------------------------------------------------------------------------
CAUSES = (
    (
        "softmaxes",
        "two softmaxes (step 4 itself)",
        "target queries normalise over their own prefix and over the input separately, not in one softmax",
    ),
    (
        "layer_output",
        "keys/values from layer l's output",
        "decoder layer l reads what encoder layer l produces instead of what it reads: one layer too deep",
    ),
    (
        "positions",
        "target positions restart at 0",
        "the target's position embeddings start at 0 instead of continuing at n after the input",
    ),
)


def cause_label(cause: str) -> str:
    """A remaining difference's short name (a check record stores the English one), in the run's language."""
    return content.text(BOOK, f"cause-{cause.replace('_', '-')}")


PUT_BACK = {  # per cause, the config change that puts it back alone into the exact (joint-softmax) model
    "softmaxes": {"joint_softmax": False},  # = step 4
    "layer_output": {"layer_aligned_reads": "output"},
    "positions": {"restart_target_positions": True},
}


def _max_diff(model: Transformer, decoder: Transformer, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    """(max |logit difference|, max |decoder-only logit|) on the target positions of one batch."""
    with torch.no_grad():
        ref = make_batch("decoder", x, y).run(decoder).logits[:, x.shape[1] :]
        got = make_batch("encoder_decoder", x, y).run(model).logits
    return (got - ref).abs().max().item(), ref.abs().max().item()


def _transplanted(cfg: TransformerConfig, decoder: Transformer) -> Transformer:
    model = Transformer(cfg).to(next(decoder.parameters()).dtype)
    transplant(model, decoder)
    return model.eval()


def check_settings(
    base: TransformerConfig, train_steps: int = 100, seed: int = 0, batch: int = 16, task: Seq2SeqTask = DEFAULT_TASK
) -> dict:
    """Everything that fixes a numeric check's result (its cache key)."""
    return {"model": base.to_dict(), "task": asdict(task), "train_steps": train_steps, "seed": seed, "batch": batch}


def numeric_check(
    base: TransformerConfig,
    train_steps: int = 100,
    seed: int = 0,
    batch: int = 16,
    task: Seq2SeqTask = DEFAULT_TASK,
    progress: Progress = SILENT,
) -> dict:
    """Train decoder-only briefly, copy its weights into every step, compare logits on one batch.

    Returns per step the instantiated parameter count and max |logit difference| in float32 and float64
    (also relative to the largest decoder-only logit), and the cost of each cause left after step 4.
    A training cut short (cancelled or out of time) returns only {"stopped": why}.
    """
    if train_steps < 1:
        raise ValueError(f"train_steps must be >= 1, got {train_steps}")
    configs = step_configs(base)
    every = max(1, train_steps // 10)

    trained = train(
        configs[DECODER],
        task,
        TrainConfig(steps=train_steps, seed=seed, eval_every=every, eval_size=128),
        progress.part(0, 0.9, content.text(MESSAGES, "fs-training-decoder") + colon()),
    )
    if trained.stopped != "steps":
        return {"stopped": trained.stopped}
    x, y = task.sample(batch, torch.Generator().manual_seed(seed + 7))
    decoders = {"f32": trained.model.float().eval(), "f64": copy.deepcopy(trained.model).double().eval()}
    steps, scale = [], float("nan")
    for k in range(FINAL_STEP + 1):
        progress.update(0.9 + 0.1 * k / (FINAL_STEP + 1), content.text(MESSAGES, "fs-comparing", step=k))
        row = {"step": k, "name": STEP_NAMES[k]}
        for dtype, dec in decoders.items():
            model = _transplanted(configs[str(k)], dec)
            row["params"] = model.num_parameters()
            diff, biggest = _max_diff(model, dec, x, y)
            suffix = "" if dtype == "f32" else "_f64"
            row[f"max_abs_logit_diff{suffix}"] = diff
            row[f"relative_diff{suffix}"] = diff / biggest
            scale = biggest if dtype == "f32" else scale
        steps.append(row)
    causes = []
    for key, label, why in CAUSES:
        row = {"cause": key, "label": label, "why": why}
        for dtype, dec in decoders.items():
            model = _transplanted(replace(configs[str(FINAL_STEP)], **PUT_BACK[key]), dec)
            row[dtype] = _max_diff(model, dec, x, y)[0]
        causes.append(row)
    return {
        "settings": check_settings(base, train_steps, seed, batch, task),
        "steps": steps,
        "decoder_only_params": decoders["f32"].num_parameters(),
        "causes": causes,
        "max_abs_logit": scale,
        "decoder_eval_loss": trained.history[-1]["eval_loss"],
        "train_seconds": trained.seconds,
    }


# --- ablation -------------------------------------------------------------------------------------
MAX_ABLATION_STEPS = 1000
MAX_SEEDS = 12  # 12 paired seeds: exact p down to 2/4096, so Holm over all 36 pairs can still reach 0.02
ABLATION_TIME_LIMIT_S = 300.0  # an on-demand rerun on the page stays within a few minutes


@dataclass(frozen=True)
class AblationSettings(Reviewable):
    task: str = "sort"
    length: int = 8  # input (and target) tokens
    n_symbols: int = 16
    depth: int = 2
    width: int = 64
    heads: int = 4
    steps: int = 250  # the equal budget: optimizer steps x batch, the same data for every variant
    batch_size: int = 32
    lr: float = 3e-3
    seeds: tuple[int, ...] = tuple(range(MAX_SEEDS))
    eval_size: int = 512  # held-out examples, the same set for every variant of a seed
    eval_every: int = 50
    variants: tuple[str, ...] = ALL_VARIANTS

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "seeds", check_seeds(self.seeds, MAX_SEEDS))
        object.__setattr__(self, "variants", tuple(str(v) for v in self.variants))
        if self.task not in RULES:
            raise ValueError(f"task must be one of {sorted(RULES)}, got {self.task!r}")
        if not 1 <= self.steps <= MAX_ABLATION_STEPS:
            raise ValueError(f"steps must lie in 1 .. {MAX_ABLATION_STEPS}, got {self.steps}")
        unknown = [v for v in self.variants if v not in ALL_VARIANTS]
        if unknown or not self.variants:
            raise ValueError(f"variants must be among {', '.join(ALL_VARIANTS)}; got {', '.join(self.variants)}")
        step_configs(self.base)  # sizes the model refuses raise here, with the limit named

    @property
    def task_spec(self) -> Seq2SeqTask:
        return make_task(self.task, length=self.length, n_symbols=self.n_symbols)

    @property
    def base(self) -> TransformerConfig:
        return base_config(self.depth, self.width, self.heads, self.task_spec)

    def total_flops(self) -> float:
        """Training FLOPs of the whole ablation (what bounds its time)."""
        t = self.task_spec
        per_run = [
            TRAIN_FLOPS_PER_FORWARD
            * self.batch_size
            * self.steps
            * sequence_forward_flops(variant_config(self.base, v), t.input_len, t.target_len)
            for v in self.variants
        ]
        return float(sum(per_run) * len(self.seeds))


# The inputs on which trained models are compared with each other: one set for every seed and variant, so two
# decoder-only models of different seeds can be compared too. No training batch uses this generator seed.
FUNCTION_SET_SEED = 2 * EVAL_SEED_OFFSET


@torch.no_grad()
def target_log_probs(model: Transformer, task: Seq2SeqTask, size: int) -> torch.Tensor:
    """[size * target_len, vocab] float64 log-probabilities of every target token on the shared input set,
    given the true target prefix (teacher forcing, as in training)."""
    x, y = task.sample(size, torch.Generator().manual_seed(FUNCTION_SET_SEED))
    batch = make_batch(model.cfg.arch, x, y)
    logits = batch.run(model.eval()).logits[batch.labels != IGNORE]  # [B * m, V], same order for every arch
    return torch.log_softmax(logits.double(), dim=-1)


def compare_functions(reference: torch.Tensor, other: torch.Tensor) -> dict:
    """How differently two trained models predict: the share of target tokens where their most likely token
    agrees, and the mean KL(reference || other) in nats per token."""
    agreement = (reference.argmax(-1) == other.argmax(-1)).double().mean().item()
    kl = (reference.exp() * (reference - other)).sum(-1).mean().item()
    return {"agreement": agreement, "kl": max(kl, 0.0)}  # max: a KL of identical functions may round below 0


def run_one(
    settings: AblationSettings, variant: str, seed: int, progress: Progress = SILENT
) -> tuple[dict, torch.Tensor]:
    """Train one variant with one seed: its held-out loss curve and final numbers, and its predictions on the
    shared input set (for `compare_functions`; not stored)."""
    cfg = variant_config(settings.base, variant)
    result = train_by_recipe(settings.lab_recipe(), cfg, settings.task_spec, settings.train_config(seed), progress)
    final = result.history[-1]
    run = {
        "variant": variant,
        "seed": seed,
        "width": cfg.d_model,
        "eval_loss": final["eval_loss"],
        "eval_accuracy": final["eval_accuracy"],
        "flops": result.flops,
        "params": result.model.num_parameters(),
        "steps_done": result.steps_done,
        "stopped": result.stopped,
        "seconds": result.seconds,
        "curve": [[row["step"], row["eval_loss"]] for row in result.history],
        **({"lr": result.lr} if settings.recipe != "old" else {}),
    }
    return run, target_log_probs(result.model, settings.task_spec, settings.eval_size)


def run_ablation(settings: AblationSettings, progress: Progress = SILENT) -> dict:
    """Every (seed, variant) in turn, seeds outermost so a cut-off run still has whole seeds.

    Each finished run gets `agreement` and `kl` against decoder-only of its seed (when that was trained);
    `seed_baseline` compares decoder-only models of neighbouring seeds, the yardstick for those numbers.
    When `progress` says to stop (cancelled or out of time), the run in training is dropped and the finished
    runs come back with `complete: False`.
    """
    start = time.perf_counter()
    jobs = [(seed, v) for seed in settings.seeds for v in settings.variants]
    predictions: dict[tuple[str, int], torch.Tensor] = {}

    def one(job: tuple[int, str], part: Progress) -> dict:
        seed, variant = job
        run, predictions[(variant, seed)] = run_one(settings, variant, seed, part)
        if run["stopped"] == "steps":
            done = jobs.index(job) + 1
            progress.update(done / len(jobs), run_message(done, len(jobs), run))
        return run

    def label(job: tuple[int, str], i: int, n: int) -> str:
        return content.text(MESSAGES, "fs-run", i=i, total=n, variant=variant_short(job[1]), seed=job[0])

    outcome = run_units(Units(keys=jobs, train=one, label=label), progress)
    runs = [r for r in outcome.records if r["stopped"] == "steps"]  # a cut model is dropped
    for run in runs:
        reference = predictions.get((DECODER, run["seed"]))
        if run["variant"] != DECODER and reference is not None:
            run.update(compare_functions(reference, predictions[(run["variant"], run["seed"])]))
    decoders = [r["seed"] for r in runs if r["variant"] == DECODER]
    baseline = [
        {"seed": a, "other_seed": b, **compare_functions(predictions[(DECODER, a)], predictions[(DECODER, b)])}
        for a, b in neighbour_pairs(decoders)
    ]
    complete = len(runs) == len(jobs)
    return {
        "settings": settings.to_dict(),
        "runs": runs,
        "complete": complete,
        **({} if complete else {"stopped": "stopped early"}),
        "seed_baseline": baseline,
        "wall_seconds": time.perf_counter() - start,
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "summary": summarize(runs),
    }


def neighbour_pairs(seeds: list[int]) -> list[tuple[int, int]]:
    """Each seed with the next, the last with the first: every seed is a reference once (one pair for two)."""
    if len(seeds) < 3:
        return list(zip(seeds, seeds[1:]))
    return list(zip(seeds, seeds[1:] + seeds[:1]))


def summarize(runs: list[dict], alpha: float = 0.05) -> dict:
    """Per variant mean and seed spread; step 4 vs decoder-only; each step against the one before."""
    by_variant: dict[str, list[float]] = {}
    for run in runs:
        by_variant.setdefault(run["variant"], []).append(run["eval_loss"])
    variants = []
    for v in ALL_VARIANTS:
        losses = by_variant.get(v)
        if not losses:
            continue
        arr = np.asarray(losses)
        variants.append(
            {
                "variant": v,
                "name": VARIANT_NAMES[v],
                "n": len(arr),
                "mean": float(arr.mean()),
                "sd": float(arr.std(ddof=1)) if len(arr) > 1 else float("nan"),
                "min": float(arr.min()),
                "max": float(arr.max()),
            }
        )
    path = []
    for k in range(1, FINAL_STEP + 1):
        prev, cur = by_variant.get(str(k - 1)), by_variant.get(str(k))
        if prev and cur:
            path.append({"from": str(k - 1), "to": str(k), **compare_unpaired(cur, prev, alpha)})
    verdict = None
    if by_variant.get("4") and by_variant.get(DECODER):
        verdict = {"a": "4", "b": DECODER, **compare_unpaired(by_variant["4"], by_variant[DECODER], alpha)}
    exact = None
    if by_variant.get(str(FINAL_STEP)) and by_variant.get(DECODER):
        pairs = {(r["variant"], r["seed"]): r["eval_loss"] for r in runs}
        gaps = [
            abs(pairs[(str(FINAL_STEP), s)] - pairs[(DECODER, s)])
            for (v, s) in pairs
            if v == DECODER and (str(FINAL_STEP), s) in pairs
        ]
        exact = {"max_same_seed_gap": max(gaps) if gaps else float("nan"), "seeds": len(gaps)}
    return {"variants": variants, "path": path, "verdict": verdict, "final_vs_decoder": exact}


EQUIVALENCE_SHARE = 0.10  # "step 4 equals decoder-only" means within 10% of decoder-only's mean held-out loss


def paired_analysis(runs: list[dict]) -> dict:
    """Every pair of variants compared seed by seed (a seed gives every variant the same batches, and the ones
    that share a shape the same initial weights): the mean difference, the exact sign-flip p, and Holm's
    correction over all pairs; and the equivalence test of step 4 against decoder-only with its declared
    margin (`EQUIVALENCE_SHARE` of decoder-only's mean loss)."""
    loss = {(r["variant"], r["seed"]): r["eval_loss"] for r in runs}
    present = [v for v in ALL_VARIANTS if any(key[0] == v for key in loss)]
    pairs = []
    for i, a in enumerate(present):
        for b in present[i + 1 :]:
            seeds = sorted(s for (v, s) in loss if v == a and (b, s) in loss)
            diffs = [loss[(a, s)] - loss[(b, s)] for s in seeds]
            pairs.append(
                {
                    "a": a,
                    "b": b,
                    "n": len(seeds),
                    "mean_diff": float(np.mean(diffs)) if diffs else float("nan"),
                    "paired_p": sign_flip_p(diffs) if len(diffs) >= 2 else float("nan"),
                }
            )
    for row, adjusted in zip(pairs, holm([r["paired_p"] for r in pairs])):
        row["holm_p"] = adjusted
    equivalence = None
    four, decoder = str(FINAL_STEP - 1), DECODER
    seeds = sorted(s for (v, s) in loss if v == four and (decoder, s) in loss)
    if seeds:
        margin = EQUIVALENCE_SHARE * float(np.mean([loss[(decoder, s)] for s in seeds]))
        test = tost_sign_flip([loss[(four, s)] for s in seeds], [loss[(decoder, s)] for s in seeds], margin)
        equivalence = {
            "a": four,
            "b": decoder,
            "margin": margin,
            "p": test["p"],
            "mean_diff": test["mean_diff"],
            "n": test["n"],
            "smallest_p": 1 / 2 ** test["n"],
        }
    return {
        "pairs": pairs,
        "equivalence": equivalence,
        "smallest_p": smallest_p(min((r["n"] for r in pairs), default=0)),
    }


def paired_text(analysis: dict) -> str:
    """The verdict on step 4 against decoder-only from the paired tests, and what they cannot say."""
    eq = analysis["equivalence"]
    if eq is None or eq["n"] < 2:
        return content.text(BOOK, "paired-too-few")
    row = next(r for r in analysis["pairs"] if (r["a"], r["b"]) == (eq["a"], eq["b"]))
    same = eq["p"] < 0.05
    return content.text(
        BOOK,
        f"paired-{'supported' if same else 'not-shown'}",
        diff=row["mean_diff"],
        n=row["n"],
        p=p_label(row["paired_p"]),
        holm=p_label(row["holm_p"]),
        pairs=len(analysis["pairs"]),
        margin=eq["margin"],
        share=EQUIVALENCE_SHARE,
        tost=p_label(eq["p"]),
        seeds=eq["n"],
        smallest=eq["smallest_p"],
    )


def _row(analysis: dict, a: str, b: str) -> dict | None:
    """The pair (a, b) of `paired_analysis`, its difference read as a - b whichever order it was tested in."""
    for row in analysis["pairs"]:
        if (row["a"], row["b"]) == (a, b):
            return row
        if (row["a"], row["b"]) == (b, a):
            return {**row, "a": a, "b": b, "mean_diff": -row["mean_diff"]}
    return None


def _move(row: dict) -> str:
    return content.text(BOOK, "move", diff=row["mean_diff"], p=p_label(row["paired_p"]), holm=p_text(row["holm_p"]))


def path_text(analysis: dict, path: tuple[str, ...] = VARIANTS[:-1]) -> str:
    """How the held-out loss moves along `path`, step by step (over the steps a budget trained), each move with its
    exact paired p and Holm's correction (`paired_analysis`)."""
    trained = {v for row in analysis["pairs"] for v in (row["a"], row["b"])}
    path = tuple(v for v in path if v in trained)
    moves, ups = [], []
    for before, after in zip(path, path[1:]):
        row = _row(analysis, after, before)
        if row is None:
            continue
        ups.append(row["mean_diff"] > 0)
        worse = row["mean_diff"] > 0
        moves.append(
            content.text(
                BOOK,
                f"path-{'worse' if worse else 'better'}",
                name=variant_short(after),
                size=abs(row["mean_diff"]),
                p=p_label(row["paired_p"]),
                holm=p_text(row["holm_p"]),
            )
        )
    if not moves:
        return ""
    shape = "monotone" if all(ups) or not any(ups) else "not-monotone"
    n = min(r["n"] for r in analysis["pairs"])
    return content.text(BOOK, f"path-{shape}", moves=clause_sep().join(moves), n=n, smallest=analysis["smallest_p"])


def confound_text(analysis: dict, table: list[dict]) -> str:
    """Steps 1-2 both share parameters and shrink the model; what the parameter-matched path separates."""
    params = {r["variant"]: r for r in table}
    if not {"0", "2", "0m", "1m"} <= set(params):
        return ""
    full, shared = params["0"], params["2"]
    text = content.text(
        BOOK,
        "confound",
        full=full["params"],
        shared=shared["params"],
        ratio=full["params"] / shared["params"],
        w0=params["0m"]["width"],
        w1=params["1m"]["width"],
        v0=params["0m"]["vs_decoder"],
        v1=params["1m"]["vs_decoder"],
    )
    rows = {
        "narrow": _row(analysis, "0m", "0"),
        "1": _row(analysis, "1m", "0m"),
        "2": _row(analysis, "2", "1m"),
        "both": _row(analysis, "2", "0m"),
        "shared both": _row(analysis, "2", "0"),
    }
    if all(rows.values()):
        text += _sentence_gap() + content.text(
            BOOK,
            "confound-moves",
            narrow=_move(rows["narrow"]),
            one=_move(rows["1"]),
            two=_move(rows["2"]),
            both=_move(rows["both"]),
            shared=_move(rows["shared both"]),
        )
    return text


def function_summary(record: dict) -> dict:
    """Per variant, how far its trained model predicts from decoder-only's of the same seed (mean and seed range
    of agreement and KL), and the same numbers for decoder-only models of neighbouring seeds (`baseline`)."""

    def spread(rows: list[dict]) -> dict:
        out = {"n": len(rows)}
        for key in ("agreement", "kl"):
            values = np.asarray([r[key] for r in rows], dtype=float)
            out.update(
                {key: float(values.mean()), f"{key}_min": float(values.min()), f"{key}_max": float(values.max())}
            )
        return out

    variants = []
    for v in ALL_VARIANTS:
        rows = [r for r in record["runs"] if r["variant"] == v and "agreement" in r]
        if rows:
            variants.append({"variant": v, **spread(rows)})
    baseline = record.get("seed_baseline") or []
    base_by_seed = {r["seed"]: r["kl"] for r in baseline}
    four = {r["seed"]: r["kl"] for r in record["runs"] if r["variant"] == str(FINAL_STEP - 1) and "kl" in r}
    diffs = [four[s] - base_by_seed[s] for s in sorted(four) if s in base_by_seed]
    paired = {
        "further": sum(d > 0 for d in diffs),
        "n": len(diffs),
        "p": sign_flip_p(diffs) if len(diffs) >= 2 else float("nan"),
    }  # step 4's KL minus the seed's own
    return {"variants": variants, "baseline": spread(baseline) if baseline else None, "paired": paired}


def function_text(summary: dict, steps: int) -> str:
    """The headline: how different step 4's trained model is from decoder-only's, against the yardstick of
    decoder-only models trained with other seeds (`function_summary`)."""
    rows = {r["variant"]: r for r in summary["variants"]}
    four, base = rows.get(str(FINAL_STEP - 1)), summary["baseline"]
    if four is None or base is None:
        return content.text(BOOK, "functions-too-few")
    paired = summary.get("paired") or {"n": 0}
    if paired["n"] >= 2 and paired["p"] < 0.05 and paired["further"] > paired["n"] / 2:
        relation = content.text(
            BOOK, "relation-further-paired", k=paired["further"], n=paired["n"], p=p_label(paired["p"])
        )
    elif four["kl"] < base["kl_min"]:
        relation = content.text(BOOK, "relation-closer")
    elif four["kl"] <= base["kl_max"]:
        relation = content.text(BOOK, "relation-about")
    else:
        relation = content.text(BOOK, "relation-further")
    text = content.text(
        BOOK,
        "functions-text",
        steps=steps,
        relation=relation,
        kl=four["kl"],
        kl_min=four["kl_min"],
        kl_max=four["kl_max"],
        base_kl=base["kl"],
        base_min=base["kl_min"],
        base_max=base["kl_max"],
        agree=four["agreement"],
        base_agree=base["agreement"],
    )
    early = [rows[v]["kl"] for v in ("0", "1", "2") if v in rows]
    if early:
        further = min(early) > four["kl"]
        text += _sentence_gap() + content.text(
            BOOK, f"functions-early-{'further' if further else 'not'}", low=min(early), high=max(early)
        )
    final = rows.get(str(FINAL_STEP))
    if final:
        text += _sentence_gap() + content.text(BOOK, "functions-final", agree=final["agreement"])
    return text


def runs_at(runs: list[dict], step: int) -> list[dict]:
    """Runs read at an earlier budget: the held-out loss their curve recorded at `step` (the same number a
    run of `step` steps ends on, since the schedule is constant after warm-up). Runs without it are left out."""
    out = []
    for run in runs:
        loss = next((value for at, value in run["curve"] if at == step), None)
        if loss is not None:
            out.append({"variant": run["variant"], "seed": run["seed"], "eval_loss": loss})
    return out


def ablation_args(settings: AblationSettings) -> list[str]:
    """The CLI arguments that reproduce `settings` (used by the page's rerun and by the tests)."""
    s = settings
    return [
        "--task",
        s.task,
        "--length",
        str(s.length),
        "--symbols",
        str(s.n_symbols),
        "--depth",
        str(s.depth),
        "--width",
        str(s.width),
        "--heads",
        str(s.heads),
        "--steps",
        str(s.steps),
        "--batch-size",
        str(s.batch_size),
        "--lr",
        repr(s.lr),
        "--eval-size",
        str(s.eval_size),
        "--eval-every",
        str(s.eval_every),
        "--seeds",
        *map(str, s.seeds),
        "--variants",
        *s.variants,
    ]


def run_message(done: int, total: int, run: dict) -> str:
    """The progress message after a finished run, in the run's language."""
    return content.text(
        MESSAGES,
        "fs-run-done",
        i=done,
        total=total,
        variant=variant_short(run["variant"]),
        seed=run["seed"],
        loss=run["eval_loss"],
    )


PRESETS = {  # the shipped ablations, both paths each
    "main": AblationSettings(),  # 250 steps, 12 seeds, every variant
    # twice the budget, where the CPU time set aside for these runs allowed it (1000 steps did not fit): 8 seeds,
    # and without step 1 at shared width and the final change (which trains into decoder-only at 250 steps)
    "long": AblationSettings(steps=500, seeds=tuple(range(8)), variants=("0", "0m", "1m", "2", "3", "4", DECODER)),
}


def shipped_path(preset: str) -> Path:
    """Where `four-steps ablation --preset <preset>` writes its results (main: the page's default file)."""
    return ABLATION_PATH if preset == "main" else DATA_DIR / f"ablation_{preset}.json"


def load_shipped(path: Path = ABLATION_PATH) -> dict | None:
    return shipped_results.load(path)


def seconds_per_flop(record: dict | None) -> float | None:
    """Measured training speed of a finished ablation (seconds per training FLOP), for estimates."""
    if not record or not record.get("runs"):
        return None
    seconds = sum(r["seconds"] for r in record["runs"])
    flops = sum(r["flops"] for r in record["runs"])
    return seconds / flops if flops else None


def estimate_seconds(settings: AblationSettings, reference: dict | None) -> float:
    """Wall time a rerun should take here, from the shipped run's measured speed (plus process start)."""
    rate = seconds_per_flop(reference) or 2e-10
    return 5.0 + settings.total_flops() * rate
