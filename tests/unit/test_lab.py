"""The lab: one loop (bit for bit the old one under the old recipe), WSD readouts, the recipe, device, runner."""

from __future__ import annotations

import math

import pytest
import torch

from explorer.experiments import bidirectional_scaling as bs
from explorer.experiments import bitter_lesson as bl
from explorer.lab import device, estimate
from explorer.lab.fit import FitPlan, fit
from explorer.lab.protocol import Task
from explorer.lab.recipe import LabRecipe, choose_lr, of_config
from explorer.lab.runner import Units
from explorer.lab.runner import run as run_units
from explorer.lab.schedule import Schedule
from explorer.lab.tasks import SeqTask
from explorer.model import Transformer, TransformerConfig
from explorer.progress import Deadline
from explorer.tasks import Seq2SeqTask
from explorer.train import TrainConfig, held_out, train

TASK = Seq2SeqTask("sort", 6, 8)


def _model_cfg(width: int = 16, arch: str = "decoder") -> TransformerConfig:
    return TransformerConfig(arch=arch, vocab_size=TASK.vocab_size, d_model=width, n_heads=4, n_layers=1, max_len=12)


def test_every_task_declares_the_protocol():
    assert isinstance(SeqTask(TASK, "decoder"), Task)
    assert isinstance(bl.ReviewTask(bl.PRESETS["quick"], "order"), Task)


def test_wsd_decays_to_near_zero_at_each_budget_and_costs_the_branches():
    s = Schedule("wsd", warmup=4, decay_fraction=0.25)
    assert s.factor(3) == 0.75 and s.factor(50) == 1.0
    assert s.factor(40, budget=40) == pytest.approx(0.1) and s.factor(31, budget=40) == 1.0
    assert s.total_steps((20, 40)) == 30 + 5 + 10
    assert Schedule("constant", 4).total_steps((20, 40)) == 40


def test_the_old_recipe_is_the_old_loop_the_same_call_the_same_numbers():
    cfg = TrainConfig(steps=12, eval_every=4, seed=1, eval_size=32)
    a, b = train(_model_cfg(), TASK, cfg), train(_model_cfg(), TASK, cfg)
    assert [r["step"] for r in a.history] == [4, 8, 12]
    assert [r["eval_loss"] for r in a.history] == [r["eval_loss"] for r in b.history]
    assert a.readouts[12]["eval_loss"] == a.history[-1]["eval_loss"]


def test_wsd_reads_every_budget_from_its_own_decayed_branch():
    cfg = TrainConfig(steps=40, eval_every=40, seed=0, eval_size=64, lr=1e-2)
    result = train(_model_cfg(), TASK, cfg, schedule=Schedule("wsd", 5, 0.25), budgets=(20, 40), readout_k=2)
    assert set(result.readouts) == {20, 40}
    assert result.steps_done == 30 + 5 + 10  # trunk to 30, branches of 5 and 10 steps
    for budget, readout in result.readouts.items():
        assert readout["n"] == 2 and math.isfinite(readout["eval_loss"])
        rows = [r for r in result.history if r["step"] <= budget and r["step"] > budget - 10]
        assert rows  # the branch's evaluations are in the history
    assert result.readouts[40]["eval_loss"] < result.readouts[20]["eval_loss"]


def test_a_branch_sees_the_batches_the_trunk_would_have():
    """With decay fraction 1 nothing is shared but the data: budget b's branch equals a lone run to b."""
    s = Schedule("wsd", 2, 1.0)
    cfg = TrainConfig(steps=8, eval_every=8, seed=2, eval_size=16)
    both = train(_model_cfg(), TASK, cfg, schedule=s, budgets=(4, 8))
    alone = train(_model_cfg(), TASK, cfg, schedule=s, budgets=(8,))
    assert both.readouts[8]["eval_loss"] == alone.readouts[8]["eval_loss"]


def test_fit_stops_when_told_and_says_why():
    torch.manual_seed(0)
    model, task = Transformer(_model_cfg()), SeqTask(TASK, "decoder")
    plan = FitPlan(budgets=(10_000,), lr=3e-3, batch_size=8)
    result = fit(
        model, task, plan, torch.Generator().manual_seed(0), held_out(TASK, "decoder", 16, 0), progress=Deadline(0.3)
    )
    assert result.stopped == "time_budget" and 0 < result.steps_done < 10_000 and result.history


def test_the_recipe_declares_grid_schedule_and_readout():
    reviewed = LabRecipe("reviewed")
    record = reviewed.record({"16": 3e-3})
    assert set(record) >= {"lr_grid", "lr_by_size", "schedule", "readout"}
    assert record["lr_grid"][-1] / record["lr_grid"][0] >= 10 and "WSD" in record["schedule"]
    with pytest.raises(ValueError, match="10x"):
        LabRecipe("reviewed", lr_grid=(1e-3, 3e-3))
    old = of_config({"lr": 0.003, "widths": [8, 16]})
    assert old["name"] == "old" and old["lr_by_size"] == {"8": 0.003, "16": 0.003}


def test_choose_lr_takes_the_lowest_selection_loss_and_never_a_nan():
    best, losses = choose_lr((1e-3, 1e-2, 1e-1), lambda lr: {1e-3: 2.0, 1e-2: 1.0, 1e-1: float("nan")}[lr])
    assert best == 1e-2 and len(losses) == 3


def test_the_device_path_runs_on_the_cpu_through_the_same_code():
    assert device.resolve("auto").type in ("cpu", "cuda", "mps")
    assert device.cache_key("cpu") == {}
    with pytest.raises(ValueError, match="device must be one of"):
        device.resolve("tpu")
    cfg = TrainConfig(steps=4, eval_every=4, seed=0, eval_size=8)
    a = train(_model_cfg(), TASK, cfg, device="cpu")
    assert next(a.model.parameters()).device.type == "cpu"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_smoke():
    result = train(_model_cfg(), TASK, TrainConfig(steps=20, eval_every=10, seed=0, eval_size=32), device="cuda")
    assert math.isfinite(result.history[-1]["eval_loss"])


def test_the_runner_trains_what_is_missing_and_stops_between_units():
    trained = []

    def one(key: int, progress) -> dict:
        trained.append(key)
        return {"key": key, "stopped": "steps"}

    units = Units(keys=[1, 2, 3], train=one, from_shipped=lambda k: {"key": k, "stopped": "steps"} if k == 1 else None)
    out = run_units(units)
    assert [r["key"] for r in out.records] == [1, 2, 3] and trained == [2, 3] and out.stopped == "steps"
    stopped = run_units(Units(keys=[4, 5], train=one), Deadline(-1))
    assert stopped.records == [] and stopped.stopped == "time_budget"


def test_one_time_model():
    assert estimate.measured_rate([(2e9, 1.0), (6e9, 1.0)]) == 4e9
    assert estimate.seconds(8e9, 4e9) == 2.0 and estimate.measured_rate([]) is None


def test_bidirectional_scaling_on_the_reviewed_recipe_chooses_a_rate_per_width_and_reads_decayed_budgets():
    cfg = bs.with_recipe(bs.ScalingConfig(widths=(8, 16), budgets=(10, 20), seeds=(0,), eval_size=32), "reviewed")
    swept = bs.sweep(cfg, use_cache=False)
    assert swept["recipe"]["name"] == "reviewed" and set(swept["recipe"]["lr_by_size"]) == {"8", "16"}
    assert all(lr in cfg.lr_grid for lr in swept["recipe"]["lr_by_size"].values())
    assert swept["device"] == "cpu" and swept["config"]["recipe"] == "reviewed"
    assert {r["step"] for r in swept["runs"][0]["history"]} == {10, 20}
    assert len(bs.points(swept)) == 4
    assert "recipe" not in bs.PRESETS["main"].to_dict()  # the old recipe's configs read as before


def test_bitter_lesson_on_the_reviewed_recipe_reads_each_checkpoint_from_a_decayed_branch():
    from dataclasses import replace

    cfg = replace(bl.PRESETS["quick"], seeds=(0,), steps=16, eval_size=64, recipe="reviewed")
    result = bl.run(cfg)
    assert set(result["recipe"]["lr_by_size"]) == {"transformer", "hand-built"}
    assert result["recipe"]["lr_by_size"]["hand-built"] in [v * bl.HAND_LR_SCALE for v in cfg.lr_grid]
    for run in result["runs"]:
        assert run["data"] == [s * cfg.batch_size for s in cfg.checkpoint_steps()] and "lr" in run


def test_crossings_are_summarised_per_seed_by_their_geometric_mean():
    summary = bl.geometric_summary([1_000.0, 10_000.0])
    assert summary["geomean"] == pytest.approx(math.sqrt(1e7)) and summary["low"] < 1_000 < 10_000 < summary["high"]
    assert bl.geometric_summary([5.0])["low"] is None and bl.geometric_summary([]) is None


def test_train_by_recipe_ends_its_history_on_the_readout():
    from explorer.lab.recipe import LabRecipe
    from explorer.lab.reviewed import train_by_recipe

    cfg = TrainConfig(steps=20, eval_every=5, seed=0, eval_size=32)
    result = train_by_recipe(LabRecipe("reviewed", readout_k=2), _model_cfg(), TASK, cfg)
    assert result.lr in LabRecipe("reviewed").lr_grid and len(result.pilots) == 3
    assert result.history[-1]["phase"] == "readout" and result.history[-1]["readout_n"] == 2
    assert result.history[-1]["eval_loss"] == result.readouts[20]["eval_loss"]
    assert all(row["phase"] == "trunk" for row in result.history[:-1])
    old = train_by_recipe(LabRecipe("old"), _model_cfg(), TASK, cfg)
    assert old.lr == cfg.lr and old.history[-1]["step"] == 20
