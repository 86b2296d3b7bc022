"""One call that trains a model under either recipe, for experiments read once at the end of a run.

`train_by_recipe(recipe, ...)`: the old recipe is `explorer.train.train` as before; the reviewed one first chooses
this model size's learning rate from the recipe's grid (pilots on the pilot seed, read on its own held-out set,
cached per model, task and settings), then trains with warm-up, a stable phase and a decay to the end, and reads
the mean of the decay's last `readout_k` evaluations. Its history is the trunk's curve (each row `phase` "trunk")
ending with that readout (`phase` "readout"), so code that reads `history[-1]` reads the readout.
"""

from __future__ import annotations

from dataclasses import asdict, replace

from explorer import results
from explorer.lab.recipe import PILOT_SEED, LabRecipe, choose_lr
from explorer.model import TransformerConfig
from explorer.progress import SILENT, Progress
from explorer.train import TrainConfig, TrainResult, train

PILOT_KIND = "lab-pilot"  # one cached choice per (model, task, settings, grid)


def chosen_lr(
    recipe: LabRecipe, model_cfg: TransformerConfig, task: object, cfg: TrainConfig, progress: Progress = SILENT
) -> tuple[float, dict[str, float]]:
    """This model's rate under `recipe` and every pilot's selection loss (the old recipe: its one rate, no pilots)."""
    if recipe.name == "old":
        return cfg.lr, {}
    steps = recipe.pilot_steps(cfg.steps)
    key = {
        "model": model_cfg.to_dict(),
        "task": repr(task),
        "grid": list(recipe.lr_grid),
        "pilot_steps": steps,
        "train": {k: v for k, v in asdict(cfg).items() if k not in ("lr", "seed", "steps", "time_budget_s")},
        "schedule": recipe.schedule.describe(),
        "readout_k": recipe.k,
        "seed": PILOT_SEED,
    }
    found = results.load(PILOT_KIND, key, {"lr": float, "pilots": dict})
    if found is None:

        def pilot(lr: float) -> float:
            result = train(
                model_cfg,
                task,
                replace(cfg, lr=lr, steps=steps, seed=PILOT_SEED, eval_every=steps),
                progress,
                schedule=recipe.schedule,
                budgets=(steps,),
                readout_k=recipe.k,
            )
            return result.readouts.get(steps, {}).get("eval_loss", float("nan"))

        lr, losses = choose_lr(recipe.lr_grid, pilot)
        found = {"lr": lr, "pilots": {repr(k): v for k, v in losses.items()}}
        if not progress.should_stop():
            results.save(PILOT_KIND, key, found)
    return found["lr"], found["pilots"]


def train_by_recipe(
    recipe: LabRecipe, model_cfg: TransformerConfig, task: object, cfg: TrainConfig, progress: Progress = SILENT
) -> TrainResult:
    """Train under `recipe`; the result's `lr` and `pilots` say what was chosen (see the module's docstring)."""
    if recipe.name == "old":
        result = train(model_cfg, task, cfg, progress)
        result.lr, result.pilots = cfg.lr, {}
        return result
    lr, pilots = chosen_lr(recipe, model_cfg, task, cfg, progress.part(0.0, 0.2))
    result = train(
        model_cfg,
        task,
        replace(cfg, lr=lr),
        progress.part(0.2, 1.0),
        schedule=recipe.schedule,
        budgets=(cfg.steps,),
        readout_k=recipe.k,
    )
    branch = recipe.schedule.branch_start(cfg.steps)
    trunk = [{**row, "phase": "trunk"} for row in result.history if row["step"] <= branch]
    readout = result.readouts.get(cfg.steps)
    if readout is not None:
        last = result.history[-1]
        trunk.append(
            {
                **last,
                "eval_loss": readout["eval_loss"],
                "eval_accuracy": readout["eval_accuracy"],
                "phase": "readout",
                "readout_n": readout["n"],
            }
        )
    result.history, result.lr, result.pilots = trunk, lr, pilots
    return result
