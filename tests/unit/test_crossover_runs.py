"""Real training runs of the crossover sweep: the CLI keys, the shipped data is complete, batched and one-by-one
training agree, runs of a seed share weights and data, the result cache serves a second call, a run shares its
curves while it trains, and (repro) the quick preset the page trains live shows a crossover."""

import contextlib
import io
import json
from dataclasses import replace

import pytest
import torch

from explorer import cli, results
from explorer.experiments.crossover import (
    CACHE_KIND,
    PRESETS,
    Run,
    SweepConfig,
    analyse,
    plan,
    run_key,
    sweep,
    train_runs,
)
from explorer.experiments.crossover_train import RunModels
from explorer.progress import Deadline, Progress
from explorer.recall import WEIGHTS, ceiling
from tests.conftest import ROOT

SHIPPED = ROOT / "data" / "crossover" / "main.json"


def _cli_json(*argv: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["crossover", *argv, "--json"]) == 0
    return json.loads(out.getvalue())


def test_the_cli_prints_widths_frontiers_and_b_star_with_confidence():
    out = _cli_json("--preset", "quick", "--steps", "12")  # the quick preset's sizes, a few steps
    quick = PRESETS["quick"]
    assert out["windows"] == [2, 48] and out["widths"] == list(quick.widths) and len(out["widths"]) >= 3
    for w in ("2", "48"):
        points = out["frontier"][w]
        assert set(points[0]) >= {"flops", "loss", "width"} and {p["width"] for p in points} <= set(quick.widths)
        assert all(a["loss"] >= b["loss"] for a, b in zip(points, points[1:]))  # the best loss so far
    assert set(out["b_star"][0]) >= {"flops", "window", "lead", "clear", "confidence"}
    assert all(0 <= r["confidence"] <= 1 for r in out["b_star"])
    assert out["bootstrap"]["seeds"] == 2 and out["bootstrap"]["resamples"] == 4  # all 2**2 draws
    assert set(out["crossovers"][0]) >= {"more_structure", "less_structure", "flops_mean", "seeds_with_crossover"}
    flops = [p["flops"] for p in out["frontier"]["2"]]
    assert flops[0] == pytest.approx(4 * SweepConfig().flops_per_step(quick.widths[0]))
    assert flops[-1] == pytest.approx(12 * SweepConfig().flops_per_step(quick.widths[-1]))


@pytest.mark.repro
def test_the_quick_preset_shows_a_crossover_and_a_moving_b_star():
    out = _cli_json("--preset", "quick")
    c = out["crossovers"][0]
    assert (c["more_structure"], c["less_structure"]) == (2, 48)
    assert c["seeds_with_crossover"] == 2, c  # both seeds: full attention's frontier overtakes the window of 2
    clear = [r["window"] for r in out["b_star"] if r["clear"]]
    assert clear[0] == 2 and clear[-1] == 48
    for w in (2, 48):  # measured accuracies never beat the closed-form ceilings (beyond held-out noise)
        assert out["accuracy"][str(w)][-1]["accuracy"] <= ceiling(PRESETS["quick"].task, WEIGHTS, w) + 0.02


@pytest.mark.skipif(not SHIPPED.is_file(), reason="no shipped results")
def test_the_shipped_main_results_are_complete():
    shipped = json.loads(SHIPPED.read_text())
    cfg = PRESETS["main"]
    assert shipped["stopped"] == "steps" and shipped["steps_done"] == cfg.steps and shipped["seconds"] > 0
    assert SweepConfig.from_dict(shipped["config"]) == cfg
    for run in cfg.runs:
        rec = shipped["runs"][run.key]
        assert rec["steps"] == cfg.checkpoints() and rec["seeds"] == list(cfg.seeds)
        assert all(len(seed) == len(rec["steps"]) for seed in rec["per_lag_accuracy"])


def test_batched_and_one_by_one_training_agree():
    cfg = SweepConfig(windows=(4,), widths=(16,), lrs=(1e-2,), seeds=(0, 1), steps=12, eval_size=32)
    batched = train_runs(cfg, cfg.runs)["runs"]["w4-d16-lr0.01"]
    single = train_runs(replace(cfg, batched=False), cfg.runs)["runs"]["w4-d16-lr0.01"]
    a, b = torch.tensor(batched["eval_loss"]), torch.tensor(single["eval_loss"])
    assert torch.allclose(a, b, atol=1e-4), (a - b).abs().max()


def test_every_window_and_rate_of_a_seed_and_width_start_from_the_same_weights_and_data():
    cfg = SweepConfig(windows=(2, 48), widths=(16, 32), seeds=(3,), steps=1)
    narrow, wide = RunModels(cfg, Run(2, 16, 3e-3)), RunModels(cfg, Run(48, 16, 1e-2))
    assert all(torch.equal(p, q) for p, q in zip(narrow._params, wide._params))
    bigger = RunModels(cfg, Run(2, 32, 3e-3))
    assert torch.equal(narrow.eval_x, bigger.eval_x)  # the same held-out set for every size
    assert torch.equal(narrow.task.sample(4, narrow.data[0]), bigger.task.sample(4, bigger.data[0]))


def test_a_finished_run_is_cached_and_a_time_cut_run_is_not(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    cfg = SweepConfig(windows=(3,), widths=(8,), lrs=(1e-2,), seeds=(0,), steps=8, eval_size=8)
    first = sweep(cfg)
    key = "w3-d8-lr0.01"
    assert first["sources"] == {key: "trained"} and first["stopped"] == "steps"
    assert results.load(CACHE_KIND, run_key(cfg, Run(3, 8, 1e-2))) == json.loads(json.dumps(first["runs"][key]))
    again = sweep(cfg, train=False)
    assert again["sources"] == {key: "cache"} and again["runs"] == json.loads(json.dumps(first["runs"]))
    cut = replace(cfg, windows=(5,), steps=400)
    partial = sweep(cut, progress=Deadline(0.0))
    assert partial["stopped"] == "time_budget" and partial["steps_done"] == 1
    assert partial["runs"]["w5-d8-lr0.01"]["steps"] == [1]
    assert plan(cut).missing == [Run(5, 8, 1e-2)]  # still missing: a partial run is never cached
    with pytest.raises(ValueError, match="no stored results for w5-d8-lr0.01"):
        sweep(cut, train=False)


def test_progress_reports_shares_curves_that_a_figure_can_draw_and_can_cancel():
    seen, shared = [], []

    class Stop(Exception):
        pass

    class StopHalfWay(Progress):
        def report(self, fraction: float, message: str) -> None:
            seen.append(fraction)
            if fraction >= 0.5:
                raise Stop

        def share(self, partial: dict) -> None:
            shared.append(partial)

    cfg = SweepConfig(windows=(2, 48), widths=(8, 16), lrs=(1e-2,), seeds=(0, 1), steps=20, eval_size=8)
    with pytest.raises(Stop):
        train_runs(cfg, cfg.runs, progress=StopHalfWay())
    assert seen == [0.25, 0.5]
    assert [p["steps_done"] for p in shared] == [s for s in cfg.checkpoints() if s <= 10]
    last = shared[-1]
    assert last["stopped"] == "running" and set(last["runs"]) == {r.key for r in cfg.runs}
    partial = analyse(last, bootstrap=False)  # what the page's live figure draws
    assert partial["top_share"] is None and partial["flops"][-1] == pytest.approx(10 * cfg.flops_per_step(16))
    assert len(shared[0]["runs"]["w2-d8-lr0.01"]["steps"]) == 1  # a snapshot: later checkpoints do not leak in
