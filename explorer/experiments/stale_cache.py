"""Stale-cache error (slides 64-66): what a bidirectional model gets wrong when it keeps old keys and values.

A chat's first turn encodes n tokens and keeps every layer's keys and values; the next turn appends m tokens.
- Re-encoding runs all n + m tokens again, so old tokens read the new ones (what bidirectional attention needs).
- The stale path computes only the m new tokens: they read the old tokens' cached keys and values (made before
  the new tokens existed) and each other (`Transformer.forward(..., stale_cache_ok=True)`).

Both are scored on the m new positions, the outputs this turn computes, against the task's labels for the whole
n + m tokens: token accuracy each way and KL(re-encoded || stale) per position, averaged, in nats. (The old
positions keep their first-turn outputs either way in a chat that only reads the new ones.)

The causal rows run the very same trained weights under a causal mask. Old tokens never read later ones, so
their cached keys and values are what re-encoding computes: stale equals re-encoding by construction (float
rounding only, recorded as `max_abs_logit_diff`). Their accuracy is not a quality comparison: the weights were
trained bidirectionally.

Two tasks, because the size of the error depends on how much an output reads other tokens: sort (every output
depends on the whole input) and copy (each output is its own input token).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

import pandas as pd
import torch
import torch.nn.functional as F

from explorer import shipped
from explorer.experiments.cache import DATA_DIR, DRIFT_MODEL, DRIFT_TASK, causal_twin
from explorer.lab.runner import Units
from explorer.lab.runner import run as run_units
from explorer.model import KVCache, Transformer
from explorer.progress import SILENT, Progress
from explorer.recipe import Recipe, check_seeds
from explorer.tasks import RULES, Seq2SeqTask
from explorer.train import train

SHIPPED_PATH = DATA_DIR / "stale.json"
ARCHS = ("bidirectional", "causal")
METRICS = ("accuracy_reencode", "accuracy_stale", "kl")
ROW_KEYS = ("task", "n", "m", "arch", *METRICS)  # the CLI's `rows`, one per task, size and arch (seed means)
TEST_SEED = 7_000_003  # held-out chats: a generator no training batch uses; the same inputs for every model
MAX_SEEDS = 8


@dataclass(frozen=True)
class StaleConfig(Recipe):
    """Which encoders to train (the drift encoder's shape and recipe, one per task and seed) and where to test."""

    SLICES: ClassVar[tuple[str, ...]] = ("seeds", "sizes")
    tasks: tuple[str, ...] = ("sort", "copy")
    # optimizer steps per task: sort as the shipped drift encoder (2000); copy is learnt fully within 50
    task_steps: tuple[int, ...] = (2000, 200)
    seeds: tuple[int, ...] = (0, 1, 2)
    # (n old tokens, m new ones); the encoders were trained on 4 to 32 tokens, so n >= 4 and n + m <= 32
    sizes: tuple[tuple[int, int], ...] = tuple((n, m) for n in (4, 8, 16, 24) for m in (1, 2, 4, 8))
    test_chats: int = 1024  # held-out sequences per size
    batch_size: int = 32
    lr: float = 3e-3

    def __post_init__(self) -> None:
        super().__post_init__()
        check_seeds(self.seeds, MAX_SEEDS)
        if len(self.tasks) != len(self.task_steps) or not self.tasks:
            raise ValueError("give one step count per task")
        for name in self.tasks:
            if name not in RULES:
                raise ValueError(f"task must be one of {sorted(RULES)}, got {name!r}")
        for n, m in self.sizes:
            if n < DRIFT_TASK.min_length or m < 1 or n + m > DRIFT_TASK.length:
                raise ValueError(
                    f"sizes need n >= {DRIFT_TASK.min_length}, m >= 1 and n + m <= "
                    f"{DRIFT_TASK.length} (what the encoders read); got n={n}, m={m}"
                )
        if self.test_chats < 1 or min(self.task_steps) < 1:
            raise ValueError("test_chats and task_steps must be >= 1")


def train_encoder(cfg: StaleConfig, task: str, seed: int, progress: Progress = SILENT) -> tuple[Transformer, dict]:
    """The drift encoder's shape trained on `task` at 4-32 tokens; returns it and its held-out accuracy."""
    steps = cfg.task_steps[cfg.tasks.index(task)]
    result = train(
        DRIFT_MODEL, replace(DRIFT_TASK, name=task), cfg.train_config(seed, steps=steps, eval_every=steps), progress
    )
    final = result.history[-1]
    return result.model, {
        "task": task,
        "seed": seed,
        "steps": steps,
        "eval_accuracy": final["eval_accuracy"],
        "eval_loss": final["eval_loss"],
        "seconds": result.seconds,
    }


def test_chats(task: str, n: int, m: int, count: int) -> tuple[torch.Tensor, torch.Tensor]:
    """`count` held-out sequences of n + m symbols and their labels (the same for every model)."""
    gen = torch.Generator().manual_seed(TEST_SEED + 1000 * n + m)
    return Seq2SeqTask(task, n + m, DRIFT_TASK.n_symbols).sample(count, gen)


@torch.no_grad()
def stale_logits(model: Transformer, tokens: torch.Tensor, n: int) -> torch.Tensor:
    """Logits of the new tokens `tokens[:, n:]` computed on top of the first n tokens' cached keys/values."""
    cache = KVCache(model.cfg, tokens.shape[0], tokens.shape[1], dtype=model.tok_emb.weight.dtype)
    model(tokens[:, :n], cache=cache, stale_cache_ok=True)  # turn 1: encode the old tokens, keep their keys/values
    return model(tokens[:, n:], cache=cache, stale_cache_ok=True).logits  # [B, m, out]


@torch.no_grad()
def compare(model: Transformer, x: torch.Tensor, y: torch.Tensor, n: int) -> dict:
    """Re-encoding vs the stale cache on the new positions: accuracies, mean KL (nats), max |logit gap|."""
    full = model(x).logits[:, n:]  # [B, m, out]
    stale = stale_logits(model, x, n)
    labels = y[:, n:]
    kl = F.kl_div(stale.log_softmax(-1), full.log_softmax(-1), log_target=True, reduction="none").sum(-1)
    return {
        "accuracy_reencode": (full.argmax(-1) == labels).float().mean().item(),
        "accuracy_stale": (stale.argmax(-1) == labels).float().mean().item(),
        "kl": kl.mean().item(),
        "max_abs_logit_diff": (full - stale).abs().max().item(),
    }


def measure(model: Transformer, task: str, sizes: tuple[tuple[int, int], ...], count: int) -> list[dict]:
    """One record per size and arch for a trained encoder: its own (bidirectional) and its causal twin."""
    twin = causal_twin(model)
    records = []
    for n, m in sizes:
        x, y = test_chats(task, n, m, count)
        for arch, net in zip(ARCHS, (model, twin)):
            records.append({"task": task, "n": n, "m": m, "arch": arch, **compare(net, x, y, n)})
    return records


def run(cfg: StaleConfig, progress: Progress = SILENT) -> dict:
    """Train one encoder per task and seed, measure every size both ways; runs per seed, rows as seed means."""
    jobs = [(task, seed) for task in cfg.tasks for seed in cfg.seeds]

    def one(job: tuple[str, int], part: Progress) -> dict:
        task, seed = job
        model, info = train_encoder(cfg, task, seed, part)
        return {"info": info, "runs": [{**r, "seed": seed} for r in measure(model, task, cfg.sizes, cfg.test_chats)]}

    outcome = run_units(
        Units(
            keys=jobs,
            train=one,
            label=lambda job, i, n: f"{job[0]}, seed {job[1]}",
            weight=lambda job: cfg.task_steps[cfg.tasks.index(job[0])],
        ),
        progress,
    )
    models = [unit["info"] for unit in outcome.records]
    runs = [r for unit in outcome.records for r in unit["runs"]]
    return {"config": cfg.to_dict(), "models": models, "runs": runs, "rows": seed_means(runs)}


def summary(runs: list[dict]) -> pd.DataFrame:
    """Per task, size and arch: each metric's seed mean, min and max (`<metric>_low` / `_high`), and seeds."""
    df = pd.DataFrame(runs)
    grouped = df.groupby(["task", "n", "m", "arch"], sort=False)
    out = grouped[list(METRICS)].mean()
    for metric in METRICS:
        out[f"{metric}_low"] = grouped[metric].min()
        out[f"{metric}_high"] = grouped[metric].max()
    out["gap"] = out["accuracy_reencode"] - out["accuracy_stale"]
    out["max_abs_logit_diff"] = grouped["max_abs_logit_diff"].max()
    out["seeds"] = grouped["seed"].nunique()
    return out.reset_index()


def seed_means(runs: list[dict]) -> list[dict]:
    """The CLI's `rows`: exactly ROW_KEYS, one per task, size and arch, each metric the mean over seeds."""
    return summary(runs)[list(ROW_KEYS)].to_dict("records")


def every_seed_worse(runs: list[dict], task: str) -> bool:
    """Did the stale cache lose accuracy in every seed at every size (bidirectional, `task`)?"""
    rows = [r for r in runs if r["task"] == task and r["arch"] == "bidirectional"]
    return bool(rows) and all(r["accuracy_stale"] < r["accuracy_reencode"] for r in rows)


def seed_averages(runs: list[dict], sizes: set[tuple[int, int]] | None = None) -> list[dict]:
    """Per task and seed (bidirectional): accuracy lost to the stale cache and KL, averaged over the sizes
    (those in `sizes`, or all): one number per trained model, the unit the seeds replicate."""
    df = pd.DataFrame(
        [r for r in runs if r["arch"] == "bidirectional" and (sizes is None or (r["n"], r["m"]) in sizes)]
    )
    df["gap"] = df["accuracy_reencode"] - df["accuracy_stale"]
    return df.groupby(["task", "seed"], sort=False)[["gap", "kl"]].mean().reset_index().to_dict("records")


def headline(record: dict) -> dict:
    """The numbers the page's text quotes, per task: the accuracy lost over all sizes (seed mean and range),
    the size with the largest KL, and the causal check."""
    df = summary(record["runs"])
    bidir, causal = df[df["arch"] == "bidirectional"], df[df["arch"] == "causal"]
    gaps = pd.DataFrame(seed_averages(record["runs"])).groupby("task", sort=False)["gap"]
    trained = pd.DataFrame(record["models"]).groupby("task", sort=False)
    out = {
        "causal_max_kl": float(causal["kl"].abs().max()),
        "causal_max_logit_diff": float(causal["max_abs_logit_diff"].max()),
    }
    for task, rows in bidir.groupby("task", sort=False):
        worst = rows.loc[rows["kl"].idxmax()]
        out[task] = {
            "n": int(worst["n"]),
            "m": int(worst["m"]),
            "accuracy_reencode": float(worst["accuracy_reencode"]),
            "accuracy_stale": float(worst["accuracy_stale"]),
            "kl": float(worst["kl"]),
            "kl_low": float(worst["kl_low"]),
            "kl_high": float(worst["kl_high"]),
            "mean_gap": float(gaps.mean()[task]),
            "gap_low": float(gaps.min()[task]),
            "gap_high": float(gaps.max()[task]),
            "every_seed_worse": every_seed_worse(record["runs"], task),
            "ranges_apart": bool((rows["accuracy_reencode_low"] > rows["accuracy_stale_high"]).all()),
            "seeds": int(rows["seeds"].min()),
            "steps": int(trained["steps"].max()[task]),
            "trained_low": float(trained["eval_accuracy"].min()[task]),
            "trained_high": float(trained["eval_accuracy"].max()[task]),
        }
    return out


def load(path: Path = SHIPPED_PATH) -> dict | None:
    """The shipped result, or None when missing or not of this shape."""
    record = shipped.load(path)
    return record if record and all(k in record for k in ("config", "runs", "rows")) else None


def histories(record: dict) -> list[int]:
    """The history lengths n a record covers, sorted."""
    return sorted({n for n, _ in record["config"]["sizes"]})
