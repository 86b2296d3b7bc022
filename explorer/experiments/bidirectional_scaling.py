"""Does bidirectional input pay at scale? (slide 64) Prefix-LM against decoder-only, measured over model sizes.

The lecture reports, as highly anecdotal, that at Flan-2 scale fine-tuning with bidirectional input attention
made little difference, while bidirectional input keeps its multi-turn serving cost. Here the two masks meet on
equal terms: the same `TransformerConfig` but for `arch` ("prefix_lm" lets the input and BOS read each other;
"decoder" is causal everywhere), hence the same parameters and the same FLOPs per step, and the same seed gives
both the same initial weights, batches and held-out set. The gap is decoder-only minus prefix-LM held-out loss
per target token (positive: bidirectional input helps), read at several training budgets (checkpoints of one
run: the learning rate is constant after warm-up, so a checkpoint is what a shorter run would have reached) for
several widths.

The task is sorting: every output depends on the whole input, so the input tokens' states could use what comes
after them. A seed is the unit of replication; the trend over widths (and over budgets) is tested on one slope
per seed, with the exact sign-flip test (`explorer.stats`), which with n seeds cannot go below 2 / 2**n.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

import numpy as np

from explorer import content, results, shipped
from explorer.costs import TRAIN_FLOPS_PER_FORWARD, check_size, sequence_forward_flops
from explorer.experiments.cache import turn_flops
from explorer.lab import device as lab_device
from explorer.lab import estimate
from explorer.lab.device import cache_key as device_key
from explorer.lab.device import label as device_label
from explorer.lab.recipe import PILOT_SEED, choose_lr
from explorer.lab.runner import Units
from explorer.lab.runner import run as run_units
from explorer.model import TransformerConfig
from explorer.progress import SILENT, Progress
from explorer.recipe import Reviewable, check_seeds
from explorer.stats import holm, sign_flip_p, smallest_p
from explorer.tasks import RULES, Seq2SeqTask
from explorer.train import train

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "data" / "bidirectional_scaling"
BOOK = "cache"  # its progress messages, shown on the cache page: content/<lang>/cache.md
SHIPPED_PRESETS = ("main",)
CACHE_KIND = "bidirectional-scaling-run"  # one cached record per (settings, width, mask, seed)
MASKS = ("decoder", "prefix_lm")  # causal input, bidirectional input (the gap is the first minus the second)
MASK_NAMES = {"decoder": "decoder-only (causal input)", "prefix_lm": "prefix-LM (bidirectional input)"}
POINT_KEYS = ("width", "flops", "gap", "gap_low", "gap_high")  # the CLI's `points` (more keys follow these)
MAX_WIDTH = 512  # the scale ladder (explorer.ladder) goes to 264
MAX_STEPS = 4000
MAX_SEEDS = 8
RUN_SHAPE = {
    "width": int,
    "mask": str,
    "seed": int,
    "parameters": int,
    "flops_per_step": int,
    "steps_done": int,
    "stopped": str,
    "seconds": float,
    "history": [{"step": int, "flops": float, "eval_loss": float, "eval_accuracy": float}],
}


@dataclass(frozen=True)
class ScalingConfig(Reviewable):
    """Widths x seeds x both masks, each run trained to the last budget and read at every budget."""

    SLICES: ClassVar[tuple[str, ...]] = ("seeds",)
    widths: tuple[int, ...] = (8, 16, 32, 64)  # d_model; depth and heads stay fixed
    budgets: tuple[int, ...] = (75, 150, 300, 600)  # optimizer steps at which the gap is read; the last is the run
    seeds: tuple[int, ...] = tuple(range(8))
    task_name: str = "sort"
    length: int = 8  # input tokens (and target tokens)
    n_symbols: int = 16
    n_layers: int = 2
    n_heads: int = 4
    batch_size: int = 32
    lr: float = 3e-3  # Adam, constant after a linear warm-up
    warmup: int = 20
    eval_size: int = 512  # held-out sequences per seed: the same set at every checkpoint and for both masks

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "widths", tuple(sorted(set(int(w) for w in self.widths))))
        object.__setattr__(self, "budgets", tuple(sorted(set(int(b) for b in self.budgets))))
        check_seeds(self.seeds, MAX_SEEDS)
        if self.task_name not in RULES:
            raise ValueError(f"task_name must be one of {sorted(RULES)}, got {self.task_name!r}")
        self.task  # validates length and symbols
        if not self.widths or self.widths[0] < self.n_heads or self.widths[-1] > MAX_WIDTH:
            raise ValueError(f"widths must lie in {self.n_heads} .. {MAX_WIDTH}, got {list(self.widths)}")
        if any(w % self.n_heads for w in self.widths):
            raise ValueError(f"every width must divide into {self.n_heads} heads, got {list(self.widths)}")
        if not self.budgets or self.budgets[0] < 1 or self.budgets[-1] > MAX_STEPS:
            raise ValueError(f"budgets must lie in 1 .. {MAX_STEPS} steps, got {list(self.budgets)}")
        for name in ("batch_size", "eval_size", "warmup", "n_layers"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        check_size(self.model_config(self.widths[-1], "decoder"))  # refuse sizes before any training

    @property
    def task(self) -> Seq2SeqTask:
        return Seq2SeqTask(self.task_name, self.length, self.n_symbols)

    @property
    def steps(self) -> int:
        return self.budgets[-1]

    @property
    def eval_every(self) -> int:
        """Evaluate at every common divisor step of the budgets, so each budget is a recorded checkpoint."""
        return math.gcd(*self.budgets)

    def model_config(self, width: int, mask: str) -> TransformerConfig:
        if mask not in MASKS:
            raise ValueError(f"mask must be one of {', '.join(MASKS)}, got {mask!r}")
        task = self.task
        return TransformerConfig(
            arch=mask,
            vocab_size=task.vocab_size,
            d_model=width,
            n_heads=self.n_heads,
            n_layers=self.n_layers,
            max_len=task.input_len + task.target_len,
        )

    def flops_per_step(self, width: int) -> int:
        """Training FLOPs of one step: the same for both masks (a mask hides entries, it does not remove them)."""
        task = self.task
        return (
            TRAIN_FLOPS_PER_FORWARD
            * self.batch_size
            * sequence_forward_flops(self.model_config(width, "decoder"), task.input_len, task.target_len)
        )

    def runs(self) -> list[tuple[int, str, int]]:
        """Every (width, mask, seed): seeds outermost and masks paired, so a cut run stays balanced."""
        return [(w, mask, s) for s in self.seeds for w in self.widths for mask in MASKS]


PRESETS = {
    "main": ScalingConfig(),
    # under a minute on two busy cores: three small widths, two seeds, short runs
    "quick": ScalingConfig(widths=(8, 16, 32), budgets=(40, 80, 160), seeds=(0, 1), eval_size=128),
}
PILOT_KIND = "bidirectional-scaling-pilot"  # one cached learning-rate choice per (settings, width)


def with_recipe(cfg: ScalingConfig, recipe: str) -> ScalingConfig:
    """`cfg` made with the `recipe` ("old" or "reviewed")."""
    return replace(cfg, recipe=recipe)


def run_key(cfg: ScalingConfig, width: int, mask: str, seed: int) -> dict:
    """The cache key of one run: every setting, with only this width and seed, and the mask."""
    return {**replace(cfg, widths=(width,), seeds=(seed,)).to_dict(), "mask": mask}


def pilot_loss(
    cfg: ScalingConfig, width: int, lr: float, device: str | None = None, progress: Progress = SILENT
) -> float:
    """The selection loss of `lr` at `width`: both masks trained on the pilot seed (no reported run uses it) for
    `pilot_steps` with the recipe's schedule, read on that seed's own held-out set (never a scoring set)."""
    recipe, losses = cfg.lab_recipe(), []
    steps = recipe.pilot_steps(cfg.steps)
    for mask in MASKS:
        result = train(
            cfg.model_config(width, mask),
            cfg.task,
            cfg.train_config(PILOT_SEED, lr=lr, steps=steps, eval_every=steps),
            progress,
            schedule=recipe.schedule,
            budgets=(steps,),
            readout_k=recipe.k,
            device=device,
        )
        losses.append(result.readouts[steps]["eval_loss"] if steps in result.readouts else float("nan"))
    return float(np.mean(losses))


def choose_lrs(
    cfg: ScalingConfig, device: str | None = None, progress: Progress = SILENT, use_cache: bool = True
) -> dict[int, dict]:
    """Per width: {"lr": the rate chosen, "pilots": {rate: selection loss}} (cached per settings and width).
    The old recipe chooses nothing: its one rate serves every width."""
    if cfg.recipe == "old":
        return {w: {"lr": cfg.lr, "pilots": {}} for w in cfg.widths}
    out = {}
    for i, width in enumerate(cfg.widths):
        key = {**replace(cfg, widths=(width,), seeds=(0,)).settings(), "pilot_seed": PILOT_SEED}
        found = results.load(PILOT_KIND, key, {"lr": float, "pilots": dict}) if use_cache else None
        if found is None:
            part = progress.part(i / len(cfg.widths), (i + 1) / len(cfg.widths), f"pilots d={width}: ")
            lr, losses = choose_lr(cfg.lr_grid, lambda rate: pilot_loss(cfg, width, rate, device, part))
            found = {"lr": lr, "pilots": {repr(k): v for k, v in losses.items()}}
            if use_cache and not progress.should_stop():
                results.save(PILOT_KIND, key, found)
        out[width] = found
    return out


def run_one(
    cfg: ScalingConfig,
    width: int,
    mask: str,
    seed: int,
    progress: Progress = SILENT,
    lr: float | None = None,
    device: str | None = None,
) -> dict:
    """Train one model and return its record: held-out loss and accuracy at every budget (the old recipe: the
    checkpoints of one constant-rate run; the reviewed recipe: each budget's decayed readout)."""
    model_cfg, recipe = cfg.model_config(width, mask), cfg.lab_recipe()
    lr = cfg.lr if lr is None else lr
    if cfg.recipe == "old":
        result = train(model_cfg, cfg.task, cfg.train_config(seed), progress, device=device)
        history = [{k: row[k] for k in ("step", "flops", "eval_loss", "eval_accuracy")} for row in result.history]
    else:
        result = train(
            model_cfg,
            cfg.task,
            cfg.train_config(seed, lr=lr, eval_every=cfg.steps),
            progress,
            schedule=recipe.schedule,
            budgets=cfg.budgets,
            readout_k=recipe.k,
            device=device,
        )
        history = [
            {k: r[k] for k in ("step", "flops", "eval_loss", "eval_accuracy")}
            for _, r in sorted(result.readouts.items())
        ]
    return {
        "width": width,
        "mask": mask,
        "seed": seed,
        "parameters": result.model.num_parameters(),
        "flops_per_step": cfg.flops_per_step(width),
        "steps_done": result.steps_done,
        "stopped": result.stopped,
        "seconds": result.seconds,
        "history": history,
        **({} if cfg.recipe == "old" else {"lr": lr}),
    }


def sweep(cfg: ScalingConfig, use_cache: bool = True, progress: Progress = SILENT, device: str | None = None) -> dict:
    """Every run of `cfg`, from the cache where possible, the rest trained now through the lab's runner.

    The reviewed recipe first chooses each width's learning rate by pilots (`choose_lrs`). After each run the
    runs so far are shared (`progress.share`), so a page can draw the gaps as they come. When `progress` says to
    stop, the run in training stops at its next step: it is kept but not cached, and the runs after it are skipped.
    """
    start, device = time.perf_counter(), device or lab_device.current()
    todo = cfg.runs()
    choices = choose_lrs(cfg, device, progress.part(0.0, 0.15 if cfg.recipe != "old" else 0.0), use_cache)
    lr_by_width = {w: c["lr"] for w, c in choices.items()}

    def label(run: tuple[int, str, int], i: int, n: int) -> str:
        width, mask, seed = run
        return content.text(
            BOOK,
            "progress-scaling",
            width=width,
            seed=seed,
            run=i,
            runs=n,
            mask=content.text(BOOK, f"progress-mask-{mask.replace('_', '-')}"),
        )

    units = Units(
        keys=todo,
        label=label,
        train=lambda run, part: run_one(cfg, *run, part, lr=lr_by_width[run[0]], device=device),
        cache=(CACHE_KIND, lambda run: {**run_key(cfg, *run), **device_key(device)}) if use_cache else None,
        shape=RUN_SHAPE,
        weight=lambda run: cfg.flops_per_step(run[0]),
        publish=lambda records: {"config": cfg.to_dict(), "runs": records},
    )
    outcome = run_units(
        units, progress.part(0.15 if cfg.recipe != "old" else 0.0, 1.0), content.text(BOOK, "progress-done")
    )
    recipe = cfg.lab_recipe().record(
        {str(w): lr for w, lr in lr_by_width.items()}, pilots={str(w): c["pilots"] for w, c in choices.items()}
    )
    return {
        "config": cfg.to_dict(),
        "runs": outcome.records,
        "stopped": outcome.stopped,
        "seconds": time.perf_counter() - start,
        "recipe": recipe,
        "device": device_label(device),
    }


# --- analysis ------------------------------------------------------------------------------------------------


def _loss_at(record: dict, step: int) -> float | None:
    return next((row["eval_loss"] for row in record["history"] if row["step"] == step), None)


def paired_gaps(swept: dict) -> dict[tuple[int, int], dict[int, float]]:
    """(width, budget) -> {seed: decoder-only minus prefix-LM held-out loss}, wherever both runs reached the budget."""
    cfg = ScalingConfig.from_dict(swept["config"])
    by_key = {(r["width"], r["mask"], r["seed"]): r for r in swept["runs"]}
    out: dict[tuple[int, int], dict[int, float]] = {}
    for width in cfg.widths:
        for budget in cfg.budgets:
            for seed in cfg.seeds:
                pair = [by_key.get((width, mask, seed)) for mask in MASKS]
                losses = [_loss_at(r, budget) if r else None for r in pair]
                if None not in losses:
                    out.setdefault((width, budget), {})[seed] = losses[0] - losses[1]
    return out


def points(swept: dict) -> list[dict]:
    """One point per width and budget with at least one complete pair: the CLI's `points`.

    gap: the seed mean of the paired gaps; gap_low / gap_high: the lowest and highest seed's gap (the seed range,
    not a confidence interval); p: the exact sign-flip test of a zero mean gap (at least `smallest_p`), p_holm the
    same after Holm's correction over every point.
    """
    by_key = {(r["width"], r["mask"], r["seed"]): r for r in swept["runs"]}
    out = []
    for (width, budget), gaps in sorted(paired_gaps(swept).items()):
        values = list(gaps.values())
        losses = {mask: float(np.mean([_loss_at(by_key[(width, mask, s)], budget) for s in gaps])) for mask in MASKS}
        run = by_key[(width, "decoder", next(iter(gaps)))]  # both masks have its parameters and FLOPs
        out.append(
            {
                "width": width,
                "flops": float(budget * run["flops_per_step"]),
                "gap": float(np.mean(values)),
                "gap_low": float(min(values)),
                "gap_high": float(max(values)),
                "steps": budget,
                "seeds": len(values),
                "p": sign_flip_p(values),
                "smallest_p": smallest_p(len(values)),
                "decoder_loss": losses["decoder"],
                "prefix_lm_loss": losses["prefix_lm"],
                "parameters": run["parameters"],
            }
        )
    for point, adjusted in zip(out, holm([p["p"] for p in out])):
        point["p_holm"] = adjusted  # over every width and budget shown
    return out


def _slope(x: list[float], y: list[float]) -> float:
    return float(np.polyfit(x, y, 1)[0])


def trend(swept: dict) -> dict:
    """Does the gap shrink with scale? Two per-seed slopes, each tested with the exact sign-flip test.

    width:  per seed, the slope of the gap at the largest budget against log2(width) (nats per doubling);
    budget: per seed, the slope of the gap against log2(steps), averaged over widths.
    A negative mean slope with a small p says the gap shrinks. Only seeds with every width (and budget) count.
    Holm's correction covers the two tests.
    """
    cfg = ScalingConfig.from_dict(swept["config"])
    gaps = paired_gaps(swept)
    last = cfg.budgets[-1]
    complete = [s for s in cfg.seeds if all(s in gaps.get((w, b), {}) for w in cfg.widths for b in cfg.budgets)]
    out = {}
    if len(cfg.widths) > 1:
        out["width"] = [_slope(np.log2(cfg.widths), [gaps[(w, last)][s] for w in cfg.widths]) for s in complete]
    if len(cfg.budgets) > 1:
        out["budget"] = [
            float(np.mean([_slope(np.log2(cfg.budgets), [gaps[(w, b)][s] for b in cfg.budgets]) for w in cfg.widths]))
            for s in complete
        ]
    tests = {
        axis: {
            "slopes": slopes,
            "mean_slope": float(np.mean(slopes)) if slopes else float("nan"),
            "slope_low": min(slopes, default=float("nan")),
            "slope_high": max(slopes, default=float("nan")),
            "negative": sum(v < 0 for v in slopes),
            "seeds": len(slopes),
            "p": sign_flip_p(slopes) if len(slopes) >= 2 else float("nan"),
            "smallest_p": smallest_p(len(slopes)),
        }
        for axis, slopes in out.items()
    }
    for test, adjusted in zip(tests.values(), holm([t["p"] for t in tests.values()])):
        test["p_holm"] = adjusted
    return tests


def estimate_seconds(cfg: ScalingConfig, shipped_record: dict | None) -> float:
    """Wall time to train `cfg` here, by the lab's one time model (`explorer.lab.estimate`): each run's training
    FLOPs (the WSD branches and the learning-rate pilots included under the reviewed recipe) over the FLOP rate
    the shipped runs of that width measured (the slowest measured width's where none; small models pay overheads,
    so a rate is per width), or the device's fallback rate without any."""
    runs = (shipped_record or {}).get("runs", [])
    rates = {
        w: estimate.measured_rate(
            (r["flops_per_step"] * r["steps_done"], r["seconds"]) for r in runs if r["width"] == w and r["steps_done"]
        )
        for w in {r["width"] for r in runs}
    }
    measured = [v for v in rates.values() if v]
    recipe = cfg.lab_recipe()
    steps = recipe.schedule.total_steps(cfg.budgets)
    pilots = 0 if cfg.recipe == "old" else recipe.pilot_steps(cfg.steps) * len(MASKS) * len(cfg.lr_grid)

    def seconds(width: int, n_steps: int) -> float:
        return estimate.seconds(cfg.flops_per_step(width) * n_steps, rates.get(width) or min(measured, default=None))

    return sum(seconds(width, steps) for width, _, _ in cfg.runs()) + sum(seconds(w, pilots) for w in cfg.widths)


# --- serving cost ------------------------------------------------------------------------------------------------


def serving(cfg: ScalingConfig, width: int, message: int | None = None, turns: int = 10) -> list[dict]:
    """FLOPs per turn of a chat whose turns are `message` tokens (default: one task input plus BOS), served with
    bidirectional input (every turn re-encodes the whole chat) or causally with a KV cache (only the new tokens),
    on the trained model of `width` (the formulas of `explorer.experiments.cache`)."""
    m = message or cfg.length + 1
    model = replace(cfg.model_config(width, "decoder"), max_len=(turns + 1) * m)
    rows, reencode, cached = [], 0, 0
    for turn in range(turns):
        f = turn_flops(model, turn * m, m)
        reencode, cached = reencode + f["flops_reencode"], cached + f["flops_cached"]
        rows.append(
            {
                "turn": turn + 1,
                "history": turn * m,
                "m": m,
                "flops_reencode": f["flops_reencode"],
                "flops_cached": f["flops_cached"],
                "cum_reencode": reencode,
                "cum_cached": cached,
                "ratio": reencode / cached,
            }
        )
    return rows


def analyse(swept: dict) -> dict:
    """What the page and the CLI show of a sweep: its points, the trend tests and the serving cost of a chat
    on its widest model."""
    cfg = ScalingConfig.from_dict(swept["config"])
    return {
        "config": swept["config"],
        "points": points(swept),
        "trend": trend(swept),
        "serving": serving(cfg, cfg.widths[-1]),
    }


# --- shipped results ---------------------------------------------------------------------------------------------


def shipped_path(preset: str = "main") -> Path:
    return SHIPPED_DIR / f"{preset}.json"


def load_shipped(path: Path | None = None) -> dict | None:
    """The shipped main sweep as the CLI wrote it, or None when missing or not of this shape."""
    record = shipped.load(path or shipped_path())
    return record if record and all(k in record for k in ("config", "runs")) else None
