"""Two designs of the one Transformer trained seed by seed with the lab's reviewed recipe: the shared engine of the
ladders whose experiments have no hook for width or task size (shared-params, depth, four-steps).

Each arm gets its own learning rate from the grid by pilots on `PILOT_SEED` (a seed no reported run uses), read
on that seed's own held-out set; then every seed trains both arms with the same batches and the same held-out
set (a seed fixes both), under a WSD schedule that decays at every budget, read out as the mean of the last
evaluations of each decay branch. Every run and every pilot choice is cached by its full settings and device.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, is_dataclass

import torch

from explorer import results
from explorer.costs import TRAIN_FLOPS_PER_FORWARD, check_size, parameter_count, sequence_forward_flops
from explorer.lab.device import cache_key as device_key
from explorer.lab.fit import FitPlan, fit
from explorer.lab.recipe import PILOT_SEED, LabRecipe, choose_lr
from explorer.model import TransformerConfig
from explorer.progress import SILENT, Progress
from explorer.train import TrainConfig, train

RUN_KIND, PILOT_KIND = "ladder-paired-run", "ladder-paired-pilot"
RUN_SHAPE = {"params": int, "readouts": dict, "seconds": float, "stopped": str}


@dataclass(frozen=True)
class Pair:
    """One rung of a paired claim: the arms' models (name -> config, first minus second is how claims read
    them), the task, the longest budget, the rate grid, and per arm any extra budgets read off the same run."""

    arms: dict[str, TransformerConfig]
    task: object
    steps: int
    grid: tuple[float, ...]
    budgets: dict[str, tuple[int, ...]] = field(default_factory=dict)
    batch_size: int = 32
    eval_size: int = 256

    def __post_init__(self) -> None:
        for cfg in self.arms.values():
            check_size(cfg)

    @property
    def recipe(self) -> LabRecipe:
        return LabRecipe("reviewed", lr_grid=self.grid)

    def arm_budgets(self, arm: str) -> tuple[int, ...]:
        return tuple(sorted(set(self.budgets.get(arm, ())) | {self.steps}))

    def flops_per_step(self, arm: str) -> int:
        cfg = self.arms[arm]
        if hasattr(self.task, "flops_per_step"):  # a task that is not sequence-to-sequence counts its own
            return int(self.task.flops_per_step(cfg, self.batch_size))
        return (
            TRAIN_FLOPS_PER_FORWARD
            * self.batch_size
            * sequence_forward_flops(cfg, self.task.input_len, self.task.target_len)
        )

    def params(self, arm: str) -> int:
        return parameter_count(self.arms[arm])

    def key(self, arm: str) -> dict:
        task = asdict(self.task) if is_dataclass(self.task) else repr(self.task)
        return {
            "model": self.arms[arm].to_dict(),
            "task": [type(self.task).__name__, task],
            "steps": self.steps,
            "budgets": list(self.arm_budgets(arm)),
            "batch_size": self.batch_size,
            "eval_size": self.eval_size,
            "recipe": self.recipe.record(),
        }


def _fit(pair: Pair, arm: str, seed: int, lr: float, budgets: tuple[int, ...], device: str, progress: Progress) -> dict:
    """A task that is not sequence-to-sequence (it offers `lab_task`, `init` and `held_out`): the lab's one loop
    directly, with the same seed conventions as `explorer.train` (a seed fixes initial weights, batches and the
    held-out set)."""
    recipe, cfg, task = pair.recipe, pair.arms[arm], pair.task
    model = task.init(cfg, seed)
    plan = FitPlan(
        budgets=budgets,
        lr=lr,
        schedule=recipe.schedule,
        batch_size=pair.batch_size,
        readout_k=recipe.k,
        flops_per_step=pair.flops_per_step(arm),
    )
    result = fit(
        model,
        task.lab_task(),
        plan,
        torch.Generator().manual_seed(seed),
        task.held_out(pair.eval_size, seed, torch.device(device)),
        device,
        progress,
    )
    return {
        "params": sum(p.numel() for p in model.parameters()),
        "seconds": float(result.seconds),
        "stopped": result.stopped,
        "readouts": {
            str(b): {k: float(r[k]) for k in ("eval_loss", "eval_accuracy")} for b, r in result.readouts.items()
        },
    }


def _train(
    pair: Pair, arm: str, seed: int, lr: float, steps: int, budgets: tuple[int, ...], device: str, progress: Progress
) -> dict:
    if hasattr(pair.task, "lab_task"):
        return _fit(pair, arm, seed, lr, budgets, device, progress)
    recipe = pair.recipe
    cfg = TrainConfig(
        steps=steps,
        batch_size=pair.batch_size,
        lr=lr,
        warmup=recipe.warmup,
        seed=seed,
        eval_every=steps,
        eval_size=pair.eval_size,
    )
    result = train(
        pair.arms[arm],
        pair.task,
        cfg,
        progress,
        schedule=recipe.schedule,
        budgets=budgets,
        readout_k=recipe.k,
        device=device,
    )
    return {
        "params": result.model.num_parameters(),
        "seconds": float(result.seconds),
        "stopped": result.stopped,
        "readouts": {
            str(b): {k: float(r[k]) for k in ("eval_loss", "eval_accuracy")} for b, r in result.readouts.items()
        },
    }


def choose(pair: Pair, arm: str, device: str, progress: Progress = SILENT, use_cache: bool = True) -> dict:
    """{"lr": the rate of the grid with the lowest pilot loss for `arm`, "pilots": {rate: loss}} (cached)."""
    steps = pair.recipe.pilot_steps(pair.steps)
    key = {**pair.key(arm), "pilot_seed": PILOT_SEED, "pilot_steps": steps, **device_key(device)}
    found = results.load(PILOT_KIND, key, {"lr": float, "pilots": dict}) if use_cache else None
    if found is None:

        def pilot(lr: float) -> float:
            run = _train(pair, arm, PILOT_SEED, lr, steps, (steps,), device, progress)
            return run["readouts"].get(str(steps), {}).get("eval_loss", float("nan"))

        lr, losses = choose_lr(pair.grid, pilot)
        found = {"lr": lr, "pilots": {repr(k): v for k, v in losses.items()}}
        if use_cache and not progress.should_stop():
            results.save(PILOT_KIND, key, found)
    return found


def run(pair: Pair, seeds: tuple[int, ...], device: str, progress: Progress = SILENT, use_cache: bool = True) -> dict:
    """Both arms at every seed: {"runs": {arm: {seed: {budget: {eval_loss, eval_accuracy}}}}, "lr": {arm: rate},
    "pilots", "seconds"}; seeds outermost, so a stopped ladder keeps whole pairs."""
    start, arms = time.perf_counter(), list(pair.arms)
    chosen = {
        arm: choose(
            pair,
            arm,
            device,
            progress.part(i / len(arms) * 0.2, (i + 1) / len(arms) * 0.2, f"pilots {arm}: "),
            use_cache,
        )
        for i, arm in enumerate(arms)
    }
    runs: dict[str, dict[int, dict]] = {arm: {} for arm in arms}
    jobs = [(seed, arm) for seed in seeds for arm in arms]
    for i, (seed, arm) in enumerate(jobs):
        if progress.should_stop():
            break
        key = {**pair.key(arm), "lr": chosen[arm]["lr"], "seed": seed, **device_key(device)}
        found = results.load(RUN_KIND, key, RUN_SHAPE) if use_cache else None
        if found is None:
            part = progress.part(0.2 + 0.8 * i / len(jobs), 0.2 + 0.8 * (i + 1) / len(jobs), f"{arm} seed {seed}: ")
            found = _train(pair, arm, seed, chosen[arm]["lr"], pair.steps, pair.arm_budgets(arm), device, part)
            if found["stopped"] != "steps":
                break
            if use_cache:
                results.save(RUN_KIND, key, found)
        runs[arm][seed] = found["readouts"]
    return {
        "runs": runs,
        "lr": {a: c["lr"] for a, c in chosen.items()},
        "pilots": {a: c["pilots"] for a, c in chosen.items()},
        "seconds": time.perf_counter() - start,
    }


def loss_gaps(
    runs: dict[str, dict[int, dict]],
    first: str,
    second: str,
    budget_first: int,
    budget_second: int,
    metric: str = "eval_loss",
) -> dict[int, float]:
    """{seed: `first`'s `metric` at `budget_first` minus `second`'s at `budget_second`}, seeds with both."""
    out = {}
    for seed, a in runs.get(first, {}).items():
        b = runs.get(second, {}).get(seed)
        if b is not None and str(budget_first) in a and str(budget_second) in b:
            out[seed] = a[str(budget_first)][metric] - b[str(budget_second)][metric]
    return out


def measured(pair: Pair, out: dict, effects: dict[int, float], arm: str, **extra: object):
    """A rung's `Measured`: `arm`'s parameters and training FLOPs, the chosen rates and any `extra`."""
    from explorer.ladder.claim import Measured

    return Measured(
        effects=effects,
        params=pair.params(arm),
        flops=float(pair.steps * pair.flops_per_step(arm)),
        seconds=out["seconds"],
        extra={"lr": out["lr"], **extra},
    )
