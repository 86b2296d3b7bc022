"""The inductive-bias crossover (slides 10, 13-15), measured on tiny models instead of drawn as a cartoon.

Structure strength is a local attention window w: a one-layer decoder whose positions read only the last
w positions (itself included). The task is multi-lag recall (`explorer.recall`): most of its score is
local, some needs long range, so locality is a good but incomplete prior. Every window is trained at
several widths (model sizes) and learning rates, each with the same seeds; compute is the training FLOPs
a model has spent, so a bigger model spends more per step. Per window, the compute-optimal frontier
(`crossover_frontier`) is the best held-out score over its model sizes at each compute. Then:

  crossover(a, b)  the compute at which the frontier of the less-structured window b overtakes the
                   frontier of the more-structured a for good (per seed, and its spread across seeds);
                   per learning rate too, which shows how much of the location belongs to the recipe;
  b*(r)            the window on top of the frontiers at compute r (slide 14), with its confidence: the
                   share of paired seed resamples (frontiers rebuilt in each) in which it stays on top.

Training lives in `crossover_train`; runs are cached and reused one (window, width, lr) at a time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from explorer import planning, results, stats
from explorer.costs import TRAIN_FLOPS_PER_FORWARD, check_size, stack_forward_flops
from explorer.experiments import crossover_frontier as fr
from explorer.experiments.crossover_train import train_runs
from explorer.model import TransformerConfig
from explorer.planning import Plan
from explorer.progress import SILENT, Progress
from explorer.recall import LAGS, WEIGHTS, MultiLagRecall, ceiling, weighted
from explorer.recipe import Recipe, check_seeds

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "data" / "crossover"  # the main preset's results, for the page
CACHE_KIND = "crossover-run"  # one cached record per (settings, window, width, lr): runs combine freely
RUN_SHAPE = {
    "window": int,
    "width": int,
    "lr": float,
    "seeds": [int],
    "steps": [int],
    "per_lag_accuracy": [[[float]]],
    "eval_loss": [[float]],
}  # what a cached run must hold
CHECKPOINT_ANCHOR = 100  # checkpoints sit at round(100 * 2^(k / per_octave)): budgets 100 * 2^m are on the grid
MIN_LEAD = 0.01  # a lead smaller than this (in weighted accuracy) is a tie, not a lead
CLEAR_CONFIDENCE = 0.8  # b* on top in fewer seed resamples than this share is "no clear winner"
MAX_STEPS = 3200
MAX_SEEDS = 8
SECONDS_PER_MODEL_STEP = 0.007  # fallback speed (one model, one step, one thread) if no measured run is known


class Run(NamedTuple):
    """One structure level at one model size and learning rate (every seed of it trains together)."""

    window: int
    width: int
    lr: float

    @property
    def key(self) -> str:
        return f"w{self.window}-d{self.width}-lr{self.lr:g}"


@dataclass(frozen=True)
class SweepConfig(Recipe):
    windows: tuple[int, ...] = (2, 4, 8, 16, 48)  # structure levels; 48 = full attention (no locality bias)
    widths: tuple[int, ...] = (16, 32, 64)  # d_model of each model size (n_heads must divide it)
    lrs: tuple[float, ...] = (3e-3, 1e-2)  # Adam, constant after a linear warm-up
    seeds: tuple[int, ...] = (0, 1, 2)
    steps: int = 400  # optimizer steps per model
    length: int = 48  # T
    n_symbols: int = 8  # V
    lags: tuple[int, ...] = LAGS  # one label per lag at every position
    n_heads: int = 4
    n_layers: int = 1  # one layer: with two, windows stack and beat their one-layer ceilings
    warmup: int = 20
    batch_size: int = 16
    grad_clip: float = 1.0  # per model, as in explorer.train
    eval_size: int = 128  # held-out sequences per seed, the same at every checkpoint and for every run
    checkpoints_per_octave: int = 3
    first_checkpoint: int = 4
    # learned position embeddings re-drawn with this std (None: the model's default 0.02). At 0.3 positions
    # dominate the first attention scores, so where to look is learnable from the start.
    pos_init_std: float | None = 0.3
    batched: bool = True  # train the seeds of a run as one vmapped model

    SLICES = ("windows", "widths", "lrs", "seeds", "steps")

    def __post_init__(self) -> None:
        super().__post_init__()
        for name, kind in (("windows", int), ("widths", int), ("lrs", float)):
            object.__setattr__(self, name, tuple(sorted(set(kind(v) for v in getattr(self, name)))))
        object.__setattr__(self, "seeds", check_seeds(self.seeds, MAX_SEEDS))
        object.__setattr__(self, "lags", tuple(int(lag) for lag in self.lags))
        self.task  # validates length, symbols and lags
        if not self.windows or self.windows[0] < 1 or self.windows[-1] > self.length:
            raise ValueError(f"windows must lie in 1 .. {self.length} (the sequence length), got {self.windows}")
        if not self.widths or any(d < 1 or d % self.n_heads for d in self.widths):
            raise ValueError(f"widths must be multiples of the {self.n_heads} heads, got {self.widths}")
        if not self.lrs or not all(lr > 0 and math.isfinite(lr) for lr in self.lrs):
            raise ValueError(f"learning rates must be positive numbers, got {self.lrs}")
        if not 1 <= self.steps <= MAX_STEPS:
            raise ValueError(f"steps must lie in 1 .. {MAX_STEPS}, got {self.steps}")
        for name in ("batch_size", "eval_size", "checkpoints_per_octave", "first_checkpoint", "warmup"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        check_size(self.model_config(self.windows[0], self.widths[-1]))  # refuse sizes before any training

    @property
    def task(self) -> MultiLagRecall:
        return MultiLagRecall(length=self.length, n_symbols=self.n_symbols, lags=self.lags)

    @property
    def runs(self) -> list[Run]:
        return [Run(w, d, lr) for w in self.windows for d in self.widths for lr in self.lrs]

    def settings(self) -> dict:
        """As `Recipe.settings`, less `batched`: an execution detail (the same models on the same data; only the
        attention kernel differs, in the last bits), chosen per device where it is faster."""
        return {k: v for k, v in super().settings().items() if k != "batched"}

    def model_config(self, window: int, width: int) -> TransformerConfig:
        return TransformerConfig(
            arch="decoder",
            vocab_size=self.n_symbols,
            n_out=self.n_symbols * len(self.lags),
            d_model=width,
            n_heads=self.n_heads,
            n_layers=self.n_layers,
            max_len=self.length,
            window=window,
        )

    def flops_per_step(self, width: int) -> int:
        """Training FLOPs of one optimizer step of one model of this width (forward + backward, any window).

        The model computes the full score matrix and masks it, so a narrow window costs the same matmul
        FLOPs as full attention; `window_kernel_flops` says what a dedicated local kernel would save.
        """
        per_sequence = stack_forward_flops(self.model_config(self.windows[0], width), self.length, self.length)
        return TRAIN_FLOPS_PER_FORWARD * self.batch_size * per_sequence

    def checkpoints(self, steps: int | None = None) -> list[int]:
        return checkpoint_steps(
            self.steps if steps is None else steps, self.checkpoints_per_octave, self.first_checkpoint
        )


PRESETS = {
    "main": SweepConfig(),
    # watched live on the page: the most and the least structure, three sizes, two seeds, one learning rate
    "quick": SweepConfig(windows=(2, 48), lrs=(1e-2,), seeds=(0, 1), steps=128, eval_size=64),
}


def shipped_path(preset: str) -> Path:
    """Where `python -m explorer crossover --preset <preset>` writes a main preset's results."""
    return SHIPPED_DIR / f"{preset}.json"


def checkpoint_steps(steps: int, per_octave: int = 3, first: int = 4) -> list[int]:
    """Log-spaced evaluation steps up to `steps`, the last step always included.

    The grid does not depend on `steps`, so a shorter run evaluates at a prefix of a longer run's steps.
    """
    grid, k = set(), math.floor(per_octave * math.log2(first / CHECKPOINT_ANCHOR)) - 1
    while (s := round(CHECKPOINT_ANCHOR * 2 ** (k / per_octave))) <= steps:
        if s >= first:
            grid.add(s)
        k += 1
    return sorted(grid | {steps})


def window_kernel_flops(cfg: SweepConfig, window: int, width: int) -> int:
    """Training FLOPs per step if attention computed only the (causal, in-window) entries it may read."""
    t = cfg.length
    kept = sum(min(i + 1, window) for i in range(t))
    saved = cfg.n_layers * 2 * (t * t - kept) * width * 2  # scores QK^T and the weighted sum AV
    return cfg.flops_per_step(width) - TRAIN_FLOPS_PER_FORWARD * cfg.batch_size * saved


# --- reuse: shipped results, the result cache, and what is left to train ------------------------------


def run_key(cfg: SweepConfig, run: Run) -> dict:
    """The cache key of one run's record: every setting, with only this window, width and lr."""
    return replace(cfg, windows=(run.window,), widths=(run.width,), lrs=(run.lr,)).to_dict()


def slice_record(record: dict, seeds_of_record: list[int], seeds: tuple[int, ...], steps: int) -> dict:
    """The part of a longer record with more seeds that a shorter run with fewer seeds would have measured."""
    rows = [seeds_of_record.index(s) for s in seeds]
    keep = [i for i, s in enumerate(record["steps"]) if s <= steps]
    return {
        **{k: record[k] for k in ("window", "width", "lr")},
        "seeds": list(seeds),
        "steps": [record["steps"][i] for i in keep],
        "per_lag_accuracy": [[record["per_lag_accuracy"][r][i] for i in keep] for r in rows],
        "eval_loss": [[record["eval_loss"][r][i] for i in keep] for r in rows],
    }


def from_shipped(cfg: SweepConfig, run: Run, shipped: dict | None) -> dict | None:
    """The run's record sliced out of a shipped sweep that covers these settings, else None."""
    if not shipped or shipped.get("stopped") != "steps" or "runs" not in shipped:
        return None
    scfg = shipped["config"]
    record = shipped["runs"].get(run.key)
    if (
        record is None
        or not cfg.same_settings(scfg)
        or not set(cfg.seeds) <= set(scfg["seeds"])
        or cfg.steps > scfg["steps"]
        or cfg.steps not in record["steps"]
    ):
        return None
    return slice_record(record, scfg["seeds"], cfg.seeds, cfg.steps)


def plan(cfg: SweepConfig, shipped: dict | None = None, use_cache: bool = True) -> Plan[Run]:
    """Which runs are ready (shipped or cached) and which are still to train."""
    return planning.plan(
        cfg.runs,
        lambda run: from_shipped(cfg, run, shipped),
        (CACHE_KIND, lambda run: run_key(cfg, run)) if use_cache else None,
        RUN_SHAPE,
    )


def model_steps(cfg: SweepConfig, n_runs: int | None = None) -> float:
    """Model-steps of `n_runs` runs (all by default), counting evaluation as forward work (a third of a step)."""
    eval_steps = len(cfg.checkpoints()) * cfg.eval_size / (TRAIN_FLOPS_PER_FORWARD * cfg.batch_size)
    return (len(cfg.runs) if n_runs is None else n_runs) * len(cfg.seeds) * (cfg.steps + eval_steps)


def measured_rate(sweep_result: dict) -> float | None:
    """Seconds per model-step of a finished sweep that trained all its runs (None if unknown)."""
    if sweep_result.get("stopped") != "steps" or not sweep_result.get("seconds"):
        return None
    return sweep_result["seconds"] / model_steps(SweepConfig.from_dict(sweep_result["config"]))


def estimate_seconds(cfg: SweepConfig, n_runs: int | None = None, seconds_per_model_step: float | None = None) -> float:
    """Wall time to train `n_runs` runs of `cfg` at a measured rate (same widths mix) or the fallback."""
    return model_steps(cfg, n_runs) * (seconds_per_model_step or SECONDS_PER_MODEL_STEP)


def sweep(
    cfg: SweepConfig,
    shipped: dict | None = None,
    use_cache: bool = True,
    progress: Progress = SILENT,
    train: bool = True,
) -> dict:
    """Every run of `cfg`: reused from `shipped` or the cache where possible, the rest trained now.

    Complete records of newly trained runs go to the result cache; a run cut by the time budget is
    returned (marked `stopped="time_budget"` or "cancelled") but not cached. With `train=False` a run that
    is not stored raises ValueError instead of training.
    """
    planned = plan(cfg, shipped, use_cache)
    ready = {run.key: record for run, record in planned.ready.items()}
    sources = {run.key: source for run, source in planned.sources.items()}
    missing = planned.missing
    if missing and not train:
        raise ValueError(f"no stored results for {', '.join(r.key for r in missing)} with these settings")
    out = {
        "config": cfg.to_dict(),
        "runs": {},
        "sources": sources,
        "stopped": "steps",
        "steps_done": cfg.steps,
        "seconds": 0.0,
        "trained_runs": [r.key for r in missing],
    }
    if missing:
        trained = train_runs(cfg, missing, progress)
        out.update(stopped=trained["stopped"], steps_done=trained["steps_done"], seconds=trained["seconds"])
        for run in missing:
            ready[run.key], sources[run.key] = trained["runs"][run.key], "trained"
            if trained["stopped"] == "steps" and use_cache:
                results.save(CACHE_KIND, run_key(cfg, run), trained["runs"][run.key])
    out["runs"] = {run.key: ready[run.key] for run in cfg.runs}
    return out


# --- analysis: frontiers, crossovers, b*(r) -------------------------------------------------------------


def is_clear(lead: float, confidence: float | None) -> bool:
    """A winner is clear when it leads by `MIN_LEAD` and stays on top in `CLEAR_CONFIDENCE` of the resamples
    (one seed gives no resamples: the lead alone decides, and the page says so)."""
    return lead >= MIN_LEAD and (confidence is None or confidence >= CLEAR_CONFIDENCE)


def best_structure(flops: np.ndarray, means: dict[int, np.ndarray], shares: dict[int, np.ndarray] | None) -> list[dict]:
    """b*(r) at each grid point: the window whose frontier is highest, its lead and its confidence.

    `means`: each window's seed-mean frontier [G]; `shares`: each window's share of seed resamples on top
    [G] (`crossover_frontier.top_share`; None for one seed). `clear` is False where the lead is below
    `MIN_LEAD` or the confidence below `CLEAR_CONFIDENCE` (early on, near chance, the argmax is noise).
    """
    windows = list(means)
    table = np.stack([means[w] for w in windows])  # [W, G]
    out = []
    for c, f in enumerate(flops):
        order = np.argsort(-table[:, c], kind="stable")
        winner = windows[order[0]]
        lead = float(table[order[0], c] - table[order[1], c]) if len(windows) > 1 else math.inf
        confidence = None if shares is None else float(shares[winner][c])
        out.append(
            {
                "flops": float(f),
                "window": int(winner),
                "lead": lead,
                "clear": is_clear(lead, confidence),
                "confidence": confidence,
            }
        )
    return out


def bootstrap_design(n_seeds: int) -> dict:
    """What the b* confidence rests on: seeds, resamples drawn, how many of them can differ, the threshold."""
    return {
        "seeds": n_seeds,
        "resamples": len(stats.seed_resamples(n_seeds)),
        "distinct": stats.distinct_resamples(n_seeds),
        "paired": True,
        "threshold": CLEAR_CONFIDENCE,
    }


def changes(b_star: list[dict]) -> list[dict]:
    """The clear b* rows where the best window changes: the steps of the b*(r) curve."""
    out = []
    for row in b_star:
        if row["clear"] and (not out or row["window"] != out[-1]["window"]):
            out.append(row)
    return out


def run_curves(sweep_result: dict, weights: tuple = WEIGHTS) -> dict[str, dict]:
    """Each run's per-seed score (weighted accuracy) and held-out loss [S, C] at its FLOPs [C], at the
    checkpoints every run reached (a cut run stops early)."""
    cfg = SweepConfig.from_dict(sweep_result["config"])
    records = sweep_result["runs"]
    steps = sorted(set.intersection(*(set(r["steps"]) for r in records.values())))
    out = {}
    for key, r in records.items():
        index = [r["steps"].index(s) for s in steps]
        out[key] = {
            "window": r["window"],
            "width": r["width"],
            "lr": r["lr"],
            "steps": steps,
            "flops": np.array(steps, float) * cfg.flops_per_step(r["width"]),
            "per_seed": weighted([[s[i] for i in index] for s in r["per_lag_accuracy"]], weights).numpy(),
            "loss": np.array([[s[i] for i in index] for s in r["eval_loss"]], float),
        }
    return out


def frontiers(runs: dict[str, dict], windows: list[int], grid: np.ndarray, measure: str = "per_seed") -> dict:
    """Per window on `grid`: its runs' seed curves stacked [K, S, G], the seed-mean frontier [G] with the
    width and lr on it, and per-seed frontiers [S, G]. `measure` "loss" takes the lowest held-out loss."""
    higher = measure == "per_seed"
    out = {}
    for w in windows:
        mine = [r for r in runs.values() if r["window"] == w]
        stack = np.stack([fr.on_grid(r["flops"], r[measure], grid) for r in mine])  # [K, S, G]
        mean, index = fr.best_of(stack.mean(axis=1), higher)
        per_seed, _ = fr.best_of(stack, higher)
        out[w] = {
            "stack": stack,
            "mean": mean,
            "per_seed": per_seed,
            "width": [mine[i]["width"] if i >= 0 else None for i in index],
            "lr": [mine[i]["lr"] if i >= 0 else None for i in index],
        }
    return out


def pair_crossings(grid: np.ndarray, fronts: dict, windows: list[int]) -> list[dict]:
    """Every (more, less) pair of windows: per-seed crossings of their frontiers and that of the mean ones."""
    out = []
    for i, a in enumerate(windows):
        for b in windows[i + 1 :]:
            n = len(fronts[a]["per_seed"])
            per_seed = [
                fr.crossing(grid, fronts[a]["per_seed"][s], fronts[b]["per_seed"][s], MIN_LEAD) for s in range(n)
            ]
            out.append(
                {
                    "more_structure": a,
                    "less_structure": b,
                    **fr.spread(per_seed),
                    "flops_of_mean_curves": fr.crossing(grid, fronts[a]["mean"], fronts[b]["mean"], MIN_LEAD),
                }
            )
    return out


def analyse(sweep_result: dict, weights: tuple = WEIGHTS, lr: float | None = None, bootstrap: bool = True) -> dict:
    """Frontiers under a score weighting (over every lr, or one `lr`), the closed-form ceilings, crossovers
    of every pair of windows (and per lr), b*(r) with its bootstrap confidence (skipped with `bootstrap=False`,
    for drawing a run while it trains), and each window's held-out-loss frontier."""
    cfg = SweepConfig.from_dict(sweep_result["config"])
    if len(weights) != len(cfg.lags):
        raise ValueError(f"need one weight per lag ({len(cfg.lags)}), got {len(weights)}")
    if lr is not None and lr not in cfg.lrs:
        raise ValueError(f"learning rate {lr} is not one of this sweep's {list(cfg.lrs)}")
    every = run_curves(sweep_result, weights)
    runs = {k: r for k, r in every.items() if lr is None or r["lr"] == lr}
    windows = sorted({r["window"] for r in runs.values()})
    grid = fr.log_grid(min(r["flops"][0] for r in runs.values()), max(r["flops"][-1] for r in runs.values()))
    fronts = frontiers(runs, windows, grid)
    covered = np.all([~np.isnan(fronts[w]["mean"]) for w in windows], axis=0)  # reached by every window
    grid = grid[covered]
    fronts = frontiers(runs, windows, grid)
    curves = {
        w: {
            "mean": f["mean"],
            "per_seed": f["per_seed"],
            "min": f["per_seed"].min(0),
            "max": f["per_seed"].max(0),
            "width": f["width"],
            "lr": f["lr"],
        }
        for w, f in fronts.items()
    }
    crossovers = pair_crossings(grid, fronts, windows)
    if lr is None and len(cfg.lrs) > 1:  # the recipe view: the same crossings with one learning rate each
        for one in cfg.lrs:
            mine = {k: r for k, r in every.items() if r["lr"] == one}
            for c, d in zip(crossovers, pair_crossings(grid, frontiers(mine, windows, grid), windows)):
                c.setdefault("by_lr", {})[f"{one:g}"] = {
                    k: d[k]
                    for k in ("flops_of_mean_curves", "flops_mean", "flops_min", "flops_max", "seeds_with_crossover")
                }
    top = fr.top_share(np.stack([fronts[w]["stack"] for w in windows])) if bootstrap else None
    shares = None if top is None else dict(zip(windows, top))
    b_star = best_structure(grid, {w: fronts[w]["mean"] for w in windows}, shares)
    loss = frontiers(runs, windows, grid, "loss")
    return {
        "windows": windows,
        "widths": list(cfg.widths),
        "lrs": list(cfg.lrs),
        "lr": lr,
        "seeds": list(cfg.seeds),
        "weights": list(weights),
        "lags": list(cfg.lags),
        "steps": next(iter(runs.values()))["steps"],
        "flops": grid,
        "runs": runs,
        "curves": curves,
        "ceilings": {w: ceiling(cfg.task, weights, w, cfg.n_layers) for w in windows},
        "chance": 1.0 / cfg.n_symbols,
        "crossovers": crossovers,
        "b_star": b_star,
        "b_star_changes": changes(b_star),
        "top_share": shares,
        "bootstrap": bootstrap_design(len(cfg.seeds)),
        "loss_frontier": {w: {"loss": loss[w]["mean"], "width": loss[w]["width"]} for w in windows},
        "config": sweep_result["config"],
        "stopped": sweep_result.get("stopped", "steps"),
        "steps_done": sweep_result.get("steps_done"),
    }


def at_budget(analysis: dict, flops: float) -> dict | None:
    """Each window's frontier (seed mean) at a compute budget, the size on it, and the winner.

    None outside the measured range. `confidence`: the share of seed resamples (frontiers rebuilt) in which
    the winner is on top at this budget (None for one seed); `clear` as in `best_structure`. `remove_at`:
    where the winner is overtaken by a less-structured window (the next crossover after the budget), i.e.
    when to take its structure out (slide 13).
    """
    grid = analysis["flops"]
    if not grid[0] <= flops <= grid[-1]:
        return None
    windows = analysis["windows"]
    fronts = frontiers(analysis["runs"], windows, np.append(grid[grid < flops], flops))  # the budget comes last
    acc = {w: float(fronts[w]["mean"][-1]) for w in windows}
    ranked = sorted(acc, key=lambda w: -acc[w])
    winner = ranked[0]
    later = [
        c
        for c in analysis["crossovers"]
        if c["more_structure"] == winner and c["flops_of_mean_curves"] and c["flops_of_mean_curves"] > flops
    ]
    runner_up = ranked[1] if len(ranked) > 1 else None
    lead = acc[winner] - acc[runner_up] if runner_up is not None else math.inf
    top = fr.top_share(np.stack([fronts[w]["stack"] for w in windows]))
    confidence = None if top is None else float(top[windows.index(winner)][-1])
    return {
        "flops": flops,
        "accuracy": acc,
        "width": {w: fronts[w]["width"][-1] for w in windows},
        "winner": winner,
        "runner_up": runner_up,
        "lead": lead,
        "confidence": confidence,
        "clear": is_clear(lead, confidence),
        "remove_at": min(later, key=lambda c: c["flops_of_mean_curves"]) if later else None,
    }


def recipe_shift(analysis: dict) -> dict | None:
    """How far the learning rate moves the crossings of the mean frontiers: for the most/least structured pair
    per rate (`by_lr`: rate -> FLOPs or None) and with the best rate per size (`best`), and the spread
    (latest / earliest) over the pairs that cross with every rate. None without a learning-rate view."""
    pairs = [c for c in analysis["crossovers"] if c.get("by_lr")]
    if not pairs:
        return None
    ratios = []
    for c in pairs:
        found = [x["flops_of_mean_curves"] for x in c["by_lr"].values()]
        if all(found):
            ratios.append(max(found) / min(found))
    extreme = next(
        c
        for c in pairs
        if (c["more_structure"], c["less_structure"]) == (analysis["windows"][0], analysis["windows"][-1])
    )
    return {
        "more": extreme["more_structure"],
        "less": extreme["less_structure"],
        "best": extreme["flops_of_mean_curves"],
        "by_lr": {lr: x["flops_of_mean_curves"] for lr, x in extreme["by_lr"].items()},
        "pairs": len(pairs),
        "both": len(ratios),
        "lo": min(ratios, default=math.nan),
        "hi": max(ratios, default=math.nan),
        "median": float(np.median(ratios)) if ratios else math.nan,
    }
