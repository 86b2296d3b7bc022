"""Running the toy experiment: reuse shipped or cached models, train the rest, and estimate how long that takes.

Shipped runs live in `data/lengths/<preset>.json` (written by `python -m explorer lengths`); a shorter run
with the same settings is cut out of them rather than retrained.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from explorer import content
from explorer import shipped as shipped_results
from explorer.costs import parameter_count, sequence_forward_flops
from explorer.experiments.lengths.toy import ARMS, ToyConfig, arm_config
from explorer.planning import Plan
from explorer.lab.reviewed import train_by_recipe
from explorer.lab.runner import Units
from explorer.lab.runner import run as run_units
from explorer.progress import SILENT, Progress

ROOT = Path(__file__).resolve().parents[3]
SHIPPED_DIR = ROOT / "data" / "lengths"
SECONDS_PER_MODEL_STEP = 0.035  # fallback speed (one model, one step, one thread, loaded server)
CACHE_KIND = "lengths-run"
RECORD_SHAPE = {  # what a cached model must hold (`explorer.shapes`)
    "lx": int,
    "ly": int,
    "arm": str,
    "seed": int,
    "parameters": int,
    "flops_per_example": int,
    "d_ff": int,
    "layers": int,
    "stopped": str,
    "seconds": float,
    "history": [{"step": int, "train_loss": float, "eval_loss": float, "eval_accuracy": float}],
}


def shipped_path(preset: str = "main") -> Path:
    return SHIPPED_DIR / f"{preset}.json"


def load_shipped(preset: str = "main") -> dict | None:
    return shipped_results.load(shipped_path(preset))


def record_key(cfg: ToyConfig, lx: int, ly: int, arm: str, seed: int) -> dict:
    """The cache key of one trained model: every setting, its lengths, arm, seed and steps."""
    return {**cfg.settings(), "steps": cfg.steps, "lx": lx, "ly": ly, "arm": arm, "seed": seed}


def train_one(cfg: ToyConfig, lx: int, ly: int, arm: str, seed: int, progress: Progress = SILENT) -> dict:
    """Train one model with `explorer.train`; its held-out history as plain data."""
    model_cfg = arm_config(cfg, lx, ly, arm)
    res = train_by_recipe(cfg.lab_recipe(), model_cfg, cfg.task(lx, ly), cfg.train_config(seed), progress)
    return {
        "lx": lx,
        "ly": ly,
        "arm": arm,
        "seed": seed,
        "parameters": parameter_count(model_cfg),
        "flops_per_example": sequence_forward_flops(model_cfg, lx, ly),
        "d_ff": model_cfg.ff_width,
        "layers": model_cfg.n_layers,
        "stopped": res.stopped,
        "seconds": res.seconds,
        "history": [{k: row[k] for k in ("step", "train_loss", "eval_loss", "eval_accuracy")} for row in res.history],
        **({"lr": res.lr} if cfg.recipe != "old" else {}),
    }


def from_shipped(cfg: ToyConfig, lx: int, ly: int, arm: str, seed: int, shipped: dict | None) -> dict | None:
    """The record a run of `cfg` would produce, cut out of a longer shipped run with the same settings."""
    if not shipped or shipped.get("stopped") != "steps":
        return None
    scfg = shipped["config"]
    # read back through the recipe, so a file written before a field existed has that field's default
    if not cfg.same_settings(ToyConfig.from_dict(scfg).to_dict()) or cfg.steps > scfg["steps"]:
        return None
    for rec in shipped["records"]:
        if (rec["lx"], rec["ly"], rec["arm"], rec["seed"]) == (lx, ly, arm, seed):
            return {**rec, "history": [r for r in rec["history"] if r["step"] <= cfg.steps]}
    return None


def plan(cfg: ToyConfig, shipped: dict | None = None, use_cache: bool = True) -> Plan[tuple[int, int, str, int]]:
    """Which (lx, ly, arm, seed) models are ready (shipped or cached) and which are still to train."""
    return units(cfg, shipped, use_cache).plan()


def units(
    cfg: ToyConfig,
    shipped: dict | None = None,
    use_cache: bool = True,
    train: Callable[[tuple[int, int, str, int], Progress], dict] | None = None,
) -> Units:
    """The models of `cfg` as the lab's runner sees them: (lx, ly, arm, seed), seeds outermost."""
    keys = [(lx, ly, arm, seed) for seed in cfg.seeds for lx, ly in cfg.ratios for arm in ARMS]
    return Units(
        keys=keys,
        train=train or (lambda unit, part: train_one(cfg, *unit, part)),
        from_shipped=lambda unit: from_shipped(cfg, *unit, shipped),
        cache=(CACHE_KIND, lambda unit: record_key(cfg, *unit)) if use_cache else None,
        shape=RECORD_SHAPE,
    )


def measured_rate(shipped: dict | None) -> float:
    """Seconds per model-step per token of sequence, from a shipped run (a fallback if there is none)."""
    if shipped and shipped.get("records"):
        spent = sum(r["seconds"] for r in shipped["records"])
        work = sum(r["history"][-1]["step"] * (r["lx"] + r["ly"]) for r in shipped["records"])
        if spent > 0 and work > 0:
            return spent / work
    return SECONDS_PER_MODEL_STEP / 24


def estimate_seconds(cfg: ToyConfig, missing: list[tuple], shipped: dict | None = None) -> float:
    rate = measured_rate(shipped)
    return sum(cfg.steps * (lx + ly) * rate for lx, ly, _, _ in missing)


def run(cfg: ToyConfig, shipped: dict | None = None, use_cache: bool = True, progress: Progress = SILENT) -> dict:
    """Every model of `cfg`: reused where possible, the rest trained now (complete ones go to the cache).

    When `progress` says to stop (a cancel or the time limit), the model in training stops at its next step;
    what is done so far is returned, marked `stopped="cut"`, and the analysis uses the seeds that are complete.
    """
    start = time.perf_counter()
    todo = units(cfg, shipped, use_cache)
    missing = todo.plan().missing

    def label(unit: tuple[int, int, str, int], i: int, n: int) -> str:
        lx, ly, arm, seed = unit
        return content.text(
            "messages",
            "lengths-run",
            i=missing.index(unit) + 1,
            total=len(missing),
            lx=lx,
            ly=ly,
            seed=seed,
            arm=content.text("lengths", f"arm-{arm.replace('_', '-')}"),
        )

    outcome = run_units(replace(todo, label=label), progress)
    ready = [r for r in outcome.records if r["stopped"] == "steps"]  # a cut model is dropped
    return {
        "config": cfg.to_dict(),
        "records": ready,
        "stopped": "steps" if outcome.stopped == "steps" else "cut",
        "trained": len(missing),
        "seconds": time.perf_counter() - start,
    }
