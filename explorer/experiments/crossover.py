"""The inductive-bias crossover (slides 10, 13-15), measured on tiny models instead of drawn as a cartoon.

Structure strength is a local attention window w: a one-layer decoder whose positions read only the last
w positions (itself included). The task is multi-lag recall (`explorer.recall`): most of its score is
local, some needs long range, so locality is a good but incomplete prior. For every window and seed we
train one model of the project's Transformer and evaluate it on held-out sequences at log-spaced
checkpoints, with the training FLOPs spent so far as the compute axis. Then:

  crossover(a, b)  the compute at which the less-structured window b overtakes the more-structured a
                   for good (per seed, and its spread across seeds);
  b*(r)            argmax over windows of the seed-mean accuracy at compute r (slide 14), with its
                   confidence: the share of seed resamples (a paired bootstrap) in which it stays on top.

The compute axis is training steps times the FLOPs of one step of one fixed model size: it says which
window learns faster per step of this model, not which structure scales when the model grows as well.

Conventions follow `explorer.train`: a seed fixes initial weights, training data and held-out data;
every window of a seed starts from the same weights and sees the same batches (the window changes no
parameter shape). The models of one window (one per seed) train as one batched model through
`torch.func` (stacked parameters, `vmap` over `functional_call`); `batched=False` trains them one by
one, for the benchmark. Windows are interleaved step by step, so a time limit or a cancellation cuts
every window at the same step. Training runs in one intra-op thread: on a shared 2-core server two
threads per process contend badly, and a fixed thread count keeps the numbers reproducible.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch.func import functional_call, stack_module_state, vmap

from explorer import planning, results, stats
from explorer.costs import TRAIN_FLOPS_PER_FORWARD, check_size, stack_forward_flops
from explorer.model import Transformer, TransformerConfig
from explorer.planning import Plan
from explorer.progress import SILENT, Progress
from explorer.recipe import Recipe, check_seeds
from explorer.recall import IGNORE, LAGS, WEIGHTS, MultiLagRecall, ceiling, per_lag_accuracy, weighted
from explorer.train import EVAL_SEED_OFFSET

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "data" / "crossover"  # full presets' results, for the page
CACHE_KIND = "crossover-window"  # one cached record per (settings, window): windows combine freely
WINDOW_SHAPE = {"window": int, "seeds": [int], "steps": [int], "per_lag_accuracy": [[[float]]],
                "eval_loss": [[float]]}  # what a cached window must hold (`explorer.shapes`)
CHECKPOINT_ANCHOR = 100  # checkpoints sit at round(100 * 2^(k / per_octave)): budgets 100 * 2^m are on the grid
MIN_LEAD = 0.01  # a lead smaller than this (in weighted accuracy) is a tie, not a lead
CLEAR_CONFIDENCE = 0.8  # b* on top in fewer seed resamples than this share is "no clear winner"
MAX_STEPS = 6400
MAX_SEEDS = 8
SECONDS_PER_MODEL_STEP = 0.009  # fallback speed (one model, one step, one thread) if no measured run is known


@dataclass(frozen=True)
class SweepConfig(Recipe):
    windows: tuple[int, ...] = (2, 4, 8, 16, 48)  # structure levels; 48 = full attention (no locality bias)
    seeds: tuple[int, ...] = (0, 1, 2)
    steps: int = 800  # optimizer steps per model
    length: int = 48  # T
    n_symbols: int = 8  # V
    lags: tuple[int, ...] = LAGS  # one label per lag at every position
    d_model: int = 40
    n_heads: int = 5
    n_layers: int = 1  # one layer: with two, windows stack and beat their one-layer ceilings
    lr: float = 6e-3  # Adam, constant after a linear warm-up
    warmup: int = 20
    batch_size: int = 16
    grad_clip: float = 1.0  # per model, as in explorer.train
    eval_size: int = 256  # held-out sequences per seed, the same at every checkpoint
    checkpoints_per_octave: int = 3
    first_checkpoint: int = 4
    # learned position embeddings re-drawn with this std (None: the model's default 0.02, as small as the token
    # embeddings). At 0.3 positions dominate the first attention scores, so where to look is learnable from
    # the start; at 0.02 every window first settles on averaging its window and all leave that plateau together.
    pos_init_std: float | None = 0.3
    batched: bool = True  # train the seeds of a window as one vmapped model

    SLICES = ("windows", "seeds", "steps")

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "windows", tuple(sorted(set(int(w) for w in self.windows))))
        object.__setattr__(self, "seeds", check_seeds(self.seeds, MAX_SEEDS))
        object.__setattr__(self, "lags", tuple(int(lag) for lag in self.lags))
        self.task  # validates length, symbols and lags
        if not self.windows or self.windows[0] < 1 or self.windows[-1] > self.length:
            raise ValueError(f"windows must lie in 1 .. {self.length} (the sequence length), got {self.windows}")
        if not 1 <= self.steps <= MAX_STEPS:
            raise ValueError(f"steps must lie in 1 .. {MAX_STEPS}, got {self.steps}")
        for name in ("batch_size", "eval_size", "checkpoints_per_octave", "first_checkpoint", "warmup"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(f"lr must be a positive number, got {self.lr}")
        check_size(self.model_config(self.windows[0]))  # refuse sizes before any training

    @property
    def task(self) -> MultiLagRecall:
        return MultiLagRecall(length=self.length, n_symbols=self.n_symbols, lags=self.lags)

    def model_config(self, window: int) -> TransformerConfig:
        return TransformerConfig(arch="decoder", vocab_size=self.n_symbols, n_out=self.n_symbols * len(self.lags),
                                 d_model=self.d_model, n_heads=self.n_heads, n_layers=self.n_layers,
                                 max_len=self.length, window=window)

    @property
    def flops_per_step(self) -> int:
        """Training FLOPs of one optimizer step of one model (forward + backward, every window alike).

        The model computes the full score matrix and masks it, so a narrow window costs the same matmul
        FLOPs as full attention; `window_kernel_flops` says what a dedicated local kernel would save.
        """
        per_sequence = stack_forward_flops(self.model_config(self.windows[0]), self.length, self.length)
        return TRAIN_FLOPS_PER_FORWARD * self.batch_size * per_sequence

    def checkpoints(self, steps: int | None = None) -> list[int]:
        return checkpoint_steps(self.steps if steps is None else steps, self.checkpoints_per_octave,
                                self.first_checkpoint)



PRESETS = {
    "main": SweepConfig(),
    # the same sweep with the model's own initialisation of position embeddings (std 0.02)
    "main_default_init": SweepConfig(pos_init_std=None),
    # small enough for a test: the most and the least structure, two seeds, a smaller held-out set
    "quick": SweepConfig(windows=(2, 48), seeds=(0, 1), steps=200, eval_size=64),
}


def shipped_path(preset: str) -> Path:
    """Where `python -m explorer crossover --preset <preset>` writes a full main preset's results."""
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


def window_kernel_flops(cfg: SweepConfig, window: int) -> int:
    """Training FLOPs per step if attention computed only the (causal, in-window) entries it may read."""
    t, d = cfg.length, cfg.d_model
    dense_entries = t * t
    kept = sum(min(i + 1, window) for i in range(t))
    saved = cfg.n_layers * 2 * (dense_entries - kept) * d * 2  # scores QK^T and the weighted sum AV
    return cfg.flops_per_step - TRAIN_FLOPS_PER_FORWARD * cfg.batch_size * saved


# --- training --------------------------------------------------------------------------------------------

def _clip_stacked(grads: list[torch.Tensor], max_norm: float) -> None:
    """Per-model gradient clipping for parameters stacked along dim 0 (one row per model)."""
    norms = torch.stack([g.pow(2).flatten(1).sum(1) for g in grads]).sum(0).sqrt()  # [S]
    scale = (max_norm / (norms + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(scale.view(-1, *([1] * (g.dim() - 1))))


class WindowModels:
    """The models of one window, one per seed, trained in lockstep on their own seeded data."""

    def __init__(self, cfg: SweepConfig, window: int) -> None:
        self.cfg, self.window, self.task = cfg, window, cfg.task
        model_cfg = cfg.model_config(window)
        models = []
        for seed in cfg.seeds:
            torch.manual_seed(seed)  # same initial weights for every window of this seed
            model = Transformer(model_cfg).train()
            if cfg.pos_init_std is not None:
                torch.nn.init.normal_(model.pos_emb.weight, std=cfg.pos_init_std)
            models.append(model)
        self.data = [torch.Generator().manual_seed(seed) for seed in cfg.seeds]  # same batches for every window
        held_out = [self.task.sample(cfg.eval_size, torch.Generator().manual_seed(seed + EVAL_SEED_OFFSET))
                    for seed in cfg.seeds]
        self.eval_x = torch.stack(held_out)  # [S, N, T]
        self.eval_y = self.task.labels(self.eval_x)  # [S, N, T, J]
        if cfg.batched:
            params, buffers = stack_module_state(models)  # each [S, ...]
            base = models[0]

            def one(p: dict, b: dict, x: torch.Tensor) -> torch.Tensor:
                # the explicit-softmax path: plain matmuls that vmap batches (the fused CPU kernel has no rule)
                return functional_call(base, (p, b), (x,), {"need_weights": True}).logits

            self._logits = lambda x: vmap(one)(params, buffers, x)  # [S, B, T, J*V]
            # evaluation needs no gradient: one model at a time through the fused attention kernel
            self._eval_logits = lambda x: torch.stack([functional_call(
                base, ({k: v[i] for k, v in params.items()}, buffers), (xi,)).logits for i, xi in enumerate(x)])
            self._params = list(params.values())
            self._clip = lambda: _clip_stacked([p.grad for p in self._params], cfg.grad_clip)
        else:
            self._logits = self._eval_logits = lambda x: torch.stack([m(xi).logits for m, xi in zip(models, x)])
            self._params = [p for m in models for p in m.parameters()]
            self._clip = lambda: [torch.nn.utils.clip_grad_norm_(m.parameters(), cfg.grad_clip) for m in models]
        self.opt = torch.optim.Adam(self._params, lr=cfg.lr)  # elementwise: stacked Adam = one Adam per model
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lambda s: min(1.0, (s + 1) / cfg.warmup))

    def _loss(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """[S] loss per model: cross-entropy averaged per lag over labelled positions, then over lags."""
        v = self.task.n_symbols
        ce = F.cross_entropy(logits.reshape(-1, v), labels.reshape(-1), ignore_index=IGNORE, reduction="none")
        ce = ce.view(labels.shape)  # [S, B, T, J], 0 where unlabelled
        per_lag = ce.sum(dim=(1, 2)) / (labels != IGNORE).sum(dim=(1, 2))  # [S, J]
        return per_lag.mean(dim=1)

    def step(self) -> torch.Tensor:
        x = torch.stack([self.task.sample(self.cfg.batch_size, g) for g in self.data])  # [S, B, T]
        loss = self._loss(self._logits(x), self.task.labels(x))
        self.opt.zero_grad(set_to_none=True)
        loss.sum().backward()  # models are independent: each gets the gradient of its own loss
        self._clip()
        self.opt.step()
        self.sched.step()
        return loss.detach()

    @torch.no_grad()
    def evaluate(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Held-out per-lag accuracy [S, J] and loss [S]."""
        logits = self._eval_logits(self.eval_x)
        s, n, t, _ = logits.shape
        predictions = logits.view(s, n, t, len(self.cfg.lags), self.cfg.n_symbols).argmax(-1)
        return per_lag_accuracy(predictions, self.eval_y), self._loss(logits, self.eval_y)


def train_windows(cfg: SweepConfig, windows: tuple[int, ...] | None = None, progress: Progress = SILENT) -> dict:
    """Train every (window, seed) model of `cfg` (or only `windows`) and record held-out accuracy.

    Reports to `progress` every few steps; when it says to stop, the models are evaluated and the run ends
    (`stopped` says why). Returns
    {"windows": {str(w): record}, "steps_done", "stopped", "seconds"}; a record holds, per seed and
    checkpoint, the accuracy of every lag (so any score weighting can be applied afterwards).
    """
    windows = cfg.windows if windows is None else tuple(windows)
    checkpoints = set(cfg.checkpoints())
    start = time.perf_counter()
    groups = [WindowModels(cfg, w) for w in windows]
    records = {w: {"window": w, "seeds": list(cfg.seeds), "steps": [],
                   "per_lag_accuracy": [[] for _ in cfg.seeds], "eval_loss": [[] for _ in cfg.seeds]}
               for w in windows}
    stopped, step = "steps", 0
    for step in range(1, cfg.steps + 1):
        for group in groups:
            group.step()
        seconds = time.perf_counter() - start
        stop = progress.should_stop()
        if step in checkpoints or stop:
            for w, group in zip(windows, groups):
                acc, loss = group.evaluate()
                rec = records[w]
                rec["steps"].append(step)
                for i in range(len(cfg.seeds)):
                    rec["per_lag_accuracy"][i].append([float(a) for a in acc[i]])
                    rec["eval_loss"][i].append(float(loss[i]))
        if stop:
            stopped = progress.stop_reason()
            break
        if step % 5 == 0 or step == cfg.steps:
            progress.update(step / cfg.steps, f"step {step} of {cfg.steps}, {len(windows)} windows x "
                                              f"{len(cfg.seeds)} seeds, {seconds:.0f} s")
    return {"windows": {str(w): records[w] for w in windows}, "steps_done": step, "stopped": stopped,
            "seconds": time.perf_counter() - start}


# --- reuse: shipped results, the on-disk cache, and what is left to train ----------------------------

def window_key(cfg: SweepConfig, window: int) -> dict:
    """The cache key of one window's record: every setting, with only this window."""
    return replace(cfg, windows=(window,)).to_dict()


def slice_record(record: dict, seeds_of_record: list[int], seeds: tuple[int, ...], steps: int) -> dict:
    """The part of a longer, wider record that a shorter run with fewer seeds would have measured."""
    rows = [seeds_of_record.index(s) for s in seeds]
    keep = [i for i, s in enumerate(record["steps"]) if s <= steps]
    return {"window": record["window"], "seeds": list(seeds), "steps": [record["steps"][i] for i in keep],
            "per_lag_accuracy": [[record["per_lag_accuracy"][r][i] for i in keep] for r in rows],
            "eval_loss": [[record["eval_loss"][r][i] for i in keep] for r in rows]}


def from_shipped(cfg: SweepConfig, window: int, shipped: dict | None) -> dict | None:
    """The window's record sliced out of a shipped sweep that covers these settings, else None."""
    if not shipped or shipped.get("stopped") != "steps":
        return None
    scfg = shipped["config"]
    record = shipped["windows"].get(str(window))
    if (record is None or not cfg.same_settings(scfg) or not set(cfg.seeds) <= set(scfg["seeds"]) or cfg.steps > scfg["steps"]
            or cfg.steps not in record["steps"]):
        return None
    return slice_record(record, scfg["seeds"], cfg.seeds, cfg.steps)


def plan(cfg: SweepConfig, shipped: dict | None = None, use_cache: bool = True) -> Plan[int]:
    """Which windows are ready (shipped or cached) and which are still to train."""
    return planning.plan(cfg.windows, lambda w: from_shipped(cfg, w, shipped),
                         (CACHE_KIND, lambda w: window_key(cfg, w)) if use_cache else None, WINDOW_SHAPE)


def estimate_seconds(cfg: SweepConfig, n_windows: int, seconds_per_model_step: float | None = None) -> float:
    """Wall time to train `n_windows` windows of `cfg`: model-steps, counting evaluation as forward work."""
    rate = seconds_per_model_step or SECONDS_PER_MODEL_STEP
    eval_steps = len(cfg.checkpoints()) * cfg.eval_size / (TRAIN_FLOPS_PER_FORWARD * cfg.batch_size)
    return n_windows * len(cfg.seeds) * (cfg.steps + eval_steps) * rate


def measured_rate(sweep_result: dict) -> float | None:
    """Seconds per model-step of a finished sweep that trained all its windows (None if unknown)."""
    cfg = SweepConfig.from_dict(sweep_result["config"])
    if sweep_result.get("stopped") != "steps" or not sweep_result.get("seconds"):
        return None
    return sweep_result["seconds"] / estimate_seconds(cfg, len(cfg.windows), 1.0)


def sweep(cfg: SweepConfig, shipped: dict | None = None, use_cache: bool = True,
          progress: Progress = SILENT,
          train: bool = True) -> dict:
    """Every window of `cfg`: reused from `shipped` or the cache where possible, the rest trained now.

    Complete records of newly trained windows go to the result cache; a run cut by the time budget is
    returned (marked `stopped="time_budget"`) but not cached. With `train=False` a window that is not
    stored raises ValueError instead of training.
    """
    planned = plan(cfg, shipped, use_cache)
    ready = {str(w): r for w, r in planned.ready.items()}
    sources = {str(w): s for w, s in planned.sources.items()}
    missing = planned.missing
    if missing and not train:
        raise ValueError(f"no stored results for window(s) {', '.join(map(str, missing))} with these settings")
    out = {"config": cfg.to_dict(), "windows": {}, "sources": sources, "stopped": "steps",
           "steps_done": cfg.steps, "seconds": 0.0, "trained_windows": missing}
    if missing:
        run = train_windows(cfg, tuple(missing), progress)
        out.update(stopped=run["stopped"], steps_done=run["steps_done"], seconds=run["seconds"])
        for w in missing:
            ready[str(w)], sources[str(w)] = run["windows"][str(w)], "trained"
            if run["stopped"] == "steps" and use_cache:
                results.save(CACHE_KIND, window_key(cfg, w), run["windows"][str(w)])
    out["windows"] = {str(w): ready[str(w)] for w in cfg.windows}
    return out


# --- analysis: curves, crossovers, b*(r) ---------------------------------------------------------------

def crossing(flops: np.ndarray, more: np.ndarray, less: np.ndarray, min_lead: float = MIN_LEAD) -> float | None:
    """Compute at which the `less`-structured curve overtakes the `more`-structured one for good.

    Requires that `more` led by at least `min_lead` at some point and that `less` leads by at least
    `min_lead` at the end; the crossing is the last time `less` was not ahead, interpolated linearly in
    log FLOPs between the checkpoints around it. None when there is no such crossing.
    """
    diff = np.asarray(less, float) - np.asarray(more, float)
    if diff[-1] < min_lead:
        return None
    behind = np.flatnonzero(diff <= 0)
    if behind.size == 0 or not (diff[: behind[-1] + 1] <= -min_lead).any():
        return None
    i = behind[-1]
    x0, x1 = math.log10(flops[i]), math.log10(flops[i + 1])
    t = -diff[i] / (diff[i + 1] - diff[i])
    return 10 ** (x0 + t * (x1 - x0))


def confidence_of(per_seed: dict[int, np.ndarray]) -> dict[int, np.ndarray] | None:
    """Share of paired seed resamples in which each window is on top, per column of its [seeds, ...] array;
    None for a single seed, where resampling cannot say anything."""
    windows = list(per_seed)
    if len(per_seed[windows[0]]) < 2:
        return None
    shares = stats.top_share(np.stack([per_seed[w] for w in windows]))
    return dict(zip(windows, shares))


def is_clear(lead: float, confidence: float | None) -> bool:
    """A winner is clear when it leads by `MIN_LEAD` and stays on top in `CLEAR_CONFIDENCE` of the resamples
    (one seed gives no resamples: the lead alone decides, and the page says so)."""
    return lead >= MIN_LEAD and (confidence is None or confidence >= CLEAR_CONFIDENCE)


def best_structure(flops: np.ndarray, per_seed: dict[int, np.ndarray]) -> list[dict]:
    """b*(r) at each checkpoint: the window with the highest seed-mean accuracy, its lead and its confidence.

    `per_seed` holds each window's [seeds, checkpoints] accuracies (the same seeds in the same order).
    `confidence` is the share of seed resamples in which that window is on top (`stats.top_share`; None for
    one seed); `clear` is False where the lead is below `MIN_LEAD` or the confidence below `CLEAR_CONFIDENCE`
    (early on, when every model is near chance, the argmax is noise).
    """
    windows = list(per_seed)
    table = np.stack([per_seed[w].mean(axis=0) for w in windows])  # [W, C]
    shares = confidence_of(per_seed)
    out = []
    for c, f in enumerate(flops):
        order = np.argsort(-table[:, c], kind="stable")
        winner = windows[order[0]]
        lead = float(table[order[0], c] - table[order[1], c]) if len(windows) > 1 else math.inf
        confidence = None if shares is None else float(shares[winner][c])
        out.append({"flops": float(f), "window": int(winner), "lead": lead, "clear": is_clear(lead, confidence),
                    "confidence": confidence})
    return out


def bootstrap_design(n_seeds: int) -> dict:
    """What the b* confidence rests on: seeds, resamples drawn, how many of them can differ, the threshold."""
    return {"seeds": n_seeds, "resamples": len(stats.seed_resamples(n_seeds)),
            "distinct": stats.distinct_resamples(n_seeds), "paired": True, "threshold": CLEAR_CONFIDENCE}


def changes(b_star: list[dict]) -> list[dict]:
    """The clear b* rows where the best window changes: the steps of the b*(r) curve."""
    out = []
    for row in b_star:
        if row["clear"] and (not out or row["window"] != out[-1]["window"]):
            out.append(row)
    return out


def analyse(sweep_result: dict, weights: tuple = WEIGHTS) -> dict:
    """Curves under a score weighting, the closed-form ceilings, crossovers of every pair, and b*(r)."""
    cfg = SweepConfig.from_dict(sweep_result["config"])
    if len(weights) != len(cfg.lags):
        raise ValueError(f"need one weight per lag ({len(cfg.lags)}), got {len(weights)}")
    records = {int(w): r for w, r in sweep_result["windows"].items()}
    windows = sorted(records)
    # a run cut by the time limit stops early: keep the checkpoints every window has
    steps = sorted(set.intersection(*(set(r["steps"]) for r in records.values())))
    flops = np.array(steps, dtype=float) * cfg.flops_per_step
    curves, ceilings = {}, {}
    for w in windows:
        index = [records[w]["steps"].index(s) for s in steps]
        per_seed = weighted([[seed[i] for i in index] for seed in records[w]["per_lag_accuracy"]], weights).numpy()
        curves[w] = {"mean": per_seed.mean(0), "min": per_seed.min(0), "max": per_seed.max(0), "per_seed": per_seed}
        ceilings[w] = ceiling(cfg.task, weights, w, cfg.n_layers)
    crossovers = []
    for i, a in enumerate(windows):
        for b in windows[i + 1:]:
            per_seed = [crossing(flops, curves[a]["per_seed"][s], curves[b]["per_seed"][s])
                        for s in range(len(cfg.seeds))]
            found = [x for x in per_seed if x is not None]
            crossovers.append({
                "more_structure": a, "less_structure": b,
                "flops_mean": 10 ** float(np.mean(np.log10(found))) if found else None,  # geometric mean
                "flops_min": min(found) if found else None, "flops_max": max(found) if found else None,
                "flops_per_seed": per_seed, "seeds_with_crossover": len(found), "seeds": len(cfg.seeds),
                "flops_of_mean_curves": crossing(flops, curves[a]["mean"], curves[b]["mean"]),
            })
    b_star = best_structure(flops, {w: curves[w]["per_seed"] for w in windows})
    shares = confidence_of({w: curves[w]["per_seed"] for w in windows})
    return {"windows": windows, "seeds": list(cfg.seeds), "weights": list(weights), "lags": list(cfg.lags),
            "steps": steps, "flops": flops, "flops_per_step": cfg.flops_per_step, "curves": curves,
            "ceilings": ceilings, "chance": 1.0 / cfg.n_symbols, "crossovers": crossovers, "b_star": b_star,
            "b_star_changes": changes(b_star), "top_share": shares, "bootstrap": bootstrap_design(len(cfg.seeds)),
            "config": sweep_result["config"], "stopped": sweep_result.get("stopped", "steps"),
            "steps_done": sweep_result.get("steps_done")}


def at_budget(analysis: dict, flops: float) -> dict | None:
    """Each window's seed-mean accuracy at a compute budget (log-linear between checkpoints) and the winner.

    None outside the measured range. `confidence`: the share of seed resamples in which the winner is on top
    at this budget (None for one seed); `clear` as in `best_structure`. `remove_at`: where the winner is
    overtaken by a less-structured window (the next crossover after the budget), i.e. when to take its
    structure out (slide 13).
    """
    xs = np.log10(analysis["flops"])
    x = math.log10(flops)
    if not xs[0] <= x <= xs[-1]:
        return None
    per_seed = {w: np.array([np.interp(x, xs, seed) for seed in c["per_seed"]])
                for w, c in analysis["curves"].items()}
    acc = {w: float(values.mean()) for w, values in per_seed.items()}
    ranked = sorted(acc, key=lambda w: -acc[w])
    winner = ranked[0]
    later = [c for c in analysis["crossovers"] if c["more_structure"] == winner and c["flops_of_mean_curves"]
             and c["flops_of_mean_curves"] > flops]
    remove = min(later, key=lambda c: c["flops_of_mean_curves"]) if later else None
    runner_up = ranked[1] if len(ranked) > 1 else None
    lead = acc[winner] - acc[runner_up] if runner_up is not None else math.inf
    shares = confidence_of(per_seed)
    confidence = None if shares is None else float(shares[winner])
    return {"flops": flops, "accuracy": acc, "winner": winner, "runner_up": runner_up, "lead": lead,
            "confidence": confidence, "clear": is_clear(lead, confidence), "remove_at": remove}
